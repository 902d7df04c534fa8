#include "env/solve_batch.h"

#include "players/solver.h"

int solver_solve_group(const group *g, int kind, int max_depth, int64_t max_nodes, int threads,
                       int8_t *results, int32_t *lens, int32_t *lines)
{
    int failed = 0;
    const size_t stride = 2 * (size_t)max_depth;
#pragma omp parallel num_threads(threads) if (threads > 1 && g -> n > 1) reduction(| : failed)
    {
        solver *s = solver_new(&g->v);
        failed |= s == NULL;
#pragma omp for schedule(dynamic, 1)
        for (int i = 0; i < g->n; i++) {
            int len = 0;
            results[i] = s ? (int8_t)solver_solve(s, group_board(g, i), kind, max_depth, max_nodes,
                                                  lines + (size_t)i * stride, &len)
                           : SOLVE_UNKNOWN;
            lens[i] = len;
        }
        solver_free(s);
    }
    return failed ? -1 : 0;
}
