/* Threat-space solver: a forced win for the seat to act by continuous fours
 * (VCF) or by threes and fours (VCT), under the variant's own rule.
 *
 * The search plays every move through the engine (game_step on copies of the
 * board), so what counts as a five, a legal move, a forbidden point, the end
 * of a game or a truncation at max_steps is exactly what the environment
 * says. A win is proved over every reply of the defender that matters:
 *
 * - after a four, every legal reply after which the attacker has no five
 *   point (for caro these include the cells just past the five; for renju a
 *   black defender cannot block on a forbidden point);
 * - after a three (a quiet move after which, were the defender to pass, the
 *   attacker could make two five points at once: an open four or a double
 *   four), every legal reply at all.
 *
 * Depth counts the attacker's moves, the winning five included: a VCF of
 * depth 2 is a four and then a five. A search that runs out of nodes reports
 * SOLVE_UNKNOWN. */
#ifndef FIVEROW_SOLVER_H
#define FIVEROW_SOLVER_H

#include <stdint.h>

#include "game/variant.h"

enum solve_kind { SOLVE_VCF = 0, SOLVE_VCT = 1 };
enum solve_result { SOLVE_UNKNOWN = -1, SOLVE_NONE = 0, SOLVE_WIN = 1 };

#define SOLVE_MAX_DEPTH 60

typedef struct solver solver;

/* A solver for boards of variant v (one per thread); NULL when out of memory.
 * The caller checks threat_refusal(v) first. */
solver *solver_new(const variant *v);
void solver_free(solver *s);

/* Search board b (normal play, ongoing) for a forced win of the seat to act:
 * SOLVE_WIN with the line (the attacker's moves and the defender's replies,
 * alternating, the last one the five; along the defender's strongest replies
 * found) in line[0..*len), SOLVE_NONE when there is none within max_depth,
 * SOLVE_UNKNOWN when max_nodes ran out first. line holds 2 * max_depth
 * entries. Deterministic: the same board gives the same answer. */
int solver_solve(solver *s, const board_hdr *b, int kind, int max_depth, int64_t max_nodes,
                 int32_t *line, int *len);

/* Nodes (moves played) by the last solver_solve. */
int64_t solver_nodes(const solver *s);

/* Would the opponent of the seat to act have a forced win of this kind if
 * the seat to act passed? Same results as solver_solve on that position.
 * (Null moves are how the threat player reads its opponent's threats.) */
int solver_solve_opponent(solver *s, const board_hdr *b, int kind, int max_depth, int64_t max_nodes,
                          int32_t *line, int *len);

#endif
