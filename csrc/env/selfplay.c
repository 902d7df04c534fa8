#include "env/selfplay.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/half.h"
#include "game/game.h"
#include "game/opening_row.h"

#ifdef _OPENMP
#include <omp.h>
#endif

typedef struct {
    int64_t num, den; /* the board's place in a round: (2i + 1) / (2 n) of its group */
    int group, j;
} board_place;

static int by_place(const void *pa, const void *pb)
{
    const board_place *a = pa, *b = pb;
    int64_t l = a->num * b->den, r = b->num * a->den;
    if (l != r)
        return l < r ? -1 : 1;
    return a->group - b->group;
}

/* The boards in round order: board i of a group of n sits at (i + 1/2) / n
 * of the round, so every prefix of the order holds each group's share
 * (within one board); one group: the batch order. NULL if out of memory. */
static int *board_order(const batch *b)
{
    int *order = malloc(sizeof(int) * (size_t)b->n_total);
    board_place *places = malloc(sizeof(board_place) * (size_t)b->n_total);
    if (order && places) {
        for (int gi = 0, j = 0; gi < b->n_groups; gi++)
            for (int i = 0; i < b->groups[gi].n; i++, j++)
                places[j] = (board_place){2 * (int64_t)i + 1, b->groups[gi].n, gi, j};
        if (b->n_groups > 1)
            qsort(places, (size_t)b->n_total, sizeof(*places), by_place);
        for (int p = 0; p < b->n_total; p++)
            order[p] = places[p].j;
    }
    free(places);
    if (!places) {
        free(order);
        return NULL;
    }
    return order;
}

selfplay *selfplay_new(batch *b, const player_spec players[2], uint64_t seed, int alternate,
                       int record_obs, int record_policy, char *err, size_t errlen)
{
    for (int p = 0; p < 2; p++) {
        const char *why = player_spec_check(&players[p]);
        if (why) {
            snprintf(err, errlen, "player %d: %s", p, why);
            return NULL;
        }
        char reason[1024];
        for (int gi = 0; gi < b->n_groups; gi++)
            if (player_spec_check_variant(&players[p], &b->groups[gi].v, reason, sizeof(reason))) {
                snprintf(err, errlen, "player %d: %s", p, reason);
                return NULL;
            }
    }
    selfplay *sp = calloc(1, sizeof(*sp));
    if (!sp) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    sp->b = b;
    memcpy(sp->players, players, sizeof(sp->players));
    player_spec_retain(&sp->players[0]);
    player_spec_retain(&sp->players[1]);
    sp->record_obs = record_obs;
    sp->record_policy = record_policy;
    sp->alternate = alternate;
    sp->n_threads = b->num_threads;
    sp->order = board_order(b);
    size_t slots = (size_t)sp->n_threads * (size_t)b->n_groups;
    sp->scratch = calloc(slots, sizeof(*sp->scratch));
    sp->policy_tmp = calloc(slots, sizeof(*sp->policy_tmp));
    sp->books = calloc((size_t)b->n_groups, sizeof(*sp->books));
    int ok = sp->scratch && sp->policy_tmp && sp->order && sp->books;
    for (size_t k = 0; ok && k < slots; k++) {
        const variant *v = &b->groups[k % (size_t)b->n_groups].v;
        sp->scratch[k] = policy_scratch_new(v);
        sp->policy_tmp[k] = malloc(sizeof(float) * (size_t)v->n_actions);
        ok = sp->scratch[k] && sp->policy_tmp[k];
    }
    if (!ok) {
        selfplay_free(sp);
        snprintf(err, errlen, "out of memory for the players' scratch space");
        return NULL;
    }
    batch_rekey(b, seed);
    return sp;
}

void selfplay_free(selfplay *sp)
{
    if (!sp)
        return;
    size_t slots = (size_t)sp->n_threads * (size_t)sp->b->n_groups;
    for (size_t k = 0; k < slots; k++) {
        if (sp->scratch)
            policy_scratch_free(sp->scratch[k]);
        if (sp->policy_tmp)
            free(sp->policy_tmp[k]);
    }
    free(sp->scratch);
    free(sp->policy_tmp);
    free(sp->order);
    player_spec_release(&sp->players[0]);
    player_spec_release(&sp->players[1]);
    for (int gi = 0; sp->books && gi < sp->b->n_groups; gi++)
        opening_book_free(&sp->books[gi]);
    free(sp->books);
    free(sp);
}

