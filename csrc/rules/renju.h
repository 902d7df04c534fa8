/* Renju (SPEC section 4): black wins with exactly five, white with five or
 * more; black's overline, double-four and double-three are forbidden, with
 * the recursive check for threes and "five beats every foul".
 *
 * Each board keeps, for every empty cell, a 4-bit pattern code per axis (what
 * a black stone there would make along that axis), the set of forbidden
 * cells, and the set of cells whose status needs the recursive three check
 * (two or more axes with a three). A stone changes the codes only of cells
 * within five along its own lines; cells needing recursion are re-evaluated
 * after every stone, since a far stone can change what their threes rest
 * on. The tests compare this against a full recomputation at every step. */
#ifndef FIVEROW_RENJU_H
#define FIVEROW_RENJU_H

#include <stddef.h>
#include <stdint.h>

#include "game/variant.h"

/* What a black stone at an empty point is. */
enum renju_status {
    RENJU_LEGAL = 0,
    RENJU_FIVE = 1, /* legal, and it wins */
    RENJU_OVERLINE = 2,
    RENJU_DOUBLE_FOUR = 3,
    RENJU_DOUBLE_THREE = 4
};

/* Check the geometry (-1 with a message if renju cannot be played on it)
 * and build the variant's renju tables. */
int renju_prepare(variant *v, char *err, size_t errlen);
/* Bytes of renju state derived from the cells, at off_rule_derived. */
size_t renju_state_bytes(const variant *v);
/* Bytes of the cache of recursive checks, at off_cache (not derived from
 * the cells alone: forgotten when a state is installed). */
size_t renju_cache_bytes(const variant *v);
void renju_forget_cache(const variant *v, board_hdr *b);

/* The forbidden set of a board (cells as bits). */
static inline uint64_t *renju_forbidden(const variant *v, board_hdr *b)
{
    return (uint64_t *)((uint8_t *)b + v->off_rule_derived);
}
static inline const uint64_t *renju_forbidden_c(const variant *v, const board_hdr *b)
{
    return (const uint64_t *)((const uint8_t *)b + v->off_rule_derived);
}

/* The empty cells of a board (as bits): what legal sets start from. */
static inline uint64_t *renju_empty(const variant *v, board_hdr *b)
{
    return renju_forbidden(v, b) + BITS_WORDS(v->g.n_cells);
}
static inline const uint64_t *renju_empty_c(const variant *v, const board_hdr *b)
{
    return renju_forbidden_c(v, b) + BITS_WORDS(v->g.n_cells);
}

/* Status of a black stone at empty cell p of cells (cells are modified during
 * the call and restored). Works from the cells alone. */
int renju_status(const variant *v, uint8_t *cells, int p);

/* Recompute every empty cell's codes and the forbidden set from the cells. */
void renju_derive(const variant *v, board_hdr *b);
/* Keep codes and the forbidden set exact after a stone went on m. */
void renju_after_stone(const variant *v, board_hdr *b, int m);

#endif
