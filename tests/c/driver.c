/* A command-line driver of the C core with no Python in it, so the test suite
 * can build the engine with -fsanitize=address,undefined and exercise it.
 *
 * Reads one command per line on stdin, prints one result line per command:
 *   new N THREADS AUTORESET ILLEGAL OBS SEED key=value...   a batch of N boards
 *   opponent KIND PLAYER SEAT        seat an opponent (KIND 0 none, 1 built-in
 *                                    player of kind PLAYER (MCTS: 20
 *                                    simulations), 2 external: random moves
 *                                    fed by `random`), agent SEAT 0, 1, 2
 *                                    (random); then reset every board
 *   load BOARD COLOUR ROW ROW ...    a position (COLOUR b or w; rows of X O .)
 *   step A0 A1 ...                   step every board; prints per-board
 *                                    "status winner reward" or the errors
 *   random K                         K steps of sample + step; prints a checksum
 *   rollout K                        K random moves per board in C; statistics
 *   check BOARD                      batch_check_state on the board's state
 *   views BOARD                      the board as each seat sees it, in both
 *                                    observation kinds; prints a checksum
 *   corrupt BOARD OFFSET             flip a byte of the state, then check it
 *   clone SRC DST                    copy a board, then check it
 *   corrupt_derived BOARD            flip each byte of the data derived from
 *                                    the position (and MODLINSEQ's turn count
 *                                    and placed tiles) in turn; prints how many
 *                                    flips the state check let through
 *   windows K                        number of K-cell windows of the geometry
 *   wins K                           K random steps; after each, every board's
 *                                    winning moves compared with a scan of
 *                                    every legal cell; prints the count found
 *   search SIMS LEAVES MOVES [ABORT] MOVES moves of a uniform PUCT search
 *                                    (reused trees); with ABORT 1 every move
 *                                    first selects a round and undoes it (a
 *                                    failed evaluator); prints moves, nodes
 *   solve K KIND DEPTH NODES         K random steps; after each, the solver
 *                                    (KIND 0 VCF, 1 VCT) on every board at
 *                                    once, each winning line replayed to a
 *                                    win; prints wins, unknowns
 *   selfplay GAMES K0 K1 SIMS OBS POLICY PATH [CHUNKS]
 *                                    GAMES games of player kinds K0 / K1 (MCTS
 *                                    with SIMS simulations, threat and pvs
 *                                    (kind 5) with SIMS nodes per decision;
 *                                    kind 6: threat with MCTS over its root
 *                                    moves, SIMS / 20 playouts), recording
 *                                    OBS / POLICY, written to PATH ("-": not
 *                                    written; CHUNKS 0 auto, 1 zlib, 2 fast);
 *                                    every game is replayed and compared, and
 *                                    its first steps with the opening book's
 *                                    stones; prints games, steps, mismatches
 *   book K                           the selfplay commands after it start
 *                                    their games from a book of two openings
 *                                    (K 1; K 0: none)
 *   net PATH SIMS GAMES              the net player of the network file PATH
 *                                    (SIMS simulations; 0: its policy): a
 *                                    truncated copy refused, GAMES games
 *                                    against the heuristic (observations and
 *                                    policies recorded, replayed and compared),
 *                                    then 12 random steps (prints as `random`)
 *                                    with it as the opponent; prints two lines
 *   batches GAMES                    GAMES games (heuristic against random, with
 *                                    policies) rebuilt by the batch farm, every
 *                                    position under a symmetry of the raster, in
 *                                    both observation kinds on 2 threads; each
 *                                    compared with its replay; prints positions,
 *                                    mismatches
 *   shards GAMES K PATH              GAMES random games in K shards, each
 *                                    played from its first game number and
 *                                    written as a one-segment dataset under
 *                                    PATH.parts, assembled into PATH (a file
 *                                    naming them, then packed); prints games
 *   chunks SEED                      chunk encodings (h5chunk.h) of random,
 *                                    repeated and mixed data, every size class,
 *                                    inflated by zlib and compared; prints the
 *                                    cases and the failures
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "base/half.h"
#include "env/batch.h"
#include "env/puct_search.h"
#include "env/replay.h"
#include "env/selfplay.h"
#include "env/solve_batch.h"
#include "game/game.h"
#include "io/h5chunk.h"
#include "io/h5writer.h"
#include "io/training_batches.h"
#include "openings/opening.h"
#include "players/net.h"
#include "players/solver.h"
#include "players/threats.h"
#include "rules/modlinseq.h"

#define MAX_OUTS 48
static batch *B;
static void *outs[MAX_OUTS];
static int n_outs;

static void free_all(void)
{
    batch_destroy(B);
    B = NULL;
    n_outs = 0;
    for (int i = 0; i < MAX_OUTS; i++) {
        free(outs[i]);
        outs[i] = NULL;
    }
}

static void *alloc_out(size_t bytes)
{
    outs[n_outs] = calloc(bytes ? bytes : 1, 1);
    return outs[n_outs++];
}

/* Every output array of one group_outputs, n boards. */
static void alloc_outputs(group_outputs *o, const group *g, int n, int obs_kind)
{
    size_t obs = (size_t)n * (size_t)g->v.n_planes[obs_kind] * (size_t)g->v.g.n_cells;
    o->obs = alloc_out(obs);
    o->mask = alloc_out((size_t)n * (size_t)g->v.n_actions);
    o->reward = alloc_out(sizeof(float) * (size_t)n);
    o->rewards = alloc_out(sizeof(float) * 2 * (size_t)n);
    o->terminated = alloc_out((size_t)n);
    o->truncated = alloc_out((size_t)n);
    o->to_play = alloc_out((size_t)n);
    o->winner = alloc_out((size_t)n);
    o->episode_length = alloc_out(sizeof(int32_t) * (size_t)n);
    o->illegal = alloc_out((size_t)n);
    o->has_final = alloc_out((size_t)n);
    o->sampled = alloc_out(sizeof(int64_t) * (size_t)n);
    o->black_seat = alloc_out((size_t)n);
    o->phase = alloc_out((size_t)n);
    o->opening = alloc_out((size_t)n);
    o->scores = alloc_out(2 * sizeof(int32_t) * (size_t)n);
    o->cast_points = alloc_out(2 * sizeof(int32_t) * (size_t)n);
    o->casts = alloc_out(sizeof(int32_t) * (size_t)n);
    o->captures = alloc_out(2 * sizeof(int32_t) * (size_t)n);
    o->agent_seat = alloc_out((size_t)n);
    o->waiting = alloc_out((size_t)n);
}

