/* The net player's PUCT search on one board (net_player.h).
 *
 * The root is evaluated and expanded first; each simulation then descends
 * by PUCT (a child that wins at once is always taken), replaying the path's
 * moves on a copy of the board, and stops at a node not yet expanded: a
 * finished game is scored by the rules, any other position by the network
 * (its policy over the legal actions becomes the node's priors). The value
 * is backed up along the path. Values are kept per node for the seat that
 * played into it, so seats that act twice in a row (opening protocols)
 * need no special case. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "game/game.h"
#include "players/net_player.h"

enum { NODE_NEW = 0, NODE_INNER = 1, NODE_END = 2 };

struct net_node {
    int32_t parent;
    int32_t first_edge, n_edges;
    int32_t win_edge; /* an edge that wins at once, or -1 */
    int32_t visits;
    float value_sum; /* for `seat` */
    float end_value; /* NODE_END: the game's result for `seat` */
    int8_t seat;     /* the seat that played into this node (-1: the root) */
    uint8_t state;
};

struct net_edge {
    int32_t action;
    float prior;
    int32_t child; /* -1 until visited */
};

static int32_t new_node(net_scratch *ns, int32_t parent, int seat)
{
    if (ns->n_nodes == ns->cap_nodes) {
        int cap = ns->cap_nodes ? 2 * ns->cap_nodes : 256;
        net_node *p = realloc(ns->nodes, sizeof(net_node) * (size_t)cap);
        if (!p)
            return -1;
        ns->nodes = p;
        ns->cap_nodes = cap;
    }
    net_node *n = &ns->nodes[ns->n_nodes];
    memset(n, 0, sizeof(*n));
    n->parent = parent;
    n->first_edge = -1;
    n->win_edge = -1;
    n->seat = (int8_t)seat;
    return ns->n_nodes++;
}

/* Evaluate board b at node and give the node its edges; returns the value
 * for the seat to act at b, or NAN when out of memory. */
static float expand(const player_spec *ps, const variant *v, const board_hdr *b, net_scratch *ns,
                    int32_t node)
{
    float value;
    net_evaluate(ps->net, ns, v, b, ns->prob, &value);
    const int legal = b->n_legal;
    if (ns->n_edges + legal > ns->cap_edges) {
        int cap = ns->cap_edges ? ns->cap_edges : 1024;
        while (cap < ns->n_edges + legal)
            cap *= 2;
        net_edge *p = realloc(ns->edges, sizeof(net_edge) * (size_t)cap);
        if (!p)
            return NAN;
        ns->edges = p;
        ns->cap_edges = cap;
    }
    int32_t win = -1;
    lines_winning_moves(v, b, &win, 1);
    net_node *nd = &ns->nodes[node];
    nd->first_edge = ns->n_edges;
    const uint64_t *bits = board_legal_c(v, b);
    for (int a = 0; a < v->n_actions; a++)
        if (bits_get(bits, a)) {
            net_edge *e = &ns->edges[ns->n_edges];
            e->action = a;
            e->prior = ns->prob[a];
            e->child = -1;
            if (a == win)
                nd->win_edge = ns->n_edges;
            ns->n_edges++;
        }
    nd->n_edges = ns->n_edges - nd->first_edge;
    nd->state = NODE_INNER;
    return value;
}

static int32_t pick_edge(const player_spec *ps, const net_scratch *ns, const net_node *nd)
{
    if (nd->win_edge >= 0)
        return nd->win_edge;
    const float sqrt_n = sqrtf((float)nd->visits + 1e-8f);
    int32_t best = nd->first_edge;
    float best_u = -INFINITY;
    for (int32_t e = nd->first_edge; e < nd->first_edge + nd->n_edges; e++) {
        const net_edge *ed = &ns->edges[e];
        float q = 0.0f;
        int32_t n = 0;
        if (ed->child >= 0) {
            const net_node *ch = &ns->nodes[ed->child];
            n = ch->visits;
            q = n > 0 ? ch->value_sum / (float)n : 0.0f;
        }
        float u = q + ps->c_puct * ed->prior * sqrt_n / (1.0f + (float)n);
        if (u > best_u) {
            best_u = u;
            best = e;
        }
    }
    return best;
}

