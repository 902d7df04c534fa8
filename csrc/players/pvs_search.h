/* Principal variation search of the pvs player: negamax alpha-beta with
 * iterative deepening and aspiration windows over the engine's board.
 *
 * - Threats first, at every node: a five of its own wins; the other side's
 *   five must be stopped (a forced move, no depth spent); an open four of
 *   its own wins; against the other side's open three only its stops and
 *   the side's own fours are searched.
 * - Moves: the empty cells within 2 of a stone along a line, ordered by the
 *   table move, then threat classes (attack and defence), killers and
 *   history. Late quiet moves are searched shallower (and at the last plies
 *   of non-PV nodes not at all).
 * - Leaves: a quiescence search of the side's fours (VCF), the other side's
 *   forced replies, and the static evaluation standing pat.
 * - A transposition table per engine (pvs_engine.h). */
#ifndef FIVEROW_PVS_SEARCH_H
#define FIVEROW_PVS_SEARCH_H

#include "players/pvs_engine.h"

typedef struct pvs_result {
    int best;  /* index into the root moves */
    int value; /* for the side to move */
    int depth; /* deepest iteration finished */
    int64_t nodes;
} pvs_result;

/* Search root[0..n) (legal moves of the side to move, best guess first) up
 * to max_depth plies within the engine's budget. */
void pvs_search_root(pvs_engine *e, int16_t *root, int n, int max_depth, pvs_result *res);

/* The moves the search would consider at the root, best guess first:
 * against a five only its stops; against an open three its stops and the
 * side's fours; else every candidate cell (the centre of an empty board).
 * Returns how many (0: the side has lost), into out (n_cells room). */
int pvs_root_moves(pvs_engine *e, int16_t *out);

#endif
