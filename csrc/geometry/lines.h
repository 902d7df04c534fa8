/* Runs of stones along the lines of a geometry: the primitive every line rule
 * (and later the players' pattern features) is built on.
 *
 * Three ways to count, fastest first, chosen by what the geometry offers:
 * per-line bit sets (lines of at most LINE_BITS cells: plane, small torus),
 * precomputed rays (other non-turning geometries: the strip, large tori), and
 * a walk with a visited list (lines that turn at bounce edges). */
#ifndef FIVEROW_LINES_H
#define FIVEROW_LINES_H

#include <stdint.h>

#include "geometry/geometry.h"

#define LINE_MAX_CAP 33

/* The words of one colour's line bit sets of a board, or NULL. */
typedef const uint32_t *line_bits;

/* Add a stone at p to one colour's line bit sets. */
static inline void line_bits_add(const geometry *g, uint32_t *bits, int p)
{
    /* locals: the stores below could alias g's fields as far as C knows */
    const int n_axes = g->n_axes;
    const uint16_t *line_of = g->line_of + p * n_axes;
    for (int a = 0; a < n_axes; a++) {
        unsigned lp = line_of[a];
        bits[lp / LINE_BITS] |= 1u << (lp % LINE_BITS);
    }
}

/* Take a stone at p out of one colour's line bit sets. */
static inline void line_bits_remove(const geometry *g, uint32_t *bits, int p)
{
    const int n_axes = g->n_axes;
    const uint16_t *line_of = g->line_of + p * n_axes;
    for (int a = 0; a < n_axes; a++) {
        unsigned lp = line_of[a];
        bits[lp / LINE_BITS] &= ~(1u << (lp % LINE_BITS));
    }
}

/* Run through the cell at lp (line * LINE_BITS + position) given the line's
 * bit set m of one colour, that cell's own bit set. */
static inline int line_run_word(const geometry *g, unsigned lp, uint32_t m, int ends[2])
{
    unsigned line = lp / LINE_BITS, pos = lp % LINE_BITS, len = g->line_len[line];
    const int16_t *cells = g->line_cells + line * LINE_BITS;
    if (!g->line_cycle[line]) {
        /* 64-bit so that a full 32-cell line still leaves a zero to find */
        int up = __builtin_ctzll(~((uint64_t)m >> pos));          /* p and the cells after it */
        int down = __builtin_clzll(~((uint64_t)m << (63 - pos))); /* p and the cells before */
        ends[0] = pos + up < len ? cells[pos + up] : GEOM_NONE;
        ends[1] = (int)pos - down >= 0 ? cells[pos - down] : GEOM_NONE;
        return up + down - 1;
    }
    uint32_t full = len == 32 ? UINT32_MAX : (1u << len) - 1;
    if (m == full) {
        ends[0] = ends[1] = GEOM_NONE; /* a cycle of stones has no ends */
        return (int)len;
    }
    /* rotate p to bit 0; the cells before it are then the top bits */
    uint64_t twice = (uint64_t)m | ((uint64_t)m << len);
    uint32_t r = (uint32_t)(twice >> pos) & full;
    int up = __builtin_ctz(~r);                   /* p and the cells after it */
    int down = __builtin_clz(~(r << (32 - len))); /* the cells before it (r != full) */
    ends[0] = cells[(pos + up) % len];
    ends[1] = cells[(pos + len - down - 1) % len];
    return up + down;
}

/* Run through p (counted as a stone) from one colour's line bit sets. */
static inline int line_run_bits(const geometry *g, line_bits bits, int p, int axis, int ends[2])
{
    unsigned lp = g->line_of[p * g->n_axes + axis];
    return line_run_word(g, lp, bits[lp / LINE_BITS] | (1u << (lp % LINE_BITS)), ends);
}

/* Stones of `stone` met walking from p along oriented direction od, up to
 * `steps` cells; *end receives the first cell past the run (the sentinel
 * n_cells at the edge), or -1 if the run had not ended. */
static inline int walk_count(const geometry *g, const uint8_t *cells, int p, int od, uint8_t stone,
                             int steps, int *end)
{
    const int16_t *ray = g->rays + ((size_t)p * g->n_od + od) * (size_t)g->ray_len;
    int n = 0;
    *end = -1;
    for (; n < steps; n++) {
        int c = ray[n];
        if (cells[c] != stone) {
            *end = c;
            break;
        }
    }
    return n;
}

/* Counting with a visited list, for lines that turn (hex bounce edges) and
 * may come back over their own cells. */
static inline int line_run_turning(const geometry *g, const uint8_t *cells, int p, int axis,
                                   uint8_t stone, int cap, int ends[2])
{
    int len = 1;
    int16_t seen[2 * LINE_MAX_CAP + 1];
    seen[0] = (int16_t)p;
    ends[0] = ends[1] = GEOM_NONE;
    for (int s = 0; s < 2 && len < cap; s++) {
        int od = 2 * axis + s, c = p;
        while (len < cap) {
            c = geom_step(g, c, &od);
            if (c == GEOM_NONE)
                break;
            if (cells[c] != stone) {
                ends[s] = c;
                break;
            }
            int again = 0;
            for (int j = 0; j < len; j++)
                again |= (seen[j] == c);
            if (again)
                break;
            seen[len++] = (int16_t)c;
        }
    }
    return len;
}

/* Length of the run of `stone` through p (p counted, whatever it holds) along
 * axis, counting distinct cells. Exact when below cap (a longer run may
 * report any length >= cap). ends[s] receives the first cell past the run in
 * orientation 2*axis+s, or GEOM_NONE where the run meets the edge or closes
 * on itself; meaningful when the result is below cap. `bits` are the line bit
 * sets of `stone`'s colour (NULL if the board keeps none). */
static inline int line_run(const geometry *g, const uint8_t *cells, line_bits bits, int p, int axis,
                           uint8_t stone, int cap, int ends[2])
{
    if (bits)
        return line_run_bits(g, bits, p, axis, ends);
    if (!g->rays || cap - 1 > g->ray_len)
        return line_run_turning(g, cells, p, axis, stone, cap, ends);
    int e0, e1;
    int len = 1 + walk_count(g, cells, p, 2 * axis, stone, cap - 1, &e0) +
              walk_count(g, cells, p, 2 * axis + 1, stone, cap - 1, &e1);
    ends[0] = (e0 < 0 || e0 == g->n_cells) ? GEOM_NONE : e0;
    ends[1] = (e1 < 0 || e1 == g->n_cells) ? GEOM_NONE : e1;
    int cycle = g->cycle[p * g->n_axes + axis];
    if (cycle && len > cycle) {
        /* the walks went round a cycle of stones: the run is the cycle, with no ends */
        len = cycle;
        ends[0] = ends[1] = GEOM_NONE;
    }
    return len;
}

#endif
