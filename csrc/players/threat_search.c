/* Alpha-beta search of the threat player (see threat_search.h). */
#include "players/threat_search.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "game/game.h"
#include "players/player.h"
#include "players/solver.h"
#include "players/threats.h"

#define WIN_SCORE 1000000
#define MAX_PLY (THREAT_SEARCH_MAX_PLIES + 16) /* forced moves do not count */
#define MAX_WIDTH THREAT_SEARCH_MAX_WIDTH
#define CELL_WORDS BITS_WORDS(GEOM_MAX_CELLS)
/* A VCF at a leaf: found quickly or not at all */
#define LEAF_VCF_DEPTH 6
#define LEAF_VCF_NODES 40
/* What a window is worth by the stones of one colour in it (no stone of the
 * other); a side's threats count more when it is to move. */
static const float window_value[8] = {0, 1, 12, 150, 2000, 2000, 2000, 2000};
#define WAITING_WEIGHT 0.8f

struct threat_search {
    const variant *v;
    threat_tables t;
    size_t state;
    uint8_t *stack; /* [MAX_PLY] boards */
    int32_t *moves; /* [MAX_PLY][MAX_WIDTH] */
    struct solver *sv;
    policy_scratch *ps;
    int64_t nodes, max_nodes;
    int aborted;
};

threat_search *threat_search_new(const variant *v)
{
    threat_search *ts = calloc(1, sizeof(*ts));
    if (!ts)
        return NULL;
    ts->v = v;
    ts->state = (v->state_size + 63) & ~(size_t)63;
    ts->stack = aligned_alloc(64, ts->state * MAX_PLY);
    ts->moves = malloc(sizeof(int32_t) * MAX_WIDTH * MAX_PLY);
    if (!ts->stack || !ts->moves || threat_tables_init(&ts->t, v)) {
        threat_search_free(ts);
        return NULL;
    }
    return ts;
}

void threat_search_free(threat_search *ts)
{
    if (!ts)
        return;
    free(ts->stack);
    free(ts->moves);
    threat_tables_free(&ts->t);
    free(ts);
}

static board_hdr *at(threat_search *ts, int ply)
{
    return (board_hdr *)(ts->stack + (size_t)ply * ts->state);
}

/* The position's value for me, to move: its open windows (no stone of the
 * other colour) less the other side's, which weigh less as it waits. */
static float windows_value(threat_search *ts, const board_hdr *b, uint8_t me)
{
    const threat_tables *t = &ts->t;
    const uint8_t *cells = board_cells_c(ts->v, b);
    const uint8_t them = (uint8_t)(3 - me);
    float mine = 0, theirs = 0;
    for (int w = 0; w < t->n_windows; w++) {
        const int16_t *wc = t->cells + (size_t)w * (size_t)t->k;
        int m = 0, o = 0, other = 0;
        for (int j = 0; j < t->k; j++) {
            uint8_t x = cells[wc[j]];
            m += x == me;
            o += x == them;
            other += x != CELL_EMPTY;
        }
        if ((m && o) || other != m + o)
            continue;
        if (o == 0)
            mine += window_value[m < 7 ? m : 7];
        else
            theirs += window_value[o < 7 ? o : 7];
    }
    return mine - WAITING_WEIGHT * theirs;
}

/* The heuristic's best `width` candidates, best first. */
static int candidates(threat_search *ts, const board_hdr *b, int32_t *out, int width)
{
    int n = heuristic_ranked(ts->v, b, ts->ps, width);
    if (n > width)
        n = width;
    memcpy(out, ts->ps->cand, sizeof(int32_t) * (size_t)n);
    return n;
}

/* Score of a finished game for the seat that moved into it (from ply). */
static int ended_score(const board_hdr *b, int mover_seat, int ply)
{
    if (b->status != STATUS_TERMINATED || b->winner < 0)
        return 0;
    return b->winner == mover_seat ? WIN_SCORE - ply : -(WIN_SCORE - ply);
}

