/* MODLINSEQ (SPEC section 7, seed 003): number tiles 0..M-1 placed so that
 * every unbroken segment along every line is an arithmetic progression mod M.
 *
 * Actions: cell * M + value places a tile from the hand; then END_TURN, or
 * PASS instead of any tile. cells[] holds CELL_BLACK where a tile lies (so
 * the common code sees occupied cells); the values are here. Per-board state
 * at variant.off_rule_own: the header below, then values[n_cells] (value + 1,
 * 0 empty), hands[2][M] (counts), bag[M * copies] (the shuffled tiles, drawn
 * from bag_pos on), placed[cell words] (this turn's tiles).
 *
 * Derived from the tiles (at variant.off_rule_derived, checked like the other
 * derived data): fit[n_cells], the values (bits) each empty cell allows, 0 on
 * tiles and off the board; then frontier[cell words], the empty cells next
 * to a tile. A tile changes the fit of the empty cells just past the ends of
 * its segments only: the mask is read from fit, not searched. */
#ifndef FIVEROW_MODLINSEQ_H
#define FIVEROW_MODLINSEQ_H

#include <stddef.h>
#include <stdint.h>

#include "game/variant.h"
#include "rules/modlinseq_lines.h"

enum { MODLINSEQ_END_TURN = 0, MODLINSEQ_PASS = 1, MODLINSEQ_SPECIALS = 2 };
#define MODLINSEQ_BAG_BITS 9 /* the bag holds at most 36 * 8 = 288 tiles */

typedef struct modlinseq_state {
    int32_t score[2];       /* by seat */
    int32_t step_points[2]; /* scored by the last step */
    int32_t turns;          /* turns ended (END_TURN or PASS) */
    int16_t turn_first;     /* the turn's first tile, -1 before it */
    uint8_t turn_tiles;     /* tiles placed this turn */
    uint8_t passes;         /* passes in succession */
    uint8_t opened;         /* 1 once the first turn with tiles has ended */
    uint8_t pad0;
    uint16_t bag_pos; /* tiles drawn from the bag so far */
    uint8_t pad[4];   /* to a multiple of 8 bytes: bit sets follow */
} modlinseq_state;

static inline modlinseq_state *modlinseq_of(const variant *v, board_hdr *b)
{
    return (modlinseq_state *)((uint8_t *)b + v->off_rule_own);
}
static inline const modlinseq_state *modlinseq_of_c(const variant *v, const board_hdr *b)
{
    return (const modlinseq_state *)((const uint8_t *)b + v->off_rule_own);
}
static inline uint8_t *modlinseq_values(const variant *v, board_hdr *b)
{
    return (uint8_t *)(modlinseq_of(v, b) + 1);
}
static inline const uint8_t *modlinseq_values_c(const variant *v, const board_hdr *b)
{
    return (const uint8_t *)(modlinseq_of_c(v, b) + 1);
}
static inline uint8_t *modlinseq_hand(const variant *v, board_hdr *b, int seat)
{
    return modlinseq_values(v, b) + v->g.n_cells + (size_t)seat * (size_t)v->p.modulus;
}
static inline const uint8_t *modlinseq_hand_c(const variant *v, const board_hdr *b, int seat)
{
    return modlinseq_hand(v, (board_hdr *)b, seat);
}
static inline uint8_t *modlinseq_bag(const variant *v, board_hdr *b)
{
    return modlinseq_hand(v, b, 2);
}
static inline uint64_t *modlinseq_placed(const variant *v, board_hdr *b)
{
    size_t bytes = (size_t)v->g.n_cells + (size_t)v->p.modulus * (2 + (size_t)v->p.copies);
    return (uint64_t *)(modlinseq_values(v, b) + ((bytes + 7) & ~(size_t)7));
}
static inline const uint64_t *modlinseq_placed_c(const variant *v, const board_hdr *b)
{
    return modlinseq_placed(v, (board_hdr *)b);
}

