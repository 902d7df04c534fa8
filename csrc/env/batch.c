#include "env/batch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "env/prefetch.h"
#include "game/game.h"
#include "openings/opening.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* Below this many boards a parallel region costs more than it saves. */
#define PARALLEL_MIN_BOARDS 256

enum { VALID_OK = 0, VALID_RANGE = 1, VALID_ILLEGAL = 2, VALID_OVER = 3, VALID_WAITING = 4 };

/* Legal sets up to this many words are snapshot before a step and their
 * bytes in the mask rewritten only where they changed. */
#define SNAPSHOT_WORDS 64

batch *batch_create(const variant_params *params, const int *counts, int n_groups, int num_threads,
                    int autoreset, int illegal, int obs_kind, char *err, size_t errlen)
{
    if (n_groups < 1) {
        snprintf(err, errlen, "a batch needs at least one group");
        return NULL;
    }
    batch *b = calloc(1, sizeof(*b));
    if (!b || !(b->groups = calloc((size_t)n_groups, sizeof(group)))) {
        free(b);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    b->num_threads = num_threads < 1 ? 1 : num_threads;
    b->autoreset = autoreset;
    b->illegal = illegal;
    b->obs_kind = obs_kind;
    for (int gi = 0; gi < n_groups; gi++) {
        group *g = &b->groups[gi];
        if (counts[gi] < 1) {
            snprintf(err, errlen, "group %d: the number of boards must be at least 1, got %d", gi,
                     counts[gi]);
            batch_destroy(b);
            return NULL;
        }
        if (variant_init(&g->v, &params[gi], err, errlen)) {
            batch_destroy(b);
            return NULL;
        }
        b->n_groups = gi + 1;
        g->n = counts[gi];
        g->index = gi;
        size_t bytes = ((size_t)g->n * g->v.state_size + 63) & ~(size_t)63;
        g->states = aligned_alloc(64, bytes);
        g->scratch = calloc((size_t)g->n, 1);
        if (!g->states || !g->scratch) {
            snprintf(err, errlen, "out of memory for %d boards", g->n);
            batch_destroy(b);
            return NULL;
        }
        memset(g->states, 0, bytes);
        b->n_total += g->n;
    }
    b->n_groups = n_groups;
    return b;
}

void batch_destroy(batch *b)
{
    if (!b)
        return;
    opponent_free(&b->opp);
    for (int gi = 0; gi < b->n_groups; gi++) {
        variant_free(&b->groups[gi].v);
        free(b->groups[gi].states);
        free(b->groups[gi].scratch);
    }
    free(b->groups);
    free(b);
}

/* ---- one board ---- */

static size_t obs_bytes(const batch *b, const group *g)
{
    return (size_t)g->v.n_planes[b->obs_kind] * (size_t)g->v.g.n_cells;
}

static void new_episode(group *g, board_hdr *h)
{
    game_new_episode(&g->v, h, h->episode + 1);
}

static void rekey_board(const batch *b, group *g, int i, board_hdr *h)
{
    h->board_key = board_key_of(b->seed, g->index, i);
    h->episode = UINT32_MAX; /* new_episode() makes it 0 */
}

void batch_start_episode(batch *b, int gi, int i, uint32_t episode)
{
    group *g = &b->groups[gi];
    board_hdr *h = group_board(g, i);
    if (h->fingerprint == 0)
        rekey_board(b, g, i, h);
    game_new_episode(&g->v, h, episode);
}

void batch_rekey(batch *b, uint64_t seed)
{
    b->seed = seed;
    for (int gi = 0; gi < b->n_groups; gi++) {
        group *g = &b->groups[gi];
        for (int i = 0; i < g->n; i++) {
            board_hdr *h = group_board(g, i);
            rekey_board(b, g, i, h);
            h->fingerprint = g->v.fingerprint; /* keyed: batch_start_episode keeps the key */
        }
    }
}

/* The thread's index in the parallel region (0 outside one). */
static int thread_index(void)
{
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

static void write_mask(const group *g, const board_hdr *h, uint8_t *mask)
{
    const variant *v = &g->v;
    if (h->status != STATUS_ONGOING) {
        /* A finished board allows every action, in every autoreset mode:
         * no action is played on it (next-step mode ignores it, the other
         * modes want a reset first), and a masked sampler or softmax never
         * meets an empty mask. */
        memset(mask, 1, (size_t)v->n_actions);
        return;
    }
    bits_to_bytes(board_legal_c(v, h), v->n_actions, mask);
}

/* Seats, protocol and scores: what the info dict reports beyond the basics. */
static void write_protocol_outputs(const group *g, int i, const board_hdr *h)
{
    const group_outputs *o = &g->out;
    o->black_seat[i] = (int8_t)h->black_seat;
    o->phase[i] = (int8_t)h->phase;
    o->opening[i] = (int8_t)game_opening_code(&g->v, h);
    rule_figures f;
    game_figures(&g->v, h, &f);
    for (int s = 0; s < 2; s++) {
        o->scores[2 * i + s] = f.scores[s];
        o->cast_points[2 * i + s] = f.cast_points[s];
        o->captures[2 * i + s] = f.captures[s];
    }
    o->casts[i] = f.casts;
}

/* What describes the board beyond its planes and mask. */
static void write_board_outputs(const batch *b, group *g, int i, const board_hdr *h)
{
    const group_outputs *o = &g->out;
    int agent = opponent_agent_seat(&b->opp, h);
    o->to_play[i] = (int8_t)h->seat;
    o->winner[i] = h->winner;
    o->episode_length[i] = h->steps;
    o->agent_seat[i] = (int8_t)agent;
    o->waiting[i] = (uint8_t)opponent_waits(&b->opp, h, agent);
    write_protocol_outputs(g, i, h);
}

static void write_outputs(const batch *b, group *g, int i, const board_hdr *h)
{
    const group_outputs *o = &g->out;
    game_write_obs(&g->v, h, b->obs_kind, o->obs + (size_t)i * obs_bytes(b, g));
    write_mask(g, h, o->mask + (size_t)i * (size_t)g->v.n_actions);
    write_board_outputs(b, g, i, h);
}

static void write_fresh(const batch *b, group *g, int i, const board_hdr *h)
{
    const group_outputs *o = &g->out;
    write_outputs(b, g, i, h);
    o->reward[i] = 0.0f;
    o->rewards[2 * i] = o->rewards[2 * i + 1] = 0.0f;
    o->terminated[i] = h->status == STATUS_TERMINATED;
    o->truncated[i] = h->status == STATUS_TRUNCATED;
    o->illegal[i] = 0;
    if (b->autoreset == AUTORESET_SAME_STEP)
        o->has_final[i] = 0;
}

void batch_refresh_board(batch *b, int gi, int i)
{
    group *g = &b->groups[gi];
    write_fresh(b, g, i, group_board(g, i));
}

/* One decision on board i, action a of the seat to act (legal; -1 for an
 * illegal action that lost the game, already decided), the step counted;
 * the obs and mask updated in place (only what changed, where that is
 * known) and the rewards of both seats added to r. */
static void play_ply(const batch *b, group *g, int i, board_hdr *h, int a, float r[2])
{
    const variant *v = &g->v;
    const group_outputs *o = &g->out;
    uint8_t *obs = o->obs + (size_t)i * obs_bytes(b, g);
    int prev_last = h->last_move;
    unsigned changes = 0;
    /* what the outputs showed, so that only what changes is rewritten */
    uint64_t legal_before[SNAPSHOT_WORDS];
    rule_snapshot shown; /* the rule's planes before the step */
    int snap = v->legal_words <= SNAPSHOT_WORDS;
    if (snap)
        memcpy(legal_before, board_legal_c(v, h), sizeof(uint64_t) * (size_t)v->legal_words);
    game_obs_snapshot(v, h, &shown);
    game_begin_step(v, h);
    if (a >= 0)
        changes = game_apply(v, h, a);
    h->steps++;
    if (h->status == STATUS_ONGOING && h->steps >= v->max_steps)
        h->status = STATUS_TRUNCATED;
    float pr[2];
    game_rewards(v, h, pr);
    r[0] += pr[0];
    r[1] += pr[1];

    if (a < 0 || !game_update_obs(v, h, b->obs_kind, a, prev_last, changes, snap, &shown, obs))
        game_write_obs(v, h, b->obs_kind, obs);
    uint8_t *mask = o->mask + (size_t)i * (size_t)v->n_actions;
    if (h->status != STATUS_ONGOING || !snap)
        write_mask(g, h, mask);
    else if (changes & CHANGE_MASK_WIDE)
        bits_to_bytes_changed(legal_before, board_legal_c(v, h), v->legal_words, mask);
    else
        mask[a] = 0;
}

/* A built-in opponent plays board i until the agent is to act or the game
 * ends; its rewards are added to r. Returns the plies played. */
static int opponent_plays(const batch *b, group *g, int i, board_hdr *h, float r[2])
{
    int plies = 0;
    if (b->opp.kind != OPPONENT_BUILTIN)
        return 0;
    int agent = opponent_agent_seat(&b->opp, h), thread = thread_index();
    while (opponent_waits(&b->opp, h, agent)) {
        play_ply(b, g, i, h, opponent_move(&b->opp, &g->v, g->index, h, thread), r);
        plies++;
    }
    return plies;
}

/* A board whose episode just started (reset, autoreset, an installed state):
 * a built-in opponent to act first plays its opening now, so that what the
 * outputs show is the agent's turn. Opening plies score nothing in any rule
 * (opponent_check_variant makes sure they cannot end the game). */
static void settle(const batch *b, group *g, int i, board_hdr *h)
{
    float r[2] = {0.0f, 0.0f};
    if (opponent_plays(b, g, i, h, r))
        write_board_outputs(b, g, i, h);
}

/* Same-step mode: keep the info of the game that just ended in fin. */
static void save_final(const batch *b, group *g, int i)
{
    const group_outputs *o = &g->out, *f = &g->fin;
    size_t ob = obs_bytes(b, g), na = (size_t)g->v.n_actions;
    memcpy(f->obs + (size_t)i * ob, o->obs + (size_t)i * ob, ob);
    memcpy(f->mask + (size_t)i * na, o->mask + (size_t)i * na, na);
    for (int k = 0; k < 2; k++) {
        f->rewards[2 * i + k] = o->rewards[2 * i + k];
        f->scores[2 * i + k] = o->scores[2 * i + k];
        f->cast_points[2 * i + k] = o->cast_points[2 * i + k];
        f->captures[2 * i + k] = o->captures[2 * i + k];
    }
    f->to_play[i] = o->to_play[i];
    f->winner[i] = o->winner[i];
    f->episode_length[i] = o->episode_length[i];
    f->illegal[i] = o->illegal[i];
    f->black_seat[i] = o->black_seat[i];
    f->phase[i] = o->phase[i];
    f->opening[i] = o->opening[i];
    f->casts[i] = o->casts[i];
    f->agent_seat[i] = o->agent_seat[i];
}

/* After the plies of a step: the flags and what describes the board; in
 * same-step mode a finished game's info goes to fin and the next episode
 * starts (its info, rewards 0, is what out shows; reward and the flags stay
 * the finished step's). */
static void end_step(const batch *b, group *g, int i, board_hdr *h)
{
    const group_outputs *o = &g->out;
    o->terminated[i] = h->status == STATUS_TERMINATED;
    o->truncated[i] = h->status == STATUS_TRUNCATED;
    write_board_outputs(b, g, i, h);
    if (b->autoreset != AUTORESET_SAME_STEP)
        return;
    int done = h->status != STATUS_ONGOING;
    o->has_final[i] = (uint8_t)done;
    if (!done)
        return;
    save_final(b, g, i);
    new_episode(g, h);
    write_outputs(b, g, i, h);
    o->rewards[2 * i] = o->rewards[2 * i + 1] = 0.0f;
    o->illegal[i] = 0;
    settle(b, g, i, h);
}

static void step_board(const batch *b, group *g, int i, int64_t action)
{
    const variant *v = &g->v;
    const group_outputs *o = &g->out;
    board_hdr *h = group_board(g, i);

    if (h->status != STATUS_ONGOING) {
        /* next-step autoreset: this step resets the board, the action is ignored */
        new_episode(g, h);
        write_fresh(b, g, i, h);
        settle(b, g, i, h);
        return;
    }
    int seat = h->seat, a = (int)action;
    /* whose reward: the agent's with an opponent, else the seat acting */
    int agent = opponent_agent_seat(&b->opp, h);
    o->illegal[i] = 0;
    if (!game_is_legal(v, h, a)) {
        o->illegal[i] = 1;
        if (b->illegal == ILLEGAL_RANDOM) {
            a = game_random_legal(v, h, board_env_key(h), &h->env_ctr);
        } else { /* ILLEGAL_LOSE (ILLEGAL_RAISE never gets here) */
            a = -1;
            h->status = STATUS_TERMINATED;
            h->winner = (int8_t)(seat ^ 1);
        }
    }
    float r[2] = {0.0f, 0.0f};
    play_ply(b, g, i, h, a, r);
    opponent_plays(b, g, i, h, r);
    o->rewards[2 * i] = r[0];
    o->rewards[2 * i + 1] = r[1];
    o->reward[i] = r[agent];
    end_step(b, g, i, h);
}

static int validate_board(const batch *b, const group *g, int i, int64_t action)
{
    /* out of range is an error everywhere, on a board waiting for its
     * next-step reset too (that board ignores only actions it could take) */
    if (action < 0 || action >= g->v.n_actions)
        return VALID_RANGE;
    const board_hdr *h = group_board(g, i);
    if (h->status != STATUS_ONGOING)
        return b->autoreset == AUTORESET_NEXT_STEP ? VALID_OK : VALID_OVER;
    if (opponent_waits(&b->opp, h, opponent_agent_seat(&b->opp, h)))
        return VALID_WAITING;
    if (b->illegal == ILLEGAL_RAISE && !game_is_legal(&g->v, h, (int)action))
        return VALID_ILLEGAL;
    return VALID_OK;
}

static const char *invalid_reason(const group *g, int i, int code, int64_t a)
{
    switch (code) {
    case VALID_RANGE:
        return "out of range";
    case VALID_OVER:
        return "the episode is over";
    case VALID_WAITING:
        return "the opponent is to act on this board";
    default:
        return game_illegal_reason(&g->v, group_board(g, i), (int)a);
    }
}

/* Board i + FIVEROW_PREFETCH_AHEAD's lines, requested while board i is
 * handled (line games on bit sets: their steps touch a few known lines). */
static inline int prefetches(const group *g)
{
    return FIVEROW_PREFETCH_AHEAD > 0 && g->v.n_line_words > 0;
}

PREFETCH_INLINE void prefetch_step(const batch *b, const group *g, int i, int64_t action)
{
    const variant *v = &g->v;
    prefetch_board_cell(v, group_board(g, i), action);
    int whole_plane = b->obs_kind == OBS_ABSOLUTE ? 2 : -1; /* game_update_obs_absolute */
    prefetch_outputs_cell(v, g->out.obs + (size_t)i * obs_bytes(b, g), v->n_planes[b->obs_kind],
                          whole_plane, g->out.mask + (size_t)i * (size_t)v->n_actions, action);
}

/* ---- the batch ---- */

/* Set in a child process after fork(): libgomp's thread pool did not survive
 * the fork and a parallel region there would hang, so everything runs on the
 * calling thread. */
static volatile int forked_child;

void batch_after_fork_in_child(void)
{
    forked_child = 1;
}

static int use_parallel(const batch *b)
{
    return b->num_threads > 1 && b->n_total >= PARALLEL_MIN_BOARDS && !forked_child;
}

int batch_team_size(const batch *b)
{
    return forked_child ? 1 : b->num_threads;
}

void batch_reset(batch *b, int has_seed, uint64_t seed, uint8_t *const *masks)
{
    if (has_seed)
        b->seed = seed;
#pragma omp parallel num_threads(b->num_threads) if (use_parallel(b))
    for (int gi = 0; gi < b->n_groups; gi++) {
        group *g = &b->groups[gi];
        const uint8_t *m = masks ? masks[gi] : NULL;
#pragma omp for schedule(static) nowait
        for (int i = 0; i < g->n; i++) {
            if (m && !m[i])
                continue;
            board_hdr *h = group_board(g, i);
            if (has_seed || h->fingerprint == 0)
                rekey_board(b, g, i, h);
            new_episode(g, h);
            write_fresh(b, g, i, h);
            settle(b, g, i, h);
        }
    }
}

/* The errors that validation left in the groups' scratch codes. */
static int collect_errors(const batch *b, const int64_t *const *actions, batch_error *errs,
                          int max_errs)
{
    int n = 0;
    for (int gi = 0; gi < b->n_groups; gi++) {
        const group *g = &b->groups[gi];
        for (int i = 0; i < g->n; i++) {
            int code = g->scratch[i];
            if (!code)
                continue;
            if (n < max_errs) {
                int64_t a = actions[gi][i];
                errs[n].group = gi;
                errs[n].index = i;
                errs[n].action = a;
                errs[n].reason = invalid_reason(g, i, code, a);
            }
            n++;
        }
    }
    return n;
}

FIVEROW_HOT int batch_step(batch *b, const int64_t *const *actions, batch_error *errs, int max_errs)
{
    int any_error = 0;
#pragma omp parallel num_threads(b->num_threads) if (use_parallel(b))
    {
        for (int gi = 0; gi < b->n_groups; gi++) {
            group *g = &b->groups[gi];
            const int ahead = prefetches(g) ? FIVEROW_PREFETCH_AHEAD : 0;
#pragma omp for schedule(static) nowait
            for (int i = 0; i < g->n; i++) {
                if (ahead && i + ahead < g->n)
                    prefetch_board_cell(&g->v, group_board(g, i + ahead), actions[gi][i + ahead]);
                int code = validate_board(b, g, i, actions[gi][i]);
                g->scratch[i] = (uint8_t)code;
                if (code) {
#pragma omp atomic write
                    any_error = 1;
                }
            }
        }
#pragma omp barrier
        int stop;
#pragma omp atomic read
        stop = any_error;
        if (!stop)
            for (int gi = 0; gi < b->n_groups; gi++) {
                group *g = &b->groups[gi];
                const int ahead = prefetches(g) ? FIVEROW_PREFETCH_AHEAD : 0;
#pragma omp for schedule(static) nowait
                for (int i = 0; i < g->n; i++) {
                    if (ahead && i + ahead < g->n)
                        prefetch_step(b, g, i + ahead, actions[gi][i + ahead]);
                    step_board(b, g, i, actions[gi][i]);
                }
            }
    }
    return any_error ? collect_errors(b, actions, errs, max_errs) : 0;
}

const char *batch_set_opponent(batch *b, int kind, const player_spec *player, int agent_seat)
{
    const variant **variants = malloc(sizeof(*variants) * (size_t)b->n_groups);
    if (!variants)
        return "out of memory";
    for (int gi = 0; gi < b->n_groups; gi++)
        variants[gi] = &b->groups[gi].v;
    const char *why =
        opponent_setup(&b->opp, kind, player, agent_seat, variants, b->n_groups, b->num_threads);
    free(variants);
    return why;
}

/* One external opponent decision on board i (waiting for it). Plies of an
 * episode that started in this step (same-step autoreset) are its opening:
 * they leave the finished game's reward and flags alone. */
static void opponent_step_board(const batch *b, group *g, int i, int a)
{
    const group_outputs *o = &g->out;
    board_hdr *h = group_board(g, i);
    float r[2] = {0.0f, 0.0f};
    play_ply(b, g, i, h, a, r);
    if (b->autoreset == AUTORESET_SAME_STEP && o->has_final[i]) {
        write_board_outputs(b, g, i, h);
        return;
    }
    int agent = opponent_agent_seat(&b->opp, h);
    o->rewards[2 * i] += r[0];
    o->rewards[2 * i + 1] += r[1];
    o->reward[i] += r[agent];
    end_step(b, g, i, h);
}

int batch_opponent_step(batch *b, const int64_t *const *actions, batch_error *errs, int max_errs)
{
    int any_error = 0;
    for (int gi = 0; gi < b->n_groups; gi++) {
        group *g = &b->groups[gi];
        for (int i = 0; i < g->n; i++) {
            int64_t a = actions[gi][i];
            int code = VALID_OK;
            if (g->out.waiting[i]) {
                if (a < 0 || a >= g->v.n_actions)
                    code = VALID_RANGE;
                else if (!game_is_legal(&g->v, group_board(g, i), (int)a))
                    code = VALID_ILLEGAL;
            }
            g->scratch[i] = (uint8_t)code;
            any_error |= code != VALID_OK;
        }
    }
    if (any_error)
        return collect_errors(b, actions, errs, max_errs);
#pragma omp parallel num_threads(b->num_threads) if (use_parallel(b))
    for (int gi = 0; gi < b->n_groups; gi++) {
        group *g = &b->groups[gi];
#pragma omp for schedule(static) nowait
        for (int i = 0; i < g->n; i++)
            if (g->out.waiting[i])
                opponent_step_board(b, g, i, (int)actions[gi][i]);
    }
    return 0;
}

FIVEROW_HOT void batch_sample(batch *b)
{
#pragma omp parallel num_threads(b->num_threads) if (use_parallel(b))
    for (int gi = 0; gi < b->n_groups; gi++) {
        group *g = &b->groups[gi];
        const int ahead = prefetches(g) ? FIVEROW_PREFETCH_AHEAD : 0;
#pragma omp for schedule(static) nowait
        for (int i = 0; i < g->n; i++) {
            if (ahead && i + ahead < g->n)
                prefetch_board_cell(&g->v, group_board(g, i + ahead), -1);
            board_hdr *h = group_board(g, i);
            int a = h->status == STATUS_ONGOING
                        ? game_random_legal(&g->v, h, h->sample_key, &h->sample_ctr)
                        : 0;
            g->out.sampled[i] = a < 0 ? 0 : a;
        }
    }
}

FIVEROW_HOT void batch_rollout(batch *b, int steps, rollout_stats *st)
{
    int64_t n_steps = 0, episodes = 0, w0 = 0, w1 = 0, draws = 0, truncs = 0, len_sum = 0;
#pragma omp parallel num_threads(b->num_threads) if (use_parallel(b))                              \
    reduction(+ : n_steps, episodes, w0, w1, draws, truncs, len_sum)
    for (int gi = 0; gi < b->n_groups; gi++) {
        group *g = &b->groups[gi];
        const variant *v = &g->v;
#pragma omp for schedule(static) nowait
        for (int i = 0; i < g->n; i++) {
            board_hdr *h = group_board(g, i);
            if (h->status != STATUS_ONGOING)
                new_episode(g, h);
            for (int s = 0; s < steps; s++) {
                game_step(v, h, game_random_legal(v, h, h->sample_key, &h->sample_ctr));
                if (h->status != STATUS_ONGOING) {
                    episodes++;
                    len_sum += h->steps;
                    if (h->status == STATUS_TRUNCATED)
                        truncs++;
                    else if (h->winner == 0)
                        w0++;
                    else if (h->winner == 1)
                        w1++;
                    else
                        draws++;
                    new_episode(g, h);
                }
            }
            n_steps += steps;
            write_fresh(b, g, i, h);
            settle(b, g, i, h);
        }
    }
    st->steps = n_steps;
    st->episodes = episodes;
    st->wins[0] = w0;
    st->wins[1] = w1;
    st->draws = draws;
    st->truncations = truncs;
    st->length_sum = len_sum;
}

/* ---- states ---- */

const char *batch_check_state(const group *g, const uint8_t *state, size_t len)
{
    const variant *v = &g->v;
    if (len != v->state_size)
        return "wrong length for this variant";
    board_hdr h;
    memcpy(&h, state, sizeof(h));
    if (h.fingerprint != v->fingerprint)
        return "it belongs to another variant (fingerprint differs)";
    if (h.colour > 1 || h.seat > 1 || h.black_seat > 1 || h.status > 2 || h.winner < -1 ||
        h.winner > 1)
        return "header fields out of range";
    const uint8_t *cells = state + v->off_cells;
    uint64_t legal[BITS_WORDS(VARIANT_MAX_ACTIONS)];
    memcpy(legal, state + v->off_legal, sizeof(uint64_t) * (size_t)v->legal_words);
    int stones = 0;
    for (int c = 0; c < v->g.n_cells; c++) {
        uint8_t x = cells[c];
        if (v->g.on_board[c] ? x > CELL_WHITE : x != CELL_OFF)
            return "a cell holds an impossible value";
        stones += (x == CELL_BLACK || x == CELL_WHITE);
        if (!rule_has(v, RULE_TRAIT_OWN_ACTIONS) && bits_get(legal, c) && x != CELL_EMPTY)
            return "an occupied cell is marked legal";
    }
    if (cells[v->g.n_cells] != CELL_OFF)
        return "the edge sentinel was overwritten";
    if (stones != h.n_stones)
        return "stone count does not match the cells";
    if (bits_count(legal, v->legal_words) != h.n_legal)
        return "legal count does not match the legal set";
    for (int a = v->n_actions; a < 64 * v->legal_words; a++)
        if (bits_get(legal, a))
            return "legal bits beyond the action space";
    if (h.steps > v->max_steps)
        return "more steps than max_steps";
    if (v->opening) {
        const char *why = v->opening->check(v, (const board_hdr *)state);
        if (why)
            return why;
    } else if (h.phase != PHASE_PLAY) {
        return "a protocol phase in a variant without one";
    }
    if (v->rules->check) {
        const char *why = v->rules->check(v, (const board_hdr *)state);
        if (why)
            return why;
    }
    /* what follows from the cells (line bit sets, renju codes and forbidden
     * points) must be what the cells imply, and the legal set what the
     * position and phase allow */
    uint8_t *copy = malloc(v->state_size);
    if (!copy)
        return "out of memory checking the state";
    memcpy(copy, state, v->state_size);
    board_hdr *ch = (board_hdr *)copy;
    int phase = ch->phase, colour = ch->colour;
    game_derive(v, ch);
    ch->phase = (uint8_t)phase;
    ch->colour = (uint8_t)colour;
    /* what is not derived from the cells (protocol, gomorpion's statuses and
     * sieges) is the state's own: put it back before judging the legal set */
    memcpy(copy + v->derived_end, state + v->derived_end, v->off_cache - v->derived_end);
    game_refresh_legal(v, ch);
    int derived_ok =
        memcmp(copy + v->off_lines, state + v->off_lines, v->derived_end - v->off_lines) == 0;
    int legal_ok = memcmp(copy + v->off_legal, state + v->off_legal,
                          sizeof(uint64_t) * (size_t)v->legal_words) == 0 &&
                   ch->n_legal == h.n_legal;
    free(copy);
    if (!derived_ok)
        return "derived data (line bit sets, forbidden points) do not match the cells";
    if (!legal_ok)
        return "the legal set is not what the position allows";
    if (h.last_move < -1 || h.last_move >= v->g.n_cells)
        return "last move out of range";
    return NULL;
}

const char *batch_install_state(batch *b, int gi, int i, const uint8_t *state, size_t len)
{
    group *g = &b->groups[gi];
    const char *why = batch_check_state(g, state, len);
    if (why)
        return why;
    board_hdr *h = group_board(g, i);
    memcpy(h, state, g->v.state_size);
    game_forget_caches(&g->v, h); /* caches are not checked: start them afresh */
    write_fresh(b, g, i, h);
    settle(b, g, i, h);
    return NULL;
}

const char *batch_load_position(batch *b, int gi, int i, const uint8_t *cells, int colour,
                                const uint8_t *status, const int32_t *scores, int32_t *five,
                                int *five_len)
{
    group *g = &b->groups[gi];
    const variant *v = &g->v;
    if (five_len)
        *five_len = 0;
    if (colour != COLOUR_BLACK && colour != COLOUR_WHITE)
        return "colour to move must be black or white";
    int stones = 0, empty = 0, statuses = 0;
    for (int c = 0; c < v->g.n_cells; c++) {
        if (!v->g.on_board[c] ? cells[c] != CELL_EMPTY && cells[c] != CELL_OFF
                              : cells[c] > CELL_WHITE)
            return "a cell holds a stone off the board or an unknown value";
        stones += (cells[c] == CELL_BLACK || cells[c] == CELL_WHITE);
        empty += v->g.on_board[c] && cells[c] == CELL_EMPTY;
        statuses += status && status[c];
    }
    if (!v->rules->load_status && statuses)
        return "stone statuses (recapturable, captured) exist only in gomorpion";
    if (!v->rules->load_status && scores)
        return "scores must be given for gomorpion only, and add up to the captured stones";
    if (v->rules->load_status) { /* checked here, installed below */
        const char *why = v->rules->load_status(v, NULL, cells, status, scores);
        if (why)
            return why;
    }
    if (stones >= v->max_steps)
        return "max_steps leaves no move after this many stones";
    if (empty == 0)
        return "the board is full";
    /* built aside, so that a refused position changes nothing */
    board_hdr *target = group_board(g, i);
    board_hdr *h = malloc(v->state_size);
    if (!h)
        return "out of memory";
    memcpy(h, target, v->state_size);
    if (h->fingerprint == 0)
        rekey_board(b, g, i, h);
    new_episode(g, h);
    uint8_t *mine = board_cells(v, h);
    for (int c = 0; c < v->g.n_cells; c++)
        mine[c] = v->g.on_board[c] ? cells[c] : CELL_OFF;
    h->steps = (uint16_t)stones;
    h->colour = (uint8_t)colour;
    h->seat = (uint8_t)colour; /* seat 0 holds black */
    if (v->rules->load_status)
        v->rules->load_status(v, h, cells, status, scores);
    game_derive(v, h);
    /* a five on the board would have ended the game (or the cast) */
    int32_t first, won = 0;
    for (uint8_t stone = CELL_BLACK; stone <= CELL_WHITE && !won; stone++)
        won = five ? lines_five_stones(v, h, stone, five, v->g.n_cells)
                   : lines_five_stones(v, h, stone, &first, 1);
    if (won || h->n_legal == 0) {
        free(h);
        if (five_len)
            *five_len = won;
        return won ? "the position is already won (a five is on the board)"
                   : "the side to move has no legal action";
    }
    memcpy(target, h, v->state_size);
    free(h);
    write_fresh(b, g, i, target);
    settle(b, g, i, target);
    return NULL;
}

const char *batch_load_tiles(batch *b, int gi, int i, const uint8_t *values, const uint8_t *hands)
{
    group *g = &b->groups[gi];
    const variant *v = &g->v;
    if (!v->rules->load_tiles)
        return "tiles exist only in modlinseq";
    board_hdr *target = group_board(g, i);
    board_hdr *h = malloc(v->state_size);
    if (!h)
        return "out of memory";
    memcpy(h, target, v->state_size);
    if (h->fingerprint == 0)
        rekey_board(b, g, i, h);
    new_episode(g, h);
    const char *why = v->rules->load_tiles(v, h, values, hands);
    if (!why) {
        h->steps = h->n_stones;
        game_refresh_legal(v, h);
    }
    if (!why && h->steps >= v->max_steps)
        why = "max_steps leaves no move after this many tiles";
    if (why) {
        free(h);
        return why;
    }
    memcpy(target, h, v->state_size);
    free(h);
    write_fresh(b, g, i, target);
    settle(b, g, i, target);
    return NULL;
}
