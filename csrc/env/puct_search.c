#include "env/puct_search.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "game/game.h"

#ifdef _OPENMP
#include <omp.h>
#endif

enum { NODE_NEW = 0, NODE_PENDING = 1, NODE_INNER = 2, NODE_END = 3 };

/* A visited position. Its moves are edges, which get a node once visited. */
typedef struct snode {
    int32_t parent;
    int32_t edge_first, n_edges;
    int32_t win_edge; /* an edge that wins at once, or -1 */
    int32_t visits, vloss;
    float value_sum; /* for `seat`: the seat that played `action` into this node */
    float end_value; /* NODE_END: the game's result for `seat` */
    int32_t action;
    int8_t seat;    /* -1 at the root */
    int8_t to_play; /* the seat to act here (known once expanded) */
    uint8_t state;
} snode;

typedef struct sedge {
    int32_t action;
    float prior;
    int32_t child; /* node, -1 until visited */
} sedge;

/* Moves that win at once, found when a leaf is written: the search takes
 * one whenever it can, whatever the priors say. A win in one is found by the
 * first descent through its node; an opponent's threat two plies deep only
 * once the reply that allows it is visited a second time. */
#define WIN_MOVES 4

typedef struct stree {
    snode *nodes;
    sedge *edges;
    int32_t n_nodes, cap_nodes, n_edges, cap_edges;
    int32_t root;
    uint8_t *root_state; /* the root's position (a board state): reuse checks */
    int sims;            /* evaluations of this move */
    int active;          /* the board is ongoing and searched this move */
    uint32_t episode;
    uint16_t steps; /* the root's position */
    uint64_t key;   /* the move's random stream (noise, action draws) */
    uint32_t ctr;
    int n_leaves; /* leaves out this round */
    int32_t *leaf_node;
    int8_t *leaf_seat;
    int32_t *leaf_slot; /* compact slot of each leaf in its group's buffers */
    int32_t *leaf_wins; /* [leaves_per_round][WIN_MOVES]: winning moves, -1 padded */
    int failed;         /* out of memory: the tree stops growing */
} stree;

struct search {
    batch *b;
    search_params p;
    int n_trees;
    stree *trees;
    int *tree_group, *tree_board;
    int n_threads;
    uint8_t **scratch;     /* [threads] a board state */
    int32_t **path;        /* [threads] [max_steps + 1] */
    int *round_count;      /* [groups] leaves of the last round */
    uint8_t **round_masks; /* [groups] where they were written */
};

/* ---- memory ---- */

static int grow_nodes(stree *t, int more)
{
    if (t->n_nodes + more <= t->cap_nodes)
        return 0;
    int cap = t->cap_nodes ? t->cap_nodes : 64;
    while (cap < t->n_nodes + more)
        cap *= 2;
    snode *p = realloc(t->nodes, sizeof(snode) * (size_t)cap);
    if (!p)
        return -1;
    t->nodes = p;
    t->cap_nodes = cap;
    return 0;
}

static int grow_edges(stree *t, int more)
{
    if (t->n_edges + more <= t->cap_edges)
        return 0;
    int cap = t->cap_edges ? t->cap_edges : 256;
    while (cap < t->n_edges + more)
        cap *= 2;
    sedge *p = realloc(t->edges, sizeof(sedge) * (size_t)cap);
    if (!p)
        return -1;
    t->edges = p;
    t->cap_edges = cap;
    return 0;
}

static int32_t new_node(stree *t, int32_t parent, int32_t action, int seat)
{
    if (grow_nodes(t, 1))
        return -1;
    snode *n = &t->nodes[t->n_nodes];
    memset(n, 0, sizeof(*n));
    n->parent = parent;
    n->edge_first = -1;
    n->win_edge = -1;
    n->action = action;
    n->seat = (int8_t)seat;
    n->state = NODE_NEW;
    return t->n_nodes++;
}

/* The game part of a board's state, without the caches that do not follow
 * from the position: equal bytes, the same position. */
static size_t position_bytes(const variant *v)
{
    return v->off_cache - BOARD_GAME_OFFSET;
}

static int same_position(const variant *v, const uint8_t *state, const board_hdr *h)
{
    return memcmp(state + BOARD_GAME_OFFSET, (const uint8_t *)h + BOARD_GAME_OFFSET,
                  position_bytes(v)) == 0;
}

static void remember_root(stree *t, const variant *v, const board_hdr *h)
{
    memcpy(t->root_state, h, v->state_size);
    t->episode = h->episode;
    t->steps = h->steps;
}

static void reset_tree(stree *t, const variant *v, const board_hdr *h)
{
    t->n_nodes = t->n_edges = 0;
    t->root = new_node(t, -1, -1, -1);
    t->failed = t->root < 0;
    remember_root(t, v, h);
}