static int cmd_new(char *args)
{
    int n, threads, autoreset, illegal, obs_kind;
    unsigned long long seed;
    int used = 0;
    if (sscanf(args, "%d %d %d %d %d %llu %n", &n, &threads, &autoreset, &illegal, &obs_kind, &seed,
               &used) < 6) {
        puts("error bad new");
        return 0;
    }
    variant_params p;
    variant_params_default(&p);
    char err[512];
    for (char *tok = strtok(args + used, " \n"); tok; tok = strtok(NULL, " \n")) {
        char *eq = strchr(tok, '=');
        if (!eq) {
            puts("error bad parameter");
            return 0;
        }
        *eq = '\0';
        if (variant_params_set(&p, tok, eq + 1, err, sizeof(err))) {
            printf("error %s\n", err);
            return 0;
        }
    }
    free_all();
    B = batch_create(&p, &n, 1, threads, autoreset, illegal, obs_kind, err, sizeof(err));
    if (!B) {
        printf("error %s\n", err);
        return 0;
    }
    group *g = &B->groups[0];
    alloc_outputs(&g->out, g, n, obs_kind);
    alloc_outputs(&g->fin, g, n, obs_kind);
    batch_reset(B, 1, seed, NULL);
    printf("ok actions=%d cells=%d state=%zu lines=%d\n", g->v.n_actions, g->v.g.n_cells,
           g->v.state_size, g->v.g.n_lines);
    return 1;
}

static void cmd_load(char *args)
{
    group *g = &B->groups[0];
    int board;
    char colour;
    int used = 0;
    if (sscanf(args, "%d %c %n", &board, &colour, &used) < 2 || board < 0 || board >= g->n) {
        puts("error bad load");
        return;
    }
    uint8_t *cells = calloc((size_t)g->v.g.n_cells, 1);
    int c = 0;
    for (char *s = args + used; *s && c < g->v.g.n_cells; s++) {
        if (*s == ' ' || *s == '\n')
            continue;
        cells[c++] = *s == 'X' ? CELL_BLACK : *s == 'O' ? CELL_WHITE : CELL_EMPTY;
    }
    const char *why = c == g->v.g.n_cells ? batch_load_position(B, 0, board, cells, colour == 'w',
                                                                NULL, NULL, NULL, NULL)
                                          : "wrong number of cells";
    free(cells);
    printf(why ? "error %s\n" : "ok\n", why);
}

static void cmd_step(char *args)
{
    group *g = &B->groups[0];
    int64_t *actions = calloc((size_t)g->n, sizeof(int64_t));
    char *s = args;
    for (int i = 0; i < g->n; i++)
        actions[i] = strtoll(s, &s, 10);
    const int64_t *per_group[1] = {actions};
    batch_error errs[8];
    int n_err = batch_step(B, per_group, errs, 8);
    if (n_err) {
        printf("errors %d", n_err);
        for (int k = 0; k < n_err && k < 8; k++)
            printf(" [%d %lld %s]", errs[k].index, (long long)errs[k].action, errs[k].reason);
        putchar('\n');
    } else {
        for (int i = 0; i < g->n; i++)
            printf("%s%d %d %d %g", i ? " | " : "",
                   g->out.terminated[i]  ? 1
                   : g->out.truncated[i] ? 2
                                         : 0,
                   g->out.winner[i], g->out.illegal[i], (double)g->out.reward[i]);
        putchar('\n');
    }
    free(actions);
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ULL;
    return h;
}

/* An external opponent's rounds: random legal moves until no board waits. */
static const char *external_rounds(void)
{
    group *g = &B->groups[0];
    for (;;) {
        int waiting = 0;
        for (int i = 0; i < g->n; i++)
            waiting |= g->out.waiting[i];
        if (!waiting || B->opp.kind != OPPONENT_EXTERNAL)
            return NULL;
        batch_sample(B);
        const int64_t *per_group[1] = {g->out.sampled};
        batch_error errs[1];
        if (batch_opponent_step(B, per_group, errs, 1))
            return errs[0].reason;
    }
}

/* With an opponent, every board in play is at the agent's turn. */
static const char *agent_to_act(const group *g, int i)
{
    const board_hdr *h = group_board(g, i);
    if (B->opp.kind != OPPONENT_NONE && h->status == STATUS_ONGOING &&
        h->seat != opponent_agent_seat(&B->opp, h))
        return "the opponent is still to act";
    return NULL;
}

static void cmd_opponent(char *args)
{
    int kind, player, seat;
    if (sscanf(args, "%d %d %d", &kind, &player, &seat) < 3) {
        puts("error bad opponent");
        return;
    }
    player_spec ps;
    player_spec_default(&ps, player);
    ps.simulations = 20;
    const char *why = batch_set_opponent(B, kind, &ps, seat);
    if (why) {
        printf("error %s\n", why);
        return;
    }
    batch_reset(B, 1, 5, NULL);
    why = external_rounds();
    printf(why ? "error %s\n" : "ok\n", why);
}

