/* The line rules of SPEC section 3 as one family: freestyle (run >= k),
 * standard (run == k), caro (run == k with conditions on the run's two end
 * cells, four conventions). What wins is the variant's win descriptor; the
 * runs are counted by the shared line machinery (game/lines_win.c). */
#include "rules/lines_rule.h"

#include <string.h>

#include "game/game.h"

static int lines_prepare(variant *v, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    static const int caro_ends[] = {[CARO_OPEN] = WIN_ENDS_BOTH_EMPTY,
                                    [CARO_NOT_BOTH_BLOCKED] = WIN_ENDS_NOT_BOTH_BLOCKED,
                                    [CARO_GOMOCUP] = WIN_ENDS_NOT_BOTH_OPPONENT,
                                    [CARO_GOMOCUP6] = WIN_ENDS_NOT_BOTH_OPPONENT};
    for (int c = 0; c < 2; c++) {
        win_rule *w = &v->win[c];
        w->connect = v->p.connect;
        w->ends = WIN_ENDS_ANY;
        w->overline = 1; /* freestyle */
        if (v->rule_flavour == LINES_STANDARD) {
            w->overline = 0;
        } else if (v->rule_flavour == LINES_CARO) {
            w->ends = caro_ends[v->p.caro_ends];
            w->overline = v->p.caro_ends == CARO_GOMOCUP6;
        }
    }
    return 0;
}

void lines_legal_empty(const variant *v, const board_hdr *b, uint64_t *legal)
{
    const uint8_t *cells = board_cells_c(v, b);
    for (int c = 0; c < v->g.n_cells; c++)
        if (cells[c] == CELL_EMPTY)
            bits_set(legal, c);
}

unsigned lines_pass_turn(const variant *v, board_hdr *b, int a, int wide)
{
    b->colour ^= 1;
    b->seat ^= 1;
    if (wide)
        return CHANGE_MASK_WIDE;
    bits_clear(board_legal(v, b), a);
    b->n_legal--;
    return 0;
}

static unsigned lines_apply(const variant *v, board_hdr *b, int a)
{
    lines_put_stone(v, b, a, b->colour);
    return lines_pass_turn(v, b, a, 0);
}

static int lines_put(const variant *v, board_hdr *b, int a, int colour)
{
    lines_put_stone(v, b, a, colour);
    return 0;
}

static void lines_derive(const variant *v, board_hdr *b)
{
    (void)v;
    (void)b;
}

static void lines_actions(const variant *v, rule_actions *out)
{
    out->action_cells = v->g.n_cells;
}

const rule_family rule_family_lines = {
    .name = "lines",
    .traits = RULE_TRAIT_LINES,
    .prepare = lines_prepare,
    .actions = lines_actions,
    .derive = lines_derive,
    .legal = lines_legal_empty,
    .apply = lines_apply,
    .put_stone = lines_put,
};
