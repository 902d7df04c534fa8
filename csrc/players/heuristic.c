/* The heuristic player: win now; else stop the opponent's five; else the
 * best pattern score over the lines through each candidate cell, for the
 * seat to act (attack) and for the opponent had it played there (defence).
 *
 * Patterns are read from the k-cell windows along each axis through the cell
 * (k = connect), walking the geometry's next-cell table, so strip, torus,
 * hex wrap and bounce lines are read as the rules read them. A window counts
 * when it holds no opposing stone, no captured stone and no off-board cell.
 * From the windows of one axis: the distinct cells that would complete k
 * (two or more: an open four; one: a four), the windows one stone short of
 * that (two or more: an open three), and a small sum that prefers more
 * stones in more windows. Threats across axes combine into tiers. */
#include <math.h>
#include <string.h>

#include "base/rng.h"
#include "game/game.h"
#include "game/rule_family.h"
#include "geometry/lines.h"
#include "openings/opening.h"
#include "players/player.h"

/* Tiers: a win threat (open four, double four, four-three) beats a double
 * three beats a four beats an open three beats everything the sums say. */
#define SCORE_FIVE 1e7f
#define SCORE_WIN_THREAT 1e6f
#define SCORE_DOUBLE_THREE 3e5f
#define SCORE_FOUR 1e5f
#define SCORE_OPEN_THREE 5e4f
#define DEFENCE_WEIGHT 0.9f

enum { CLS_EMPTY = 0, CLS_MINE = 1, CLS_BLOCK = 2 };

/* ---- reading the board ---- */

typedef struct board_view {
    const variant *v;
    const uint8_t *cells;
    const uint64_t *inert; /* stones that no longer count (Gomorpion's captured), or NULL */
} board_view;

/* A cell as the patterns see it: empty, a stone that can join a run
 * (CELL_BLACK / CELL_WHITE), or a cell that blocks both (a captured stone). */
#define CELL_DEAD CELL_OFF

static uint8_t content(const board_view *bv, int c)
{
    uint8_t x = bv->cells[c];
    if (x != CELL_EMPTY && bv->inert && bits_get(bv->inert, c))
        return CELL_DEAD;
    return x;
}

/* The cells of the line through c along axis, up to `reach` each way,
 * distinct, in line order; *at receives c's index, edge[s] whether the walk
 * on side s (0 before c, 1 after) stopped at the board's edge. */
static int line_around(const geometry *g, int c, int axis, int reach, int16_t *out, int *at,
                       int edge[2])
{
    int16_t back[LINE_MAX_CAP], fwd[LINE_MAX_CAP];
    int nb = 0, nf = 0;
    /* only lines that turn or close in a short cycle can meet a cell twice */
    int cycle = g->cycle ? g->cycle[c * g->n_axes + axis] : 0;
    int check = g->next_od != NULL || (cycle && cycle <= 2 * reach + 1);
    for (int s = 0; s < 2; s++) {
        int od = 2 * axis + s, x = c;
        int16_t *dst = s ? back : fwd;
        int *n = s ? &nb : &nf;
        edge[!s] = 0;
        for (int step = 0; step < reach; step++) {
            x = geom_step(g, x, &od);
            if (x == GEOM_NONE || !g->on_board[x]) {
                edge[!s] = 1;
                break;
            }
            if (check) {
                int seen = x == c;
                for (int j = 0; j < nf && !seen; j++)
                    seen = fwd[j] == x;
                for (int j = 0; j < nb && !seen; j++)
                    seen = back[j] == x;
                if (seen)
                    break; /* a short cycle: every cell once */
            }
            dst[(*n)++] = (int16_t)x;
        }
    }
    int n = 0;
    for (int j = nb - 1; j >= 0; j--)
        out[n++] = back[j];
    *at = n;
    out[n++] = (int16_t)c;
    for (int j = 0; j < nf; j++)
        out[n++] = fwd[j];
    return n;
}

