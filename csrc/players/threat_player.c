/* The threat player: threat-space search at the root, alpha-beta below it.
 *
 * 1. A five, or the block of the opponent's five (the heuristic's tactics).
 * 2. A forced win of its own: VCF, then VCT (solver.h); the line's first move.
 * 3. The opponent's forced win were the player to pass (a null move): VCF,
 *    then VCT. If it has one, the root moves are those after which it has
 *    none (checked on the heuristic's candidates, best first, with the cells
 *    of the opponent's line among them), or failing that the ones the budget
 *    could not decide.
 *    Otherwise the root moves are the heuristic's best candidates; without a threat of the
 * opponent's when the player passes, no move of the player's can give it one (a stone only blocks
 * the other side's lines).
 * 4. Alpha-beta over the root moves (threat_search.h), `plies` deep within
 *    the budget left; or, with `simulations`, MCTS over them (policy_mcts.c:
 *    the solver picks the moves worth searching, playouts judge among them).
 *
 * All searches share `nodes` moves per decision. Ties among root moves are
 * broken in an order drawn from the decision key: moves are deterministic
 * and the player's seed changes them. Opening-protocol phases, Gomorpion and
 * MODLINSEQ: the heuristic's move. */
#include <math.h>
#include <string.h>

#include "base/rng.h"
#include "game/game.h"
#include "openings/opening.h"
#include "players/player.h"
#include "players/solver.h"
#include "players/threat_search.h"
#include "players/threats.h"

/* Root moves examined as defences when the opponent threatens, at most. */
#define MAX_DEFENCES 8

/* Shuffle list[0..n) (with its scores) from key, then sort by score, highest
 * first, stably: ties end up in an order drawn from the key. */
static void rank_with_ties_drawn(int32_t *list, float *score, int n, uint64_t key, uint32_t *ctr)
{
    for (int i = n - 1; i > 0; i--) {
        int j = (int)rng_below(rng_at(key, (*ctr)++), (uint32_t)(i + 1));
        int32_t c = list[i];
        float sc = score[i];
        list[i] = list[j];
        score[i] = score[j];
        list[j] = c;
        score[j] = sc;
    }
    for (int i = 1; i < n; i++) {
        int32_t c = list[i];
        float sc = score[i];
        int j = i;
        while (j > 0 && score[j - 1] < sc) {
            list[j] = list[j - 1];
            score[j] = score[j - 1];
            j--;
        }
        list[j] = c;
        score[j] = sc;
    }
}

typedef struct budget {
    int64_t left;
} budget;

/* A share of what is left, at least `floor` nodes when there are that many. */
static int64_t slice(const budget *bu, int64_t share_of_left, int64_t floor)
{
    int64_t n = bu->left / share_of_left;
    if (n < floor)
        n = floor < bu->left ? floor : bu->left;
    return n > 0 ? n : 1;
}

static int run(solver *sv, budget *bu, const board_hdr *b, int opponent, int kind, int depth,
               int64_t nodes, int32_t *line, int *len)
{
    if (bu->left <= 0)
        return SOLVE_UNKNOWN;
    int r = opponent ? solver_solve_opponent(sv, b, kind, depth, nodes, line, len)
                     : solver_solve(sv, b, kind, depth, nodes, line, len);
    bu->left -= solver_nodes(sv);
    return r;
}

/* Does the opponent have a forced win (VCF, then VCT) after the player's
 * move? SOLVE_WIN / SOLVE_NONE / SOLVE_UNKNOWN. */
static int opponent_wins_after(const variant *v, solver *sv, budget *bu, const board_hdr *b,
                               int move, board_hdr *after, int vct_depth, int64_t nodes)
{
    memcpy(after, b, v->state_size);
    game_step(v, after, move);
    if (after->status != STATUS_ONGOING)
        return after->status == STATUS_TERMINATED && after->winner == after->seat ? SOLVE_WIN
                                                                                  : SOLVE_NONE;
    int32_t line[2 * SOLVE_MAX_DEPTH];
    int len;
    int r = run(sv, bu, after, 0, SOLVE_VCF, SOLVE_MAX_DEPTH / 2, nodes, line, &len);
    return r == SOLVE_NONE ? run(sv, bu, after, 0, SOLVE_VCT, vct_depth, nodes, line, &len) : r;
}

/* Add move to list (n of max) unless it is there or not legal. */
static void add_move(const variant *v, const board_hdr *b, int32_t *list, int *n, int max, int a)
{
    if (*n >= max || !game_is_legal(v, b, a))
        return;
    for (int j = 0; j < *n; j++)
        if (list[j] == a)
            return;
    list[(*n)++] = a;
}

static int one_hot(const variant *v, int a, float *policy)
{
    if (policy) {
        memset(policy, 0, sizeof(float) * (size_t)v->n_actions);
        policy[a] = 1.0f;
    }
    return a;
}

