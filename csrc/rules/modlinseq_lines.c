/* MODLINSEQ's lines (see modlinseq_lines.h), built once per variant from the
 * geometry's next-cell table.
 *
 * A walk step (cell, od) -> (next, od') moves along the edge cell -> next in
 * direction od' (bounce steps are to a neighbour; wrap, tess and torus keep
 * od). The edge's axis belongs to both its cells' positions, so a position
 * where the walk turns gets two axes. A cycle closes when the walk is about
 * to take its first edge again: comparing edges, not (cell, od) states,
 * because a turning cell is left the same way from two states. */
#include "rules/modlinseq_lines.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct builder {
    const geometry *g;
    mls_lines *L;
    int cap;         /* positions allocated */
    int32_t *axis_p; /* [n_cells * n_axes]: the position of (cell, axis), -1 before */
    uint8_t *axes;   /* [cap]: the axes (bits) of each position of the line being walked */
} builder;

static int add_position(builder *B, int cell, unsigned axes)
{
    mls_lines *L = B->L;
    if (L->n_pos >= B->cap)
        return -1;
    L->cell[L->n_pos] = (int16_t)cell;
    L->line_of[L->n_pos] = L->n_lines;
    B->axes[L->n_pos] = (uint8_t)axes;
    L->n_pos++;
    return 0;
}

/* Walk the cycle from cell's first edge along axis until that edge comes
 * again; 0 done, 1 the line is a path, -1 too long. */
static int walk_cycle(builder *B, int cell, int axis)
{
    const geometry *g = B->g;
    int first_od = 2 * axis, first = geom_step(g, cell, &first_od);
    if (first == GEOM_NONE)
        return 1;
    int start = B->L->n_pos, x = cell, od = 2 * axis;
    unsigned arrival = 0;
    for (;;) {
        int nod = od, nx = geom_step(g, x, &nod);
        if (nx == GEOM_NONE) {
            B->L->n_pos = start;
            return 1;
        }
        if (add_position(B, x, arrival | 1u << (nod >> 1)))
            return -1;
        arrival = 1u << (nod >> 1);
        int nnod = nod, nnx = geom_step(g, nx, &nnod);
        if (nx == cell && nnx == first && nnod == first_od) {
            B->axes[start] |= (uint8_t)arrival;
            return 0;
        }
        x = nx;
        od = nod;
    }
}

/* A straight path (the geometry never turns where lines end). */
static int walk_path(builder *B, int cell, int axis)
{
    int x = cell, od = 2 * axis + 1;
    for (int nx; (nx = geom_step(B->g, x, &od)) != GEOM_NONE;)
        x = nx;
    od = 2 * axis;
    do {
        if (add_position(B, x, 1u << axis))
            return -1;
    } while ((x = geom_step(B->g, x, &od)) != GEOM_NONE);
    return 0;
}

/* A cycle that is its own reverse: the r with cell[r - k] = cell[k] for all
 * k, or -1. */
static int find_mirror(const mls_lines *L, int line)
{
    int len = mls_len(L, line);
    const int16_t *c = L->cell + L->first[line];
    for (int r = 0; r < len; r++) {
        if (c[r] != c[0])
            continue;
        int k = 0;
        while (k < len && c[((r - k) % len + len) % len] == c[k])
            k++;
        if (k == len)
            return r;
    }
    return -1;
}

static int close_line(builder *B, int cyclic)
{
    mls_lines *L = B->L;
    int line = L->n_lines;
    L->cyclic[line] = (uint8_t)cyclic;
    L->first[line + 1] = L->n_pos;
    L->mirror[line] = cyclic ? find_mirror(L, line) : -1;
    int first = L->first[line], last = L->n_pos - 1;
    for (int p = first; p <= last; p++) {
        L->next[p] = p < last ? p + 1 : cyclic ? first : -1;
        L->prev[p] = p > first ? p - 1 : cyclic ? last : -1;
    }
    for (int p = L->first[line]; p < L->n_pos; p++)
        for (int a = 0; a < B->g->n_axes; a++)
            if (B->axes[p] >> a & 1 && B->axis_p[L->cell[p] * B->g->n_axes + a] < 0)
                B->axis_p[L->cell[p] * B->g->n_axes + a] = p;
    L->n_lines++;
    return 0;
}