/* How the rule judges a run of k for a stone: exactly k or more, and what
 * the cells just past the run may hold (caro), from the win descriptor. */
typedef struct window_rule {
    int exact; /* a stone of the same colour past either end spoils it */
    int ends;  /* WIN_ENDS_* */
} window_rule;

static window_rule rule_for(const variant *v, uint8_t stone)
{
    const win_rule *w = &v->win[stone - 1];
    window_rule r = {!w->overline, w->ends};
    return r;
}

enum { PAST_EMPTY = 0, PAST_MINE = 1, PAST_THEIRS = 2, PAST_EDGE = 3 };

/* Can a window still become a winning run, given what lies just past its
 * two ends (PAST_*)? */
static int window_alive(const window_rule *r, int before, int after)
{
    if (r->exact && (before == PAST_MINE || after == PAST_MINE))
        return 0;
    switch (r->ends) {
    case WIN_ENDS_BOTH_EMPTY: /* both end cells on the board and empty */
        return before == PAST_EMPTY && after == PAST_EMPTY;
    case WIN_ENDS_NOT_BOTH_BLOCKED: /* a block: an opposing stone or the edge */
        return !(before >= PAST_THEIRS && after >= PAST_THEIRS);
    case WIN_ENDS_NOT_BOTH_OPPONENT: /* the edge never blocks */
        return !(before == PAST_THEIRS && after == PAST_THEIRS);
    default:
        return 1;
    }
}

/* The threats one stone makes along one line, summed over the axes. */
typedef struct threats {
    int fours, open_fours, threes, five;
    float sum;
} threats;

/* Windows of k cells through position `at` of a line of n cells (contents
 * x[], cell ids line[]), for a stone of `stone` placed at `at`. */
static void read_windows(const window_rule *rule, int k, const uint8_t *x, const int16_t *line,
                         int n, int at, const int edge[2], uint8_t stone, threats *t)
{
    /* small sums: more stones in more windows */
    static const float window_weight[9] = {0, 1, 6, 36, 200, 400, 800, 1600, 3200};
    int mine[2 * LINE_MAX_CAP + 2], blocked[2 * LINE_MAX_CAP + 2];
    mine[0] = blocked[0] = 0;
    for (int j = 0; j < n; j++) {
        int m = j == at || x[j] == stone;
        mine[j + 1] = mine[j] + m;
        blocked[j + 1] = blocked[j] + (!m && x[j] != CELL_EMPTY);
    }
    int16_t completion[LINE_MAX_CAP];
    int n_completion = 0, near_threes = 0;
    int lo = at - k + 1 < 0 ? 0 : at - k + 1, hi = at < n - k ? at : n - k;
    for (int w = lo; w <= hi; w++) {
        if (blocked[w + k] != blocked[w])
            continue;
        int m = mine[w + k] - mine[w];
        /* what lies past the ends (a walk cut off by its reach counts as open) */
        int past[2];
        for (int side = 0; side < 2; side++) {
            int j = side ? w + k : w - 1;
            if (j < 0 || j >= n)
                past[side] = edge[side] ? PAST_EDGE : PAST_EMPTY;
            else if (j == at || x[j] == stone)
                past[side] = PAST_MINE;
            else
                past[side] = x[j] == CELL_EMPTY ? PAST_EMPTY : PAST_THEIRS;
        }
        if (!window_alive(rule, past[0], past[1]))
            continue;
        t->sum += window_weight[m < 8 ? m : 8];
        if (m >= k) {
            t->five = 1;
        } else if (m == k - 1) {
            int empty_at = -1;
            for (int j = w; j < w + k; j++)
                if (j != at && x[j] == CELL_EMPTY)
                    empty_at = line[j];
            int dup = 0;
            for (int j = 0; j < n_completion; j++)
                dup |= completion[j] == empty_at;
            if (!dup)
                completion[n_completion++] = (int16_t)empty_at;
        } else if (m == k - 2) {
            near_threes++;
        }
    }
    if (n_completion >= 2)
        t->open_fours++;
    else if (n_completion == 1)
        t->fours++;
    else if (near_threes >= 2)
        t->threes++;
}