int selfplay_set_book(selfplay *sp, int gi, const int32_t *xy, const int32_t *first, int n,
                      char *err, size_t errlen)
{
    if (gi < 0 || gi >= sp->b->n_groups) {
        snprintf(err, errlen, "no group %d", gi);
        return -1;
    }
    opening_book book;
    if (opening_book_init(&book, &sp->b->groups[gi].v, xy, first, n, err, errlen))
        return -1;
    opening_book_free(&sp->books[gi]);
    sp->books[gi] = book;
    return 0;
}

episode_buf *selfplay_buffers_new(const selfplay *sp)
{
    return calloc((size_t)sp->b->n_total, sizeof(episode_buf));
}

void selfplay_buffers_free(const selfplay *sp, episode_buf *bufs)
{
    if (!bufs)
        return;
    for (int j = 0; j < sp->b->n_total; j++) {
        free(bufs[j].action);
        free(bufs[j].seat);
        free(bufs[j].colour);
        free(bufs[j].obs);
        free(bufs[j].policy);
    }
    free(bufs);
}

/* Room for one more step; -1 when out of memory. */
static int grow(const selfplay *sp, const variant *v, episode_buf *e)
{
    if (e->n < e->cap)
        return 0;
    int cap = e->cap ? 2 * e->cap : 64;
    if (cap > v->max_steps)
        cap = v->max_steps;
    size_t obs = (size_t)v->n_planes[OBS_ABSOLUTE] * (size_t)v->g.n_cells;
    void *p;
    if (!(p = realloc(e->action, sizeof(int16_t) * (size_t)cap)))
        return -1;
    e->action = p;
    if (!(p = realloc(e->seat, (size_t)cap)))
        return -1;
    e->seat = p;
    if (!(p = realloc(e->colour, (size_t)cap)))
        return -1;
    e->colour = p;
    if (sp->record_obs) {
        if (!(p = realloc(e->obs, obs * (size_t)cap)))
            return -1;
        e->obs = p;
    }
    if (sp->record_policy) {
        if (!(p = realloc(e->policy, sizeof(uint16_t) * (size_t)v->n_actions * (size_t)cap)))
            return -1;
        e->policy = p;
    }
    e->cap = cap;
    return 0;
}

/* One whole game on board i of group gi; 1 if it ended, 0 if stopped, -1
 * out of memory. The step count and the buffers stay in locals while the
 * game runs: neighbouring boards' episode_buf structs share cache lines,
 * and other threads play those boards. */
static int play_game(selfplay *sp, int gi, int i, int slot, uint32_t episode, episode_buf *e)
{
    group *g = &sp->b->groups[gi];
    const variant *v = &g->v;
    policy_scratch *scratch = sp->scratch[slot];
    float *policy = sp->record_policy ? sp->policy_tmp[slot] : NULL;
    const size_t obs_bytes = (size_t)v->n_planes[OBS_ABSOLUTE] * (size_t)v->g.n_cells;
    batch_start_episode(sp->b, gi, i, episode);
    board_hdr *h = group_board(g, i);
    const player_spec *seat_player[2] = {&sp->players[e->player[0]], &sp->players[e->player[1]]};
    e->episode = h->episode;
    e->seed = sp->b->seed;
    int n = 0, cap = e->cap;
    int16_t *action = e->action;
    int8_t *seat = e->seat, *colour = e->colour;
    /* the opening's stones first, as the game's first steps */
    const opening_book *book = &sp->books[gi];
    const int16_t *forced = NULL;
    int n_forced = 0;
    if (book->n) {
        int j = opening_book_pick(book, e->game, sp->alternate);
        forced = book->cells + book->first[j];
        n_forced = book->first[j + 1] - book->first[j];
    }
    e->book = (int8_t)n_forced;
    while (h->status == STATUS_ONGOING) {
        if (atomic_load_explicit(&sp->stop, memory_order_relaxed))
            return 0;
        if (n == cap) {
            e->n = n;
            if (grow(sp, v, e))
                return -1;
            cap = e->cap;
            action = e->action;
            seat = e->seat;
            colour = e->colour;
        }
        const player_spec *ps = seat_player[h->seat];
        if (sp->record_obs)
            game_write_obs(v, h, OBS_ABSOLUTE, e->obs + (size_t)n * obs_bytes);
        int a;
        if (n < n_forced) {
            a = forced[n];
            if (policy) {
                memset(policy, 0, sizeof(float) * (size_t)v->n_actions);
                policy[a] = 1.0f;
            }
        } else {
            a = policy_act(ps, v, h, scratch, policy_decision_key(ps, h), policy);
        }
        action[n] = (int16_t)a;
        seat[n] = (int8_t)h->seat;
        colour[n] = (int8_t)h->colour;
        if (policy) {
            uint16_t *dst = e->policy + (size_t)n * (size_t)v->n_actions;
            for (int k = 0; k < v->n_actions; k++)
                dst[k] = half_from_float(policy[k]);
        }
        n++;
        game_step(v, h, a);
    }
    e->n = n;
    e->winner = h->winner;
    e->truncated = h->status == STATUS_TRUNCATED;
    e->black_seat = (int8_t)h->black_seat;
    e->opening = (int8_t)game_opening_code(v, h);
    int32_t cast[2], casts;
    game_scores(v, h, e->scores, cast, &casts);
    return 1;
}

