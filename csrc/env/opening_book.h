/* Opening books for matches and datasets: short sequences of stones (black
 * first, then alternating) that each game of a run starts from, so that
 * deterministic players meet in different positions. Where seats alternate
 * by game number (matches), game k plays opening (k / 2) mod n, so each
 * opening is played once from each seat; with fixed seats (datasets),
 * opening k mod n.
 *
 * Stones are given as offsets (x to the right, y up) from the board's
 * centre cell, so one book serves every board size; a torus wraps them. A
 * book is checked once against its variant by playing every opening through
 * the game: each stone must be legal there, and the game still on after it. */
#ifndef FIVEROW_OPENING_BOOK_H
#define FIVEROW_OPENING_BOOK_H

#include <stddef.h>
#include <stdint.h>

#include "game/variant.h"

typedef struct opening_book {
    int n;          /* openings, 0: none */
    int32_t *first; /* [n + 1]: opening j is cells[first[j] .. first[j + 1]) */
    int16_t *cells;
} opening_book;

/* The raster cell at offset (dx, dy) from the centre, or -1 off the raster
 * (tori wrap). */
int opening_cell_at(const variant *v, int dx, int dy);

/* Build the book of n openings for v: opening j's stones are the offset
 * pairs xy[2 * first[j] ..] up to xy[2 * first[j + 1]]. 0, or -1 with a
 * message naming the opening, the stone and why (nothing is kept). */
int opening_book_init(opening_book *book, const variant *v, const int32_t *xy, const int32_t *first,
                      int n, char *err, size_t errlen);
void opening_book_free(opening_book *book);

/* The opening of game `game` of a run. */
static inline int opening_book_pick(const opening_book *book, int64_t game, int alternate)
{
    return (int)((alternate ? game / 2 : game) % book->n);
}

#endif