static void backup(net_scratch *ns, int32_t node, float value, int value_seat)
{
    for (int32_t n = node; n >= 0; n = ns->nodes[n].parent) {
        net_node *nd = &ns->nodes[n];
        nd->visits++;
        if (nd->seat >= 0)
            nd->value_sum += nd->seat == value_seat ? value : -value;
    }
}

/* One simulation from the root; -1 when out of memory. */
static int simulate(const player_spec *ps, const variant *v, const board_hdr *root,
                    policy_scratch *s, net_scratch *ns)
{
    board_hdr *h = (board_hdr *)s->board;
    memcpy(h, root, v->state_size);
    int32_t node = 0;
    while (ns->nodes[node].state == NODE_INNER) {
        int32_t e = pick_edge(ps, ns, &ns->nodes[node]);
        int32_t child = ns->edges[e].child;
        if (child < 0) {
            child = new_node(ns, node, h->seat);
            if (child < 0)
                return -1;
            ns->edges[e].child = child;
        }
        game_step(v, h, ns->edges[e].action);
        node = child;
    }
    net_node *nd = &ns->nodes[node];
    if (nd->state == NODE_NEW && h->status != STATUS_ONGOING) {
        nd->state = NODE_END;
        nd->end_value = h->status == STATUS_TERMINATED && h->winner >= 0
                            ? (h->winner == nd->seat ? 1.0f : -1.0f)
                            : 0.0f;
    }
    if (nd->state == NODE_END) {
        backup(ns, node, nd->end_value, nd->seat);
        return 0;
    }
    float value = expand(ps, v, h, ns, node);
    if (isnan(value))
        return -1;
    backup(ns, node, value, h->seat);
    return 0;
}

int net_search_move(const player_spec *ps, const variant *v, const board_hdr *b, policy_scratch *s,
                    net_scratch *ns, uint64_t key, float *policy)
{
    uint32_t ctr = 0;
    ns->n_nodes = ns->n_edges = 0;
    new_node(ns, -1, -1); /* the root: room for 256 nodes unless memory is out */
    float value = ns->n_nodes ? expand(ps, v, b, ns, 0) : NAN;
    for (int k = 0; k < ps->simulations && !isnan(value); k++)
        if (simulate(ps, v, b, s, ns))
            break; /* out of memory: the visits so far decide */
    if (!ns->n_nodes || ns->nodes[0].state != NODE_INNER) /* no memory even for the root */
        return game_random_legal(v, b, key, &ctr);
    const net_node *root = &ns->nodes[0];
    /* visits per child into prob (over the actions), the most visited first */
    float *visits = ns->prob;
    memset(visits, 0, sizeof(float) * (size_t)v->n_actions);
    int best = ns->edges[root->first_edge].action;
    float best_visits = -1.0f, best_prior = -1.0f, total = 0.0f;
    for (int32_t e = root->first_edge; e < root->first_edge + root->n_edges; e++) {
        const net_edge *ed = &ns->edges[e];
        float n = ed->child >= 0 ? (float)ns->nodes[ed->child].visits : 0.0f;
        visits[ed->action] = n;
        total += n;
        if (n > best_visits || (n == best_visits && ed->prior > best_prior)) {
            best = ed->action;
            best_visits = n;
            best_prior = ed->prior;
        }
    }
    if (root->win_edge >= 0)
        best = ns->edges[root->win_edge].action;
    else if (ps->temperature > 0 && total > 0) {
        float *weight = ns->logits; /* free until the next evaluation */
        for (int a = 0; a < v->n_actions; a++)
            weight[a] =
                visits[a] > 0 ? powf(visits[a] / best_visits, 1.0f / ps->temperature) : 0.0f;
        best = net_draw(weight, v->n_actions, key, &ctr);
    }
    if (policy) {
        for (int a = 0; a < v->n_actions; a++)
            policy[a] = total > 0 ? visits[a] / total : 0.0f;
        if (total == 0)
            policy[best] = 1.0f;
    }
    return best;
}
