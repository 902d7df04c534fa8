/* Principal variation search of the pvs player: see pvs_search.h. */
#include "players/pvs_search.h"

#include <string.h>

#include "players/pvs_threats.h"

#define INF 32000
#define QUIESCENCE_FOURS 8 /* fours a quiescence line may play */

/* Quiet moves searched at the last plies of non-PV nodes, by depth. */
static const int late_move_count[5] = {0, 3, 6, 10, 15};
#define QUIET_MOVES 12    /* quiet moves searched at a node at most */
#define PV_QUIET_MOVES 20 /* the same on the principal variation */

static inline int won_in(int ply)
{
    return PVS_WIN - ply;
}

static inline int is_four(int cls)
{
    return cls >= CLS_C4 && cls <= CLS_O4;
}

/* Order moves[0..n) by score, highest first (stable). */
static void sort_moves(int16_t *moves, int32_t *scores, int n)
{
    for (int i = 1; i < n; i++) {
        int16_t m = moves[i];
        int32_t s = scores[i];
        int j = i;
        for (; j > 0 && scores[j - 1] < s; j--) {
            moves[j] = moves[j - 1];
            scores[j] = scores[j - 1];
        }
        moves[j] = m;
        scores[j] = s;
    }
}

/* Every empty cell near a stone the side to move may play. */
static int candidate_moves(const pvs_board *pb, int16_t *out)
{
    int n = 0;
    for (int w = 0; w < BITS_WORDS(pb->x->n_cells); w++)
        for (uint64_t b = pb->cand[w]; b; b &= b - 1) {
            int c = w * 64 + __builtin_ctzll(b);
            if (pb->cls[pb->side][c] != CLS_FORBID)
                out[n++] = (int16_t)c;
        }
    return n;
}

/* Against an open three: its stops, then the side's own fours. */
static int defence_moves(pvs_engine *e, int16_t *out)
{
    pvs_board *pb = &e->board;
    int n = pvs_four_defences(e, out);
    for (int w = 0; w < BITS_WORDS(pb->x->n_cells); w++)
        for (uint64_t b = pb->set[pb->side][SET_FOUR][w]; b; b &= b - 1) {
            int c = w * 64 + __builtin_ctzll(b), there = 0;
            for (int i = 0; i < n && !there; i++)
                there = out[i] == c;
            if (!there)
                out[n++] = (int16_t)c;
        }
    return n;
}

int pvs_root_moves(pvs_engine *e, int16_t *out)
{
    pvs_board *pb = &e->board;
    const int me = pb->side, you = me ^ 1;
    if (pb->count[you][CLS_FIVE])
        return pvs_five_defences(e, out);
    if (pb->count[you][CLS_O4] && !pb->count[me][CLS_O4])
        return defence_moves(e, out);
    int n = candidate_moves(pb, out);
    if (n == 0 && pb->cells[pb->x->v->g.centre] == CELL_EMPTY && pb->n_stones == 0)
        out[n++] = (int16_t)pb->x->v->g.centre;
    return n;
}

static void score_moves(pvs_engine *e, const int16_t *moves, int32_t *scores, int n, int tt_move,
                        int ply)
{
    const pvs_board *pb = &e->board;
    const int me = pb->side;
    for (int i = 0; i < n; i++) {
        const int m = moves[i];
        int32_t s = pvs_move_score(pb, m);
        int32_t h = e->history[me][m] / 8;
        s += h > 400 ? 400 : h;
        if (m == e->killer[ply][0])
            s += 300;
        else if (m == e->killer[ply][1])
            s += 200;
        if (m == tt_move)
            s = 1 << 30;
        scores[i] = s;
    }
}