static void cmd_random(char *args)
{
    int k = atoi(args);
    group *g = &B->groups[0];
    const group_outputs *o = &g->out;
    size_t n = (size_t)g->n;
    size_t obs = n * (size_t)g->v.n_planes[B->obs_kind] * (size_t)g->v.g.n_cells;
    uint64_t h = 0xcbf29ce484222325ULL;
    long long ends = 0;
    for (int t = 0; t < k; t++) {
        batch_sample(B);
        const int64_t *per_group[1] = {o->sampled};
        batch_error errs[1];
        if (batch_step(B, per_group, errs, 1)) {
            printf("error step %d: board %d action %lld: %s\n", t, errs[0].index,
                   (long long)errs[0].action, errs[0].reason);
            return;
        }
        const char *refused = external_rounds();
        if (refused) {
            printf("error step %d: the opponent's action refused: %s\n", t, refused);
            return;
        }
        h = fnv(h, o->obs, obs);
        h = fnv(h, o->mask, n * (size_t)g->v.n_actions);
        h = fnv(h, o->rewards, 2 * n * sizeof(float));
        h = fnv(h, o->terminated, n);
        h = fnv(h, o->truncated, n);
        h = fnv(h, o->to_play, n);
        size_t row = obs / n;
        uint8_t *fresh = malloc(row);
        for (size_t i = 0; i < n; i++) {
            ends += o->terminated[i] || o->truncated[i];
            const board_hdr *bh = group_board(g, (int)i);
            const char *why = batch_check_state(g, (const uint8_t *)bh, g->v.state_size);
            why = why ? why : agent_to_act(g, (int)i);
            /* the planes are kept step by step: they must be a rewrite's (a
             * few boards: a rewrite of every board costs the run tenfold) */
            if (!why && i < 8) {
                game_write_obs(&g->v, bh, B->obs_kind, fresh);
                if (memcmp(fresh, o->obs + i * row, row))
                    why = "the kept observation differs from a rewrite";
            }
            if (why) {
                printf("error step %d board %zu: %s\n", t, i, why);
                free(fresh);
                return;
            }
        }
        free(fresh);
    }
    printf("ok %016llx %lld\n", (unsigned long long)h, ends);
}

static void cmd_rollout(char *args)
{
    rollout_stats st;
    batch_rollout(B, atoi(args), &st);
    const char *why = external_rounds();
    if (why) {
        printf("error %s\n", why);
        return;
    }
    printf("ok steps=%lld episodes=%lld w0=%lld w1=%lld draws=%lld trunc=%lld len=%lld\n",
           (long long)st.steps, (long long)st.episodes, (long long)st.wins[0],
           (long long)st.wins[1], (long long)st.draws, (long long)st.truncations,
           (long long)st.length_sum);
}

/* Winning moves of the mover: the fast path against every legal cell. */
static void cmd_wins(char *args)
{
    int k = atoi(args);
    group *g = &B->groups[0];
    const variant *v = &g->v;
    int32_t *fast = malloc(sizeof(int32_t) * (size_t)v->g.n_cells);
    long long found = 0;
    for (int t = 0; t < k && fast; t++) {
        batch_sample(B);
        const int64_t *per_group[1] = {g->out.sampled};
        batch_error errs[1];
        if (batch_step(B, per_group, errs, 1)) {
            printf("error step %d: %s\n", t, errs[0].reason);
            free(fast);
            return;
        }
        for (int i = 0; i < g->n; i++) {
            const board_hdr *h = group_board(g, i);
            int n = lines_winning_moves(v, h, fast, v->g.n_cells), m = 0;
            const uint64_t *legal = board_legal_c(v, h);
            int can = h->phase == PHASE_PLAY && h->status == STATUS_ONGOING;
            for (int c = 0; can && c < v->g.n_cells; c++)
                if ((legal[c / 64] >> (c % 64)) & 1 &&
                    lines_wins(v, h, c, (uint8_t)(h->colour + 1))) {
                    if (m >= n || fast[m] != c) {
                        printf("error step %d board %d: winning move %d missed or out of order\n",
                               t, i, c);
                        free(fast);
                        return;
                    }
                    m++;
                }
            if (can && m != n) {
                printf("error step %d board %d: %d winning moves, %d by the scan\n", t, i, n, m);
                free(fast);
                return;
            }
            found += n;
        }
    }
    free(fast);
    printf("ok %lld\n", found);
}

/* A solver's line from board h: every move legal, the last one the
 * attacker's win. */
static int line_wins(const variant *v, const board_hdr *h, const int32_t *line, int len,
                     uint8_t *scratch)
{
    board_hdr *b = (board_hdr *)scratch;
    memcpy(b, h, v->state_size);
    int attacker = h->seat;
    for (int j = 0; j < len; j++) {
        if (b->status != STATUS_ONGOING || !game_is_legal(v, b, line[j]))
            return 0;
        game_step(v, b, line[j]);
    }
    return len % 2 == 1 && b->status == STATUS_TERMINATED && b->winner == attacker;
}

static void cmd_solve(char *args)
{
    int k, kind, depth;
    long long nodes;
    if (sscanf(args, "%d %d %d %lld", &k, &kind, &depth, &nodes) != 4) {
        puts("error bad solve");
        return;
    }
    group *g = &B->groups[0];
    const variant *v = &g->v;
    if (threat_refusal(v)) {
        printf("refused %s\n", threat_refusal(v));
        return;
    }
    int8_t *results = malloc((size_t)g->n);
    int32_t *lens = malloc(sizeof(int32_t) * (size_t)g->n);
    int32_t *lines = malloc(sizeof(int32_t) * 2 * (size_t)depth * (size_t)g->n);
    uint8_t *scratch = aligned_alloc(64, (v->state_size + 63) & ~(size_t)63);
    long long wins = 0, unknown = 0;
    for (int t = 0; t < k && results && lens && lines && scratch; t++) {
        batch_sample(B);
        const int64_t *per_group[1] = {g->out.sampled};
        batch_error errs[1];
        if (batch_step(B, per_group, errs, 1)) {
            printf("error step %d: %s\n", t, errs[0].reason);
            break;
        }
        if (solver_solve_group(g, kind, depth, nodes, B->num_threads, results, lens, lines)) {
            puts("error out of memory");
            break;
        }
        for (int i = 0; i < g->n; i++) {
            unknown += results[i] == SOLVE_UNKNOWN;
            if (results[i] != SOLVE_WIN)
                continue;
            wins++;
            if (!line_wins(v, group_board(g, i), lines + (size_t)i * 2 * depth, lens[i], scratch)) {
                printf("error step %d board %d: the line does not win\n", t, i);
                k = 0;
                wins = -1;
                break;
            }
        }
    }
    if (wins >= 0)
        printf("ok wins=%lld unknown=%lld\n", wins, unknown);
    free(results);
    free(lens);
    free(lines);
    free(scratch);
}

