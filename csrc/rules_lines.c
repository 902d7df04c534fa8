/* Line rules of SPEC section 3: freestyle (run >= k), standard (run == k),
 * caro (run == k with conditions on the run's two end cells, four
 * conventions). A move wins if any axis through it wins. */
#include "game.h"
#include "lines.h"

static int caro_axis_wins(int conv, const uint8_t *cells, int len, int k, const int ends[2],
                          uint8_t stone)
{
    uint8_t opp = (uint8_t)(stone ^ 3);
    int opp0 = ends[0] != GEOM_NONE && cells[ends[0]] == opp;
    int opp1 = ends[1] != GEOM_NONE && cells[ends[1]] == opp;
    switch (conv) {
    case CARO_OPEN: /* the seed text: both end cells exist and are empty */
        return len == k && ends[0] != GEOM_NONE && ends[1] != GEOM_NONE &&
               cells[ends[0]] == CELL_EMPTY && cells[ends[1]] == CELL_EMPTY;
    case CARO_NOT_BOTH_BLOCKED: { /* a block is an opponent stone or the edge */
        int b0 = ends[0] == GEOM_NONE || opp0, b1 = ends[1] == GEOM_NONE || opp1;
        return len == k && !(b0 && b1);
    }
    case CARO_GOMOCUP: /* exactly k, not both ends opponent stones; the edge never blocks */
        return len == k && !(opp0 && opp1);
    default: /* CARO_GOMOCUP6: as gomocup, but overlines always win */
        return len > k || (len == k && !(opp0 && opp1));
    }
}

int lines_wins(const variant *v, const board_hdr *b, int p, uint8_t stone)
{
    const geometry *g = &v->g;
    const uint8_t *cells = board_cells_c(v, b);
    line_bits bits = board_line_bits_c(v, b, stone - 1);
    int k = v->p.connect, ends[2];
    switch (v->p.rule) {
    case RULE_FREESTYLE:
        for (int a = 0; a < g->n_axes; a++)
            if (line_run(g, cells, bits, p, a, stone, k, ends) >= k)
                return 1;
        return 0;
    case RULE_STANDARD:
        for (int a = 0; a < g->n_axes; a++)
            if (line_run(g, cells, bits, p, a, stone, k + 1, ends) == k)
                return 1;
        return 0;
    default: /* RULE_CARO */
        for (int a = 0; a < g->n_axes; a++) {
            int len = line_run(g, cells, bits, p, a, stone, k + 1, ends);
            if (len >= k && caro_axis_wins(v->p.caro_ends, cells, len, k, ends, stone))
                return 1;
        }
        return 0;
    }
}