static int qsearch(pvs_engine *e, int alpha, int beta, int ply, int fours)
{
    pvs_board *pb = &e->board;
    const int me = pb->side, you = me ^ 1;
    if (pb->count[me][CLS_FIVE])
        return won_in(ply + 1);
    if (pvs_engine_out_of_budget(e))
        return 0;
    int16_t *moves = e->moves + (size_t)ply * (size_t)pb->x->n_cells;
    if (pb->count[you][CLS_FIVE]) {
        int n = pvs_five_defences(e, moves);
        int best = -won_in(ply + 2);
        for (int i = 0; i < n; i++) {
            pvs_play(e, moves[i]);
            int v = -qsearch(e, -beta, -alpha, ply + 1, fours);
            pvs_undo(e);
            if (e->stopped)
                return 0;
            if (v > best) {
                best = v;
                if (v > alpha)
                    alpha = v;
                if (v >= beta)
                    break;
            }
        }
        return best;
    }
    if (pb->count[me][CLS_O4])
        return won_in(ply + 3);
    if (ply >= PVS_MAX_PLY - 2)
        return pvs_evaluate(pb);
    const uint64_t key = pb->hash;
    pvs_tt_entry *t = pvs_tt_probe(e, key);
    if (t) {
        int v = pvs_value_from_tt(t->value, ply);
        if (t->bound == TT_EXACT || (t->bound == TT_LOWER && v >= beta) ||
            (t->bound == TT_UPPER && v <= alpha))
            return v;
    }
    int best = pvs_evaluate(pb);
    if (best >= beta || fours <= 0)
        return best;
    const int alpha0 = alpha;
    if (best > alpha)
        alpha = best;
    int n = pvs_set_cells(pb, me, SET_FOUR, moves, pb->x->n_cells);
    int32_t *scores = e->scores + (size_t)ply * (size_t)pb->x->n_cells;
    for (int i = 0; i < n; i++)
        scores[i] = pb->cls[me][moves[i]];
    sort_moves(moves, scores, n);
    int best_move = -1;
    for (int i = 0; i < n; i++) {
        pvs_play(e, moves[i]);
        int v = -qsearch(e, -beta, -alpha, ply + 1, fours - 1);
        pvs_undo(e);
        if (e->stopped)
            return 0;
        if (v > best) {
            best = v;
            best_move = moves[i];
            if (v > alpha)
                alpha = v;
            if (v >= beta)
                break;
        }
    }
    int bound = best >= beta ? TT_LOWER : best > alpha0 ? TT_EXACT : TT_UPPER;
    pvs_tt_store(e, key, pvs_value_to_tt(best, ply), best_move, 0, bound);
    return best;
}

static int search(pvs_engine *e, int depth, int alpha, int beta, int ply, int pv)
{
    pvs_board *pb = &e->board;
    const int me = pb->side, you = me ^ 1;
    if (pb->count[me][CLS_FIVE])
        return won_in(ply + 1);
    if (pvs_engine_out_of_budget(e))
        return 0;
    if (ply >= PVS_MAX_PLY - 2)
        return pvs_evaluate(pb);
    /* no line from here beats a win at once or loses faster than at once */
    if (alpha < -won_in(ply))
        alpha = -won_in(ply);
    if (beta > won_in(ply + 1))
        beta = won_in(ply + 1);
    if (alpha >= beta)
        return alpha;
    const size_t n_cells = (size_t)pb->x->n_cells;
    int16_t *moves = e->moves + (size_t)ply * n_cells;
    int32_t *scores = e->scores + (size_t)ply * n_cells;
    int n = 0, forced = 0;
    if (pb->count[you][CLS_FIVE]) {
        n = pvs_five_defences(e, moves);
        if (n == 0)
            return -won_in(ply + 2);
        if (n == 1) {
            pvs_play(e, moves[0]);
            int v = -search(e, depth, -beta, -alpha, ply + 1, pv);
            pvs_undo(e);
            return v;
        }
        forced = 1; /* caro: several stops, all searched */
    } else {
        if (pb->count[me][CLS_O4])
            return won_in(ply + 3);
        if (depth <= 0)
            return qsearch(e, alpha, beta, ply, QUIESCENCE_FOURS);
    }
    const uint64_t key = pb->hash;
    int tt_move = -1;
    pvs_tt_entry *t = pvs_tt_probe(e, key);
    if (t) {
        tt_move = t->move;
        if (!pv && t->depth >= depth) {
            int v = pvs_value_from_tt(t->value, ply);
            if (t->bound == TT_EXACT || (t->bound == TT_LOWER && v >= beta) ||
                (t->bound == TT_UPPER && v <= alpha))
                return v;
        }
    }
    int restricted = forced;
    if (!forced) {
        if (pb->count[you][CLS_O4]) {
            n = defence_moves(e, moves);
            if (n == 0)
                return -won_in(ply + 4);
            restricted = 1;
        } else {
            n = candidate_moves(pb, moves);
            if (n == 0)
                return 0; /* nothing left to play */
        }
    }
    const int stand = restricted ? 0 : pvs_evaluate(pb);
    if (!pv && !restricted && depth >= 3 && stand >= beta && !pb->count[you][CLS_O4] &&
        !pb->count[you][CLS_C4O3] && !pb->count[you][CLS_O3X2] && beta < PVS_WON_IN_MAX) {
        /* null move: were the side to pass and still hold beta, it would */
        int r = 2 + depth / 4;
        pvs_board_pass(pb);
        e->nodes++;
        int v = -search(e, depth - 1 - r, -beta, -beta + 1, ply + 1, 0);
        pvs_board_pass(pb);
        if (e->stopped)
            return 0;
        if (v >= beta)
            return v > PVS_WON_IN_MAX ? beta : v;
    }
    score_moves(e, moves, scores, n, tt_move, ply);
    sort_moves(moves, scores, n);
    const int alpha0 = alpha;
    int best = -INF, best_move = -1, searched = 0;
    for (int i = 0; i < n; i++) {
        const int m = moves[i];
        const int quiet =
            !restricted && pb->cls[me][m] < CLS_O3 && pb->cls[you][m] < CLS_O3 && m != tt_move;
        if (!pv && quiet && depth < 5 && searched >= late_move_count[depth] &&
            best > -PVS_WON_IN_MAX)
            continue;
        if (quiet && searched >= (pv ? PV_QUIET_MOVES : QUIET_MOVES) && best > -PVS_WON_IN_MAX)
            continue;
        pvs_play(e, m);
        int v;
        if (searched == 0) {
            v = -search(e, depth - 1, -beta, -alpha, ply + 1, pv);
        } else {
            int r = 0;
            if (quiet && depth >= 2 && searched >= 2) {
                r = e->reduction[depth < 64 ? depth : 63][searched < 64 ? searched : 63];
                if (r > depth - 1)
                    r = depth - 1;
            }
            v = -search(e, depth - 1 - r, -alpha - 1, -alpha, ply + 1, 0);
            if (v > alpha && r)
                v = -search(e, depth - 1, -alpha - 1, -alpha, ply + 1, 0);
            if (v > alpha && v < beta && pv)
                v = -search(e, depth - 1, -beta, -alpha, ply + 1, 1);
        }
        pvs_undo(e);
        if (e->stopped)
            return 0;
        searched++;
        if (v > best) {
            best = v;
            best_move = m;
            if (v > alpha) {
                alpha = v;
                if (v >= beta) {
                    if (!is_four(pb->cls[me][m])) {
                        e->history[me][m] += depth * depth;
                        if (e->killer[ply][0] != m) {
                            e->killer[ply][1] = e->killer[ply][0];
                            e->killer[ply][0] = (int16_t)m;
                        }
                    }
                    break;
                }
            }
        }
    }
    int bound = best >= beta ? TT_LOWER : best > alpha0 ? TT_EXACT : TT_UPPER;
    pvs_tt_store(e, key, pvs_value_to_tt(best, ply), best_move, depth, bound);
    return best;
}

