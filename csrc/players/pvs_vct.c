/* VCT of the pvs player: a forced win by threes and fours, an AND-OR search
 * over the engine's board.
 *
 * The attacker plays fours and moves that make an open three (a cell where
 * it would then make an open four). The defender answers a four by stopping
 * it, and a three by any move after which the attacker has no open-four
 * cell, or by a four of its own (which the attacker must stop before it goes
 * on). A line is won when every answer loses; depth counts the attacker's
 * moves. Results without a win are kept in the transposition table. */
#include "players/pvs_threats.h"

#define VCT_SALT 0x5643545f76637421ULL

static int or_node(pvs_engine *e, int depth, int *move);

/* The defender to move: do all its answers lose? */
static int and_node(pvs_engine *e, int depth)
{
    pvs_board *pb = &e->board;
    const int me = pb->side, you = me ^ 1; /* me: the defender */
    if (pb->count[me][CLS_FIVE])
        return 0; /* it wins first */
    int16_t moves[GEOM_MAX_CELLS];
    int n;
    if (pb->count[you][CLS_FIVE]) {
        n = pvs_five_defences(e, moves);
    } else if (pb->count[me][CLS_O4]) {
        return 0; /* an open four of its own beats a three */
    } else if (pb->count[you][CLS_O4]) {
        n = pvs_four_defences(e, moves);
        /* its own fours delay the attack */
        for (int w = 0; w < BITS_WORDS(pb->x->n_cells); w++)
            for (uint64_t b = pb->set[me][SET_FOUR][w]; b; b &= b - 1) {
                int c = w * 64 + __builtin_ctzll(b), there = 0;
                for (int i = 0; i < n && !there; i++)
                    there = moves[i] == c;
                if (!there)
                    moves[n++] = (int16_t)c;
            }
    } else {
        return 0; /* the attacker's move threatened nothing */
    }
    for (int i = 0; i < n; i++) {
        int next;
        pvs_play(e, moves[i]);
        int won = or_node(e, depth - 1, &next);
        pvs_undo(e);
        if (!won)
            return 0;
    }
    return 1;
}

/* The attacker to move: has it a move whose every answer loses? */
static int or_node(pvs_engine *e, int depth, int *move)
{
    pvs_board *pb = &e->board;
    const int me = pb->side, you = me ^ 1;
    if (pb->count[me][CLS_FIVE]) {
        *move = pvs_set_first(pb, me, SET_FIVE);
        return 1;
    }
    if (pvs_engine_out_of_budget(e))
        return 0;
    int16_t moves[GEOM_MAX_CELLS];
    int n;
    if (pb->count[you][CLS_FIVE]) {
        /* the defender's four: stop it (a forced move, no depth spent) */
        n = pvs_five_defences(e, moves);
        for (int i = 0; i < n; i++) {
            pvs_play(e, moves[i]);
            int won = and_node(e, depth + 1);
            pvs_undo(e);
            if (won) {
                *move = moves[i];
                return 1;
            }
        }
        return 0;
    }
    if (pb->count[me][CLS_O4]) {
        *move = pvs_set_first(pb, me, SET_O4);
        return 1;
    }
    if (depth <= 1)
        return 0;
    const uint64_t key = pb->hash ^ VCT_SALT;
    pvs_tt_entry *t = pvs_tt_probe(e, key);
    if (t && t->bound == TT_UPPER && t->depth >= depth)
        return 0;
    /* fours, then threes, the stronger classes first */
    n = 0;
    for (int cls = CLS_C4O3; cls >= CLS_O3; cls--) {
        const uint64_t *set = pb->set[me][cls >= CLS_C4 ? SET_FOUR : SET_THREE];
        for (int w = 0; w < BITS_WORDS(pb->x->n_cells); w++)
            for (uint64_t b = set[w]; b; b &= b - 1) {
                int c = w * 64 + __builtin_ctzll(b);
                if (pb->cls[me][c] == cls)
                    moves[n++] = (int16_t)c;
            }
    }
    for (int i = 0; i < n; i++) {
        pvs_play(e, moves[i]);
        int won = and_node(e, depth);
        pvs_undo(e);
        if (won) {
            *move = moves[i];
            return 1;
        }
        if (e->stopped)
            return 0;
    }
    pvs_tt_store(e, key, 0, -1, depth, TT_UPPER);
    return 0;
}

int pvs_vct(pvs_engine *e, int depth, int *move)
{
    *move = -1;
    return or_node(e, depth, move);
}