int selfplay_round_room(const selfplay *sp, int64_t first_game)
{
    return sp->b->n_total - (int)(first_game % sp->b->n_total);
}

int selfplay_round(selfplay *sp, int64_t first_game, int n, episode_buf *bufs, int threads)
{
    batch *b = sp->b;
    if (first_game < 0 || n < 0 || n > selfplay_round_room(sp, first_game))
        return -1;
    uint8_t *plays = calloc((size_t)b->n_total, 1);
    int *group_of = malloc(sizeof(int) * (size_t)b->n_total);
    if (!plays || !group_of) {
        free(plays);
        free(group_of);
        return -1;
    }
    for (int gi = 0, j = 0; gi < b->n_groups; gi++)
        for (int i = 0; i < b->groups[gi].n; i++, j++) {
            episode_buf *e = &bufs[j];
            group_of[j] = gi;
            e->played = 0;
            e->group = gi;
            e->board = i;
            e->n = 0;
        }
    /* game first_game + k is played at position (first_game % N) + k; the
     * seats alternate with the game number */
    const int first_pos = (int)(first_game % b->n_total);
    const uint32_t episode = (uint32_t)(first_game / b->n_total);
    for (int k = 0; k < n; k++) {
        int j = sp->order[first_pos + k];
        episode_buf *e = &bufs[j];
        plays[j] = 1;
        e->game = first_game + k;
        int swap = sp->alternate && (e->game & 1);
        e->player[0] = (int8_t)swap;
        e->player[1] = (int8_t)(swap ^ 1);
    }
    int completed = 0, failed = 0;
    const int n_groups = b->n_groups;
    if (threads > batch_team_size(b))
        threads = batch_team_size(b);
    if (threads < 1)
        threads = 1;
    /* games differ in length: hand them out dynamically, a few boards at a
     * time (fewer hand-outs, neighbouring boards on one thread) while there
     * are many per thread, one at a time when there are few */
    int chunk = b->n_total / (threads * 32);
    chunk = chunk < 1 ? 1 : chunk > 16 ? 16 : chunk;
#pragma omp parallel for schedule(dynamic, chunk) num_threads(threads) if (threads > 1)            \
    reduction(+ : completed) reduction(| : failed)
    for (int j = 0; j < b->n_total; j++) {
        if (!plays[j])
            continue;
        int tid = 0;
#ifdef _OPENMP
        tid = omp_get_thread_num();
#endif
        episode_buf *e = &bufs[j];
        int r = play_game(sp, group_of[j], e->board, tid * n_groups + group_of[j], episode, e);
        if (r < 0)
            failed = 1;
        if (r > 0) {
            e->played = 1;
            completed++;
            atomic_fetch_add_explicit(&sp->games_done, 1, memory_order_relaxed);
            atomic_fetch_add_explicit(&sp->steps_done, e->n, memory_order_relaxed);
        }
    }
    free(plays);
    free(group_of);
    return failed ? -1 : completed;
}