/* NULL, or the first parameter out of range with its value in err. */
static const char *bad_param(const search_params *p, char *err, size_t errlen)
{
    if (p->simulations < 1)
        snprintf(err, errlen, "simulations must be >= 1, got %d", p->simulations);
    else if (p->leaves_per_round < 1)
        snprintf(err, errlen, "leaves_per_round must be >= 1, got %d", p->leaves_per_round);
    else if (!(p->c_puct >= 0 && p->c_puct <= FLT_MAX)) /* NaN fails both */
        snprintf(err, errlen, "c_puct must be a finite number >= 0, got %g", (double)p->c_puct);
    else if (!(p->dirichlet_alpha >= 0 && p->dirichlet_alpha <= FLT_MAX))
        snprintf(err, errlen, "dirichlet_alpha must be a finite number >= 0, got %g",
                 (double)p->dirichlet_alpha);
    else if (!(p->dirichlet_fraction >= 0 && p->dirichlet_fraction <= 1))
        snprintf(err, errlen, "dirichlet_fraction must be in [0, 1], got %g",
                 (double)p->dirichlet_fraction);
    else
        return NULL;
    return err;
}

search *search_new(batch *b, const search_params *p, char *err, size_t errlen)
{
    if (bad_param(p, err, errlen))
        return NULL;
    search *s = calloc(1, sizeof(*s));
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    s->b = b;
    s->p = *p;
    s->n_trees = b->n_total;
    s->n_threads = batch_team_size(b);
    s->trees = calloc((size_t)s->n_trees, sizeof(stree));
    s->tree_group = malloc(sizeof(int) * (size_t)s->n_trees);
    s->tree_board = malloc(sizeof(int) * (size_t)s->n_trees);
    s->scratch = calloc((size_t)s->n_threads, sizeof(uint8_t *));
    s->path = calloc((size_t)s->n_threads, sizeof(int32_t *));
    s->round_count = calloc((size_t)b->n_groups, sizeof(int));
    s->round_masks = calloc((size_t)b->n_groups, sizeof(uint8_t *));
    int ok = s->trees && s->tree_group && s->tree_board && s->scratch && s->path &&
             s->round_count && s->round_masks;
    size_t state = 0;
    int max_steps = 0;
    for (int g = 0; g < b->n_groups; g++) {
        state = b->groups[g].v.state_size > state ? b->groups[g].v.state_size : state;
        max_steps = b->groups[g].v.max_steps > max_steps ? b->groups[g].v.max_steps : max_steps;
    }
    for (int k = 0; ok && k < s->n_threads; k++) {
        s->scratch[k] = aligned_alloc(64, (state + 63) & ~(size_t)63);
        s->path[k] = malloc(sizeof(int32_t) * ((size_t)max_steps + 2));
        ok = s->scratch[k] && s->path[k];
    }
    for (int g = 0, t = 0; ok && g < b->n_groups; g++)
        for (int i = 0; i < b->groups[g].n; i++, t++) {
            stree *tr = &s->trees[t];
            s->tree_group[t] = g;
            s->tree_board[t] = i;
            tr->leaf_node = malloc(sizeof(int32_t) * (size_t)p->leaves_per_round);
            tr->leaf_seat = malloc((size_t)p->leaves_per_round);
            tr->leaf_slot = malloc(sizeof(int32_t) * (size_t)p->leaves_per_round);
            tr->leaf_wins = malloc(sizeof(int32_t) * WIN_MOVES * (size_t)p->leaves_per_round);
            tr->root_state = malloc(b->groups[g].v.state_size);
            ok = tr->leaf_node && tr->leaf_seat && tr->leaf_slot && tr->leaf_wins && tr->root_state;
            tr->root = -1;
        }
    if (!ok) {
        search_free(s);
        snprintf(err, errlen, "out of memory for %d trees", b->n_total);
        return NULL;
    }
    return s;
}

void search_free(search *s)
{
    if (!s)
        return;
    for (int t = 0; s->trees && t < s->n_trees; t++) {
        free(s->trees[t].nodes);
        free(s->trees[t].edges);
        free(s->trees[t].leaf_node);
        free(s->trees[t].leaf_seat);
        free(s->trees[t].leaf_slot);
        free(s->trees[t].leaf_wins);
        free(s->trees[t].root_state);
    }
    for (int k = 0; k < s->n_threads; k++) {
        if (s->scratch)
            free(s->scratch[k]);
        if (s->path)
            free(s->path[k]);
    }
    free(s->scratch);
    free(s->path);
    free(s->trees);
    free(s->tree_group);
    free(s->tree_board);
    free(s->round_count);
    free(s->round_masks);
    free(s);
}

