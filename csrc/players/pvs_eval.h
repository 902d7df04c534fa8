/* The pvs player's evaluation and move scores, from the pattern codes and
 * threat classes the board keeps (pvs_board.h).
 *
 * A cell is worth, to a colour, the sum of what a stone there would make
 * along each line plus a bonus for the combination (an open three with a
 * four, two threes, ...). A position is worth, to the side to move, its
 * empty cells' worth to it less their worth to the other side, and a term
 * for the threats each side holds with the move in hand (a four-three or a
 * double three to play, an open three to answer). Values are in the
 * search's units: PVS_WIN and beyond are won games. */
#ifndef FIVEROW_PVS_EVAL_H
#define FIVEROW_PVS_EVAL_H

#include "players/pvs_board.h"

#define PVS_WIN 30000
#define PVS_WON_IN_MAX (PVS_WIN - 1000) /* values beyond this are wins found by search */
#define PVS_EVAL_MAX 20000

struct pvs_ctx;
/* The cells' worth by pattern code, into the context (once per context). */
void pvs_eval_fill_values(struct pvs_ctx *x);

/* The position's worth to the side to move (no five for either side to
 * play at once: the search handles those first). */
int pvs_evaluate(const pvs_board *pb);

/* How promising cell c (empty) is for the side to move: its own threat
 * class (attack), the other side's there (defence), then the cell's worth
 * to both. */
int pvs_move_score(const pvs_board *pb, int c);

#endif
