/* The pvs player's per-thread engine: the board, the transposition table,
 * the move-ordering memory and the budget of one decision.
 *
 * One engine per player scratch (per thread and variant), allocated once;
 * each decision starts a new table generation and clears the history, so
 * a decision depends on its board and budget only (the same move on any
 * thread, whatever the engine played before). */
#ifndef FIVEROW_PVS_ENGINE_H
#define FIVEROW_PVS_ENGINE_H

#include <stdint.h>
#include <time.h>

#include "players/pvs_board.h"
#include "players/pvs_eval.h"

#define PVS_MAX_PLY 96
#define PVS_MAX_DEPTH 60

enum { TT_NONE = 0, TT_UPPER = 1, TT_LOWER = 2, TT_EXACT = 3 };

/* Which stage of a decision chose the move. */
enum {
    PVS_BY_FIVE = 0,   /* a five of its own */
    PVS_BY_ONLY = 1,   /* the only move worth a look (a stop of a five, ...) */
    PVS_BY_LOST = 2,   /* every move loses: the best-scored one */
    PVS_BY_OPEN4 = 3,  /* an open four of its own */
    PVS_BY_VCF = 4,    /* the first move of its VCF */
    PVS_BY_SEARCH = 5, /* the search */
    PVS_BY_PROTOCOL = 6,
    PVS_BY_VCT = 7 /* the first move of its VCT */
};

typedef struct pvs_tt_entry {
    uint64_t key;
    int16_t value;
    int16_t move;
    int8_t depth;
    uint8_t bound;
    uint16_t gen;
} pvs_tt_entry;

typedef struct pvs_engine {
    pvs_ctx ctx;
    pvs_board board;
    pvs_tt_entry *tt;
    uint64_t tt_mask;
    uint16_t gen;
    /* the decision's budget */
    int64_t nodes, max_nodes;
    int64_t time_ms;    /* 0: none */
    int64_t next_clock; /* nodes at which the clock is read next */
    struct timespec start;
    int stopped;
    /* move ordering memory */
    int32_t history[2][GEOM_MAX_CELLS];
    int16_t killer[PVS_MAX_PLY][2];
    int8_t reduction[64][64]; /* late-move reductions by depth and moves searched */
    /* what the last decision found (pvs_decide) */
    int decided_by; /* PVS_BY_* */
    int depth;      /* iterations the search finished */
    int value;      /* its value for the side to move */
    /* move lists, one per ply */
    int16_t *moves;   /* [PVS_MAX_PLY * n_cells] */
    int32_t *scores;  /* the same */
    int16_t *scratch; /* [n_cells]: defence candidates */
} pvs_engine;

/* NULL when out of memory; the caller checks pvs_ctx_refusal(v) first. */
pvs_engine *pvs_engine_new(const variant *v);
void pvs_engine_free(pvs_engine *e);

/* Start a decision: a fresh table generation and history, the budget
 * (time_ms 0: nodes only), and the position (cells, side to move). A table
 * of at least `tt_entries` entries (a power of two) is made if the one
 * there is smaller. */
int pvs_engine_start(pvs_engine *e, const uint8_t *cells, int side, int64_t max_nodes,
                     int64_t time_ms, uint64_t tt_entries);

/* Is the budget spent? (Looks at the clock every 256 nodes.) */
int pvs_engine_out_of_budget(pvs_engine *e);
/* Milliseconds since the decision started. */
int64_t pvs_engine_elapsed_ms(const pvs_engine *e);

/* Play / take back a move of the search (a node). */
static inline void pvs_play(pvs_engine *e, int c)
{
    e->nodes++;
    pvs_board_play(&e->board, c);
}
static inline void pvs_undo(pvs_engine *e)
{
    pvs_board_undo(&e->board);
}

/* ---- transposition table ---- */

/* Values of won and lost games are stored relative to the node. */
static inline int pvs_value_to_tt(int v, int ply)
{
    return v > PVS_WON_IN_MAX ? v + ply : v < -PVS_WON_IN_MAX ? v - ply : v;
}
static inline int pvs_value_from_tt(int v, int ply)
{
    return v > PVS_WON_IN_MAX ? v - ply : v < -PVS_WON_IN_MAX ? v + ply : v;
}

static inline pvs_tt_entry *pvs_tt_probe(pvs_engine *e, uint64_t key)
{
    pvs_tt_entry *t = &e->tt[key & e->tt_mask];
    if (t->key == key && t->gen == e->gen)
        return t;
    t = &e->tt[(key & e->tt_mask) ^ 1];
    return t->key == key && t->gen == e->gen ? t : NULL;
}

static inline void pvs_tt_store(pvs_engine *e, uint64_t key, int value, int move, int depth,
                                int bound)
{
    pvs_tt_entry *a = &e->tt[key & e->tt_mask], *b = &e->tt[(key & e->tt_mask) ^ 1];
    pvs_tt_entry *t;
    if (a->key == key || a->gen != e->gen)
        t = a;
    else if (b->key == key || b->gen != e->gen)
        t = b;
    else
        t = a->depth <= b->depth ? a : b; /* the shallower gives way */
    if (t->key == key && t->gen == e->gen && depth < t->depth - 2 && bound != TT_EXACT)
        return;
    if (move < 0 && t->key == key && t->gen == e->gen)
        move = t->move;
    t->key = key;
    t->value = (int16_t)value;
    t->move = (int16_t)move;
    t->depth = (int8_t)depth;
    t->bound = (uint8_t)bound;
    t->gen = e->gen;
}

#endif