int search_leaves_per_round(const search *s)
{
    return s->p.leaves_per_round;
}

size_t search_nodes(const search *s)
{
    size_t n = 0;
    for (int t = 0; t < s->n_trees; t++)
        n += (size_t)s->trees[t].n_nodes;
    return n;
}

static int thread_id(void)
{
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

/* ---- a move's search ---- */

static const board_hdr *root_board(const search *s, int t)
{
    const group *g = &s->b->groups[s->tree_group[t]];
    return group_board(g, s->tree_board[t]);
}

/* Gamma(alpha, 1) by Marsaglia and Tsang (alpha < 1 through alpha + 1). */
static double gamma_draw(double alpha, uint64_t key, uint32_t *ctr)
{
    double boost = 1.0;
    if (alpha < 1.0) {
        boost = pow(rng_unit(rng_at(key, (*ctr)++)) + 1e-300, 1.0 / alpha);
        alpha += 1.0;
    }
    double d = alpha - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
    for (;;) {
        double u1 = rng_unit(rng_at(key, (*ctr)++)) + 1e-300, u2 = rng_unit(rng_at(key, (*ctr)++));
        double x = sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2); /* Box-Muller */
        double vv = 1.0 + c * x;
        if (vv <= 0)
            continue;
        vv = vv * vv * vv;
        double u = rng_unit(rng_at(key, (*ctr)++));
        if (u < 1.0 - 0.0331 * x * x * x * x || log(u) < 0.5 * x * x + d * (1.0 - vv + log(vv)))
            return boost * d * vv;
    }
}

/* Dirichlet noise mixed into the root's priors (AlphaZero's exploration):
 * once, when a node becomes the root (a node is the root at most once). */
static void add_noise(const search *s, stree *tr)
{
    if (s->p.dirichlet_alpha <= 0 || s->p.dirichlet_fraction <= 0)
        return;
    snode *root = &tr->nodes[tr->root];
    int n = root->n_edges;
    double *noise = malloc(sizeof(double) * (size_t)(n ? n : 1)), total = 0;
    if (!noise)
        return;
    for (int k = 0; k < n; k++)
        total += noise[k] = gamma_draw(s->p.dirichlet_alpha, tr->key, &tr->ctr);
    const float f = s->p.dirichlet_fraction;
    for (int k = 0; k < n && total > 0; k++) {
        sedge *e = &tr->edges[root->edge_first + k];
        e->prior = (1.0f - f) * e->prior + f * (float)(noise[k] / total);
    }
    free(noise);
}

/* Take a leaf that waits for the network back out of the tree: it becomes
 * an unvisited node again and its path loses the descent's virtual loss. */
static void release_leaf(stree *tr, int32_t node)
{
    if (tr->nodes[node].state == NODE_PENDING)
        tr->nodes[node].state = NODE_NEW;
    for (int32_t n = node; n != tr->root; n = tr->nodes[n].parent)
        tr->nodes[n].vloss--;
}

/* A round is open from a select that found leaves to the expand of them. */
static int round_open(const search *s)
{
    for (int gi = 0; gi < s->b->n_groups; gi++)
        if (s->round_count[gi] > 0)
            return 1;
    return 0;
}

void search_abort(search *s)
{
    if (!round_open(s))
        return; /* the usual case: nothing to undo, no parallel region */
#pragma omp parallel for schedule(static) num_threads(s->n_threads) if (s->n_threads > 1)
    for (int t = 0; t < s->n_trees; t++) {
        stree *tr = &s->trees[t];
        for (int k = 0; k < tr->n_leaves; k++)
            release_leaf(tr, tr->leaf_node[k]);
        tr->n_leaves = 0;
    }
    for (int gi = 0; gi < s->b->n_groups; gi++)
        s->round_count[gi] = 0;
}

/* The tree can go on from its root: reuse is on and the root is the board's
 * position (the same episode, and the same position move for move). */
static int tree_fits(const search *s, int t, const board_hdr *h)
{
    const stree *tr = &s->trees[t];
    const variant *v = &s->b->groups[s->tree_group[t]].v;
    return s->p.reuse_tree && tr->root >= 0 && tr->episode == h->episode && tr->steps == h->steps &&
           same_position(v, tr->root_state, h);
}