/* One round selected on the driver's single group, then undone, as after an
 * evaluator that failed; 0 if the buffers could not be allocated. */
static int select_then_abort(search *s, int leaves)
{
    group *g = &B->groups[0];
    const variant *v = &g->v;
    size_t rows = (size_t)g->n * (size_t)leaves;
    uint8_t *obs = malloc(rows * (size_t)v->n_planes[B->obs_kind] * (size_t)v->g.n_cells);
    uint8_t *masks = malloc(rows * (size_t)v->n_actions);
    int8_t *to_play = malloc(rows);
    int32_t *boards = malloc(rows * sizeof(int32_t));
    int count = 0;
    int ok = obs && masks && to_play && boards;
    if (ok) {
        search_leaves out = {&obs, &masks, &to_play, &boards, &count};
        search_begin(s);
        search_select(s, &out);
        search_abort(s);
    }
    free(obs);
    free(masks);
    free(to_play);
    free(boards);
    return ok;
}

/* Moves of a uniform search, each played and followed by the trees. */
static void cmd_search(char *args)
{
    int sims, leaves, moves, abort_rounds = 0;
    if (sscanf(args, "%d %d %d %d", &sims, &leaves, &moves, &abort_rounds) < 3) {
        puts("error bad search");
        return;
    }
    group *g = &B->groups[0];
    search_params p = {sims, 1.5f, 0.3f, 0.25f, leaves, 1, 7};
    char err[256];
    search *s = search_new(B, &p, err, sizeof(err));
    int64_t *actions = calloc((size_t)g->n, sizeof(int64_t));
    if (!s || !actions) {
        printf("error %s\n", s ? "out of memory" : err);
        search_free(s);
        free(actions);
        return;
    }
    int64_t *const per_group[1] = {actions};
    for (int t = 0; t < moves; t++) {
        if (abort_rounds && !select_then_abort(s, leaves)) {
            puts("error out of memory");
            break;
        }
        search_run_uniform(s);
        search_actions(s, t % 2 ? 0.0f : 1.0f, per_group);
        batch_sample(B); /* finished boards (disabled autoreset) take any action */
        for (int i = 0; i < g->n; i++)
            if (group_board(g, i)->status != STATUS_ONGOING)
                actions[i] = g->out.sampled[i];
        batch_error errs[1];
        if (batch_step(B, (const int64_t *const *)per_group, errs, 1)) {
            printf("error move %d: board %d: %s\n", t, errs[0].index, errs[0].reason);
            break;
        }
        search_advance(s, (const int64_t *const *)per_group);
    }
    printf("ok moves=%d nodes=%zu\n", moves, search_nodes(s));
    search_free(s);
    free(actions);
}

/* Replay a recorded episode and compare its observations; 1 if they differ. */
static int replay_differs(const group *g, const episode_buf *e, int record_obs)
{
    const variant *v = &g->v;
    size_t obs_bytes = (size_t)v->n_planes[OBS_ABSOLUTE] * (size_t)v->g.n_cells;
    uint8_t *obs = malloc(obs_bytes * (size_t)(e->n + 1));
    uint8_t *masks = malloc((size_t)v->n_actions * (size_t)(e->n + 1));
    float *rewards = malloc(sizeof(float) * 2 * (size_t)(e->n + 1));
    char err[256];
    int bad = replay_episode(v, B->seed, e->group, e->board, e->episode, e->action, e->n,
                             OBS_ABSOLUTE, obs, masks, rewards, err, sizeof(err)) != 0;
    if (!bad && record_obs)
        bad = memcmp(obs, e->obs, obs_bytes * (size_t)e->n) != 0;
    for (int t = 0; !bad && t < e->n; t++)
        bad = !masks[(size_t)t * v->n_actions + e->action[t]];
    free(obs);
    free(masks);
    free(rewards);
    return bad;
}

/* The book of the selfplay commands (cmd_book). */
static int use_book;

static void cmd_book(char *args)
{
    int k;
    if (sscanf(args, "%d", &k) != 1 || k < 0 || k > 1) {
        puts("error bad book");
        return;
    }
    use_book = k;
    puts("ok");
}

/* GAMES games of ps[0] against ps[1] (seats alternating) on the batch,
 * recording OBS / POLICY, written to PATH ("-": not written); every game is
 * replayed and compared (and its first steps with the book's stones). Prints
 * games, steps, mismatches. */