static float tier_score(const threats *t)
{
    if (t->five)
        return SCORE_FIVE;
    float tier = 0;
    if (t->open_fours || t->fours >= 2 || (t->fours && t->threes))
        tier = SCORE_WIN_THREAT;
    else if (t->threes >= 2)
        tier = SCORE_DOUBLE_THREE;
    else if (t->fours)
        tier = SCORE_FOUR;
    else if (t->threes)
        tier = SCORE_OPEN_THREE;
    return tier + t->sum;
}

/* Pattern scores of a stone at empty cell c: for `mine` (attack) plus the
 * weighted score `theirs` would have there (defence). Each line is read once
 * for both. */
static float pattern_score(const board_view *bv, int c, uint8_t mine, uint8_t theirs)
{
    const geometry *g = &bv->v->g;
    const int k = bv->v->p.connect;
    const window_rule rules[2] = {rule_for(bv->v, mine), rule_for(bv->v, theirs)};
    threats t[2] = {{0}, {0}};
    for (int a = 0; a < g->n_axes; a++) {
        int16_t line[2 * LINE_MAX_CAP + 1];
        uint8_t x[2 * LINE_MAX_CAP + 1];
        int at, edge[2];
        int n = line_around(g, c, a, k, line, &at, edge);
        for (int j = 0; j < n; j++)
            x[j] = content(bv, line[j]);
        read_windows(&rules[0], k, x, line, n, at, edge, mine, &t[0]);
        read_windows(&rules[1], k, x, line, n, at, edge, theirs, &t[1]);
    }
    return tier_score(&t[0]) + DEFENCE_WEIGHT * tier_score(&t[1]);
}

/* Legal cells within two steps of a stone (any colour), as bits; the centre,
 * or every legal cell, on an empty board. */
static int near_cells(const variant *v, const board_hdr *b, uint64_t *near)
{
    const geometry *g = &v->g;
    const uint8_t *cells = board_cells_c(v, b);
    const uint64_t *legal = board_legal_c(v, b);
    const int words = BITS_WORDS(g->n_cells);
    memset(near, 0, sizeof(uint64_t) * (size_t)words);
    for (int c = 0; c < g->n_cells; c++) {
        if (cells[c] != CELL_BLACK && cells[c] != CELL_WHITE)
            continue;
        for (int od = 0; od < g->n_od; od++) {
            int d = od, x = c;
            for (int step = 0; step < 2; step++) {
                x = geom_step(g, x, &d);
                if (x == GEOM_NONE)
                    break;
                bits_set(near, x);
            }
        }
    }
    int count = 0;
    for (int w = 0; w < words; w++) {
        near[w] &= legal[w];
        count += __builtin_popcountll(near[w]);
    }
    if (count)
        return count;
    if (bits_get(legal, g->centre)) {
        bits_set(near, g->centre);
        return 1;
    }
    memcpy(near, legal, sizeof(uint64_t) * (size_t)words);
    return bits_count(near, words);
}

static int all_legal(const variant *v, const board_hdr *b, int32_t *cand, float *score, int max)
{
    const uint64_t *legal = board_legal_c(v, b);
    int n = 0;
    for (int w = 0; w < v->legal_words; w++)
        for (uint64_t x = legal[w]; x && n < max; x &= x - 1) {
            cand[n] = (w * 64 + __builtin_ctzll(x));
            score[n++] = 0;
        }
    return n;
}

