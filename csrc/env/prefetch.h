/* Prefetching for step-major passes over batches larger than the caches.
 *
 * Past about 16k boards a pass that steps each board once waits on memory for
 * every cache line the step touches (header, the played cell, its legal word,
 * its four line words, the observation and mask cells). The actions are known
 * before the pass, so those lines can be requested a few boards ahead while
 * the boards before them are stepped. Hints only: nothing here changes what
 * a step computes. */
#ifndef FIVEROW_PREFETCH_H
#define FIVEROW_PREFETCH_H

#include <stddef.h>
#include <stdint.h>

#include "game/rule_family.h"
#include "game/variant.h"
#include "geometry/geometry.h"

/* Boards ahead of the one being stepped (0: no prefetching). */
#ifndef FIVEROW_PREFETCH_AHEAD
#define FIVEROW_PREFETCH_AHEAD 4
#endif

/* Functions made of prefetches only look free of side effects to GCC, which
 * then drops the calls to them before inlining: they are inlined first. */
#define PREFETCH_INLINE static inline __attribute__((always_inline))

/* Every cache line of [p, p + bytes). */
PREFETCH_INLINE void prefetch_span(const void *p, size_t bytes)
{
    const char *c = (const char *)p;
    for (size_t o = 0; o < bytes; o += 64)
        __builtin_prefetch(c + o, 1);
    __builtin_prefetch(c + bytes - 1, 1);
}

/* The lines of board h's state that a step playing cell `cell` reads and
 * writes: header, the cell, the legal words, renju's sets and codes, the
 * line word of each axis in both colours' bit sets. Special actions (cell out of the raster) get
 * the header and the legal words only. */
PREFETCH_INLINE void prefetch_board_cell(const variant *v, const board_hdr *h, int64_t cell)
{
    const uint8_t *s = (const uint8_t *)h;
    __builtin_prefetch(s, 1);
    prefetch_span(s + v->off_legal, sizeof(uint64_t) * (size_t)v->legal_words);
    if (cell < 0 || cell >= v->g.n_cells)
        return;
    __builtin_prefetch(s + v->off_cells + cell, 1);
    if (v->rules->prefetch_derived) /* renju: forbidden and empty sets, pattern codes */
        prefetch_span(s + v->off_rule_derived, v->derived_end - v->off_rule_derived);
    if (!v->n_line_words)
        return;
    const uint16_t *line_of = v->g.line_of + (size_t)cell * (size_t)v->g.n_axes;
    const uint32_t *words = (const uint32_t *)(s + v->off_lines);
    for (int a = 0; a < v->g.n_axes; a++) {
        unsigned w = line_of[a] / LINE_BITS;
        __builtin_prefetch(words + w, 1);
        __builtin_prefetch(words + v->n_line_words + w, 1);
    }
}

/* The output lines a step writes for cell `cell`: its mask byte, and its
 * byte in every plane of an observation updated in place with plane
 * `whole_plane` rewritten entirely (the colour to play), or, when
 * whole_plane is -1, the whole observation. */
PREFETCH_INLINE void prefetch_outputs_cell(const variant *v, uint8_t *obs, int n_planes,
                                           int whole_plane, uint8_t *mask, int64_t cell)
{
    const size_t n = (size_t)v->g.n_cells;
    if (cell < 0 || cell >= v->g.n_cells)
        return;
    __builtin_prefetch(mask + cell, 1);
    if (whole_plane < 0) {
        prefetch_span(obs, (size_t)n_planes * n);
        return;
    }
    for (int k = 0; k < n_planes; k++)
        if (k != whole_plane)
            __builtin_prefetch(obs + (size_t)k * n + cell, 1);
    prefetch_span(obs + (size_t)whole_plane * n, n);
}

#endif