static void run_selfplay(const player_spec ps[2], int games, int record_obs, int record_policy,
                         const char *path, int chunks)
{
    char err[1024];
    selfplay *sp = selfplay_new(B, ps, 11, 1, record_obs, record_policy, err, sizeof(err));
    if (!sp) {
        printf("error %s\n", err);
        return;
    }
    /* two openings, of two and three stones: (0,0) (1,1); (0,0) (0,1) (1,-1) */
    static const int32_t book_xy[] = {0, 0, 1, 1, 0, 0, 0, 1, 1, -1}, book_first[] = {0, 2, 5};
    if (use_book && selfplay_set_book(sp, 0, book_xy, book_first, 2, err, sizeof(err))) {
        printf("error %s\n", err);
        selfplay_free(sp);
        return;
    }
    h5writer *w = NULL;
    if (strcmp(path, "-") != 0) {
        h5_group_desc desc = {"g", "{}"};
        h5writer_options o = {1, 1, 0.001, "{}", chunks};
        if (!(w = h5writer_open(path, B, &desc, record_obs, record_policy, &o, err, sizeof(err)))) {
            printf("error %s\n", err);
            selfplay_free(sp);
            return;
        }
    }
    episode_buf *bufs[2] = {selfplay_buffers_new(sp), selfplay_buffers_new(sp)};
    int done = 0, cur = 0, mismatches = 0;
    long long steps = 0;
    while (done < games) {
        int n = games - done < B->n_total ? games - done : B->n_total;
        if (w)
            h5writer_wait(w, bufs[cur]);
        int r = selfplay_round(sp, done, n, bufs[cur], B->num_threads);
        if (r <= 0)
            break;
        for (int j = 0; j < B->n_total; j++)
            if (bufs[cur][j].played) {
                const episode_buf *e = &bufs[cur][j];
                steps += e->n;
                mismatches += replay_differs(&B->groups[0], e, record_obs);
                if (use_book) {
                    const opening_book *book = &sp->books[0];
                    int k = opening_book_pick(book, e->game, 1);
                    int len = book->first[k + 1] - book->first[k];
                    int differs = e->book != len || e->n < len;
                    for (int t = 0; t < len && !differs; t++)
                        differs = e->action[t] != book->cells[book->first[k] + t];
                    mismatches += differs;
                }
            }
        if (w && h5writer_submit(w, bufs[cur]))
            break;
        done += r;
        cur ^= 1;
    }
    int closed = w ? h5writer_close(w, 1, err, sizeof(err)) : 0;
    selfplay_buffers_free(sp, bufs[0]);
    selfplay_buffers_free(sp, bufs[1]);
    selfplay_free(sp);
    if (closed)
        printf("error %s\n", err);
    else
        printf("ok games=%d steps=%lld mismatches=%d\n", done, steps, mismatches);
}

static void cmd_selfplay(char *args)
{
    int games, k0, k1, sims, record_obs, record_policy, chunks = H5WRITER_CHUNKS_AUTO;
    char path[1024];
    if (sscanf(args, "%d %d %d %d %d %d %1023s %d", &games, &k0, &k1, &sims, &record_obs,
               &record_policy, path, &chunks) < 7) {
        puts("error bad selfplay");
        return;
    }
    player_spec ps[2];
    const int kinds[2] = {k0, k1};
    for (int p = 0; p < 2; p++) {
        const int threat_mcts = kinds[p] == PLAYER_PVS + 1;
        player_spec_default(&ps[p], threat_mcts ? PLAYER_THREAT : kinds[p]);
        ps[p].nodes = sims;
        ps[p].depth = 20;
        if (ps[p].kind == PLAYER_MCTS)
            ps[p].simulations = sims;
        else if (threat_mcts)
            ps[p].simulations = sims / 20 > 0 ? sims / 20 : 1;
    }
    run_selfplay(ps, games, record_obs, record_policy, path, chunks);
}

/* The net player from the file at PATH: a truncated copy refused, GAMES
 * games against the heuristic with observations and policies recorded,
 * then 12 random steps with it as the opponent in the loop. */
static void cmd_net(char *args)
{
    char path[1024];
    int sims, games;
    if (sscanf(args, "%1023s %d %d", path, &sims, &games) < 3) {
        puts("error bad net");
        return;
    }
    char err[1024];
    FILE *f = fopen(path, "rb");
    uint8_t *bytes = malloc(1 << 22);
    size_t len = f && bytes ? fread(bytes, 1, 1 << 22, f) : 0;
    if (f)
        fclose(f);
    net_model *cut = len ? net_parse(bytes, len / 2, "cut", err, sizeof(err)) : NULL;
    free(bytes);
    if (cut || strncmp(err, "cut: truncated", 14) != 0) {
        printf("error a truncated network was not refused as such: %s\n", cut ? "read" : err);
        net_release(cut);
        return;
    }
    net_model *m = net_load(path, err, sizeof(err));
    if (!m) {
        printf("error %s\n", err);
        return;
    }
    player_spec ps[2];
    player_spec_default(&ps[0], PLAYER_NET);
    ps[0].net = m;
    ps[0].simulations = sims;
    player_spec_default(&ps[1], PLAYER_HEURISTIC);
    if (player_spec_check_variant(&ps[0], &B->groups[0].v, err, sizeof(err))) {
        printf("error %s\n", err);
        net_release(m);
        return;
    }
    run_selfplay(ps, games, 1, 1, "-", 0);
    const char *why = batch_set_opponent(B, OPPONENT_BUILTIN, &ps[0], AGENT_SEAT_RANDOM);
    net_release(m); /* the opponent holds its own reference */
    if (why) {
        printf("error %s\n", why);
        return;
    }
    batch_reset(B, 1, 5, NULL);
    char steps[] = "12";
    cmd_random(steps);
    batch_set_opponent(B, OPPONENT_NONE, NULL, 0);
}

/* Every seat's view of a board in both kinds (the PettingZoo / OpenSpiel
 * observations of the agent not to act included). */
static void cmd_views(int board)
{
    const group *g = &B->groups[0];
    if (board < 0 || board >= g->n) {
        puts("error bad views");
        return;
    }
    uint64_t h = 0xcbf29ce484222325ULL;
    for (int kind = OBS_ABSOLUTE; kind <= OBS_MOVER; kind++) {
        size_t bytes = (size_t)g->v.n_planes[kind] * (size_t)g->v.g.n_cells;
        uint8_t *obs = malloc(bytes);
        for (int seat = 0; seat < 2; seat++) {
            game_write_obs_for(&g->v, group_board(g, board), kind, seat, obs);
            h = fnv(h, obs, bytes);
        }
        free(obs);
    }
    printf("ok %016llx\n", (unsigned long long)h);
}

