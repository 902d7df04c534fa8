/* What wins along a line (SPEC section 3), as one descriptor per colour: the
 * line rules, the heuristic, the threat player, the solver and the pattern
 * evaluation all read it, so one place decides what wins.
 *
 * A run of exactly `connect` stones wins when its two end cells satisfy
 * `ends`; a longer run (an overline) wins when `overline` is set, whatever
 * its ends (freestyle, renju white, caro "gomocup6"). */
#ifndef FIVEROW_WIN_RULE_H
#define FIVEROW_WIN_RULE_H

#include <stdint.h>

#include "geometry/geometry.h"

enum win_ends {
    WIN_ENDS_ANY = 0,               /* freestyle, standard, renju */
    WIN_ENDS_BOTH_EMPTY = 1,        /* caro "open": both end cells on the board and empty */
    WIN_ENDS_NOT_BOTH_BLOCKED = 2,  /* caro: a block is an opposing stone or the edge */
    WIN_ENDS_NOT_BOTH_OPPONENT = 3, /* Gomocup caro: the edge never blocks */
};

/* How the hot loop specialises a descriptor (a constant at each call site). */
enum win_shape {
    WIN_SHAPE_AT_LEAST = 0, /* any run of connect or more */
    WIN_SHAPE_EXACT = 1,    /* exactly connect, ends free */
    WIN_SHAPE_ENDS = 2,     /* anything else: the ends are read */
};

typedef struct win_rule {
    int connect; /* k; 0 when no line wins (MODLINSEQ) */
    int overline;
    int ends; /* WIN_ENDS_* */
} win_rule;

static inline int win_rule_shape(const win_rule *w)
{
    if (w->ends != WIN_ENDS_ANY)
        return WIN_SHAPE_ENDS;
    return w->overline ? WIN_SHAPE_AT_LEAST : WIN_SHAPE_EXACT;
}

/* Does a run of len stones of `stone` (CELL_BLACK 1 / CELL_WHITE 2: the
 * other colour is stone ^ 3, an empty cell 0), whose first cells past its two
 * ends are ends[0..1] (GEOM_NONE: the edge, or no end), win under w? */
static inline int win_rule_run_wins(const win_rule *w, const uint8_t *cells, int len,
                                    const int ends[2], uint8_t stone)
{
    const int k = w->connect;
    if (k <= 0 || len < k)
        return 0;
    if (len > k)
        return w->overline;
    if (w->ends == WIN_ENDS_ANY)
        return 1;
    const uint8_t opp = (uint8_t)(stone ^ 3);
    const int none0 = ends[0] == GEOM_NONE, none1 = ends[1] == GEOM_NONE;
    const int opp0 = !none0 && cells[ends[0]] == opp, opp1 = !none1 && cells[ends[1]] == opp;
    switch (w->ends) {
    case WIN_ENDS_BOTH_EMPTY:
        return !none0 && !none1 && cells[ends[0]] == 0 && cells[ends[1]] == 0;
    case WIN_ENDS_NOT_BOTH_BLOCKED:
        return !((none0 || opp0) && (none1 || opp1));
    default: /* WIN_ENDS_NOT_BOTH_OPPONENT */
        return !(opp0 && opp1);
    }
}

/* The same for a run known to have a shape (the step loop's specialisation). */
static inline int win_rule_run_wins_shaped(const win_rule *w, int shape, const uint8_t *cells,
                                           int len, const int ends[2], uint8_t stone)
{
    switch (shape) {
    case WIN_SHAPE_AT_LEAST:
        return len >= w->connect;
    case WIN_SHAPE_EXACT:
        return len == w->connect;
    default:
        return win_rule_run_wins(w, cells, len, ends, stone);
    }
}

#endif