void search_begin(search *s)
{
    const uint64_t mix = rng_mix64(s->p.seed + 0x243f6a8885a308d3ULL);
    search_abort(s); /* a round left open (the evaluator failed) is undone */
#pragma omp parallel for schedule(static) num_threads(s->n_threads) if (s->n_threads > 1)
    for (int t = 0; t < s->n_trees; t++) {
        stree *tr = &s->trees[t];
        const board_hdr *h = root_board(s, t);
        tr->active = h->status == STATUS_ONGOING;
        tr->sims = 0;
        if (!tr->active)
            continue;
        if (!tree_fits(s, t, h))
            reset_tree(tr, &s->b->groups[s->tree_group[t]].v, h);
        tr->key = rng_key(h->board_key ^ mix, h->episode, h->steps, RNG_STREAM_PLAYER);
        tr->ctr = 0;
        if (!tr->failed && tr->nodes[tr->root].state == NODE_INNER)
            add_noise(s, tr); /* a reused root gets this move's noise too */
    }
}

/* Result of a finished game for `seat`. */
static float end_value_for(const board_hdr *h, int seat)
{
    if (h->status != STATUS_TERMINATED || h->winner < 0)
        return 0.0f;
    return h->winner == seat ? 1.0f : -1.0f;
}

/* Back a value up from node (for the seat that played into it, or for
 * `to_play` when leaf_is_to_play) to the root; vloss taken off the path. */
static void backup(stree *tr, int32_t node, float value, int value_seat, int with_vloss)
{
    for (int32_t n = node; n >= 0; n = tr->nodes[n].parent) {
        snode *nd = &tr->nodes[n];
        nd->visits++;
        if (with_vloss && n != tr->root)
            nd->vloss--;
        if (nd->seat >= 0)
            nd->value_sum += nd->seat == value_seat ? value : -value;
    }
}

/* The edge PUCT picks at node. */
static int32_t pick_edge(const search *s, const stree *tr, const snode *nd)
{
    if (nd->win_edge >= 0)
        return nd->win_edge;
    const float sqrt_n = sqrtf((float)(nd->visits + nd->vloss) + 1e-8f);
    const float c = s->p.c_puct;
    int32_t best = nd->edge_first;
    float best_u = -INFINITY;
    for (int32_t e = nd->edge_first; e < nd->edge_first + nd->n_edges; e++) {
        const sedge *ed = &tr->edges[e];
        float q = 0.0f;
        int32_t n = 0;
        if (ed->child >= 0) {
            const snode *ch = &tr->nodes[ed->child];
            n = ch->visits + ch->vloss;
            /* each virtual loss counts as a lost visit */
            q = n > 0 ? (ch->value_sum - (float)ch->vloss) / (float)n : 0.0f;
        }
        float u = q + c * ed->prior * sqrt_n / (1.0f + (float)n);
        if (u > best_u) {
            best_u = u;
            best = e;
        }
    }
    return best;
}

/* Rebuild the position of `node` into the thread's scratch board. */
static board_hdr *position_of(search *s, int t, int32_t node)
{
    stree *tr = &s->trees[t];
    const group *g = &s->b->groups[s->tree_group[t]];
    const variant *v = &g->v;
    int tid = thread_id();
    board_hdr *h = (board_hdr *)s->scratch[tid];
    int32_t *path = s->path[tid];
    int depth = 0;
    for (int32_t n = node; n != tr->root; n = tr->nodes[n].parent)
        path[depth++] = tr->nodes[n].action;
    memcpy(h, root_board(s, t), v->state_size);
    for (int d = depth - 1; d >= 0; d--)
        game_step(v, h, path[d]);
    return h;
}

/* One descent; returns 1 if it left a leaf to evaluate, 0 if it ended on a
 * finished game (backed up at once), -1 on a collision or no room. */
static int descend(search *s, int t, uint8_t *obs, uint8_t *mask)
{
    stree *tr = &s->trees[t];
    const group *g = &s->b->groups[s->tree_group[t]];
    const variant *v = &g->v;
    int32_t node = tr->root;
    for (;;) {
        snode *nd = &tr->nodes[node];
        if (nd->state == NODE_END) {
            backup(tr, node, nd->end_value, nd->seat, 1);
            return 0;
        }
        if (nd->state == NODE_PENDING) { /* taken this round: give the path back */
            for (int32_t n = node; n != tr->root; n = tr->nodes[n].parent)
                tr->nodes[n].vloss--;
            return -1;
        }
        if (nd->state == NODE_NEW) {
            const board_hdr *h = position_of(s, t, node);
            if (h->status != STATUS_ONGOING) {
                nd->state = NODE_END;
                nd->end_value = end_value_for(h, nd->seat);
                backup(tr, node, nd->end_value, nd->seat, 1);
                return 0;
            }
            nd->state = NODE_PENDING;
            game_write_obs(v, h, s->b->obs_kind, obs);
            bits_to_bytes(board_legal_c(v, h), v->n_actions, mask);
            tr->leaf_node[tr->n_leaves] = node;
            tr->leaf_seat[tr->n_leaves] = (int8_t)h->seat;
            int32_t *wins = tr->leaf_wins + (size_t)tr->n_leaves * WIN_MOVES;
            int n_wins = lines_winning_moves(v, h, wins, WIN_MOVES);
            for (int k = n_wins; k < WIN_MOVES; k++)
                wins[k] = -1;
            return 1;
        }
        /* inner: follow PUCT, creating the child node on its first visit */
        int32_t e = pick_edge(s, tr, nd);
        int32_t child = tr->edges[e].child;
        if (child < 0) {
            child = new_node(tr, node, tr->edges[e].action, tr->nodes[node].to_play);
            if (child < 0) {
                tr->failed = 1;
                for (int32_t n = node; n != tr->root; n = tr->nodes[n].parent)
                    tr->nodes[n].vloss--;
                return -1;
            }
            tr->edges[e].child = child;
        }
        tr->nodes[child].vloss++;
        node = child;
    }
}

