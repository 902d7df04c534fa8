/* Opening books: see opening_book.h. */
#include "env/opening_book.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game/game.h"
#include "openings/opening.h"

int opening_cell_at(const variant *v, int dx, int dy)
{
    const geometry *g = &v->g;
    int row = g->centre / g->width - dy, col = g->centre % g->width + dx;
    if (g->kind == GEOM_TORUS) {
        row = ((row % g->height) + g->height) % g->height;
        col = ((col % g->width) + g->width) % g->width;
    }
    if (row < 0 || row >= g->height || col < 0 || col >= g->width)
        return -1;
    return row * g->width + col;
}

void opening_book_free(opening_book *book)
{
    free(book->first);
    free(book->cells);
    memset(book, 0, sizeof(*book));
}

int opening_book_init(opening_book *book, const variant *v, const int32_t *xy, const int32_t *first,
                      int n, char *err, size_t errlen)
{
    memset(book, 0, sizeof(*book));
    if (n <= 0)
        return 0;
    if (v->first_phase != PHASE_PLAY) {
        snprintf(err, errlen,
                 "openings need games that start in normal play; this variant opens with a "
                 "protocol (%s), which places the first stones itself",
                 protocol_phase_name(v->first_phase));
        return -1;
    }
    const int total = first[n];
    book->first = malloc(sizeof(int32_t) * ((size_t)n + 1));
    book->cells = malloc(sizeof(int16_t) * (size_t)(total > 0 ? total : 1));
    size_t state = (v->state_size + 63) & ~(size_t)63;
    board_hdr *b = aligned_alloc(64, state);
    if (!book->first || !book->cells || !b) {
        free(b);
        opening_book_free(book);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    memcpy(book->first, first, sizeof(int32_t) * ((size_t)n + 1));
    for (int j = 0; j < n; j++) {
        memcpy(b, v->initial, v->state_size);
        if (first[j + 1] <= first[j]) {
            snprintf(err, errlen, "opening %d has no stones", j + 1);
            goto fail;
        }
        for (int s = first[j]; s < first[j + 1]; s++) {
            const int dx = xy[2 * s], dy = xy[2 * s + 1];
            const int c = opening_cell_at(v, dx, dy);
            const char *why = c < 0                         ? "off the board"
                              : b->status != STATUS_ONGOING ? "after the game ended"
                                                            : game_illegal_reason(v, b, c);
            if (why) {
                snprintf(err, errlen, "opening %d, stone %d at offset (%d, %d): %s", j + 1,
                         s - first[j] + 1, dx, dy, why);
                goto fail;
            }
            book->cells[s] = (int16_t)c;
            game_step(v, b, c);
        }
        if (b->status != STATUS_ONGOING) {
            snprintf(err, errlen, "opening %d ends the game", j + 1);
            goto fail;
        }
    }
    book->n = n;
    free(b);
    return 0;
fail:
    free(b);
    opening_book_free(book);
    return -1;
}
