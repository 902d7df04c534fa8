/* Renju as a rule family (SPEC section 4): the line machinery with black's
 * exact five, and black's forbidden points kept step by step (renju.c) as a
 * legal-set filter (forbidden="mask") or a loss (forbidden="lose"), shown in
 * their own observation plane. */
#include <stdlib.h>
#include <string.h>

#include "game/game.h"
#include "rules/families.h"
#include "rules/lines_rule.h"
#include "rules/renju.h"

static int prepare(variant *v, char *err, size_t errlen)
{
    for (int c = 0; c < 2; c++) { /* black: exactly five; white: five or more */
        v->win[c].connect = v->p.connect;
        v->win[c].overline = c == COLOUR_WHITE;
        v->win[c].ends = WIN_ENDS_ANY;
    }
    return renju_prepare(v, err, errlen);
}

static void release(variant *v)
{
    free(v->rule_data);
    v->rule_data = NULL;
}

static void actions(const variant *v, rule_actions *out)
{
    out->action_cells = v->g.n_cells;
}

static int planes(const variant *v, const char **absolute, const char **mover)
{
    (void)v;
    absolute[0] = mover[0] = "forbidden";
    return 1;
}

static void legal(const variant *v, const board_hdr *b, uint64_t *out)
{
    /* the empty cells are kept as bits: legal is a few word operations */
    const uint64_t *empty = renju_empty_c(v, b), *forbidden = renju_forbidden_c(v, b);
    int mask = v->p.forbidden == FORBIDDEN_MASK && b->colour == COLOUR_BLACK;
    for (int w = 0; w < BITS_WORDS(v->g.n_cells); w++)
        out[w] = empty[w] & (mask ? ~forbidden[w] : ~0ULL);
}

/* black wins with exactly five, white with five or more; with
 * forbidden="lose" a black foul that is not a five loses at once */
static int put_stone(const variant *v, board_hdr *b, int a, int colour)
{
    const uint64_t *forbidden = renju_forbidden_c(v, b);
    int foul = colour == COLOUR_BLACK && bits_get(forbidden, a);
    int wins = lines_put_stone(v, b, a, colour);
    /* black's legal set is not simply the empty cells when a foul stood
     * before or stands after this stone (forbidden="mask") */
    int words = BITS_WORDS(v->g.n_cells), any = 0;
    for (int w = 0; w < words; w++)
        any |= forbidden[w] != 0;
    renju_after_stone(v, b, a);
    for (int w = 0; w < words; w++)
        any |= forbidden[w] != 0;
    if (foul && !wins)
        game_end(b, game_holder(b, colour ^ 1));
    return any && v->p.forbidden == FORBIDDEN_MASK;
}

static unsigned apply(const variant *v, board_hdr *b, int a)
{
    return lines_pass_turn(v, b, a, put_stone(v, b, a, b->colour));
}

static const char *illegal_reason(const variant *v, const board_hdr *b, int action)
{
    if (b->colour != COLOUR_BLACK || !bits_get(renju_forbidden_c(v, b), action))
        return NULL;
    uint8_t scratch[GEOM_MAX_CELLS + 1];
    memcpy(scratch, board_cells_c(v, b), (size_t)v->g.n_cells + 1);
    switch (renju_status(v, scratch, action)) {
    case RENJU_OVERLINE:
        return "forbidden for black (overline)";
    case RENJU_DOUBLE_FOUR:
        return "forbidden for black (double-four)";
    default:
        return "forbidden for black (double-three)";
    }
}

static const uint64_t *forbidden(const variant *v, const board_hdr *b, int colour)
{
    return colour == COLOUR_BLACK ? renju_forbidden_c(v, b) : NULL;
}

static int is_foul(const variant *v, uint8_t *cells, int cell, int colour)
{
    return colour == COLOUR_BLACK && renju_status(v, cells, cell) >= RENJU_OVERLINE;
}

static void write_planes(const variant *v, const board_hdr *b, int kind, int viewer, uint8_t *out)
{
    (void)kind;
    (void)viewer;
    bits_to_bytes(renju_forbidden_c(v, b), v->g.n_cells, out);
}

static void snapshot(const variant *v, const board_hdr *b, rule_snapshot *s)
{
    memcpy(s->words, renju_forbidden_c(v, b), sizeof(uint64_t) * BITS_WORDS(v->g.n_cells));
}

static void update_planes(const variant *v, const board_hdr *b, const rule_snapshot *s, int action,
                          int prev_last, uint8_t *out)
{
    (void)action;
    (void)prev_last;
    const int n = v->g.n_cells;
    bits_to_bytes_changed(s->words, renju_forbidden_c(v, b), BITS_WORDS(n),
                          out + (size_t)v->plane_rule * (size_t)n);
}

const rule_family rule_family_renju = {
    .name = "renju",
    .traits = RULE_TRAIT_LINES | RULE_TRAIT_FOULS,
    .prefetch_derived = 1,
    .prepare = prepare,
    .release = release,
    .actions = actions,
    .derived_bytes = renju_state_bytes,
    .cache_bytes = renju_cache_bytes,
    .planes = planes,
    .derive = renju_derive,
    .forget_caches = renju_forget_cache,
    .legal = legal,
    .apply = apply,
    .put_stone = put_stone,
    .illegal_reason = illegal_reason,
    .forbidden = forbidden,
    .is_foul = is_foul,
    .write_planes = write_planes,
    .snapshot = snapshot,
    .update_planes = update_planes,
};
