/* MCTS: UCT over a tree whose children are the heuristic's best candidates
 * (`width` of them, or every legal action), with playouts by the random or
 * the heuristic player (epsilon-greedy), cut after `depth` plies.
 *
 * Values are kept per node for the seat that took the node's action, so
 * seats that act twice in a row (opening protocols, MODLINSEQ turns) need
 * no special case. A finished playout scores +1 / -1 / 0 by seat; a cut one
 * scores 0, or the sign of the score difference in scoring games. The move
 * is the most visited child; its policy the visit counts, normalised. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "game/game.h"
#include "players/player.h"

typedef struct mcts_node {
    int32_t first_child; /* -1 until expanded */
    int32_t visits;
    float value; /* sum of playout results for `seat` */
    int32_t action;
    int32_t n_children;
    int8_t seat; /* the seat that took `action` (-1 at the root) */
    uint8_t pad[3];
} mcts_node;

/* Room for `more` nodes; -1 when out of memory. */
static int reserve(policy_scratch *s, size_t more)
{
    if (s->n_nodes + more <= s->cap_nodes)
        return 0;
    size_t cap = s->cap_nodes ? s->cap_nodes : 1024;
    while (cap < s->n_nodes + more)
        cap *= 2;
    mcts_node *nodes = realloc(s->nodes, cap * sizeof(mcts_node));
    if (!nodes)
        return -1;
    s->nodes = nodes;
    s->cap_nodes = cap;
    return 0;
}

/* Children of node: the actions list[0..n), in that order. */
static int add_children(const board_hdr *b, policy_scratch *s, int32_t node, const int32_t *list,
                        int n)
{
    if (reserve(s, (size_t)n))
        n = 0; /* out of memory: the node stays a leaf */
    mcts_node *parent = &s->nodes[node];
    parent->first_child = (int32_t)s->n_nodes;
    parent->n_children = n;
    for (int i = 0; i < n; i++) {
        mcts_node *c = &s->nodes[s->n_nodes++];
        memset(c, 0, sizeof(*c));
        c->first_child = -1;
        c->action = list[i];
        c->seat = (int8_t)b->seat;
    }
    return n;
}

/* Children of node from the heuristic's candidates, best first. */
static int expand(const player_spec *ps, const variant *v, const board_hdr *b, policy_scratch *s,
                  int32_t node)
{
    int n = heuristic_ranked(v, b, s, ps->width > 0 ? ps->width : v->n_actions);
    int keep = ps->width > 0 && n > ps->width ? ps->width : n;
    return add_children(b, s, node, s->cand, keep);
}

static int32_t select_child(const player_spec *ps, const policy_scratch *s, int32_t node)
{
    const mcts_node *p = &s->nodes[node];
    const float log_n = logf((float)(p->visits > 0 ? p->visits : 1));
    int32_t best = p->first_child;
    float best_u = -INFINITY;
    for (int i = 0; i < p->n_children; i++) {
        const mcts_node *c = &s->nodes[p->first_child + i];
        if (c->visits == 0)
            return p->first_child + i; /* unvisited children first, best candidate first */
        float u = c->value / (float)c->visits + ps->c_uct * sqrtf(log_n / (float)c->visits);
        if (u > best_u) {
            best_u = u;
            best = p->first_child + i;
        }
    }
    return best;
}

/* Result by seat of a board where the playout stopped. */
static void score_end(const variant *v, const board_hdr *b, float result[2])
{
    result[0] = result[1] = 0;
    if (b->status == STATUS_TERMINATED && b->winner >= 0) {
        result[b->winner] = 1;
        result[b->winner ^ 1] = -1;
        return;
    }
    if (b->status != STATUS_ONGOING && b->status != STATUS_TRUNCATED)
        return;
    int32_t scores[2], cast[2], casts;
    game_scores(v, b, scores, cast, &casts);
    if (scores[0] != scores[1]) {
        int lead = scores[0] > scores[1] ? 0 : 1;
        result[lead] = 1;
        result[lead ^ 1] = -1;
    }
}

static void playout(const player_spec *ps, const variant *v, board_hdr *b, policy_scratch *s,
                    uint64_t key, uint32_t *ctr, float result[2])
{
    for (int ply = 0; ply < ps->depth && b->status == STATUS_ONGOING; ply++) {
        int a = ps->rollout == PLAYER_HEURISTIC ? heuristic_move(v, b, s, key, ctr, ps->epsilon)
                                                : game_random_legal(v, b, key, ctr);
        game_step(v, b, a);
    }
    score_end(v, b, result);
}

int mcts_move(const player_spec *ps, const variant *v, const board_hdr *root, policy_scratch *s,
              uint64_t key, float *policy)
{
    return mcts_move_among(ps, v, root, s, key, policy, NULL, 0);
}

int mcts_move_among(const player_spec *ps, const variant *v, const board_hdr *root,
                    policy_scratch *s, uint64_t key, float *policy, const int32_t *moves,
                    int n_moves)
{
    uint32_t ctr = 0;
    s->n_nodes = 0;
    if (reserve(s, 1))
        return heuristic_move(v, root, s, key, &ctr, 0.0f);
    mcts_node *r = &s->nodes[s->n_nodes++];
    memset(r, 0, sizeof(*r));
    r->first_child = -1;
    r->seat = -1;
    int n_root = moves ? add_children(root, s, 0, moves, n_moves) : expand(ps, v, root, s, 0);
    if (n_root == 0) { /* out of memory */
        int a = game_random_legal(v, root, key, &ctr);
        if (policy) {
            memset(policy, 0, sizeof(float) * (size_t)v->n_actions);
            policy[a] = 1.0f;
        }
        return a;
    }
    /* a single candidate (the only win, the only block) needs no search */
    int sims = n_root == 1 ? 0 : ps->simulations;
    board_hdr *b = (board_hdr *)s->board2;
    for (int sim = 0; sim < sims; sim++) {
        memcpy(b, root, v->state_size);
        int32_t node = 0;
        int depth = 0;
        s->path[depth++] = 0;
        while (b->status == STATUS_ONGOING) {
            if (s->nodes[node].first_child < 0 && expand(ps, v, b, s, node) == 0)
                break;
            node = select_child(ps, s, node);
            int first_visit = s->nodes[node].visits == 0;
            game_step(v, b, s->nodes[node].action);
            s->path[depth++] = node;
            if (first_visit)
                break;
        }
        float result[2];
        playout(ps, v, b, s, key, &ctr, result);
        for (int i = 0; i < depth; i++) {
            mcts_node *nd = &s->nodes[s->path[i]];
            nd->visits++;
            if (nd->seat >= 0)
                nd->value += result[nd->seat];
        }
    }
    const mcts_node *rt = &s->nodes[0];
    int32_t best = rt->first_child;
    for (int i = 1; i < rt->n_children; i++) {
        const mcts_node *c = &s->nodes[rt->first_child + i], *bc = &s->nodes[best];
        if (c->visits > bc->visits || (c->visits == bc->visits &&
                                       c->value * (float)bc->visits > bc->value * (float)c->visits))
            best = rt->first_child + i;
    }
    if (policy) {
        memset(policy, 0, sizeof(float) * (size_t)v->n_actions);
        for (int i = 0; i < rt->n_children; i++) {
            const mcts_node *c = &s->nodes[rt->first_child + i];
            policy[c->action] = sims ? (float)c->visits / (float)sims : 1.0f;
        }
    }
    return s->nodes[best].action;
}
