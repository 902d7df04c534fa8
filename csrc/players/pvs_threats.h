/* Forced answers and forced wins of the pvs player: the moves that stop
 * the other side's five or open four, and VCF (victory by continuous
 * fours) for the side to move.
 *
 * Defences are found by trying the cells that can matter (the threat cells
 * and the cells of their lines' windows) and keeping those after which the
 * threat is gone, so the rule's own notion of a five decides: under caro a
 * four is also stopped at the cell past its five, under renju black may not
 * stop one on a foul. */
#ifndef FIVEROW_PVS_THREATS_H
#define FIVEROW_PVS_THREATS_H

#include "players/pvs_engine.h"

/* The moves of the side to move after which the other side has no five
 * point, in cell order, into out (n_cells room). */
int pvs_five_defences(pvs_engine *e, int16_t *out);

/* The same against the other side's open-four points (it has no five
 * point): moves after which it has neither. */
int pvs_four_defences(pvs_engine *e, int16_t *out);

/* A forced win by fours for the side to move within `depth` of its moves
 * (the five included)? 1 with its first move in *move, 0 when none was
 * found (or the budget ran out: pvs_engine_out_of_budget says). */
int pvs_vcf(pvs_engine *e, int depth, int *move);

/* A forced win by threes and fours (pvs_vct.c), the same way. */
int pvs_vct(pvs_engine *e, int depth, int *move);

#endif