/* ---- rounds ---- */

static int descend_all(search *s, search_leaves *out)
{
    batch *b = s->b;
    const int L = s->p.leaves_per_round;
    int leaves = 0, active = 0;
    /* each tree writes its leaves into its own rows (board * L + k), then
     * the rows are packed in tree order: slots do not depend on threads */
#pragma omp parallel for schedule(dynamic, 8) num_threads(s->n_threads) if (s->n_threads > 1)      \
    reduction(+ : leaves, active)
    for (int t = 0; t < s->n_trees; t++) {
        stree *tr = &s->trees[t];
        tr->n_leaves = 0;
        if (!tr->active || tr->failed)
            continue;
        const int gi = s->tree_group[t], i = s->tree_board[t];
        const variant *v = &b->groups[gi].v;
        const size_t obs_bytes = (size_t)v->n_planes[s->b->obs_kind] * (size_t)v->g.n_cells;
        /* at most L descents a round, whether they end on a leaf or on a
         * finished game: a tree whose best leaf waits for the network under
         * virtual loss would otherwise spend its simulations re-reading
         * known results elsewhere */
        int budget = s->p.simulations - tr->sims, progress = 0;
        for (int d = 0; d < L && budget > 0; d++) {
            size_t row = (size_t)i * (size_t)L + (size_t)tr->n_leaves;
            int r = descend(s, t, out->obs[gi] + row * obs_bytes,
                            out->masks[gi] + row * (size_t)v->n_actions);
            if (r < 0)
                break;
            budget--;
            progress++;
            if (r == 0) /* a finished game, scored by the rules */
                tr->sims++;
            else
                tr->n_leaves++;
        }
        /* no descent got anywhere (every path ends on a leaf that waits, or
         * no room): the tree's move ends here rather than spin */
        if ((tr->sims >= s->p.simulations || progress == 0) && tr->n_leaves == 0)
            tr->active = 0;
        leaves += tr->n_leaves;
        active += tr->active;
    }
    return leaves ? leaves : active ? -1 : 0;
}

int search_select(search *s, search_leaves *out)
{
    batch *b = s->b;
    const int L = s->p.leaves_per_round;
    search_abort(s); /* a round never expanded is undone, not stacked */
    /* rounds that only met finished games leave nothing to evaluate: go on
     * until there is a leaf or every tree has its simulations (or is stuck) */
    while (descend_all(s, out) < 0)
        ;
    int total = 0;
    for (int gi = 0; gi < b->n_groups; gi++) {
        const variant *v = &b->groups[gi].v;
        const size_t obs_bytes = (size_t)v->n_planes[b->obs_kind] * (size_t)v->g.n_cells;
        int count = 0;
        for (int t = 0; t < s->n_trees; t++) {
            if (s->tree_group[t] != gi)
                continue;
            stree *tr = &s->trees[t];
            const int i = s->tree_board[t];
            for (int k = 0; k < tr->n_leaves; k++, count++) {
                size_t row = (size_t)i * (size_t)L + (size_t)k;
                if (row != (size_t)count) { /* rows only move towards the front */
                    memmove(out->obs[gi] + (size_t)count * obs_bytes,
                            out->obs[gi] + row * obs_bytes, obs_bytes);
                    memmove(out->masks[gi] + (size_t)count * v->n_actions,
                            out->masks[gi] + row * v->n_actions, (size_t)v->n_actions);
                }
                out->to_play[gi][count] = tr->leaf_seat[k];
                out->board[gi][count] = i;
                tr->leaf_slot[k] = count;
            }
        }
        out->count[gi] = count;
        s->round_count[gi] = count;
        s->round_masks[gi] = out->masks[gi];
        total += count;
    }
    return total;
}

