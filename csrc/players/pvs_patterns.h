/* The pvs player's line patterns and cell threat classes (see pvs.c).
 *
 * A line pattern says what one colour's stone on an empty cell would make
 * along one line, from the H cells on each side of the cell (H = connect - 1
 * when any run of connect or more wins, else connect, so that the cell past
 * a run is seen). It is defined by what one more stone could make, down to
 * the win itself, the rule's own (win_rule.h): a five is a run the
 * descriptor says wins, a four a shape with one cell that makes a five, an
 * open four two such cells, a three a shape one stone from an open four, and
 * so on (the usual gomoku taxonomy, computed, not listed).
 *
 * The cells of a window are coded 2 bits each (0 empty, 1 black, 2 white,
 * 3 off the line), H per side; a side's cells past its first opposing stone
 * or edge cannot matter, so each side is first reduced to a canonical index
 * and the pattern read from a small square table. One table per colour and
 * descriptor, built in a few milliseconds.
 *
 * The patterns of a cell's lines (3 or 4) combine, as an unordered set
 * (a pattern code), into a threat class and into the values the evaluation
 * and the move ordering use (pvs_eval.c). */
#ifndef FIVEROW_PVS_PATTERNS_H
#define FIVEROW_PVS_PATTERNS_H

#include <stdint.h>

#include "game/win_rule.h"

/* What a stone on the cell makes along one line, weakest first. */
enum pvs_pattern {
    PAT_DEAD = 0, /* no room for a five through the cell */
    PAT_LONG,     /* a run of connect or more that does not win (an overline under an exact rule) */
    PAT_C1,       /* closed one: one stone from a closed two */
    PAT_O1,       /* open one: one stone from an open two */
    PAT_C2,       /* closed two: one stone from a closed three */
    PAT_O2,       /* open two, wide: one stone from two open threes */
    PAT_O2A,      /* open two: one stone from three open threes */
    PAT_O2B,      /* open two, tight: one stone from four open threes */
    PAT_C3,       /* closed three: one stone from a four */
    PAT_O3,       /* open three: one stone from an open four */
    PAT_O3S,      /* open three, two ways to an open four */
    PAT_C4,       /* four: one cell left to make a five */
    PAT_O4,       /* open four: two cells make a five */
    PAT_FIVE,     /* the stone wins */
    PAT_NB
};

/* A cell's threat class for one colour: what a stone there does, weakest
 * first (the order the search reads). */
enum pvs_class {
    CLS_NONE = 0,
    CLS_FORBID, /* renju: forbidden for black (checked exactly, renju.h) */
    CLS_O2,     /* an open two */
    CLS_C3,     /* a closed three */
    CLS_O2X2,   /* two open twos */
    CLS_C3PLUS, /* a closed three with another three or open two */
    CLS_O3,     /* an open three */
    CLS_O3PLUS, /* an open three with a closed three or open two */
    CLS_O3X2,   /* two open threes */
    CLS_C4,     /* a four */
    CLS_C4PLUS, /* a four with a closed three or open two */
    CLS_C4O3,   /* a four and an open three */
    CLS_O4,     /* an open four or two fours: two five points */
    CLS_FIVE,   /* a winning stone */
    CLS_NB
};

#define PVS_MAX_HALF 8 /* cells per side of a window: connect up to 8 (9 for freestyle) */

/* One colour's line patterns under one descriptor. */
typedef struct pvs_line_table {
    int half;          /* H */
    int n_half;        /* canonical sides */
    uint16_t *side_of; /* [4^H]: a side's 2H-bit code -> its canonical index */
    uint8_t *pattern;  /* [n_half * n_half]: (forward side, backward side) -> pattern */
} pvs_line_table;

/* Cells per side a descriptor needs. */
int pvs_half_of(const win_rule *w);

/* Build colour's table (0 black, 1 white) for w with h cells per side; -1
 * when out of memory. */
int pvs_line_table_init(pvs_line_table *t, const win_rule *w, int colour, int h);
void pvs_line_table_free(pvs_line_table *t);

/* The pattern of a window key: the forward side in bits 0..2H-1, the
 * backward side in bits 16..16+2H-1. */
static inline int pvs_line_pattern(const pvs_line_table *t, uint32_t key)
{
    const uint32_t mask = (1u << (2 * t->half)) - 1;
    return t->pattern[t->side_of[key & mask] * t->n_half + t->side_of[(key >> 16) & mask]];
}

/* Pattern codes: the unordered sets of four patterns (a hex cell's fourth
 * line is PAT_DEAD), numbered densely, with what each means. */
#define PVS_N_CODES 2380
typedef struct pvs_codes {
    uint16_t code_of[PAT_NB * PAT_NB * PAT_NB * PAT_NB]; /* [p3][p2][p1][p0] */
    uint8_t patterns[PVS_N_CODES][4];                    /* ascending */
    uint8_t cls[PVS_N_CODES];                            /* the threat class */
    uint8_t maybe_foul[PVS_N_CODES]; /* renju: a black stone here might be a foul (renju_status
                                        decides) */
} pvs_codes;

/* The tables, built on first use (shared, read-only). */
const pvs_codes *pvs_codes_get(void);

static inline int pvs_code(const pvs_codes *t, int p0, int p1, int p2, int p3)
{
    return t->code_of[((p3 * PAT_NB + p2) * PAT_NB + p1) * PAT_NB + p0];
}

#endif