/* Flip each byte of [from, to) of a board's state in turn; how many flips
 * did batch_check_state accept? */
static int flips_accepted(const group *g, int board, size_t from, size_t to)
{
    uint8_t *state = (uint8_t *)group_board(g, board);
    int accepted = 0;
    for (size_t at = from; at < to; at++) {
        state[at] ^= 0x5a;
        accepted += batch_check_state(g, state, g->v.state_size) == NULL;
        state[at] ^= 0x5a;
    }
    return accepted;
}

static void cmd_corrupt_derived(char *args)
{
    const group *g = &B->groups[0];
    const variant *v = &g->v;
    int board = atoi(args), accepted = flips_accepted(g, board, v->off_lines, v->derived_end);
    if (rule_has(v, RULE_TRAIT_TILES)) {
        size_t ms = v->off_rule_own, turn_tiles = ms + offsetof(modlinseq_state, turn_tiles);
        size_t placed = (size_t)((uint8_t *)modlinseq_placed(v, group_board(g, board)) -
                                 (uint8_t *)group_board(g, board));
        accepted += flips_accepted(g, board, turn_tiles, turn_tiles + 1);
        accepted +=
            flips_accepted(g, board, placed, placed + sizeof(uint64_t) * BITS_WORDS(v->g.n_cells));
    }
    printf("ok %d\n", accepted);
}

/* Cell permutations of the raster (forward: cell c goes to perms[k][c]): the
 * 8 symmetries of a square or 4 of a rectangle on plane and torus boards, and
 * on a torus one translation more; the identity elsewhere. Returns how many. */
static int raster_symmetries(const variant *v, int32_t *perms)
{
    const int h = v->g.height, w = v->g.width, n = h * w;
    const int flat = v->g.kind == GEOM_PLANE || v->g.kind == GEOM_TORUS;
    const int count = !flat ? 1 : h == w ? 8 : 4;
    for (int k = 0; k < count; k++)
        for (int c = 0; c < n; c++) {
            const int r = c / w, col = c % w;
            const int maps[8][2] = {{r, col},         {h - 1 - r, w - 1 - col}, {h - 1 - r, col},
                                    {r, w - 1 - col}, {col, h - 1 - r},         {w - 1 - col, r},
                                    {col, r},         {w - 1 - col, h - 1 - r}};
            perms[k * n + c] = maps[k][0] * w + maps[k][1];
        }
    if (v->g.kind != GEOM_TORUS)
        return count;
    for (int c = 0; c < n; c++)
        perms[count * n + c] = ((c / w + 1) % h) * w + (c % w + 2) % w;
    return count + 1;
}

/* Positions of one kind written by the farm, each compared with its replay
 * under the same symmetry; the number that differ. */
static int farm_mismatches(const batches_games *g, const batches_positions *p, const int32_t *perms,
                           int count, int kind, int *error)
{
    const variant *v = &B->groups[0].v;
    const int n = v->g.n_cells, A = v->n_actions, per_cell = (A - v->n_special) / n;
    const size_t obs_bytes = (size_t)v->n_planes[kind] * (size_t)n;
    char err[256];
    int64_t first = 0;
    batches_farm *f = batches_farm_new(B, kind, perms, count, &first, &count, err, sizeof(err));
    if (!f) {
        printf("error %s\n", err);
        *error = 1;
        return 0;
    }
    batches_out out = {malloc(obs_bytes * (size_t)p->n), malloc((size_t)A * (size_t)p->n),
                       malloc(sizeof(int64_t) * (size_t)p->n),
                       malloc(sizeof(float) * (size_t)A * (size_t)p->n),
                       malloc(sizeof(float) * (size_t)p->n)};
    batches_error be;
    const char *why = batches_check(f, g, p);
    if (why || batches_fill(f, g, p, &out, &be)) {
        printf("error %s\n", why ? why : be.message);
        *error = 1;
    }
    int bad = 0;
    for (int64_t i = 0; !*error && i < g->n; i++) {
        const int len = g->length[i];
        uint8_t *obs = malloc(obs_bytes * (size_t)(len + 1));
        uint8_t *masks = malloc((size_t)A * (size_t)(len + 1));
        float *rewards = malloc(sizeof(float) * 2 * (size_t)len);
        bad += replay_episode(v, g->seed[i], g->key_group[i], g->board[i], g->episode[i],
                              g->actions + g->start[i], len, kind, obs, masks, rewards, err,
                              sizeof(err)) != 0;
        for (int64_t j = 0; j < p->n; j++) {
            if (p->game[j] != i)
                continue;
            const int t = p->ply[j];
            const int32_t *perm = perms + (size_t)p->symmetry[j] * (size_t)n;
            int differ = 0;
            for (size_t pl = 0; pl < obs_bytes / (size_t)n; pl++)
                for (int c = 0; c < n; c++)
                    differ |= out.obs[(size_t)j * obs_bytes + pl * n + perm[c]] !=
                              obs[(size_t)t * obs_bytes + pl * n + c];
            for (int a = 0; a < A; a++) {
                const int to = a < n * per_cell ? perm[a / per_cell] * per_cell + a % per_cell : a;
                differ |= out.mask[(size_t)j * A + to] != masks[(size_t)t * A + a];
                differ |= out.policy[(size_t)j * A + to] !=
                          half_to_float(g->policy[(size_t)(g->start[i] + t) * A + a]);
                if (a == g->actions[g->start[i] + t])
                    differ |= out.action[j] != to;
            }
            bad += differ;
        }
        free(obs);
        free(masks);
        free(rewards);
    }
    free(out.obs);
    free(out.mask);
    free(out.action);
    free(out.policy);
    free(out.value);
    batches_farm_free(f);
    return bad;
}