const char *search_expand(search *s, const float *const *priors, const float *const *values)
{
    batch *b = s->b;
    /* everything is checked before anything changes (in parallel, and
     * without branches in the inner loop: a NaN fails every comparison) */
    int bad_value = 0, bad_prior = 0;
    for (int gi = 0; gi < b->n_groups; gi++) {
        const int n_actions = b->groups[gi].v.n_actions, count = s->round_count[gi];
        const float *vals = values[gi], *pri = priors[gi];
#pragma omp parallel for schedule(static) num_threads(s->n_threads) if (s->n_threads > 1)          \
    reduction(| : bad_value, bad_prior)
        for (int k = 0; k < count; k++) {
            const float value = vals[k];
            bad_value |= !(value >= -1.0f - 1e-4f && value <= 1.0f + 1e-4f);
            const float *p = pri + (size_t)k * (size_t)n_actions;
            int ok = 1;
            for (int a = 0; a < n_actions; a++)
                ok &= p[a] >= 0.0f && p[a] <= FLT_MAX;
            bad_prior |= !ok;
        }
    }
    if (bad_value)
        return "values must be finite numbers in [-1, 1]";
    if (bad_prior)
        return "priors must be finite, non-negative float32 numbers";
    int failed = 0;
#pragma omp parallel for schedule(dynamic, 8) num_threads(s->n_threads) if (s->n_threads > 1)      \
    reduction(| : failed)
    for (int t = 0; t < s->n_trees; t++) {
        stree *tr = &s->trees[t];
        const int gi = s->tree_group[t];
        const variant *v = &b->groups[gi].v;
        for (int k = 0; k < tr->n_leaves; k++) {
            const int slot = tr->leaf_slot[k];
            const uint8_t *mask = s->round_masks[gi] + (size_t)slot * v->n_actions;
            const float *p = priors[gi] + (size_t)slot * v->n_actions;
            float value = values[gi][slot];
            value = value > 1.0f ? 1.0f : value < -1.0f ? -1.0f : value;
            int legal = 0;
            double sum = 0;
            for (int a = 0; a < v->n_actions; a++)
                if (mask[a]) {
                    legal++;
                    sum += p[a];
                }
            int32_t node = tr->leaf_node[k];
            if (grow_edges(tr, legal)) {
                release_leaf(tr, node);
                failed = tr->failed = 1;
                continue;
            }
            snode *nd = &tr->nodes[node];
            nd->edge_first = tr->n_edges;
            nd->n_edges = legal;
            nd->to_play = tr->leaf_seat[k];
            nd->state = NODE_INNER;
            /* weights over the legal actions; none at all: uniform. Divided
             * in double: 1 / sum overflows a float for tiny weights */
            const float uniform = 1.0f / (float)legal;
            sedge *e = &tr->edges[nd->edge_first];
            for (int a = 0; a < v->n_actions; a++)
                if (mask[a]) {
                    e->action = a;
                    e->prior = sum > 0 ? (float)(p[a] / sum) : uniform;
                    e->child = -1;
                    e++;
                }
            tr->n_edges += legal;
            const int32_t win = tr->leaf_wins[(size_t)k * WIN_MOVES];
            for (int32_t j = nd->edge_first; win >= 0 && j < tr->n_edges; j++)
                if (tr->edges[j].action == win)
                    nd->win_edge = j;
            if (node == tr->root)
                add_noise(s, tr);
            backup(tr, node, value, tr->leaf_seat[k], 1);
            tr->sims++;
        }
        tr->n_leaves = 0;
        if (tr->sims >= s->p.simulations)
            tr->active = 0;
    }
    for (int gi = 0; gi < b->n_groups; gi++)
        s->round_count[gi] = 0;
    return failed ? "out of memory growing the search trees" : NULL;
}

/* ---- results ---- */

void search_results(const search *s, float *const *visits, float *const *root_value)
{
    for (int t = 0; t < s->n_trees; t++) {
        const stree *tr = &s->trees[t];
        const int gi = s->tree_group[t], i = s->tree_board[t];
        const variant *v = &s->b->groups[gi].v;
        float *out = visits[gi] + (size_t)i * v->n_actions;
        memset(out, 0, sizeof(float) * (size_t)v->n_actions);
        root_value[gi][i] = 0.0f;
        if (tr->root < 0 || root_board(s, t)->status != STATUS_ONGOING)
            continue;
        const snode *r = &tr->nodes[tr->root];
        double w = 0;
        int n = 0;
        for (int32_t e = r->edge_first; r->state == NODE_INNER && e < r->edge_first + r->n_edges;
             e++) {
            const sedge *ed = &tr->edges[e];
            if (ed->child < 0)
                continue;
            const snode *ch = &tr->nodes[ed->child];
            out[ed->action] = (float)ch->visits;
            w += ch->value_sum;
            n += ch->visits;
        }
        root_value[gi][i] = n ? (float)(w / n) : 0.0f;
    }
}

