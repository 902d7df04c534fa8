/* Hexagonal boards (SPEC section 2, seed 003 sections 13-14).
 *
 * Cells are axial coordinates (a, b) rastered into a (2R+1) x (2R+1) grid
 * with row = R - b, col = a + R; raster cells off the board are masked. The
 * three axes are (1, 0), (0, 1) and (1, -1); oriented direction 2k goes along
 * axis k, 2k+1 against it. In the plane, axis b leans 60 degrees from axis a
 * (x = a + b/2, y = b * sqrt(3)/2), which the bounce reflections use.
 *
 *  hex    the hexagon of order n (3n^2 + 3n + 1 cells), R = n, with edges
 *         wall   a line ends at the edge;
 *         wrap   each straight line is its own cycle (section 13-1);
 *         bounce a line reflects off a side like light off a mirror, at the
 *                edge cell; along a side it turns at a corner to follow the
 *                next side; along a spoke it retraces itself from the corner
 *                (section 13-2, table 13A).
 *  tess   tess-n (n = 2, 3, 4): 7 * (3(n-1)^2 + 3(n-1) + 1) cells, the
 *         7-cell flowers around the points (2 + z) h for h in the hexagon of
 *         order n - 1 (z = e^(i pi/3), axial (0, 1)); it tiles the plane
 *         with the lattice of L = (2 + z)(n + (n - 1) z) and its rotations,
 *         and a line leaving it re-enters from the translated copy (section
 *         14; for n = 2, L = 3 + 5z and the seed's three 49-tile loops). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "geometry/geometry.h"

static const int dirs[6][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, -1}, {-1, 1}};

typedef struct hexdesc {
    int radius;        /* R of the raster */
    int n;             /* hex order, or tess n */
    int tess;          /* 1 for tess boards */
    int lattice[6][2]; /* tess: the six shortest translations */
    unsigned char *on; /* [side * side] */
} hexdesc;

static int side_of(const hexdesc *h)
{
    return 2 * h->radius + 1;
}

static int in_raster(const hexdesc *h, int a, int b)
{
    return a >= -h->radius && a <= h->radius && b >= -h->radius && b <= h->radius;
}

static int cell_of(const hexdesc *h, int a, int b)
{
    return (h->radius - b) * side_of(h) + (a + h->radius);
}

static int on_board(const hexdesc *h, int a, int b)
{
    return in_raster(h, a, b) && h->on[cell_of(h, a, b)];
}

static int hex_radius(int a, int b)
{
    int r = abs(a);
    if (abs(b) > r)
        r = abs(b);
    if (abs(a + b) > r)
        r = abs(a + b);
    return r;
}

/* The direction d mirrored about the line along direction t. */
static int mirror(int d, int t)
{
    const double s3 = 0.86602540378443865; /* sqrt(3) / 2 */
    double dx = dirs[d][0] + dirs[d][1] / 2.0, dy = dirs[d][1] * s3;
    double tx = dirs[t][0] + dirs[t][1] / 2.0, ty = dirs[t][1] * s3;
    double dot = dx * tx + dy * ty;
    double rx = 2 * dot * tx - dx, ry = 2 * dot * ty - dy;
    int best = 0;
    double best_dist = 1e9;
    for (int e = 0; e < 6; e++) {
        double ex = dirs[e][0] + dirs[e][1] / 2.0, ey = dirs[e][1] * s3;
        double dist = (ex - rx) * (ex - rx) + (ey - ry) * (ey - ry);
        if (dist < best_dist) {
            best_dist = dist;
            best = e;
        }
    }
    return best;
}

/* Eisenstein product of (p, q) = p + q z and (r, s), with z^2 = z - 1. */
static void eis_mul(int p, int q, int r, int s, int *x, int *y)
{
    *x = p * r - q * s;
    *y = p * s + q * r + q * s;
}

static int describe(hexdesc *h, int kind, int order, int edge, char *err, size_t errlen)
{
    memset(h, 0, sizeof(*h));
    h->n = order;
    if (kind == GEOM_HEX) {
        if (order < 2 || order > 15) {
            snprintf(err, errlen, "parameter 'order' = %d is out of range 2..15 for geometry 'hex'",
                     order);
            return -1;
        }
        h->radius = order;
    } else {
        if (order < 2 || order > 4) {
            snprintf(err, errlen, "parameter 'order' = %d: tess boards are tess-2, tess-3, tess-4",
                     order);
            return -1;
        }
        (void)edge; /* tess boards wrap by construction */
        h->tess = 1;
        h->radius = 3 * (order - 1) + 1;
        int lx, ly;
        eis_mul(2, 1, order, order - 1, &lx, &ly);
        for (int k = 0; k < 6; k++) { /* L times z^k: z (a, b) = (-b, a + b) */
            h->lattice[k][0] = lx;
            h->lattice[k][1] = ly;
            int nx = -ly, ny = lx + ly;
            lx = nx;
            ly = ny;
        }
    }
    int side = side_of(h);
    h->on = calloc((size_t)side * (size_t)side, 1);
    if (!h->on) {
        snprintf(err, errlen, "out of memory building the geometry");
        return -1;
    }
    for (int a = -h->radius; a <= h->radius; a++)
        for (int b = -h->radius; b <= h->radius; b++) {
            int on;
            if (!h->tess) {
                on = hex_radius(a, b) <= order;
            } else { /* within one step of a flower centre (2 + z) k, k in Hex(n - 1) */
                on = 0;
                for (int p = -(order - 1); p <= order - 1 && !on; p++)
                    for (int q = -(order - 1); q <= order - 1 && !on; q++) {
                        if (hex_radius(p, q) > order - 1)
                            continue;
                        int cx, cy;
                        eis_mul(2, 1, p, q, &cx, &cy);
                        on = hex_radius(a - cx, b - cy) <= 1;
                    }
            }
            h->on[cell_of(h, a, b)] = (unsigned char)on;
        }
    return 0;
}

