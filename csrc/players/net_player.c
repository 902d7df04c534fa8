/* The net player's policy move and its scratch memory (net_player.h). */
#include "players/net_player.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "game/game.h"

void net_scratch_free(net_scratch *ns)
{
    if (!ns)
        return;
    net_work_free(ns->work);
    free(ns->obs);
    free(ns->logits);
    free(ns->prob);
    free(ns->nodes);
    free(ns->edges);
    free(ns);
}

net_scratch *net_scratch_of(policy_scratch *s, const net_model *m, const variant *v)
{
    if (s->net && s->net->model == m)
        return s->net;
    net_scratch_free(s->net);
    s->net = NULL;
    net_scratch *ns = calloc(1, sizeof(*ns));
    if (!ns)
        return NULL;
    const net_shape *sh = net_shape_of(m);
    ns->model = m;
    ns->work = net_work_new(m);
    ns->obs = malloc((size_t)sh->planes * (size_t)sh->height * (size_t)sh->width);
    ns->logits = malloc(sizeof(float) * (size_t)v->n_actions);
    ns->prob = malloc(sizeof(float) * (size_t)v->n_actions);
    if (!ns->work || !ns->obs || !ns->logits || !ns->prob) {
        net_scratch_free(ns);
        return NULL;
    }
    s->net = ns;
    return ns;
}

/* softmax(logits / t) over the legal actions into out (0 elsewhere). */
static void softmax_legal(const variant *v, const board_hdr *b, const float *logits, float t,
                          float *out)
{
    const uint64_t *legal = board_legal_c(v, b);
    float top = -INFINITY;
    for (int a = 0; a < v->n_actions; a++)
        if (bits_get(legal, a) && logits[a] > top)
            top = logits[a];
    double sum = 0;
    for (int a = 0; a < v->n_actions; a++) {
        out[a] = bits_get(legal, a) ? expf((logits[a] - top) / t) : 0.0f;
        sum += out[a];
    }
    const float scale = sum > 0 ? (float)(1.0 / sum) : 0.0f;
    for (int a = 0; a < v->n_actions; a++)
        out[a] *= scale;
}

void net_evaluate(const net_model *m, net_scratch *ns, const variant *v, const board_hdr *b,
                  float *prob, float *value)
{
    game_write_obs(v, b, net_shape_of(m)->obs_kind, ns->obs);
    net_forward(m, ns->work, ns->obs, ns->logits, value);
    softmax_legal(v, b, ns->logits, 1.0f, prob);
}

int net_draw(const float *weight, int n, uint64_t key, uint32_t *ctr)
{
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += weight[i];
    double u = rng_unit(rng_at(key, (*ctr)++)) * sum, run = 0;
    int last = -1;
    for (int i = 0; i < n; i++) {
        if (weight[i] <= 0)
            continue;
        last = i;
        run += weight[i];
        if (u < run)
            return i;
    }
    return last; /* u rounded up to the sum */
}

int net_move(const player_spec *ps, const variant *v, const board_hdr *b, policy_scratch *s,
             uint64_t key, float *policy)
{
    uint32_t ctr = 0;
    net_scratch *ns = net_scratch_of(s, ps->net, v);
    if (!ns) { /* out of memory: the heuristic's move rather than none */
        int a = heuristic_move(v, b, s, key, &ctr, 0.0f);
        if (policy) {
            memset(policy, 0, sizeof(float) * (size_t)v->n_actions);
            policy[a] = 1.0f;
        }
        return a;
    }
    if (ps->simulations > 0)
        return net_search_move(ps, v, b, s, ns, key, policy);
    float value;
    net_evaluate(ps->net, ns, v, b, ns->prob, &value);
    if (policy)
        memcpy(policy, ns->prob, sizeof(float) * (size_t)v->n_actions);
    if (ps->temperature > 0) {
        if (ps->temperature != 1.0f)
            softmax_legal(v, b, ns->logits, ps->temperature, ns->prob);
        return net_draw(ns->prob, v->n_actions, key, &ctr);
    }
    const uint64_t *legal = board_legal_c(v, b);
    int best = -1;
    for (int a = 0; a < v->n_actions; a++)
        if (bits_get(legal, a) && (best < 0 || ns->logits[a] > ns->logits[best]))
            best = a;
    return best;
}