static void cmd_batches(char *args)
{
    int games;
    if (sscanf(args, "%d", &games) != 1 || games < 1 || games > B->n_total) {
        puts("error bad batches");
        return;
    }
    player_spec ps[2];
    player_spec_default(&ps[0], PLAYER_HEURISTIC);
    player_spec_default(&ps[1], PLAYER_RANDOM);
    char err[1024];
    selfplay *sp = selfplay_new(B, ps, 21, 1, 0, 1, err, sizeof(err));
    if (!sp) {
        printf("error %s\n", err);
        return;
    }
    episode_buf *bufs = selfplay_buffers_new(sp);
    int played = selfplay_round(sp, 0, games, bufs, B->num_threads);
    const variant *v = &B->groups[0].v;
    const int A = v->n_actions;
    int64_t n_games = 0, n_steps = 0;
    for (int k = 0; k < B->n_total; k++)
        if (bufs[k].played) {
            n_games++;
            n_steps += bufs[k].n;
        }
    int32_t *group = calloc((size_t)n_games, 4), *key_group = malloc(4 * (size_t)n_games);
    int32_t *board = malloc(4 * (size_t)n_games), *length = malloc(4 * (size_t)n_games);
    uint64_t *seed = malloc(8 * (size_t)n_games);
    uint32_t *episode = malloc(4 * (size_t)n_games);
    int64_t *start = malloc(8 * (size_t)n_games), *pos_game = malloc(8 * (size_t)n_steps);
    int8_t *winner = malloc((size_t)n_games);
    int16_t *actions = malloc(2 * (size_t)n_steps);
    uint16_t *policy = malloc(2 * (size_t)A * (size_t)n_steps);
    int32_t *ply = malloc(4 * (size_t)n_steps), *sym = malloc(4 * (size_t)n_steps);
    int32_t *perms = malloc(sizeof(int32_t) * 9 * (size_t)v->g.n_cells);
    const int count = raster_symmetries(v, perms);
    int64_t i = 0, s = 0;
    for (int k = 0; k < B->n_total; k++) {
        const episode_buf *e = &bufs[k];
        if (!e->played)
            continue;
        seed[i] = e->seed;
        key_group[i] = e->group;
        board[i] = e->board;
        episode[i] = e->episode;
        start[i] = s;
        length[i] = e->n;
        winner[i] = e->winner;
        memcpy(actions + s, e->action, 2 * (size_t)e->n);
        memcpy(policy + s * A, e->policy, 2 * (size_t)A * (size_t)e->n);
        for (int t = 0; t < e->n; t++, s++) {
            pos_game[s] = i;
            ply[s] = t;
            sym[s] = (int32_t)((i * 7 + t) % count);
        }
        i++;
    }
    batches_games g = {n_games, group,  seed,   key_group, board,   episode,
                       start,   length, winner, actions,   n_steps, policy};
    batches_positions p = {n_steps, pos_game, ply, sym};
    int error = 0, bad = 0;
    for (int kind = OBS_ABSOLUTE; kind <= OBS_MOVER && !error; kind++)
        bad += farm_mismatches(&g, &p, perms, count, kind, &error);
    if (!error)
        printf("ok games=%d positions=%lld symmetries=%d mismatches=%d\n", played,
               (long long)n_steps, count, bad);
    void *owned[] = {group,    key_group, board,   length, seed, episode, start,
                     pos_game, winner,    actions, policy, ply,  sym,     perms};
    for (size_t k = 0; k < sizeof(owned) / sizeof(owned[0]); k++)
        free(owned[k]);
    selfplay_buffers_free(sp, bufs);
    selfplay_free(sp);
}

/* One shard: games first .. first + n - 1 into a one-segment dataset. */
static int play_shard(const char *seg, int64_t first, int n, char *err, size_t errlen)
{
    player_spec ps[2];
    player_spec_default(&ps[0], 0);
    player_spec_default(&ps[1], 0);
    selfplay *sp = selfplay_new(B, ps, 11, 1, 0, 0, err, errlen);
    if (!sp)
        return -1;
    h5_group_desc desc = {"g", "{}"};
    h5writer_options o = {1, 1, 1e5, "{}", H5WRITER_CHUNKS_FAST};
    h5writer *w = h5writer_open(seg, B, &desc, 0, 0, &o, err, errlen);
    episode_buf *bufs = selfplay_buffers_new(sp);
    int rc = w && bufs ? 0 : -1;
    for (int64_t g = first; !rc && g < first + n;) {
        int room = selfplay_round_room(sp, g), left = (int)(first + n - g);
        int m = left < room ? left : room;
        h5writer_wait(w, bufs);
        if (selfplay_round(sp, g, m, bufs, B->num_threads) != m || h5writer_submit(w, bufs))
            rc = -1;
        g += m;
    }
    if (w && h5writer_close(w, 1, err, errlen))
        rc = -1;
    selfplay_buffers_free(sp, bufs);
    selfplay_free(sp);
    return rc;
}

static void cmd_shards(char *args)
{
    int games, k;
    char path[1024], parts[1100], seg[1200], err[1024] = "";
    if (sscanf(args, "%d %d %1023s", &games, &k, path) != 3 || k < 1 || k > 64) {
        puts("error bad shards");
        return;
    }
    snprintf(parts, sizeof(parts), "%s.parts", path);
    mkdir(parts, 0777);
    int per = (games + k - 1) / k, index[64], n = 0;
    for (int s = 0; s < k && s * per < games; s++) {
        int count = games - s * per < per ? games - s * per : per;
        snprintf(seg, sizeof(seg), "%s/seg-%06d.h5", parts, s);
        if (play_shard(seg, (int64_t)s * per, count, err, sizeof(err))) {
            printf("error %s\n", err);
            return;
        }
        index[n++] = s;
    }
    if (h5writer_assemble(path, index, n, 0, NULL, err, sizeof(err)) ||
        h5writer_pack(path, err, sizeof(err)))
        printf("error %s\n", err);
    else
        printf("ok shards=%d games=%d\n", n, games);
}