static inline uint64_t *modlinseq_fit(const variant *v, board_hdr *b)
{
    return (uint64_t *)((uint8_t *)b + v->off_rule_derived);
}
static inline const uint64_t *modlinseq_fit_c(const variant *v, const board_hdr *b)
{
    return modlinseq_fit(v, (board_hdr *)b);
}
static inline uint64_t *modlinseq_frontier(const variant *v, board_hdr *b)
{
    return modlinseq_fit(v, b) + v->g.n_cells;
}
static inline const uint64_t *modlinseq_frontier_c(const variant *v, const board_hdr *b)
{
    return modlinseq_frontier(v, (board_hdr *)b);
}

/* The lines as sequences of positions (modlinseq_prepare builds them). */
static inline const mls_lines *modlinseq_lines_of(const variant *v)
{
    return (const mls_lines *)v->rule_data;
}

static inline int modlinseq_bag_size(const variant *v)
{
    return v->p.modulus * v->p.copies;
}

int modlinseq_prepare(const variant *v, char *err, size_t errlen);
size_t modlinseq_state_bytes(const variant *v);
size_t modlinseq_derived_bytes(const variant *v);
/* Rebuild fit and frontier from the tiles (the slow, exact way). */
void modlinseq_derive(const variant *v, board_hdr *b);

/* A new game: shuffle the bag with the episode's random stream, deal hands. */
void modlinseq_start(const variant *v, board_hdr *b, uint64_t key, uint32_t *ctr);
/* The legal actions of the seat to act into legal (zeroed); returns how many. */
int modlinseq_legal(const variant *v, const board_hdr *b, uint64_t *legal);
/* Apply a legal action (a tile, END_TURN or PASS). */
void modlinseq_apply(const variant *v, board_hdr *b, int action);
/* Points END_TURN would score now: every distinct segment through a tile
 * placed this turn, (n - 1)(n - 2) / 2 each. */
int modlinseq_turn_points(const variant *v, const board_hdr *b);

/* Observation planes (see variant.c) of a board as seat `viewer` sees it
 * (its own hand), into zeroed out. */
void modlinseq_write_obs(const variant *v, const board_hdr *b, int viewer, uint8_t *out);
/* The planes that hold one value over the board, in their order from
 * seat_0_to_act on (seat, hand, hand2, bag bits): their values as bits of
 * want[MODLINSEQ_UNIFORM_WORDS]. */
#define MODLINSEQ_UNIFORM_WORDS 2 /* 1 + 2 * 36 + MODLINSEQ_BAG_BITS planes at most */
void modlinseq_uniform_planes(const variant *v, const board_hdr *b, int viewer, uint64_t *want);
/* After `action` (prev_last: the last tile before it), bring out from the
 * observation before the step to the one after, for the seat to act now;
 * shown: modlinseq_uniform_planes before the step. Only what changed is
 * written (out is too big to read back cheaply). */
void modlinseq_update_obs(const variant *v, const board_hdr *b, const uint64_t *shown, int action,
                          int prev_last, uint8_t *out);
/* Why an action is not legal now. */
const char *modlinseq_illegal_reason(const variant *v, const board_hdr *b, int action);

/* Every distinct segment of two or more tiles, each as the cells met along
 * its walk (a bounce walk can meet a cell twice), written one after the other
 * into cells with their lengths in lengths; returns the number of segments
 * (at most max, cells at most max_cells). */
int modlinseq_segments(const variant *v, const board_hdr *b, int16_t *cells, int max_cells,
                       int *lengths, int max);
/* Is every segment an arithmetic progression mod M? NULL, or why not. */
const char *modlinseq_check(const variant *v, const board_hdr *b);
/* Install tiles (values + 1, 0 empty) and the hands' counts, refilling the bag
 * with what is left; NULL or why the position was refused. */
const char *modlinseq_load(const variant *v, board_hdr *b, const uint8_t *values,
                           const uint8_t *hands, uint64_t key, uint32_t *ctr);

#endif