int heuristic_candidates(const variant *v, const board_hdr *b, policy_scratch *s, int32_t *cand,
                         float *score, int max)
{
    if (b->phase != PHASE_PLAY)
        return all_legal(v, b, cand, score, max);
    if (v->rules->greedy_scores) { /* a family with its own one-ply judgement */
        int n = all_legal(v, b, cand, score, max);
        v->rules->greedy_scores(v, b, s->board, cand, score, n);
        return n;
    }

    const int mine = b->colour, words = BITS_WORDS(v->g.n_cells);
    uint64_t inert[BITS_WORDS(GEOM_MAX_CELLS)] = {0};
    if (v->rules->inert_stones)
        v->rules->inert_stones(v, b, inert);
    board_view bv = {v, board_cells_c(v, b), v->rules->inert_stones ? inert : NULL};
    const uint8_t my_stone = (uint8_t)(mine + 1), their_stone = (uint8_t)(2 - mine);
    /* renju, forbidden="lose": black keeps off its forbidden points (legal
     * moves that lose at once) */
    uint64_t avoid[BITS_WORDS(GEOM_MAX_CELLS)] = {0};
    const uint64_t *fouls = game_forbidden(v, b, mine);
    if (fouls && v->p.forbidden == FORBIDDEN_LOSE)
        memcpy(avoid, fouls, sizeof(uint64_t) * (size_t)words);

    near_cells(v, b, s->near);
    int n = 0, n_wins = 0, n_blocks = 0;
    for (int w = 0; w < words; w++)
        for (uint64_t x = s->near[w]; x && n < max; x &= x - 1) {
            int c = w * 64 + __builtin_ctzll(x);
            if (lines_wins(v, b, c, my_stone)) {
                cand[n_wins] = c; /* wins go first, replacing the rest */
                score[n_wins++] = SCORE_FIVE * 10;
                n = n_wins;
                continue;
            }
            if (n_wins)
                continue;
            cand[n] = c;
            score[n++] = lines_wins(v, b, c, their_stone) ? SCORE_FIVE : 0;
            n_blocks += score[n - 1] > 0;
        }
    if (n_wins)
        return n_wins;
    if (n_blocks) { /* keep the cells that stop a five */
        int m = 0;
        for (int j = 0; j < n; j++)
            if (score[j] > 0) {
                cand[m] = cand[j];
                score[m++] = score[j];
            }
        return m;
    }
    int m = 0;
    for (int j = 0; j < n; j++) {
        int c = cand[j];
        if (bits_get(avoid, c))
            continue;
        cand[m] = c;
        score[m++] = pattern_score(&bv, c, my_stone, their_stone);
    }
    if (m == 0) /* every candidate was a foul: take any of them */
        return n;
    return m;
}

int heuristic_ranked(const variant *v, const board_hdr *b, policy_scratch *s, int best)
{
    int n = heuristic_candidates(v, b, s, s->cand, s->score, v->n_actions);
    for (int i = 0; i < n && i < best; i++) { /* selection: best is small */
        int top = i;
        for (int j = i + 1; j < n; j++)
            if (s->score[j] > s->score[top])
                top = j;
        int32_t c = s->cand[i];
        float sc = s->score[i];
        s->cand[i] = s->cand[top];
        s->score[i] = s->score[top];
        s->cand[top] = c;
        s->score[top] = sc;
    }
    return n;
}

int heuristic_move(const variant *v, const board_hdr *b, policy_scratch *s, uint64_t key,
                   uint32_t *ctr, float epsilon)
{
    int n = heuristic_candidates(v, b, s, s->cand, s->score, v->n_actions);
    if (n == 0)
        return game_random_legal(v, b, key, ctr);
    if (epsilon > 0 && rng_unit(rng_at(key, (*ctr)++)) < epsilon)
        return s->cand[rng_below(rng_at(key, (*ctr)++), (uint32_t)n)];
    /* the best, ties broken uniformly (reservoir over the maxima) */
    float best = -INFINITY;
    int chosen = -1, ties = 0;
    for (int j = 0; j < n; j++) {
        if (s->score[j] > best) {
            best = s->score[j];
            chosen = s->cand[j];
            ties = 1;
        } else if (s->score[j] == best && rng_below(rng_at(key, (*ctr)++), (uint32_t)++ties) == 0) {
            chosen = s->cand[j];
        }
    }
    return chosen;
}
