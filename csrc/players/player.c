/* The players' common face: parameters, scratch memory, decision keys and
 * the dispatch to random, heuristic, MCTS, threat, net and pvs play. */
#include "players/player.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "game/game.h"
#include "players/net.h"
#include "players/net_player.h"
#include "players/pvs.h"
#include "players/pvs_engine.h"
#include "players/solver.h"
#include "players/threat_search.h"

void player_spec_default(player_spec *ps, int kind)
{
    memset(ps, 0, sizeof(*ps));
    ps->kind = kind;
    ps->simulations = kind == PLAYER_THREAT || kind == PLAYER_NET ? 0 : 400;
    ps->rollout = PLAYER_HEURISTIC;
    ps->width = 10;
    ps->depth = 60;
    ps->c_uct = 1.0f;
    /* MCTS playouts explore (the threat player's too); the heuristic player
     * itself does not */
    ps->epsilon = kind == PLAYER_MCTS || kind == PLAYER_THREAT ? 0.1f : 0.0f;
    ps->nodes = kind == PLAYER_PVS ? PVS_DEFAULT_NODES : 100000;
    ps->plies = 2;
    ps->vct_depth = 8;
    ps->c_puct = 1.5f;
    ps->time_ms = 0;
}

const char *player_spec_check(const player_spec *ps)
{
    if (ps->kind < PLAYER_RANDOM || ps->kind > PLAYER_PVS)
        return "player must be random, heuristic, mcts, threat, net or pvs";
    if (ps->kind == PLAYER_PVS) {
        if (ps->nodes < 1 || ps->nodes > 1000000000)
            return "pvs: nodes must be in 1..1000000000";
        if (ps->depth < 1 || ps->depth > PVS_MAX_DEPTH)
            return "pvs: depth must be in 1..60";
        if (ps->time_ms < 0 || ps->time_ms > 3600000)
            return "pvs: time_ms must be in 0..3600000 (0: no clock, nodes alone decide)";
        return NULL;
    }
    if (!(ps->epsilon >= 0 && ps->epsilon <= 1))
        return "epsilon must be in [0, 1]";
    if (ps->kind == PLAYER_NET) {
        if (!ps->net)
            return "a net player needs a network (path=...)";
        if (ps->simulations < 0 || ps->simulations > 1000000)
            return "simulations must be in 0..1000000 (0: the policy alone)";
        if (!(ps->temperature >= 0 && ps->temperature <= 100))
            return "temperature must be in [0, 100] (0: the best action)";
        if (!isfinite(ps->c_puct) || ps->c_puct < 0)
            return "c_puct must be a finite number >= 0";
        return NULL;
    }
    if (ps->kind == PLAYER_THREAT) {
        if (ps->nodes < 1 || ps->nodes > 1000000000)
            return "nodes must be in 1..1000000000";
        if (ps->vct_depth < 1 || ps->vct_depth > SOLVE_MAX_DEPTH)
            return "vct_depth must be in 1..60";
        if (ps->plies < 1 || ps->plies > THREAT_SEARCH_MAX_PLIES)
            return "plies must be in 1..12";
        if (ps->width < 1 || ps->width > THREAT_SEARCH_MAX_WIDTH)
            return "width must be in 1..64";
        if (ps->simulations < 0 || ps->simulations > 1000000)
            return "simulations must be in 0..1000000 (0: alpha-beta)";
        if (ps->simulations == 0)
            return NULL;
    } else if (ps->kind != PLAYER_MCTS) {
        return NULL;
    } else if (ps->simulations < 1 || ps->simulations > 1000000) {
        return "simulations must be in 1..1000000";
    }
    if (ps->rollout != PLAYER_RANDOM && ps->rollout != PLAYER_HEURISTIC)
        return "rollout must be random or heuristic";
    if (ps->width < 0 || ps->width > 100000)
        return "width must be in 0..100000 (0: every legal action)";
    if (ps->depth < 0 || ps->depth > 100000)
        return "depth must be in 0..100000";
    if (!isfinite(ps->c_uct) || ps->c_uct < 0)
        return "c_uct must be a finite number >= 0";
    if (!(ps->epsilon >= 0 && ps->epsilon <= 1))
        return "epsilon must be in [0, 1]";
    return NULL;
}

