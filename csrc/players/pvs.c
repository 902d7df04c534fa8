/* The pvs player's decisions: see pvs.h. */
#include "players/pvs.h"

#include <string.h>

#include "base/rng.h"
#include "game/game.h"
#include "openings/opening.h"
#include "players/pvs_engine.h"
#include "players/pvs_search.h"
#include "players/pvs_threats.h"

#define VCF_DEPTH 30         /* attacker moves of a VCF */
#define VCT_DEPTH 8          /* attacker moves of a VCT */
#define MAX_THREAT_CHECKS 16 /* root moves checked against the other side's VCF */

const char *pvs_refusal(const variant *v)
{
    return pvs_ctx_refusal(v);
}

uint64_t pvs_tt_entries(const player_spec *ps)
{
    /* about two entries per node of the budget, 4 Ki .. 4 Mi (64 MiB);
     * the clock's budget has no node count to go by: 1 Mi (16 MiB) */
    int64_t want = ps->time_ms > 0 ? (int64_t)1 << 20 : 2 * (int64_t)ps->nodes;
    uint64_t n = 4096;
    while ((int64_t)n < want && n < ((uint64_t)1 << 22))
        n <<= 1;
    return n;
}

/* VCF (or with vct VCT) of the side to move within `slice` more nodes: 1
 * found (first move in *move), 0 none, -1 the slice ran out first. */
static int threat_within(pvs_engine *e, int vct, int64_t slice, int *move)
{
    const int64_t limit = e->max_nodes;
    if (e->stopped)
        return -1;
    if (e->nodes + slice < limit)
        e->max_nodes = e->nodes + slice;
    int found = vct ? pvs_vct(e, VCT_DEPTH, move) : pvs_vcf(e, VCF_DEPTH, move);
    int cut = e->stopped;
    e->max_nodes = limit;
    if (cut) {
        /* the slice is spent; the decision's budget may not be */
        e->stopped = 0;
        e->next_clock = e->nodes;
        pvs_engine_out_of_budget(e);
    }
    return found ? 1 : cut ? -1 : 0;
}

static int is_legal(const uint64_t *legal, int c)
{
    return c >= 0 && bits_get(legal, c);
}

/* Keep the moves of list that are legal; returns how many. */
static int keep_legal(int16_t *list, int n, const uint64_t *legal)
{
    int m = 0;
    for (int i = 0; i < n; i++)
        if (is_legal(legal, list[i]))
            list[m++] = list[i];
    return m;
}

/* The legal cell with the best move score (near the stones when any are),
 * for positions with nothing to search. */
static int best_scored_legal(pvs_engine *e, const uint64_t *legal)
{
    const pvs_board *pb = &e->board;
    int best = -1, best_score = 0;
    for (int pass = 0; pass < 2 && best < 0; pass++)
        for (int w = 0; w < BITS_WORDS(pb->x->n_cells); w++)
            for (uint64_t b = legal[w] & (pass ? ~0ULL : pb->cand[w]); b; b &= b - 1) {
                int c = w * 64 + __builtin_ctzll(b);
                if (pb->cells[c] != CELL_EMPTY)
                    continue;
                int s = pvs_move_score(pb, c);
                if (best < 0 || s > best_score) {
                    best = c;
                    best_score = s;
                }
            }
    return best;
}

/* Order the root moves by score, ties in an order drawn from the key. */
static void order_root(pvs_engine *e, int16_t *root, int n, uint64_t key)
{
    uint32_t ctr = 0;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)rng_below(rng_at(key, ctr++), (uint32_t)(i + 1));
        int16_t t = root[i];
        root[i] = root[j];
        root[j] = t;
    }
    int32_t score[GEOM_MAX_CELLS];
    for (int i = 0; i < n; i++)
        score[i] = pvs_move_score(&e->board, root[i]);
    for (int i = 1; i < n; i++) {
        int16_t m = root[i];
        int32_t s = score[i];
        int j = i;
        for (; j > 0 && score[j - 1] < s; j--) {
            root[j] = root[j - 1];
            score[j] = score[j - 1];
        }
        root[j] = m;
        score[j] = s;
    }
}

/* The other side's VCF, were the side to move to pass: if it has one, keep
 * the root moves after which it has none (those the budget could not
 * decide when none is sure). Returns the moves kept. */
