#include "geometry/geometry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Square-raster axes as (d_row, d_col): horizontal, vertical, diagonal,
 * anti-diagonal. The strip uses the same order for strides 1, W, W+1, W-1. */
static const int square_axes[4][2] = {{0, 1}, {1, 0}, {1, 1}, {1, -1}};

static int mod(int a, int m)
{
    int r = a % m;
    return r < 0 ? r + m : r;
}

static void fill_square(geometry *g)
{
    int h = g->height, w = g->width;
    for (int r = 0; r < h; r++)
        for (int c = 0; c < w; c++) {
            int cell = r * w + c;
            for (int a = 0; a < 4; a++)
                for (int s = 0; s < 2; s++) {
                    int sign = s ? -1 : 1;
                    int nr = r + sign * square_axes[a][0];
                    int nc = c + sign * square_axes[a][1];
                    int nxt;
                    if (g->kind == GEOM_TORUS) {
                        nxt = mod(nr, h) * w + mod(nc, w);
                    } else if (g->kind == GEOM_STRIP) {
                        /* seed 000: a line is a, a+S, a+2S, ... inside 0..n-1 */
                        int stride = square_axes[a][0] * w + square_axes[a][1];
                        int j = cell + sign * stride;
                        nxt = (j >= 0 && j < g->n_cells) ? j : GEOM_NONE;
                    } else {
                        nxt = (nr >= 0 && nr < h && nc >= 0 && nc < w) ? nr * w + nc : GEOM_NONE;
                    }
                    g->next[cell * g->n_od + 2 * a + s] = (int16_t)nxt;
                }
        }
}

int geometry_build_rays(geometry *g, int len)
{
    free(g->rays);
    g->rays = NULL;
    g->ray_len = 0;
    if (g->next_od)
        return 0;
    g->rays = malloc(sizeof(int16_t) * (size_t)g->n_cells * (size_t)g->n_od * (size_t)len);
    if (!g->rays)
        return -1;
    g->ray_len = len;
    for (int c = 0; c < g->n_cells; c++)
        for (int od = 0; od < g->n_od; od++) {
            int16_t *ray = g->rays + ((size_t)c * g->n_od + od) * (size_t)len;
            int x = c, d = od;
            for (int j = 0; j < len; j++) {
                if (x != GEOM_NONE)
                    x = geom_step(g, x, &d);
                ray[j] = (int16_t)(x == GEOM_NONE ? g->n_cells : x);
            }
        }
    return 0;
}

/* Split every axis into lines (paths from a cell with no predecessor, then
 * the cycles left over) and number their cells; give up (n_lines = 0) if a
 * line is longer than LINE_BITS. */
static int fill_lines(geometry *g)
{
    size_t per_axis = (size_t)g->n_cells * (size_t)g->n_axes;
    g->n_lines = 0;
    if (g->next_od)
        return 0;
    g->line_of = malloc(sizeof(uint16_t) * per_axis);
    g->line_len = malloc(per_axis);
    g->line_cycle = malloc(per_axis);
    g->line_cells = malloc(sizeof(int16_t) * per_axis * LINE_BITS);
    if (!g->line_of || !g->line_len || !g->line_cycle || !g->line_cells)
        return -1;
    for (size_t i = 0; i < per_axis; i++)
        g->line_of[i] = UINT16_MAX;
    int n = 0;
    for (int a = 0; a < g->n_axes; a++)
        for (int pass = 0; pass < 2; pass++) /* 0: open paths, 1: cycles */
            for (int start = 0; start < g->n_cells; start++) {
                if (!g->on_board[start] || g->line_of[start * g->n_axes + a] != UINT16_MAX)
                    continue;
                if (pass == 0 && g->next[start * g->n_od + 2 * a + 1] != GEOM_NONE)
                    continue;
                int len = 0, c = start, od = 2 * a;
                do {
                    if (len == LINE_BITS || n >= (int)(UINT16_MAX / LINE_BITS)) {
                        g->n_lines = 0;
                        return 0;
                    }
                    g->line_of[c * g->n_axes + a] = (uint16_t)(n * LINE_BITS + len);
                    g->line_cells[n * LINE_BITS + len] = (int16_t)c;
                    len++;
                    c = geom_step(g, c, &od);
                } while (c != GEOM_NONE && c != start);
                g->line_len[n] = (uint8_t)len;
                g->line_cycle[n] = (uint8_t)(c == start);
                n++;
            }
    g->n_lines = n;
    return 0;
}