const char *player_spec_check_variant(const player_spec *ps, const variant *v, char *err,
                                      size_t errlen)
{
    const char *refused = ps->kind == PLAYER_PVS ? pvs_refusal(v) : NULL;
    if (refused) {
        snprintf(err, errlen, "%s", refused);
        return err;
    }
    if (ps->kind == PLAYER_NET && ps->net && net_check_variant(ps->net, v, err, errlen))
        return err;
    return NULL;
}

void player_spec_retain(const player_spec *ps)
{
    if (ps->net)
        net_retain(ps->net);
}

void player_spec_release(player_spec *ps)
{
    net_release(ps->net);
    ps->net = NULL;
}

policy_scratch *policy_scratch_new(const variant *v)
{
    policy_scratch *s = calloc(1, sizeof(*s));
    if (!s)
        return NULL;
    s->v = v;
    size_t state = (v->state_size + 63) & ~(size_t)63;
    s->board = aligned_alloc(64, state);
    s->board2 = aligned_alloc(64, state);
    s->cand = malloc(sizeof(int32_t) * (size_t)v->n_actions);
    s->score = malloc(sizeof(float) * (size_t)v->n_actions);
    s->near = calloc(BITS_WORDS(GEOM_MAX_CELLS), sizeof(uint64_t));
    s->path = malloc(sizeof(int32_t) * ((size_t)v->max_steps + 2));
    if (!s->board || !s->board2 || !s->cand || !s->score || !s->near || !s->path) {
        policy_scratch_free(s);
        return NULL;
    }
    return s;
}

void policy_scratch_free(policy_scratch *s)
{
    if (!s)
        return;
    free(s->board);
    free(s->board2);
    free(s->cand);
    free(s->score);
    free(s->near);
    free(s->path);
    free(s->nodes);
    solver_free(s->solver);
    threat_search_free(s->search);
    net_scratch_free(s->net);
    pvs_engine_free(s->pvs);
    free(s);
}

uint64_t policy_decision_key(const player_spec *ps, const board_hdr *b)
{
    /* One mix per decision (a full key derivation cost a random player a
     * third of its time): the episode's own key, moved to a stream of the
     * player's, at the step. */
    uint64_t stream =
        (ps->seed + RNG_STREAM_PLAYER) * 0xd1342543de82ef95ULL ^ 0x5851f42d4c957f2dULL;
    return rng_at(b->sample_key ^ stream, b->steps);
}

static void uniform_over_legal(const variant *v, const board_hdr *b, float *policy)
{
    const uint64_t *legal = board_legal_c(v, b);
    float p = b->n_legal ? 1.0f / (float)b->n_legal : 0.0f;
    for (int a = 0; a < v->n_actions; a++)
        policy[a] = bits_get(legal, a) ? p : 0.0f;
}

/* The heuristic's policy: its best candidates (left in s by the move), evenly. */
static void best_candidates(const variant *v, const policy_scratch *s, int n, float *policy)
{
    memset(policy, 0, sizeof(float) * (size_t)v->n_actions);
    float best = -INFINITY;
    int ties = 0;
    for (int j = 0; j < n; j++)
        best = s->score[j] > best ? s->score[j] : best;
    for (int j = 0; j < n; j++)
        ties += s->score[j] == best;
    for (int j = 0; j < n; j++)
        if (s->score[j] == best)
            policy[s->cand[j]] = 1.0f / (float)ties;
}

int policy_act(const player_spec *ps, const variant *v, const board_hdr *b, policy_scratch *s,
               uint64_t key, float *policy)
{
    uint32_t ctr = 0;
    int a;
    switch (ps->kind) {
    case PLAYER_HEURISTIC:
        a = heuristic_move(v, b, s, key, &ctr, ps->epsilon);
        if (policy) {
            int n = heuristic_candidates(v, b, s, s->cand, s->score, v->n_actions);
            if (n)
                best_candidates(v, s, n, policy);
            else
                uniform_over_legal(v, b, policy);
        }
        return a;
    case PLAYER_MCTS:
        return mcts_move(ps, v, b, s, key, policy);
    case PLAYER_THREAT:
        return threat_move(ps, v, b, s, key, policy);
    case PLAYER_NET:
        return net_move(ps, v, b, s, key, policy);
    case PLAYER_PVS:
        return pvs_move(ps, v, b, s, key, policy);
    default:
        a = game_random_legal(v, b, key, &ctr);
        if (policy)
            uniform_over_legal(v, b, policy);
        return a;
    }
}
