/* Board geometries as tables (SPEC section 2).
 *
 * A geometry is a raster of height x width cells (the action and observation
 * layout), the subset of raster cells that are on the board, and for every
 * cell and every oriented line direction the next cell along that line, or
 * GEOM_NONE. Rules walk this table and never look at coordinates, so every
 * rule works on every geometry.
 *
 * Oriented directions: od = 2 * axis + s, s = 0 forward, s = 1 backward, so
 * od ^ 1 reverses a direction. Where lines can turn (hex "bounce" edges) a
 * second table gives the oriented direction after the step. */
#ifndef FIVEROW_GEOMETRY_H
#define FIVEROW_GEOMETRY_H

#include <stddef.h>
#include <stdint.h>

#define GEOM_NONE (-1)
#define GEOM_MAX_AXES 4
#define GEOM_MAX_SIDE 32
#define GEOM_MAX_CELLS (GEOM_MAX_SIDE * GEOM_MAX_SIDE)
#define LINE_BITS 32

enum geom_kind { GEOM_PLANE = 0, GEOM_STRIP = 1, GEOM_TORUS = 2, GEOM_HEX = 3, GEOM_TESS = 4 };
enum geom_edge { EDGE_WALL = 0, EDGE_WRAP = 1, EDGE_BOUNCE = 2 };

typedef struct geometry {
    int kind, edge, order;
    int height, width; /* raster */
    int n_cells;       /* height * width raster cells (actions 0..n_cells-1) */
    int n_on_board;    /* cells that are really on the board */
    int n_axes;        /* 4 on square rasters, 3 on hexagonal boards */
    int n_od;          /* 2 * n_axes */
    int centre;        /* the centre cell */
    int16_t *next;     /* [n_cells * n_od] */
    /* The first ray_len cells along each oriented direction from each cell,
     * the sentinel cell n_cells past the edge (boards keep a CELL_OFF byte
     * there). Scans read them as independent loads instead of chasing next[]
     * one dependent load at a time. NULL where lines turn.
     * [n_cells * n_od * ray_len] */
    int ray_len;
    int16_t *rays;
    /* Length of the cycle the line through a cell forms along an axis (torus,
     * wrap), 0 for an open line. [n_cells * n_axes] */
    uint16_t *cycle;
    /* Lines as bit sets: when every line (open path or cycle) of every axis
     * has at most LINE_BITS cells, boards keep one 32-bit word per line and
     * colour, and runs are counted with a few bit operations. n_lines is 0
     * otherwise (long strip rows, torus diagonals of period lcm(H, W) > 32). */
    int n_lines;
    uint16_t *line_of;   /* [n_cells * n_axes]: line * LINE_BITS + position */
    uint8_t *line_len;   /* [n_lines] */
    uint8_t *line_cycle; /* [n_lines]: 1 when the line is a cycle */
    int16_t *line_cells; /* [n_lines * LINE_BITS]: the cell at each position */
    uint8_t *next_od;    /* [n_cells * n_od], or NULL when lines never turn */
    uint8_t *on_board;   /* [n_cells] */
} geometry;

/* Build the tables. Returns 0, or -1 with a message in err. */
int geometry_init(geometry *g, int kind, int height, int width, int order, int edge, char *err,
                  size_t errlen);
void geometry_free(geometry *g);

/* Hexagonal rasters (geometry_hex.c): fill the tables of a GEOM_HEX or
 * GEOM_TESS geometry whose kind, order and edge are set. */
int geometry_fill_hex(geometry *g, char *err, size_t errlen);
/* Axial coordinates (a, b) of a cell of a hexagonal raster; -1 elsewhere. */
int geometry_axial(const geometry *g, int cell, int *a, int *b);

/* Build rays of `len` cells (done once per variant); -1 when out of memory. */
int geometry_build_rays(geometry *g, int len);

/* One step along oriented direction *od from cell; updates *od where the
 * line turns. Returns the next cell or GEOM_NONE. */
static inline int geom_step(const geometry *g, int cell, int *od)
{
    int i = cell * g->n_od + *od;
    int nxt = g->next[i];
    if (g->next_od && nxt != GEOM_NONE)
        *od = g->next_od[i];
    return nxt;
}

/* The k-cell windows along lines (each line segment of k distinct cells once
 * per orientation-independent position). Writes up to max windows of k cells
 * each into out (may be NULL) and returns how many there are. */
int geometry_windows(const geometry *g, int k, int16_t *out, int max);

#endif