static int edge_visits(const stree *tr, const sedge *ed)
{
    return ed->child >= 0 ? tr->nodes[ed->child].visits : 0;
}

/* Weight of a move with nv visits in the draw: (nv / max_nv)^(1/T), taken
 * as exp(log(nv / max_nv) / T) so that it stays in [0, 1] for any T (nv^(1/T)
 * overflows to inf for small T). */
static double draw_weight(int nv, int max_nv, float temperature)
{
    if (nv == 0)
        return 0.0;
    return exp(log((double)nv / (double)max_nv) / (double)temperature);
}

void search_actions(const search *s, float temperature, int64_t *const *actions)
{
    for (int t = 0; t < s->n_trees; t++) {
        const stree *tr = &s->trees[t];
        const int gi = s->tree_group[t], i = s->tree_board[t];
        actions[gi][i] = 0;
        if (tr->root < 0 || root_board(s, t)->status != STATUS_ONGOING)
            continue;
        const snode *r = &tr->nodes[tr->root];
        if (r->state != NODE_INNER || r->n_edges == 0)
            continue;
        /* the most visited (ties: the higher prior), or a draw from N^(1/T) */
        int32_t best = r->edge_first;
        for (int32_t e = r->edge_first; e < r->edge_first + r->n_edges; e++) {
            const sedge *ed = &tr->edges[e], *bd = &tr->edges[best];
            int nv = edge_visits(tr, ed), bv = edge_visits(tr, bd);
            if (nv > bv || (nv == bv && ed->prior > bd->prior))
                best = e;
        }
        const int max_nv = edge_visits(tr, &tr->edges[best]);
        double total = 0;
        for (int32_t e = r->edge_first; temperature > 0 && e < r->edge_first + r->n_edges; e++)
            total += draw_weight(edge_visits(tr, &tr->edges[e]), max_nv, temperature);
        int32_t chosen = best;
        if (temperature > 0 && total > 0) {
            /* the move's stream, past what the noise used */
            uint32_t ctr = 0x40000000u;
            double x = rng_unit(rng_at(tr->key, ctr)) * total;
            for (int32_t e = r->edge_first; e < r->edge_first + r->n_edges; e++) {
                double w = draw_weight(edge_visits(tr, &tr->edges[e]), max_nv, temperature);
                if (w == 0)
                    continue;
                x -= w;
                chosen = e;
                if (x < 0)
                    break;
            }
        }
        actions[gi][i] = tr->edges[chosen].action;
    }
}

/* Copy the subtree under new_root into fresh arrays (children blocks kept
 * together), making it the root. */
static int reroot(stree *tr, int32_t new_root)
{
    snode *nodes = malloc(sizeof(snode) * (size_t)(tr->n_nodes ? tr->n_nodes : 1));
    sedge *edges = malloc(sizeof(sedge) * (size_t)(tr->n_edges ? tr->n_edges : 1));
    int32_t *queue = malloc(sizeof(int32_t) * (size_t)(tr->n_nodes ? tr->n_nodes : 1));
    if (!nodes || !edges || !queue) {
        free(nodes);
        free(edges);
        free(queue);
        return -1;
    }
    int32_t n_nodes = 0, n_edges = 0, head = 0, tail = 0;
    nodes[n_nodes] = tr->nodes[new_root];
    nodes[n_nodes].parent = -1;
    nodes[n_nodes].seat = -1;
    nodes[n_nodes].vloss = 0;
    queue[tail++] = new_root;
    n_nodes++;
    while (head < tail) {
        int32_t old = queue[head], mine = head; /* BFS: new index = queue position */
        head++;
        snode *nd = &nodes[mine];
        if (nd->state != NODE_INNER) {
            nd->edge_first = -1;
            nd->n_edges = 0;
            if (nd->state == NODE_PENDING)
                nd->state = NODE_NEW;
            continue;
        }
        const snode *src = &tr->nodes[old];
        nd->edge_first = n_edges;
        if (src->win_edge >= 0) /* edges keep their order within the block */
            nd->win_edge = n_edges + (src->win_edge - src->edge_first);
        for (int32_t e = src->edge_first; e < src->edge_first + src->n_edges; e++) {
            sedge ed = tr->edges[e];
            if (ed.child >= 0) {
                nodes[n_nodes] = tr->nodes[ed.child];
                nodes[n_nodes].parent = mine;
                nodes[n_nodes].vloss = 0;
                queue[tail++] = ed.child;
                ed.child = n_nodes++;
            }
            edges[n_edges++] = ed;
        }
    }
    free(queue);
    free(tr->nodes);
    free(tr->edges);
    tr->nodes = nodes;
    tr->edges = edges;
    tr->cap_nodes = tr->n_nodes ? tr->n_nodes : 1;
    tr->cap_edges = tr->n_edges ? tr->n_edges : 1;
    tr->n_nodes = n_nodes;
    tr->n_edges = n_edges;
    tr->root = 0;
    return 0;
}

