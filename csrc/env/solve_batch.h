/* The threat-space solver over every board of a group (the batch loop above
 * the solver, players/solver.h). */
#ifndef FIVEROW_SOLVE_BATCH_H
#define FIVEROW_SOLVE_BATCH_H

#include <stdint.h>

#include "env/batch.h"

/* Every board of a group at once (OpenMP over the boards, one solver per
 * thread, `threads` of them): results[i] (SOLVE_*; SOLVE_NONE for boards that
 * are over or in an opening phase), lens[i] and lines[i * 2 * max_depth ..].
 * Returns -1 when out of memory. */
int solver_solve_group(const group *g, int kind, int max_depth, int64_t max_nodes, int threads,
                       int8_t *results, int32_t *lens, int32_t *lines);

#endif
