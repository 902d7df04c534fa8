/* Threats under a line rule (freestyle, standard, caro, renju), for the
 * solver and the threat player: the cells where a stone wins at once (five
 * points), the moves after which it would (fours), and the candidates for
 * threes.
 *
 * Candidates come from the k-cell windows along the geometry's lines (a
 * winning run of k or more holds a window of k stones), so every geometry
 * works alike; every four is then checked by the rule's own win test
 * (lines_wins), so "four" means exactly what the rule says: an exact five
 * for standard and renju black, caro's end condition, wrapping and turning
 * lines. */
#ifndef FIVEROW_THREATS_H
#define FIVEROW_THREATS_H

#include <stdint.h>

#include "game/variant.h"

typedef struct threat_tables {
    int k;            /* connect */
    int n_windows;    /* the k-cell windows of the geometry */
    int16_t *cells;   /* [n_windows * k] */
    int32_t *by_cell; /* the windows through each cell: [first[c] .. first[c + 1]) */
    int32_t *first;   /* [n_cells + 1] */
} threat_tables;

/* NULL when threats are defined for the variant's rule, else why not (a
 * message naming the rule). */
const char *threat_refusal(const variant *v);

/* Build the window table; -1 when out of memory. */
int threat_tables_init(threat_tables *t, const variant *v);
void threat_tables_free(threat_tables *t);

/* The cells a stone of `stone` may go on in normal play: empty, and for
 * black under renju not forbidden (a five is never forbidden). Bits over
 * cells, BITS_WORDS(n_cells) words. */
void threat_allowed(const variant *v, const board_hdr *b, uint8_t stone, uint64_t *out);

/* Five points: the cells of `allowed` where a stone of `stone` wins at once,
 * in cell order, at most max. */
int threat_fives(const variant *v, const board_hdr *b, uint8_t stone, const uint64_t *allowed,
                 int16_t *out, int max);

/* Fours: the cells c of `allowed` after which `stone` would have a five
 * point (stone has none now), in cell order, at most max. The board is
 * written during the call and restored. */
int threat_fours(const variant *v, const threat_tables *t, board_hdr *b, uint8_t stone,
                 const uint64_t *allowed, int16_t *out, int max);

/* Is c (in `allowed`) a four for `stone` (with no five point now)? The
 * board is written during the call and restored. */
int threat_is_four(const variant *v, board_hdr *b, uint8_t stone, const uint64_t *allowed, int c);

/* Does `stone` (c just played) have a move c2 in a window through c that
 * would make two five points or more (an open four, a double four)? Then
 * out = {c2, two of its five points}. The board is written during the call
 * and restored. */
int threat_open_four_move(const variant *v, const threat_tables *t, board_hdr *b, uint8_t stone,
                          const uint64_t *allowed, int c, int16_t out[3]);

/* Three candidates: cells of `allowed` in a window that holds k - 3 stones of
 * `stone`, nothing of the other colour, and is not already a four's window
 * (not checked further: the solver checks threats by searching). Cell order. */
int threat_threes(const variant *v, const threat_tables *t, const board_hdr *b, uint8_t stone,
                  const uint64_t *allowed, int16_t *out, int max);

/* How much each cell adds to `stone`'s windows (no opposing stone in them),
 * more for windows nearer k: an ordering of candidate moves. [n_cells] */
void threat_potential(const variant *v, const threat_tables *t, const board_hdr *b, uint8_t stone,
                      float *out);

#endif
