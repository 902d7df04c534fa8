/* Connect6 as a rule family: the line machinery (game/lines_win.c) with
 * turns of several stones. See connect6.h. */
#include "rules/connect6.h"

#include <stdio.h>
#include <string.h>

#include "game/game.h"
#include "rules/families.h"
#include "rules/lines_rule.h"

static inline connect6_state *state_of(const variant *v, board_hdr *b)
{
    return (connect6_state *)((uint8_t *)b + v->off_rule_own);
}

static inline const connect6_state *state_of_c(const variant *v, const board_hdr *b)
{
    return (const connect6_state *)((const uint8_t *)b + v->off_rule_own);
}

/* Stones the turn in progress holds: the first turn (no stone was on the
 * board when it began) has first_turn_stones, every other stones_per_turn. */
static int turn_quota(const variant *v, const board_hdr *b)
{
    int before_turn = b->n_stones - state_of_c(v, b)->placed;
    return before_turn == 0 ? variant_family_param(v, CONNECT6_FIRST_TURN_STONES)
                            : variant_family_param(v, CONNECT6_STONES_PER_TURN);
}

static int prepare(variant *v, char *err, size_t errlen)
{
    if (v->p.protocol != PROTO_FREE && v->p.protocol != PROTO_CENTER) {
        /* the opening protocols' phases place one stone a turn */
        snprintf(err, errlen, "rule 'connect6' takes protocol 'free' or 'center'");
        return -1;
    }
    for (int c = 0; c < 2; c++) { /* connect or more of one colour */
        v->win[c].connect = v->p.connect;
        v->win[c].overline = 1;
        v->win[c].ends = WIN_ENDS_ANY;
    }
    return 0;
}

static void actions(const variant *v, rule_actions *out)
{
    out->action_cells = v->g.n_cells;
}

static size_t own_bytes(const variant *v)
{
    (void)v;
    return sizeof(connect6_state);
}

static int planes(const variant *v, const char **absolute, const char **mover)
{
    (void)v;
    absolute[0] = mover[0] = "later_stone_of_turn";
    return 1;
}

static void derive(const variant *v, board_hdr *b)
{
    (void)v;
    (void)b;
}

static unsigned apply(const variant *v, board_hdr *b, int a)
{
    connect6_state *s = state_of(v, b);
    lines_put_stone(v, b, a, b->colour);
    s->placed++;
    if (s->placed < turn_quota(v, b)) { /* the same seat places the turn's next stone */
        bits_clear(board_legal(v, b), a);
        b->n_legal--;
        return 0;
    }
    s->placed = 0;
    return lines_pass_turn(v, b, a, 0);
}

static void write_planes(const variant *v, const board_hdr *b, int kind, int viewer, uint8_t *out)
{
    (void)kind;
    (void)viewer;
    memset(out, state_of_c(v, b)->placed > 0, (size_t)v->g.n_cells);
}

static void update_planes(const variant *v, const board_hdr *b, const rule_snapshot *s, int action,
                          int prev_last, uint8_t *out)
{
    (void)s;
    (void)action;
    (void)prev_last;
    write_planes(v, b, OBS_ABSOLUTE, b->seat, out + (size_t)v->plane_rule * (size_t)v->g.n_cells);
}

static const char *check(const variant *v, const board_hdr *b)
{
    const connect6_state *s = state_of_c(v, b);
    if (s->placed >= turn_quota(v, b) || s->placed > b->n_stones)
        return "connect6: more stones placed this turn than the turn holds";
    return NULL;
}

static const rule_param params[] = {
    [CONNECT6_STONES_PER_TURN] = {"stones_per_turn", 2, NULL, 1, 4, 0},
    [CONNECT6_FIRST_TURN_STONES] = {"first_turn_stones", 1, NULL, 1, 4, 0},
};

const rule_family rule_family_connect6 = {
    .name = "connect6",
    .traits = RULE_TRAIT_LINES | RULE_TRAIT_MULTI_STONE_TURNS,
    .params = params,
    .n_params = 2,
    .prepare = prepare,
    .actions = actions,
    .own_bytes = own_bytes,
    .planes = planes,
    .derive = derive,
    .legal = lines_legal_empty,
    .apply = apply,
    .write_planes = write_planes,
    .update_planes = update_planes,
    .check = check,
};
