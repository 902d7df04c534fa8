/* The pvs player's per-thread engine: see pvs_engine.h. */
#include "players/pvs_engine.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

pvs_engine *pvs_engine_new(const variant *v)
{
    pvs_engine *e = calloc(1, sizeof(*e));
    if (!e)
        return NULL;
    if (pvs_ctx_init(&e->ctx, v)) {
        free(e);
        return NULL;
    }
    const size_t n = (size_t)v->g.n_cells;
    e->moves = malloc(sizeof(int16_t) * PVS_MAX_PLY * n);
    e->scores = malloc(sizeof(int32_t) * PVS_MAX_PLY * n);
    e->scratch = malloc(sizeof(int16_t) * n);
    /* reductions grow with the log of the depth and of the moves searched */
    for (int d = 0; d < 64; d++)
        for (int m = 0; m < 64; m++)
            e->reduction[d][m] =
                (int8_t)(d && m ? (int)(0.4 + log((double)d) * log((double)m) / 1.8) : 0);
    if (!e->moves || !e->scores || !e->scratch) {
        pvs_engine_free(e);
        return NULL;
    }
    return e;
}

void pvs_engine_free(pvs_engine *e)
{
    if (!e)
        return;
    pvs_ctx_free(&e->ctx);
    free(e->tt);
    free(e->moves);
    free(e->scores);
    free(e->scratch);
    free(e);
}

int pvs_engine_start(pvs_engine *e, const uint8_t *cells, int side, int64_t max_nodes,
                     int64_t time_ms, uint64_t tt_entries)
{
    if (!e->tt || e->tt_mask + 1 < tt_entries) {
        free(e->tt);
        e->tt = calloc(tt_entries, sizeof(pvs_tt_entry));
        e->tt_mask = e->tt ? tt_entries - 1 : 0;
        e->gen = 0;
        if (!e->tt)
            return -1;
    }
    /* a new generation makes every entry stale; clear on wrap-around */
    if (++e->gen == 0) {
        memset(e->tt, 0, sizeof(pvs_tt_entry) * (e->tt_mask + 1));
        e->gen = 1;
    }
    memset(e->history, 0, sizeof(e->history));
    memset(e->killer, 0xff, sizeof(e->killer));
    e->nodes = 0;
    e->max_nodes = max_nodes;
    e->time_ms = time_ms;
    e->stopped = 0;
    e->next_clock = 256;
    clock_gettime(CLOCK_MONOTONIC, &e->start);
    pvs_board_load(&e->board, &e->ctx, cells, side);
    return 0;
}

int64_t pvs_engine_elapsed_ms(const pvs_engine *e)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)(now.tv_sec - e->start.tv_sec) * 1000 +
           (int64_t)(now.tv_nsec - e->start.tv_nsec) / 1000000;
}

int pvs_engine_out_of_budget(pvs_engine *e)
{
    if (e->stopped)
        return 1;
    if (e->nodes >= e->max_nodes)
        e->stopped = 1;
    else if (e->time_ms > 0 && e->nodes >= e->next_clock) {
        e->next_clock = e->nodes + 256;
        e->stopped = pvs_engine_elapsed_ms(e) >= e->time_ms;
    }
    return e->stopped;
}
