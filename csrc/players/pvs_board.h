/* The pvs player's board: the position with every empty cell's line
 * patterns, pattern code and threat class for both colours, kept up to date
 * stone by stone (pvs_patterns.h).
 *
 * A window is the H cells on each side of a cell along one of its lines,
 * walked through the geometry's table (so strips, tori, hexagons and bounce
 * edges work alike). Each (cell, line) keeps its window as a 32-bit key; a
 * stone rewrites 2 bits in the keys of the cells whose windows hold it
 * (a precomputed list: about 8H of them on a square board) and the patterns
 * of those cells are read again. Taking a stone back is the same walk in
 * reverse, so a search plays and unplays moves without copies. */
#ifndef FIVEROW_PVS_BOARD_H
#define FIVEROW_PVS_BOARD_H

#include <stddef.h>
#include <stdint.h>

#include "game/variant.h"
#include "players/pvs_patterns.h"

#define PVS_WORDS BITS_WORDS(GEOM_MAX_CELLS)
/* What a cell's worth is read for: move ordering, the evaluation of the
 * side to move, the evaluation of the other side (pvs_eval.c). */
enum { ROLE_ORDER = 0, ROLE_MOVER = 1, ROLE_OTHER = 2, PVS_ROLES = 3 };
#define PVS_MAX_MOVES GEOM_MAX_CELLS

/* Sets of empty cells kept per colour, by class. */
enum pvs_set {
    SET_FIVE = 0, /* CLS_FIVE: the colour wins there */
    SET_O4,       /* CLS_O4: an open four (or two fours) there */
    SET_FOUR,     /* CLS_C4 .. CLS_C4O3: a four there */
    SET_THREE,    /* CLS_O3 .. CLS_O3X2: an open three there */
    SET_NB
};

/* What the board needs of a variant, built once per player scratch. */
typedef struct pvs_ctx {
    const variant *v;
    int n_cells, n_axes, half;
    int renju; /* black's fouls are checked (renju.h) */
    const pvs_codes *codes;
    pvs_line_table table[2];
    int16_t *window;     /* [cell][axis][2H]: forward cells 1..H, then backward; -1 off the line */
    uint32_t *key0;      /* [cell * n_axes + axis]: an empty board's keys (edges marked) */
    int32_t *rev_first;  /* [n_cells + 1] */
    uint32_t *rev;       /* windows holding each cell: cell << 8 | axis << 5 | bit shift */
    int32_t *near_first; /* [n_cells + 1] */
    int16_t *near;       /* cells within 2 along some line */
    uint64_t zobrist[2][GEOM_MAX_CELLS];
    /* a cell's worth by its code (pvs_eval.c): to order moves, and to the
     * evaluation for the side to move and for the other side */
    int16_t value[PVS_ROLES][PVS_N_CODES];
} pvs_ctx;

/* NULL when the variant can be played, else why not (naming the rule or
 * the geometry). */
const char *pvs_ctx_refusal(const variant *v);
/* Build the context; -1 when out of memory. */
int pvs_ctx_init(pvs_ctx *x, const variant *v);
void pvs_ctx_free(pvs_ctx *x);

typedef struct pvs_board {
    const pvs_ctx *x;
    int side;    /* colour to move: 0 black, 1 white */
    int n_moves; /* moves played since the root */
    int n_stones;
    uint64_t hash;
    int32_t value[2][PVS_ROLES]; /* sum of the empty cells' worth to each colour, by role */
    int16_t count[2][CLS_NB];
    uint64_t set[2][SET_NB][PVS_WORDS];
    uint64_t cand[PVS_WORDS]; /* empty cells near a stone */
    int16_t moves[PVS_MAX_MOVES];
    uint8_t cells[GEOM_MAX_CELLS + 1]; /* as the game keeps them, the sentinel included */
    uint8_t cls[2][GEOM_MAX_CELLS];
    uint16_t code[2][GEOM_MAX_CELLS];
    uint8_t near_count[GEOM_MAX_CELLS];
    uint8_t pat[2][GEOM_MAX_CELLS * GEOM_MAX_AXES];
    uint32_t key[GEOM_MAX_CELLS * GEOM_MAX_AXES];
} pvs_board;

/* Load a game position (its cells; `side` to move). */
void pvs_board_load(pvs_board *pb, const pvs_ctx *x, const uint8_t *cells, int side);
/* Play a stone of the side to move on empty cell c; the other side moves next. */
void pvs_board_play(pvs_board *pb, int c);
/* Take back the last stone played. */
void pvs_board_undo(pvs_board *pb);
/* Pass: the other side moves next (a null move). */
static inline void pvs_board_pass(pvs_board *pb)
{
    pb->side ^= 1;
    pb->hash ^= 0x9e3779b97f4a7c15ULL;
}

/* The first cell of a set, or -1. */
static inline int pvs_set_first(const pvs_board *pb, int colour, int set)
{
    const uint64_t *s = pb->set[colour][set];
    for (int w = 0; w < BITS_WORDS(pb->x->n_cells); w++)
        if (s[w])
            return w * 64 + __builtin_ctzll(s[w]);
    return -1;
}

/* Cells of a set, at most max, into out; returns how many. */
int pvs_set_cells(const pvs_board *pb, int colour, int set, int16_t *out, int max);

/* Is c, empty, a cell the colour may play (renju: not a foul for black)? */
static inline int pvs_playable(const pvs_board *pb, int colour, int c)
{
    return pb->cells[c] == CELL_EMPTY && pb->cls[colour][c] != CLS_FORBID;
}

#endif