/* Where a step off the board leads, per edge option. *od may change. */
static int step_off(const hexdesc *h, int edge, int a, int b, int *od)
{
    int da = dirs[*od][0], db = dirs[*od][1];
    if (h->tess) {
        for (int k = 0; k < 6; k++) {
            int x = a + da - h->lattice[k][0], y = b + db - h->lattice[k][1];
            if (on_board(h, x, y))
                return cell_of(h, x, y);
        }
        return GEOM_NONE;
    }
    if (edge == EDGE_WALL)
        return GEOM_NONE;
    if (edge == EDGE_WRAP) { /* back to the far end of the same straight line */
        int x = a, y = b;
        while (on_board(h, x - da, y - db)) {
            x -= da;
            y -= db;
        }
        return cell_of(h, x, y);
    }
    /* bounce: (a, b) is on the rim */
    int n = h->n, tight = (abs(a) == n) + (abs(b) == n) + (abs(a + b) == n);
    if (tight >= 2) {                                  /* a corner */
        if (a * db == b * da && a * da + b * db > 0) { /* out along the spoke: retrace */
            *od ^= 1;
            return cell_of(h, a - da, b - db);
        }
        for (int e = 0; e < 6; e++) { /* along a side: follow the next side */
            int x = a + dirs[e][0], y = b + dirs[e][1];
            if (e != (*od ^ 1) && on_board(h, x, y) && hex_radius(x, y) == n) {
                *od = e;
                return cell_of(h, x, y);
            }
        }
        return GEOM_NONE;
    }
    for (int t = 0; t < 6; t++) { /* a side cell: mirror about the side */
        if (hex_radius(a + dirs[t][0], b + dirs[t][1]) == n &&
            on_board(h, a + dirs[t][0], b + dirs[t][1])) {
            *od = mirror(*od, t);
            return cell_of(h, a + dirs[*od][0], b + dirs[*od][1]);
        }
    }
    return GEOM_NONE;
}

int geometry_fill_hex(geometry *g, char *err, size_t errlen)
{
    hexdesc h;
    if (describe(&h, g->kind, g->order, g->edge, err, errlen))
        return -1;
    int side = side_of(&h);
    g->height = g->width = side;
    g->n_cells = side * side;
    g->n_axes = 3;
    g->n_od = 6;
    g->centre = cell_of(&h, 0, 0);
    g->next = malloc(sizeof(int16_t) * (size_t)g->n_cells * (size_t)g->n_od);
    g->on_board = malloc((size_t)g->n_cells);
    if (g->edge == EDGE_BOUNCE && !h.tess)
        g->next_od = malloc((size_t)g->n_cells * (size_t)g->n_od);
    if (!g->next || !g->on_board || (g->edge == EDGE_BOUNCE && !h.tess && !g->next_od)) {
        free(h.on);
        snprintf(err, errlen, "out of memory building the geometry");
        return -1;
    }
    memcpy(g->on_board, h.on, (size_t)g->n_cells);
    g->n_on_board = 0;
    for (int c = 0; c < g->n_cells; c++) {
        g->n_on_board += g->on_board[c];
        int a = c % side - h.radius, b = h.radius - c / side;
        for (int od = 0; od < 6; od++) {
            int nxt = GEOM_NONE, nod = od;
            if (g->on_board[c]) {
                int x = a + dirs[od][0], y = b + dirs[od][1];
                nxt = on_board(&h, x, y) ? cell_of(&h, x, y) : step_off(&h, g->edge, a, b, &nod);
            }
            g->next[c * 6 + od] = (int16_t)nxt;
            if (g->next_od)
                g->next_od[c * 6 + od] = (uint8_t)nod;
        }
    }
    free(h.on);
    return 0;
}

int geometry_axial(const geometry *g, int cell, int *a, int *b)
{
    if (g->kind != GEOM_HEX && g->kind != GEOM_TESS)
        return -1;
    int radius = g->width / 2;
    *a = cell % g->width - radius;
    *b = radius - cell / g->width;
    return 0;
}