/* The root's child through `action` if it is the board's position now
 * (the board was stepped with that action), else -1. */
static int32_t child_played(search *s, int t, int64_t action)
{
    stree *tr = &s->trees[t];
    const board_hdr *h = root_board(s, t);
    if (!s->p.reuse_tree || tr->root < 0 || tr->failed || h->status != STATUS_ONGOING ||
        h->episode != tr->episode || h->steps != tr->steps + 1 ||
        tr->nodes[tr->root].state != NODE_INNER)
        return -1;
    const snode *r = &tr->nodes[tr->root];
    int32_t next = -1;
    for (int32_t e = r->edge_first; e < r->edge_first + r->n_edges; e++)
        if (tr->edges[e].action == action)
            next = tr->edges[e].child;
    if (next < 0)
        return -1;
    /* replay the move on the old root: the actions given may not be the
     * ones the boards were stepped with */
    const variant *v = &s->b->groups[s->tree_group[t]].v;
    board_hdr *played = (board_hdr *)s->scratch[thread_id()];
    memcpy(played, tr->root_state, v->state_size);
    game_step(v, played, (int)action);
    return same_position(v, (const uint8_t *)played, h) ? next : -1;
}

void search_advance(search *s, const int64_t *const *actions)
{
    search_abort(s); /* node numbers change: no round may stay open */
#pragma omp parallel for schedule(dynamic, 8) num_threads(s->n_threads) if (s->n_threads > 1)
    for (int t = 0; t < s->n_trees; t++) {
        stree *tr = &s->trees[t];
        const int gi = s->tree_group[t], i = s->tree_board[t];
        int32_t next = child_played(s, t, actions[gi][i]);
        if (next >= 0 && reroot(tr, next) == 0)
            remember_root(tr, &s->b->groups[gi].v, root_board(s, t));
        else
            tr->root = -1; /* rebuilt by the next search_begin */
    }
}

void search_run_uniform(search *s)
{
    batch *b = s->b;
    const int L = s->p.leaves_per_round;
    uint8_t **obs = calloc((size_t)b->n_groups, sizeof(uint8_t *));
    uint8_t **masks = calloc((size_t)b->n_groups, sizeof(uint8_t *));
    int8_t **to_play = calloc((size_t)b->n_groups, sizeof(int8_t *));
    int32_t **boards = calloc((size_t)b->n_groups, sizeof(int32_t *));
    float **priors = calloc((size_t)b->n_groups, sizeof(float *));
    float **values = calloc((size_t)b->n_groups, sizeof(float *));
    int *count = calloc((size_t)b->n_groups, sizeof(int));
    int ok = obs && masks && to_play && boards && priors && values && count;
    for (int gi = 0; ok && gi < b->n_groups; gi++) {
        const variant *v = &b->groups[gi].v;
        size_t rows = (size_t)b->groups[gi].n * (size_t)L;
        obs[gi] = malloc(rows * (size_t)v->n_planes[b->obs_kind] * (size_t)v->g.n_cells);
        masks[gi] = malloc(rows * (size_t)v->n_actions);
        to_play[gi] = malloc(rows);
        boards[gi] = malloc(rows * sizeof(int32_t));
        priors[gi] = malloc(rows * sizeof(float) * (size_t)v->n_actions);
        values[gi] = calloc(rows, sizeof(float));
        ok = obs[gi] && masks[gi] && to_play[gi] && boards[gi] && priors[gi] && values[gi];
        if (ok)
            for (size_t k = 0; k < rows * (size_t)v->n_actions; k++)
                priors[gi][k] = 1.0f;
    }
    if (ok) {
        search_leaves out = {obs, masks, to_play, boards, count};
        search_begin(s);
        while (search_select(s, &out) > 0)
            search_expand(s, (const float *const *)priors, (const float *const *)values);
    }
    for (int gi = 0; gi < b->n_groups; gi++) {
        if (obs)
            free(obs[gi]);
        if (masks)
            free(masks[gi]);
        if (to_play)
            free(to_play[gi]);
        if (boards)
            free(boards[gi]);
        if (priors)
            free(priors[gi]);
        if (values)
            free(values[gi]);
    }
    free(obs);
    free(masks);
    free(to_play);
    free(boards);
    free(priors);
    free(values);
    free(count);
}