/* One iteration at the root: the best index into root and its value, or
 * -1 when the budget ran out before the first move was searched. */
static int root_iteration(pvs_engine *e, const int16_t *root, int n, int depth, int alpha, int beta,
                          int *value)
{
    int best = -1, best_value = -INF;
    for (int i = 0; i < n; i++) {
        pvs_play(e, root[i]);
        int v;
        if (i == 0) {
            v = -search(e, depth - 1, -beta, -alpha, 1, 1);
        } else {
            v = -search(e, depth - 1, -alpha - 1, -alpha, 1, 0);
            if (v > alpha && v < beta && !e->stopped)
                v = -search(e, depth - 1, -beta, -alpha, 1, 1);
        }
        pvs_undo(e);
        if (e->stopped)
            break;
        if (v > best_value) {
            best_value = v;
            best = i;
            if (v > alpha)
                alpha = v;
            if (v >= beta)
                break;
        }
    }
    *value = best_value;
    return best;
}

void pvs_search_root(pvs_engine *e, int16_t *root, int n, int max_depth, pvs_result *res)
{
    res->best = 0;
    res->value = 0;
    res->depth = 0;
    if (n <= 1) {
        res->nodes = e->nodes;
        return;
    }
    int prev = 0;
    for (int depth = 1; depth <= max_depth; depth++) {
        int delta = 40, alpha = -INF, beta = INF;
        if (depth >= 4 && prev > -PVS_WON_IN_MAX && prev < PVS_WON_IN_MAX) {
            alpha = prev - delta;
            beta = prev + delta;
        }
        int value = 0, best;
        for (;;) {
            best = root_iteration(e, root, n, depth, alpha, beta, &value);
            if (e->stopped)
                break;
            if (value <= alpha && alpha > -INF) {
                alpha = alpha - delta < -INF ? -INF : alpha - delta;
            } else if (value >= beta && beta < INF) {
                beta = beta + delta > INF ? INF : beta + delta;
            } else {
                break;
            }
            delta *= 2;
            if (delta > 1000) {
                alpha = -INF;
                beta = INF;
            }
        }
        if (e->stopped) {
            /* a move of the unfinished iteration that beat the previous
             * best (searched first) with a full window is better */
            if (best > 0) {
                res->best = 0;
                int16_t m = root[best];
                memmove(root + 1, root, sizeof(int16_t) * (size_t)best);
                root[0] = m;
                res->value = value;
            }
            break;
        }
        /* the best first for the next iteration */
        int16_t m = root[best];
        memmove(root + 1, root, sizeof(int16_t) * (size_t)best);
        root[0] = m;
        res->best = 0;
        res->value = prev = value;
        res->depth = depth;
        if (value > PVS_WON_IN_MAX || value < -PVS_WON_IN_MAX)
            break; /* decided */
        if (e->time_ms > 0 && pvs_engine_elapsed_ms(e) * 10 > e->time_ms * 7)
            break; /* the next iteration would hardly get past its first move */
    }
    res->nodes = e->nodes;
}