static int negamax(threat_search *ts, int ply, int depth, int alpha, int beta, int width)
{
    const variant *v = ts->v;
    if (ts->nodes >= ts->max_nodes) {
        ts->aborted = 1;
        return 0;
    }
    board_hdr *b = at(ts, ply);
    const uint8_t me = (uint8_t)(b->colour + 1), them = (uint8_t)(3 - me);
    uint64_t allowed[CELL_WORDS];
    int16_t five[2];
    threat_allowed(v, b, me, allowed);
    if (threat_fives(v, b, me, allowed, five, 1))
        return WIN_SCORE - ply - 1;
    uint64_t theirs[CELL_WORDS];
    threat_allowed(v, b, them, theirs);
    int nd = threat_fives(v, b, them, theirs, five, 2);
    int32_t *list = ts->moves + (size_t)ply * MAX_WIDTH;
    int n = 0, forced = nd > 0;
    if (forced) { /* block (a second five point is lost anyway) */
        if (bits_get(allowed, five[0]))
            list[n++] = five[0];
        if (n == 0)
            return -(WIN_SCORE - ply - 2);
    } else if (depth <= 0 || ply >= MAX_PLY - 2) {
        int32_t line[2 * LEAF_VCF_DEPTH];
        int len;
        int r = solver_solve(ts->sv, b, SOLVE_VCF, LEAF_VCF_DEPTH, LEAF_VCF_NODES, line, &len);
        ts->nodes += solver_nodes(ts->sv);
        if (r == SOLVE_WIN)
            return WIN_SCORE - ply - len;
        return (int)lrintf(windows_value(ts, b, me));
    } else {
        n = candidates(ts, b, list, width);
    }
    int best = -WIN_SCORE - 1;
    for (int j = 0; j < n; j++) {
        board_hdr *child = at(ts, ply + 1);
        memcpy(child, b, v->state_size);
        game_step(v, child, list[j]);
        ts->nodes++;
        int score = child->status != STATUS_ONGOING
                        ? ended_score(child, b->seat, ply + 1)
                        : -negamax(ts, ply + 1, depth - !forced, -beta, -alpha, width);
        if (ts->aborted)
            return 0;
        if (score > best)
            best = score;
        if (score > alpha)
            alpha = score;
        if (alpha >= beta)
            break;
    }
    return n ? best : 0;
}

int threat_search_best(threat_search *ts, struct solver *sv, policy_scratch *ps, const board_hdr *b,
                       const int32_t *root, int n, int plies, int width, int64_t max_nodes)
{
    const variant *v = ts->v;
    if (n <= 1)
        return 0;
    if (plies > THREAT_SEARCH_MAX_PLIES)
        plies = THREAT_SEARCH_MAX_PLIES;
    if (width > MAX_WIDTH)
        width = MAX_WIDTH;
    ts->sv = sv;
    ts->ps = ps;
    ts->nodes = 0;
    ts->max_nodes = max_nodes;
    ts->aborted = 0;
    int order[GEOM_MAX_CELLS];
    for (int j = 0; j < n; j++)
        order[j] = j;
    int chosen = 0;
    memcpy(at(ts, 0), b, v->state_size);
    for (int depth = 1; depth <= plies && !ts->aborted; depth++) {
        int alpha = -WIN_SCORE - 1, best = -1;
        for (int k = 0; k < n; k++) {
            int j = order[k];
            board_hdr *child = at(ts, 1);
            memcpy(child, b, v->state_size);
            game_step(v, child, root[j]);
            ts->nodes++;
            int score = child->status != STATUS_ONGOING
                            ? ended_score(child, b->seat, 1)
                            : -negamax(ts, 1, depth - 1, -WIN_SCORE - 1, -alpha, width);
            if (ts->aborted)
                break;
            if (score > alpha) {
                alpha = score;
                best = j;
            }
        }
        if (ts->aborted || best < 0)
            break;
        chosen = best;
        /* the best first next time */
        for (int k = 0; k < n; k++)
            if (order[k] == best) {
                memmove(order + 1, order, sizeof(int) * (size_t)k);
                order[0] = best;
                break;
            }
        if (alpha >= WIN_SCORE - 64 || alpha <= -WIN_SCORE + 64)
            break; /* decided */
    }
    return chosen;
}
