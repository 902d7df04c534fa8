/* The line machinery every five-in-a-row family shares (SPEC section 3):
 * runs through a stone judged by the variant's win descriptor (win_rule.h),
 * kept in the line bit sets as stones are placed, and the cells that would
 * win. A move wins if any axis through it wins. */
#include <string.h>

#include "game/game.h"
#include "game/opening_row.h"
#include "game/rule_family.h"
#include "geometry/lines.h"

int lines_wins(const variant *v, const board_hdr *b, int p, uint8_t stone)
{
    const geometry *g = &v->g;
    const uint8_t *cells = board_cells_c(v, b);
    line_bits bits = board_line_bits_c(v, b, stone - 1);
    const win_rule *w = &v->win[stone - 1];
    /* "k or more" needs to know a run reaches k; the others whether it exceeds k */
    int cap = v->win_shape[stone - 1] == WIN_SHAPE_AT_LEAST ? w->connect : w->connect + 1, ends[2];
    for (int a = 0; a < g->n_axes; a++) {
        int len = line_run(g, cells, bits, p, a, stone, cap, ends);
        if (win_rule_run_wins(w, cells, len, ends, stone))
            return 1;
    }
    return 0;
}

/* Add the stone to each axis's word and count its run from the value in hand:
 * one load and one store per axis. `shape` is a constant at each call site,
 * so the compiler makes one loop per shape of the win rule. */
static inline int place_bits(const variant *v, uint32_t *bits, const uint8_t *cells, int p,
                             uint8_t stone, int shape)
{
    const geometry *g = &v->g;
    const uint16_t *line_of = g->line_of + p * g->n_axes;
    const int n_axes = g->n_axes;
    const win_rule w = v->win[stone - 1];
    int win = 0, ends[2];
    for (int a = 0; a < n_axes; a++) {
        unsigned lp = line_of[a];
        uint32_t m = bits[lp / LINE_BITS] | (1u << (lp % LINE_BITS));
        bits[lp / LINE_BITS] = m;
        win |=
            win_rule_run_wins_shaped(&w, shape, cells, line_run_word(g, lp, m, ends), ends, stone);
    }
    return win;
}

int lines_place(const variant *v, board_hdr *b, int p, uint8_t stone)
{
    uint32_t *bits = board_line_bits(v, b, stone - 1);
    if (!bits)
        return lines_wins(v, b, p, stone);
    const uint8_t *cells = board_cells_c(v, b);
    switch (v->win_shape[stone - 1]) {
    case WIN_SHAPE_AT_LEAST:
        return place_bits(v, bits, cells, p, stone, WIN_SHAPE_AT_LEAST);
    case WIN_SHAPE_EXACT:
        return place_bits(v, bits, cells, p, stone, WIN_SHAPE_EXACT);
    default:
        return place_bits(v, bits, cells, p, stone, WIN_SHAPE_ENDS);
    }
}

/* Winning moves found through the line bit sets: only a line holding k - 1
 * of the mover's stones can be completed, and a move wins along the line it
 * completes, so the few such lines are searched instead of every cell.
 * Returns -1 when the board has no bit sets (or too many cells). */