static int build(builder *B)
{
    const geometry *g = B->g;
    mls_lines *L = B->L;
    for (int c = 0; c < g->n_cells; c++)
        for (int a = 0; a < g->n_axes && g->on_board[c]; a++) {
            if (B->axis_p[c * g->n_axes + a] >= 0)
                continue;
            int kind = walk_cycle(B, c, a);
            if (kind == 1)
                kind = walk_path(B, c, a) ? -1 : 1;
            if (kind < 0 || close_line(B, kind == 0))
                return -1;
        }
    for (int c = 0; c < g->n_cells; c++) {
        int32_t *v = L->visits + (size_t)c * GEOM_MAX_AXES;
        int n = 0;
        for (int a = 0; a < g->n_axes; a++) {
            int p = B->axis_p[c * g->n_axes + a], seen = p < 0;
            for (int k = 0; k < n; k++)
                seen |= v[k] == p;
            if (!seen)
                v[n++] = p;
        }
        for (int k = n; k < GEOM_MAX_AXES; k++)
            v[k] = -1;
    }
    return 0;
}

mls_lines *mls_build(const geometry *g, char *err, size_t errlen)
{
    /* each (cell, axis) at one position, and a line that retraces itself
     * meets its positions twice: at most two positions per (cell, axis) */
    int cap = 2 * g->n_on_board * g->n_axes, cells_axes = g->n_cells * g->n_axes;
    mls_lines *L = calloc(1, sizeof(*L));
    builder B = {g, L, cap, malloc(sizeof(int32_t) * (size_t)cells_axes), malloc((size_t)cap)};
    if (L) {
        L->first = calloc((size_t)cap + 1, sizeof(int32_t));
        L->mirror = malloc(sizeof(int32_t) * (size_t)cap);
        L->cyclic = malloc((size_t)cap);
        L->cell = malloc(sizeof(int16_t) * (size_t)cap);
        L->line_of = malloc(sizeof(int32_t) * (size_t)cap);
        L->next = malloc(sizeof(int32_t) * (size_t)cap);
        L->prev = malloc(sizeof(int32_t) * (size_t)cap);
        L->visits = malloc(sizeof(int32_t) * (size_t)g->n_cells * GEOM_MAX_AXES);
    }
    int ok = L && B.axis_p && B.axes && L->first && L->mirror && L->cyclic && L->cell &&
             L->line_of && L->next && L->prev && L->visits;
    if (ok) {
        memset(B.axis_p, 0xff, sizeof(int32_t) * (size_t)cells_axes);
        ok = build(&B) == 0;
        if (!ok)
            snprintf(err, errlen, "a line of this board does not close (geometry tables)");
    } else {
        snprintf(err, errlen, "out of memory building the lines");
    }
    free(B.axis_p);
    free(B.axes);
    if (!ok) {
        mls_free(L);
        return NULL;
    }
    return L;
}

void mls_free(mls_lines *L)
{
    if (!L)
        return;
    free(L->first);
    free(L->mirror);
    free(L->cyclic);
    free(L->cell);
    free(L->line_of);
    free(L->next);
    free(L->prev);
    free(L->visits);
    free(L);
}

mls_run mls_run_at(const mls_lines *L, const uint8_t *values, int p, int also)
{
    int line = L->line_of[p], len = mls_len(L, line), first = L->first[line];
    const int16_t *cell = L->cell;
    mls_run r = {line, 0, len, 1, first, first + len - 1};
    int head = p, tail = p, n = 1;
    for (int q = L->prev[head]; q >= 0 && (values[cell[q]] || cell[q] == also); q = L->prev[q]) {
        if (++n == len && L->cyclic[line])
            return r; /* every position filled: the whole cycle */
        head = q;
    }
    for (int q = L->next[tail]; q >= 0 && (values[cell[q]] || cell[q] == also); q = L->next[q]) {
        n++;
        tail = q;
    }
    r.lo = head - first;
    r.n = n;
    r.loop = 0;
    r.head = head;
    r.tail = tail;
    return r;
}

int32_t mls_run_id(const mls_lines *L, mls_run r)
{
    if (r.loop)
        return -1 - r.line;
    int lo = r.lo, len = mls_len(L, r.line);
    if (L->mirror[r.line] >= 0) { /* the mirror image starts where this run ends */
        int hi = (r.lo + r.n - 1) % len, mlo = ((L->mirror[r.line] - hi) % len + len) % len;
        lo = mlo < lo ? mlo : lo;
    }
    return L->first[r.line] + lo;
}