/* Cycle lengths of lines, derived from next[]. */
static int fill_cycles(geometry *g)
{
    g->cycle = calloc((size_t)g->n_cells * (size_t)g->n_axes, sizeof(uint16_t));
    if (!g->cycle)
        return -1;
    if (g->next_od)
        return 0; /* turning lines are walked with a visited list instead */
    for (int c = 0; c < g->n_cells; c++)
        for (int a = 0; a < g->n_axes; a++) {
            int od = 2 * a, x = c, len = 0;
            do {
                x = geom_step(g, x, &od);
                len++;
            } while (x != GEOM_NONE && x != c && len <= g->n_cells);
            g->cycle[c * g->n_axes + a] = (uint16_t)(x == c ? len : 0);
        }
    return 0;
}

static int fill_square_raster(geometry *g, int height, int width, char *err, size_t errlen);

int geometry_init(geometry *g, int kind, int height, int width, int order, int edge, char *err,
                  size_t errlen)
{
    memset(g, 0, sizeof(*g));
    g->kind = kind;
    g->order = order;
    g->edge = edge;
    if (kind == GEOM_HEX || kind == GEOM_TESS) {
        if (geometry_fill_hex(g, err, errlen)) {
            geometry_free(g);
            return -1;
        }
    } else if (fill_square_raster(g, height, width, err, errlen)) {
        return -1;
    }
    if (fill_cycles(g) || fill_lines(g)) {
        geometry_free(g);
        snprintf(err, errlen, "out of memory building the geometry");
        return -1;
    }
    return 0;
}

static int fill_square_raster(geometry *g, int height, int width, char *err, size_t errlen)
{
    int kind = g->kind;
    if (kind != GEOM_PLANE && kind != GEOM_STRIP && kind != GEOM_TORUS) {
        snprintf(err, errlen, "geometry kind %d is not supported", kind);
        return -1;
    }
    if (height < 1 || width < 1 || height > GEOM_MAX_SIDE || width > GEOM_MAX_SIDE) {
        snprintf(err, errlen, "board %dx%d is outside 1..%d per side", height, width,
                 GEOM_MAX_SIDE);
        return -1;
    }
    g->height = height;
    g->width = width;
    g->n_cells = height * width;
    g->n_axes = 4;
    g->n_od = 8;
    g->centre = (height / 2) * width + width / 2;
    g->next = malloc(sizeof(int16_t) * (size_t)g->n_cells * (size_t)g->n_od);
    g->on_board = malloc((size_t)g->n_cells);
    if (!g->next || !g->on_board) {
        geometry_free(g);
        snprintf(err, errlen, "out of memory building the geometry");
        return -1;
    }
    memset(g->on_board, 1, (size_t)g->n_cells);
    g->n_on_board = g->n_cells;
    fill_square(g);
    return 0;
}

void geometry_free(geometry *g)
{
    free(g->next);
    free(g->next_od);
    free(g->on_board);
    free(g->rays);
    free(g->cycle);
    free(g->line_of);
    free(g->line_len);
    free(g->line_cycle);
    free(g->line_cells);
    g->line_of = NULL;
    g->line_len = g->line_cycle = NULL;
    g->line_cells = NULL;
    g->rays = NULL;
    g->cycle = NULL;
    g->next = NULL;
    g->next_od = NULL;
    g->on_board = NULL;
}

int geometry_windows(const geometry *g, int k, int16_t *out, int max)
{
    int count = 0;
    int16_t cells[64];
    if (k < 1 || k > 64)
        return 0;
    for (int start = 0; start < g->n_cells; start++) {
        if (!g->on_board[start])
            continue;
        for (int a = 0; a < g->n_axes; a++) {
            /* Count a window once: from its first cell walking forward. On a
             * path that is the cell with no predecessor inside the window;
             * on a cycle every cell starts one window. */
            int od = 2 * a, c = start, len = 1, ok = 1;
            cells[0] = (int16_t)start;
            while (len < k) {
                c = geom_step(g, c, &od);
                if (c == GEOM_NONE) {
                    ok = 0;
                    break;
                }
                for (int j = 0; j < len; j++)
                    if (cells[j] == c)
                        ok = 0;
                if (!ok)
                    break;
                cells[len++] = (int16_t)c;
            }
            if (!ok)
                continue;
            if (out && count < max)
                memcpy(out + (size_t)count * k, cells, sizeof(int16_t) * (size_t)k);
            count++;
        }
    }
    return count;
}