#define WIN_SCAN_WORDS 64
static int winning_cells_by_lines(const variant *v, const board_hdr *b, uint8_t stone,
                                  const uint64_t *allowed, int32_t *out, int max)
{
    const geometry *g = &v->g;
    line_bits mine = board_line_bits_c(v, b, stone - 1),
              theirs = board_line_bits_c(v, b, 2 - stone);
    if (!mine || !theirs || BITS_WORDS(g->n_cells) > WIN_SCAN_WORDS)
        return -1;
    const uint8_t *cells = board_cells_c(v, b);
    const win_rule *w = &v->win[stone - 1];
    const int k = w->connect;
    uint64_t found[WIN_SCAN_WORDS] = {0};
    for (int line = 0; line < g->n_lines; line++) {
        const uint32_t m = mine[line];
        if (__builtin_popcount(m) < k - 1)
            continue;
        const unsigned len = g->line_len[line];
        const uint32_t full = len == 32 ? UINT32_MAX : (1u << len) - 1;
        for (uint32_t empty = ~(m | theirs[line]) & full; empty; empty &= empty - 1) {
            const unsigned pos = (unsigned)__builtin_ctz(empty);
            const int c = g->line_cells[line * LINE_BITS + pos];
            if (!((allowed[c / 64] >> (c % 64)) & 1))
                continue;
            int ends[2];
            int run = line_run_word(g, (unsigned)line * LINE_BITS + pos, m | (1u << pos), ends);
            if (win_rule_run_wins(w, cells, run, ends, stone))
                found[c / 64] |= 1ull << (c % 64);
        }
    }
    int n = 0; /* in cell order, as the scan below gives them */
    for (int w = 0; w < BITS_WORDS(g->n_cells) && n < max; w++)
        for (uint64_t x = found[w]; x && n < max; x &= x - 1)
            out[n++] = w * 64 + __builtin_ctzll(x);
    return n;
}

int lines_winning_cells(const variant *v, const board_hdr *b, uint8_t stone,
                        const uint64_t *allowed, int32_t *out, int max)
{
    const geometry *g = &v->g;
    int n = winning_cells_by_lines(v, b, stone, allowed, out, max);
    if (n >= 0)
        return n;
    const uint8_t *cells = board_cells_c(v, b);
    n = 0;
    for (int w = 0; w < BITS_WORDS(g->n_cells) && n < max; w++)
        for (uint64_t x = allowed[w]; x && n < max; x &= x - 1) {
            int c = w * 64 + __builtin_ctzll(x), near = 0;
            /* a winning cell touches a stone of the mover along some line */
            for (int od = 0; od < g->n_od && !near; od++) {
                int d = od, nb = geom_step(g, c, &d);
                near = nb != GEOM_NONE && cells[nb] == stone;
            }
            if (near && lines_wins(v, b, c, stone))
                out[n++] = c;
        }
    return n;
}

int lines_winning_moves(const variant *v, const board_hdr *b, int32_t *out, int max)
{
    if (b->phase != PHASE_PLAY || b->status != STATUS_ONGOING || !rule_has(v, RULE_TRAIT_LINES))
        return 0;
    return lines_winning_cells(v, b, (uint8_t)(b->colour + 1), board_legal_c(v, b), out, max);
}

int lines_five_stones(const variant *v, const board_hdr *b, uint8_t stone, int32_t *out, int max)
{
    /* the line bit sets leave inert stones out (Gomorpion's captured ones
     * never count toward a five); without bit sets a run would count them, so
     * no answer */
    const int inert = v->rules->inert_stones != NULL;
    if (rule_has(v, RULE_TRAIT_NO_COLOURS) || (inert && !v->n_line_words))
        return 0;
    uint64_t skip[BITS_WORDS(GEOM_MAX_CELLS)] = {0};
    if (inert)
        v->rules->inert_stones(v, b, skip);
    const uint8_t *cells = board_cells_c(v, b);
    int n = 0;
    for (int c = 0; c < v->g.n_cells && n < max; c++)
        if (cells[c] == stone && !bits_get(skip, c) && lines_wins(v, b, c, stone))
            out[n++] = c;
    return n;
}

/* The seat holding a colour. */
static inline int holder(const board_hdr *b, int colour)
{
    return colour == COLOUR_BLACK ? b->black_seat : b->black_seat ^ 1;
}

int lines_put_stone(const variant *v, board_hdr *b, int a, int colour)
{
    uint8_t stone = (uint8_t)(colour + 1);
    board_cells(v, b)[a] = stone;
    int wins = lines_place(v, b, a, stone);
    b->n_stones++;
    b->last_move = (int16_t)a;
    if (wins)
        game_end(b, holder(b, colour));
    return wins;
}

void game_end(board_hdr *b, int winner)
{
    b->status = STATUS_TERMINATED;
    b->winner = (int8_t)winner;
}

int game_holder(const board_hdr *b, int colour)
{
    return holder(b, colour);
}