static int stop_threats(pvs_engine *e, int16_t *root, int n)
{
    pvs_board *pb = &e->board;
    const int64_t share = e->max_nodes / 4;
    int threat_move, vct = 0;
    pvs_board_pass(pb);
    int threat = threat_within(e, 0, share / 8, &threat_move);
    if (threat != 1) {
        vct = 1;
        threat = threat_within(e, 1, share / 8, &threat_move);
    }
    pvs_board_pass(pb);
    if (threat != 1)
        return n;
    /* the threat's first cell is the first to try */
    for (int i = 0; i < n; i++)
        if (root[i] == threat_move) {
            memmove(root + 1, root, sizeof(int16_t) * (size_t)i);
            root[0] = (int16_t)threat_move;
            break;
        }
    int16_t safe[MAX_THREAT_CHECKS], unsure[MAX_THREAT_CHECKS];
    int n_safe = 0, n_unsure = 0, checks = n < MAX_THREAT_CHECKS ? n : MAX_THREAT_CHECKS;
    for (int i = 0; i < checks && !e->stopped; i++) {
        int m;
        pvs_play(e, root[i]);
        int r = threat_within(e, 0, share / (checks + 1), &m);
        if (r == 0 && vct)
            r = threat_within(e, 1, share / (checks + 1), &m);
        pvs_undo(e);
        if (r == 0)
            safe[n_safe++] = root[i];
        else if (r < 0)
            unsure[n_unsure++] = root[i];
    }
    if (n_safe) {
        memcpy(root, safe, sizeof(int16_t) * (size_t)n_safe);
        return n_safe;
    }
    if (n_unsure) {
        memcpy(root, unsure, sizeof(int16_t) * (size_t)n_unsure);
        return n_unsure;
    }
    return n; /* lost whatever it plays: let the search resist longest */
}

int pvs_decide(pvs_engine *e, const player_spec *ps, const uint64_t *legal, uint64_t key,
               int *value)
{
    pvs_board *pb = &e->board;
    const int me = pb->side;
    *value = 0;
    e->depth = 0;
    int16_t *root = e->scratch;
    if (pb->count[me][CLS_FIVE]) {
        int n = keep_legal(root, pvs_set_cells(pb, me, SET_FIVE, root, pb->x->n_cells), legal);
        if (n) {
            e->decided_by = PVS_BY_FIVE;
            *value = PVS_WIN - 1;
            return root[0];
        }
    }
    int n = keep_legal(root, pvs_root_moves(e, root), legal);
    if (n == 0) {
        e->decided_by = PVS_BY_LOST;
        *value = -PVS_WIN + 2;
        return best_scored_legal(e, legal);
    }
    e->decided_by = PVS_BY_ONLY;
    if (n == 1)
        return root[0];
    if (pb->count[me][CLS_O4] && !pb->count[me ^ 1][CLS_FIVE]) {
        int16_t o4[GEOM_MAX_CELLS];
        int m = keep_legal(o4, pvs_set_cells(pb, me, SET_O4, o4, pb->x->n_cells), legal);
        if (m) {
            e->decided_by = PVS_BY_OPEN4;
            *value = PVS_WIN - 3;
            return o4[0];
        }
    }
    int win;
    if (threat_within(e, 0, e->max_nodes / 8, &win) == 1 && is_legal(legal, win)) {
        e->decided_by = PVS_BY_VCF;
        *value = PVS_WIN - 5;
        return win;
    }
    if (threat_within(e, 1, e->max_nodes / 8, &win) == 1 && is_legal(legal, win)) {
        e->decided_by = PVS_BY_VCT;
        *value = PVS_WIN - 7;
        return win;
    }
    order_root(e, root, n, key);
    n = stop_threats(e, root, n);
    if (n == 1)
        return root[0];
    pvs_result res;
    pvs_search_root(e, root, n, ps->depth, &res);
    e->decided_by = PVS_BY_SEARCH;
    e->depth = res.depth;
    *value = res.value;
    return root[res.best];
}

int pvs_move(const player_spec *ps, const variant *v, const board_hdr *b, policy_scratch *s,
             uint64_t key, float *policy)
{
    if (!s->pvs)
        s->pvs = pvs_engine_new(v);
    pvs_engine *e = s->pvs;
    int a = -1, value = 0;
    if (e && pvs_engine_start(e, board_cells_c(v, b), b->colour, ps->nodes, ps->time_ms,
                              pvs_tt_entries(ps)) == 0) {
        if (b->phase != PHASE_PLAY) {
            a = pvs_protocol_move(e, ps, v, b, key);
            e->decided_by = PVS_BY_PROTOCOL;
        } else {
            a = pvs_decide(e, ps, board_legal_c(v, b), key, &value);
        }
        e->value = value;
    }
    if (a < 0 || !game_is_legal(v, b, a)) {
        /* out of memory, or nothing it could read: any legal action */
        uint32_t ctr = 0;
        a = game_random_legal(v, b, key, &ctr);
    }
    if (policy) {
        memset(policy, 0, sizeof(float) * (size_t)v->n_actions);
        policy[a] = 1.0f;
    }
    return a;
}
