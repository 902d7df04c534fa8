/* C micro-benchmark: renju forbidden-point checks per second.
 *
 * Plays random renju games (forbidden="lose", so fouls stay on the board and
 * positions get dense), keeps positions at every ply, then times
 * renju_status() over every empty point of each position: the full check,
 * five / overline / double-four / double-three with the recursion, from the
 * cells alone. Prints one JSON line. Built and run by bench_renju.py. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "env/batch.h"
#include "rules/renju.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    int n_positions = argc > 1 ? atoi(argv[1]) : 20000;
    variant_params p;
    variant_params_default(&p);
    char err[256];
    variant_params_set(&p, "rule", "renju", err, sizeof(err));
    variant_params_set(&p, "forbidden", "lose", err, sizeof(err));
    variant v;
    if (variant_init(&v, &p, err, sizeof(err))) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    int n = v.g.n_cells;
    uint8_t *positions = malloc((size_t)n_positions * (size_t)(n + 1));
    uint8_t cells[GEOM_MAX_CELLS + 1];
    uint64_t rng = 0x9e3779b97f4a7c15ULL;
    int k = 0;
    while (k < n_positions) {
        memset(cells, CELL_EMPTY, (size_t)n);
        cells[n] = CELL_OFF;
        for (int ply = 0; ply < n && k < n_positions; ply++) {
            int c;
            do {
                rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
                c = (int)((rng >> 33) % (uint64_t)n);
            } while (cells[c] != CELL_EMPTY);
            cells[c] = (uint8_t)(ply % 2 ? CELL_WHITE : CELL_BLACK);
            memcpy(positions + (size_t)k * (size_t)(n + 1), cells, (size_t)n + 1);
            k++;
            if (ply > 150) /* keep a mix of opening, middle and dense positions */
                break;
        }
    }
    long long checks = 0, forbidden = 0;
    double start = now();
    for (int i = 0; i < n_positions; i++) {
        uint8_t *pos = positions + (size_t)i * (size_t)(n + 1);
        for (int c = 0; c < n; c++)
            if (pos[c] == CELL_EMPTY) {
                forbidden += renju_status(&v, pos, c) >= RENJU_OVERLINE;
                checks++;
            }
    }
    double seconds = now() - start;
    printf("{\"benchmark\": \"renju_status\", \"positions\": %d, \"checks\": %lld, "
           "\"forbidden\": %lld, \"checks_per_s\": %.0f}\n",
           n_positions, checks, forbidden, (double)checks / seconds);
    free(positions);
    variant_free(&v);
    return 0;
}
