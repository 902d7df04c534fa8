/* Board symmetries applied to observation planes with byte shuffles. A cell
 * permutation whose output row r takes its cells from one input row (or, on a
 * square board, one input column), through a column map shared by every row,
 * is a "separable" map: the 8 symmetries of the square, the 4 of a rectangle,
 * and the translations of a torus all are. On boards of at most 32 x 32 such
 * a map moves a plane with 16-byte shuffles, one to four per 16 cells of a
 * row (after a SIMD transpose when it takes columns), several times faster
 * than a gather of every cell; anything else is gathered cell by cell. */
#ifndef FIVEROW_PLANE_MAP_H
#define FIVEROW_PLANE_MAP_H

#include <stddef.h>
#include <stdint.h>

enum { PLANE_MAP_GATHER = 0, PLANE_MAP_ROWS = 1, PLANE_MAP_COLUMNS = 2 };

/* Bytes of slack a plane_map_apply source and destination need after their
 * last plane. */
#define PLANE_MAP_SLACK 32
/* The largest height and width the shuffles handle. */
#define PLANE_MAP_MAX 32

typedef struct plane_map {
    int kind;
    uint8_t row[PLANE_MAP_MAX];     /* output row r is input row (ROWS) / column (COLUMNS) row[r] */
    uint8_t columns[PLANE_MAP_MAX]; /* output column c is entry columns[c] of it */
    /* shuffle masks: bytes 16q..16q+15 of an output row from bytes 16p..16p+15
     * of its source row are shuffle(source half p, mask[q][p]) */
    uint8_t mask[2][2][16];
} plane_map;

/* Classify the permutation whose output cell d is input cell inverse[d], on
 * an h x w raster. */
void plane_map_classify(plane_map *m, const int32_t *inverse, int h, int w);

/* Move `planes` planes of h * w bytes from src to dst (src and dst with
 * PLANE_MAP_SLACK bytes of slack after them; not overlapping). */
void plane_map_apply(const plane_map *m, const int32_t *inverse, const uint8_t *src, uint8_t *dst,
                     int h, int w, size_t planes);

#endif
