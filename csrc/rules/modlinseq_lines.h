/* MODLINSEQ's lines as sequences of positions (SPEC section 7).
 *
 * A line is the walk of the geometry's next-cell table along an axis, read
 * as the cells it meets in order: a path between walls, or a cycle (wrap,
 * tess, torus, bounce). On a bounce board a walk can meet a cell twice (a
 * spoke retraces from its corner; a reflected chord may cross itself), so a
 * line holds positions, and each position one cell. Each line is stored
 * once, read one way. A bounce line that retraces itself is its own reverse:
 * position p is met again, read backwards, at (mirror - p) mod its length,
 * and a run and its mirror image are one segment.
 *
 * Every (cell, axis) lies at one position; a position where a line turns
 * (a reflection, a corner) serves two axes of its cell. */
#ifndef FIVEROW_MODLINSEQ_LINES_H
#define FIVEROW_MODLINSEQ_LINES_H

#include <stddef.h>
#include <stdint.h>

#include "geometry/geometry.h"

typedef struct mls_lines {
    int n_lines, n_pos;
    int32_t *first;   /* [n_lines + 1]: line k holds positions first[k] .. first[k + 1] - 1 */
    int32_t *mirror;  /* [n_lines]: the reversal of a line that retraces itself, else -1 */
    uint8_t *cyclic;  /* [n_lines] */
    int16_t *cell;    /* [n_pos] */
    int32_t *line_of; /* [n_pos] */
    /* [n_pos]: the position after / before each along its line (a cycle
     * wraps), -1 past the ends of a path: walks read these, no arithmetic */
    int32_t *next, *prev;
    /* [n_cells * GEOM_MAX_AXES]: the distinct positions of each cell, one per
     * axis at most, -1 padded (none off the board) */
    int32_t *visits;
} mls_lines;

/* A run of positions along one line: n positions from lo (line-relative),
 * or the whole cycle (loop, lo = 0); head and tail are its first and last
 * positions in walk order. */
typedef struct mls_run {
    int line, lo, n, loop;
    int head, tail;
} mls_run;

mls_lines *mls_build(const geometry *g, char *err, size_t errlen);
void mls_free(mls_lines *L);

static inline int mls_len(const mls_lines *L, int line)
{
    return L->first[line + 1] - L->first[line];
}

/* The position k places after line-relative index i of a line (k may be
 * negative), or -1 past the end of a path. */
static inline int mls_at(const mls_lines *L, int line, int i, int k)
{
    int len = mls_len(L, line), j = i + k;
    if (L->cyclic[line])
        j = ((j % len) + len) % len;
    else if (j < 0 || j >= len)
        return -1;
    return L->first[line] + j;
}

/* The maximal run through position p of cells holding a tile (values[cell]
 * != 0) or equal to `also` (a cell about to be filled; -1 for none). */
mls_run mls_run_at(const mls_lines *L, const uint8_t *values, int p, int also);

/* One id per segment: the same for a run read from either end. */
int32_t mls_run_id(const mls_lines *L, mls_run r);

/* The longest run: a line meets each (cell, axis) at most twice. */
#define MLS_MAX_RUN (2 * GEOM_MAX_CELLS * GEOM_MAX_AXES)

/* The values along run r in walk order, -1 where it meets cell `also`
 * (values[] holds value + 1, 0 for empty). */
static inline void mls_run_values(const mls_lines *L, const uint8_t *values, mls_run r, int also,
                                  int8_t *out)
{
    for (int k = 0, p = r.head; k < r.n; k++, p = L->next[p])
        out[k] = (int8_t)(L->cell[p] == also ? -1 : values[L->cell[p]] - 1);
}

/* The positions just before and just after run r (-1 past a path's end; on
 * a cycle with one empty position, both are that position). */
static inline int mls_before(const mls_lines *L, mls_run r)
{
    return r.loop ? -1 : L->prev[r.head];
}
static inline int mls_after(const mls_lines *L, mls_run r)
{
    return r.loop ? -1 : L->next[r.tail];
}

#endif
