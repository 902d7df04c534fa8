/* Line rules of SPEC section 3: freestyle (run >= k), standard (run == k),
 * caro (run == k with conditions on the run's two end cells, four
 * conventions). A move wins if any axis through it wins. */
#include "game/game.h"
#include "geometry/lines.h"
#include "openings/opening.h"
#include "rules/gomorpion.h"

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

/* Does a run of len with these ends win along its axis under rule? */
static inline int axis_wins(int rule, int k, int conv, const uint8_t *cells, int len,
                            const int ends[2], uint8_t stone)
{
    switch (rule) {
    case RULE_FREESTYLE:
        return len >= k;
    case RULE_STANDARD:
        return len == k;
    default: /* RULE_CARO */
        return len >= k && caro_axis_wins(conv, cells, len, k, ends, stone);
    }
}

/* The five-in-a-row rule a stone is judged by. */
static inline int line_rule(const variant *v, uint8_t stone)
{
    if (v->p.rule == RULE_RENJU)
        return stone == CELL_BLACK ? RULE_STANDARD : RULE_FREESTYLE;
    if (v->p.rule == RULE_GOMORPION) /* a run of `connect` or more ends a cast */
        return RULE_FREESTYLE;
    return v->p.rule;
}

int lines_wins(const variant *v, const board_hdr *b, int p, uint8_t stone)
{
    const geometry *g = &v->g;
    const uint8_t *cells = board_cells_c(v, b);
    line_bits bits = board_line_bits_c(v, b, stone - 1);
    const int rule = line_rule(v, stone), k = v->p.connect, conv = v->p.caro_ends;
    /* freestyle needs to know a run reaches k; the others whether it exceeds k */
    int cap = rule == RULE_FREESTYLE ? k : k + 1, ends[2];
    for (int a = 0; a < g->n_axes; a++) {
        int len = line_run(g, cells, bits, p, a, stone, cap, ends);
        if (axis_wins(rule, k, conv, cells, len, ends, stone))
            return 1;
    }
    return 0;
}

/* Add the stone to each axis's word and count its run from the value in hand:
 * one load and one store per axis. `rule` is a constant at each call site, so
 * the compiler makes one loop per rule. */
static inline int place_bits(const variant *v, uint32_t *bits, const uint8_t *cells, int p,
                             uint8_t stone, int rule)
{
    const geometry *g = &v->g;
    const uint16_t *line_of = g->line_of + p * g->n_axes;
    const int n_axes = g->n_axes, k = v->p.connect, conv = v->p.caro_ends;
    int win = 0, ends[2];
    for (int a = 0; a < n_axes; a++) {
        unsigned lp = line_of[a];
        uint32_t m = bits[lp / LINE_BITS] | (1u << (lp % LINE_BITS));
        bits[lp / LINE_BITS] = m;
        win |= axis_wins(rule, k, conv, cells, line_run_word(g, lp, m, ends), ends, stone);
    }
    return win;
}

int lines_place(const variant *v, board_hdr *b, int p, uint8_t stone)
{
    uint32_t *bits = board_line_bits(v, b, stone - 1);
    if (!bits)
        return lines_wins(v, b, p, stone);
    const uint8_t *cells = board_cells_c(v, b);
    switch (line_rule(v, stone)) {
    case RULE_FREESTYLE:
        return place_bits(v, bits, cells, p, stone, RULE_FREESTYLE);
    case RULE_STANDARD:
        return place_bits(v, bits, cells, p, stone, RULE_STANDARD);
    default:
        return place_bits(v, bits, cells, p, stone, RULE_CARO);
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
    const int rule = line_rule(v, stone), k = v->p.connect, conv = v->p.caro_ends;
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
            if (axis_wins(rule, k, conv, cells, run, ends, stone))
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
    if (b->phase != PHASE_PLAY || b->status != STATUS_ONGOING || v->p.rule == RULE_MODLINSEQ ||
        v->p.rule == RULE_GOMORPION)
        return 0;
    return lines_winning_cells(v, b, (uint8_t)(b->colour + 1), board_legal_c(v, b), out, max);
}

int lines_five_stones(const variant *v, const board_hdr *b, uint8_t stone, int32_t *out, int max)
{
    /* gomorpion's line bit sets leave captured stones out (they never count
     * toward a five); without bit sets a run would count them, so no answer */
    if (v->p.rule == RULE_MODLINSEQ || (v->p.rule == RULE_GOMORPION && !v->n_line_words))
        return 0;
    const uint8_t *cells = board_cells_c(v, b);
    const uint8_t *status = v->p.rule == RULE_GOMORPION ? gomorpion_status_c(v, b) : NULL;
    int n = 0;
    for (int c = 0; c < v->g.n_cells && n < max; c++)
        if (cells[c] == stone && !(status && (status[c] & STONE_STATUS) == STONE_CAPTURED) &&
            lines_wins(v, b, c, stone))
            out[n++] = c;
    return n;
}
