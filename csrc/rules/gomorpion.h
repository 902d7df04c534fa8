/* Gomorpion (SPEC section 6, seed 001): a scoring game of many casts on a
 * plane board. Each stone has a colour (in cells[]) and a status (here):
 * live, recapturable or captured, plus a "safe" mark for a stone played in
 * its own colour's siege. A five of non-captured stones ends a cast; its
 * resolution captures stones for seats, and points decide the game.
 *
 * Per-board state at variant.off_rule_own: the header below, then
 * status[n_cells] (padded to 8 bytes), then bit sets of cells: empty,
 * sieged by black, sieged by white, solid. The line bit sets (lines.h) hold
 * the non-captured stones only, so runs never count a captured stone. */
#ifndef FIVEROW_GOMORPION_H
#define FIVEROW_GOMORPION_H

#include <stddef.h>
#include <stdint.h>

#include "game/variant.h"

enum { STONE_LIVE = 0, STONE_RECAPTURABLE = 1, STONE_CAPTURED = 2, STONE_STATUS = 3 };
enum { STONE_SAFE = 4 }; /* flag: played in its own colour's unbroken siege this cast */

typedef struct gomorpion_state {
    int32_t score[2];       /* points by colour (seat 0 holds black) */
    int32_t cast_points[2]; /* points of the last cast that ended */
    int32_t step_points[2]; /* points scored by the last step */
    int32_t casts;          /* casts ended so far */
    int32_t pad;
} gomorpion_state;

static inline gomorpion_state *gomorpion_of(const variant *v, board_hdr *b)
{
    return (gomorpion_state *)((uint8_t *)b + v->off_rule_own);
}
static inline const gomorpion_state *gomorpion_of_c(const variant *v, const board_hdr *b)
{
    return (const gomorpion_state *)((const uint8_t *)b + v->off_rule_own);
}
static inline uint8_t *gomorpion_status(const variant *v, board_hdr *b)
{
    return (uint8_t *)(gomorpion_of(v, b) + 1);
}
static inline const uint8_t *gomorpion_status_c(const variant *v, const board_hdr *b)
{
    return (const uint8_t *)(gomorpion_of_c(v, b) + 1);
}
/* Bit sets: k = 0 empty, 1 sieged by black, 2 sieged by white, 3 solid. */
static inline uint64_t *gomorpion_bits(const variant *v, board_hdr *b, int k)
{
    size_t status_bytes = ((size_t)v->g.n_cells + 7) & ~(size_t)7;
    return (uint64_t *)(gomorpion_status(v, b) + status_bytes) +
           (size_t)k * BITS_WORDS(v->g.n_cells);
}
static inline const uint64_t *gomorpion_bits_c(const variant *v, const board_hdr *b, int k)
{
    return gomorpion_bits(v, (board_hdr *)b, k);
}
enum { GBITS_EMPTY = 0, GBITS_SIEGED = 1, GBITS_SOLID = 3 }; /* sieged by colour c: 1 + c */

int gomorpion_prepare(const variant *v, char *err, size_t errlen);
size_t gomorpion_state_bytes(const variant *v);

/* From cells and statuses: empty bits and the sieges (as at a cast end). */
void gomorpion_derive(const variant *v, board_hdr *b);
/* Legal cells for the colour to place: empty, not in a solid opposing siege. */
void gomorpion_legal(const variant *v, const board_hdr *b, int colour, uint64_t *legal);
/* Play a stone of the colour to place; returns CHANGE_* flags. Handles cast
 * ends, the turn, and the end of the game. */
unsigned gomorpion_apply(const variant *v, board_hdr *b, int a);

/* Why a gomorpion state is inconsistent (statuses, sieges, scores), or NULL. */
const char *gomorpion_check(const variant *v, const board_hdr *b);

#endif