/* The root moves against the opponent's threat (its line in line[0..len)):
 * those after which it has no forced win, or failing that those the budget
 * could not decide. Returns how many, into root. */
static int defences(const player_spec *ps, const variant *v, const board_hdr *b, policy_scratch *s,
                    solver *sv, budget *bu, const int32_t *line, int len, int32_t *root)
{
    int32_t moves[GEOM_MAX_CELLS], unknown[MAX_DEFENCES];
    int m = 0, n = 0, n_unknown = 0, n_cand = heuristic_ranked(v, b, s, ps->width);
    /* the heuristic's best first (the player's fours among them, which force
     * an answer), then the cells of the opponent's line, then the rest */
    const int width = ps->width < n_cand ? ps->width : n_cand;
    for (int j = 0; j < width; j++)
        add_move(v, b, moves, &m, GEOM_MAX_CELLS, s->cand[j]);
    for (int k = 0; k < len; k++)
        add_move(v, b, moves, &m, GEOM_MAX_CELLS, line[k]);
    for (int j = width; j < n_cand; j++)
        add_move(v, b, moves, &m, GEOM_MAX_CELLS, s->cand[j]);
    board_hdr *after = (board_hdr *)s->board;
    for (int j = 0; j < m && n < MAX_DEFENCES && bu->left > 0; j++) {
        int r = opponent_wins_after(v, sv, bu, b, moves[j], after, ps->vct_depth,
                                    slice(bu, 2 * (m - j + 1), ps->nodes / 40 + 1));
        if (r == SOLVE_NONE)
            root[n++] = moves[j];
        else if (r == SOLVE_UNKNOWN && n_unknown < MAX_DEFENCES)
            unknown[n_unknown++] = moves[j];
    }
    if (n > 0)
        return n;
    memcpy(root, unknown, sizeof(int32_t) * (size_t)n_unknown);
    return n_unknown;
}

int threat_move(const player_spec *ps, const variant *v, const board_hdr *b, policy_scratch *s,
                uint64_t key, float *policy)
{
    uint32_t ctr = 0;
    if (b->phase != PHASE_PLAY || threat_refusal(v))
        return one_hot(v, heuristic_move(v, b, s, key, &ctr, 0.0f), policy);
    if (!s->solver)
        s->solver = solver_new(v);
    if (!s->search)
        s->search = threat_search_new(v);
    solver *sv = s->solver;
    threat_search *ts = s->search;
    /* a five to make or to stop: nothing to search */
    int n = heuristic_candidates(v, b, s, s->cand, s->score, v->n_actions);
    if (!sv || !ts || n <= 1 || s->score[0] >= 1e7f)
        return one_hot(v, heuristic_move(v, b, s, key, &ctr, 0.0f), policy);
    budget bu = {ps->nodes};
    int32_t line[2 * SOLVE_MAX_DEPTH];
    int len;
    const int vcf_depth = SOLVE_MAX_DEPTH / 2;
    /* a win of its own */
    if (run(sv, &bu, b, 0, SOLVE_VCF, vcf_depth, slice(&bu, 8, 1000), line, &len) == SOLVE_WIN ||
        run(sv, &bu, b, 0, SOLVE_VCT, ps->vct_depth, slice(&bu, 5, 1000), line, &len) == SOLVE_WIN)
        return one_hot(v, line[0], policy);
    /* the opponent's threats, were the player to pass */
    int threatened =
        run(sv, &bu, b, 1, SOLVE_VCF, vcf_depth, slice(&bu, 8, 1000), line, &len) == SOLVE_WIN ||
        run(sv, &bu, b, 1, SOLVE_VCT, ps->vct_depth, slice(&bu, 5, 1000), line, &len) == SOLVE_WIN;
    int32_t root[THREAT_SEARCH_MAX_WIDTH];
    float score[THREAT_SEARCH_MAX_WIDTH];
    int n_root;
    if (threatened) {
        n_root = defences(ps, v, b, s, sv, &bu, line, len, root);
        if (n_root == 0) /* lost whatever it plays: the heuristic's move */
            return one_hot(v, heuristic_move(v, b, s, key, &ctr, 0.0f), policy);
        for (int j = 0; j < n_root; j++)
            score[j] = (float)(n_root - j); /* keep their order */
    } else {
        n_root = heuristic_ranked(v, b, s, ps->width);
        if (n_root > ps->width)
            n_root = ps->width;
        memcpy(root, s->cand, sizeof(int32_t) * (size_t)n_root);
        memcpy(score, s->score, sizeof(float) * (size_t)n_root);
    }
    rank_with_ties_drawn(root, score, n_root, key, &ctr);
    if (ps->simulations > 0)
        return mcts_move_among(ps, v, b, s, key, policy, root, n_root);
    int best = threat_search_best(ts, sv, s, b, root, n_root, ps->plies, ps->width,
                                  bu.left > 0 ? bu.left : 1);
    return one_hot(v, root[best], policy);
}