/* One chunk through the encoder and back through zlib and the unshuffle. */
static int chunk_round_trip(chunk_coder *c, const uint8_t *data, size_t n, size_t size, int how)
{
    const uint8_t *enc;
    size_t len = chunk_encode(c, data, n * size, size, 4, how, &enc);
    uLongf out_len = (uLongf)(n * size);
    uint8_t *flat = malloc(n * size + 1), *back = malloc(n * size + 1);
    int bad = len == 0 || !flat || !back || uncompress(flat, &out_len, enc, (uLong)len) != Z_OK ||
              out_len != n * size;
    for (size_t k = 0; !bad && k < size; k++)
        for (size_t i = 0; i < n; i++)
            back[i * size + k] = flat[k * n + i];
    bad = bad || memcmp(back, data, n * size) != 0;
    free(flat);
    free(back);
    return bad;
}

static void cmd_chunks(char *args)
{
    uint64_t state = strtoull(args, NULL, 10) | 1;
    static const size_t sizes[] = {1,   2,   3,   4,   257,   258,   259,
                                   260, 261, 516, 517, 65535, 65536, 70001};
    static const size_t elems[] = {1, 2, 8};
    chunk_coder *c = chunk_coder_new();
    int cases = 0, failures = 0;
    for (size_t a = 0; a < sizeof(sizes) / sizeof(*sizes); a++)
        for (size_t e = 0; e < sizeof(elems) / sizeof(*elems); e++)
            for (int kind = 0; kind < 3; kind++) {
                size_t n = sizes[a], size = elems[e];
                uint8_t *data = malloc(n * size);
                for (size_t i = 0; i < n * size; i++) {
                    state = state * 6364136223846793005ull + 1442695040888963407ull;
                    uint8_t r = (uint8_t)(state >> 56);
                    /* 0 random bytes; 1 one value; 2 small values (constant high planes) */
                    data[i] = kind == 0 ? r : kind == 1 ? 0xA5 : (i % size ? 0 : r);
                }
                for (int how = CHUNK_ZLIB; how <= CHUNK_FAST; how++) {
                    cases++;
                    failures += chunk_round_trip(c, data, n, size, how);
                }
                free(data);
            }
    chunk_coder_free(c);
    printf("ok cases=%d failures=%d\n", cases, failures);
}

static void print_check(int board)
{
    const group *g = &B->groups[0];
    const char *why = batch_check_state(g, (const uint8_t *)group_board(g, board), g->v.state_size);
    printf(why ? "bad %s\n" : "ok\n", why);
}

int main(void)
{
    char line[8192];
    while (fgets(line, sizeof(line), stdin)) {
        char cmd[32] = {0};
        int used = 0;
        if (sscanf(line, "%31s %n", cmd, &used) < 1)
            continue;
        char *args = line + used;
        if (strcmp(cmd, "new") == 0) {
            cmd_new(args);
            continue;
        }
        if (strcmp(cmd, "chunks") == 0) {
            cmd_chunks(args);
            continue;
        }
        if (!B) {
            puts("error no batch");
            continue;
        }
        group *g = &B->groups[0];
        if (strcmp(cmd, "load") == 0) {
            cmd_load(args);
        } else if (strcmp(cmd, "opponent") == 0) {
            cmd_opponent(args);
        } else if (strcmp(cmd, "step") == 0) {
            cmd_step(args);
        } else if (strcmp(cmd, "random") == 0) {
            cmd_random(args);
        } else if (strcmp(cmd, "rollout") == 0) {
            cmd_rollout(args);
        } else if (strcmp(cmd, "check") == 0) {
            print_check(atoi(args));
        } else if (strcmp(cmd, "views") == 0) {
            cmd_views(atoi(args));
        } else if (strcmp(cmd, "corrupt") == 0) {
            int board, offset;
            if (sscanf(args, "%d %d", &board, &offset) == 2 && offset >= 0 &&
                (size_t)offset < g->v.state_size) {
                ((uint8_t *)group_board(g, board))[offset] ^= 0x5a;
                print_check(board);
            } else {
                puts("error bad corrupt");
            }
        } else if (strcmp(cmd, "corrupt_derived") == 0) {
            cmd_corrupt_derived(args);
        } else if (strcmp(cmd, "clone") == 0) {
            int src, dst;
            if (sscanf(args, "%d %d", &src, &dst) == 2) {
                memcpy(group_board(g, dst), group_board(g, src), g->v.state_size);
                batch_refresh_board(B, 0, dst);
                print_check(dst);
            } else {
                puts("error bad clone");
            }
        } else if (strcmp(cmd, "wins") == 0) {
            cmd_wins(args);
        } else if (strcmp(cmd, "search") == 0) {
            cmd_search(args);
        } else if (strcmp(cmd, "solve") == 0) {
            cmd_solve(args);
        } else if (strcmp(cmd, "net") == 0) {
            cmd_net(args);
        } else if (strcmp(cmd, "selfplay") == 0) {
            cmd_selfplay(args);
        } else if (strcmp(cmd, "book") == 0) {
            cmd_book(args);
        } else if (strcmp(cmd, "batches") == 0) {
            cmd_batches(args);
        } else if (strcmp(cmd, "shards") == 0) {
            cmd_shards(args);
        } else if (strcmp(cmd, "windows") == 0) {
            printf("ok %d\n", geometry_windows(&g->v.g, atoi(args), NULL, 0));
        } else {
            printf("error unknown command %s\n", cmd);
        }
        fflush(stdout);
    }
    free_all();
    return 0;
}
