/* Shared by the libFuzzer targets (tests/fuzz/fuzz_*.c): the fuzzer's bytes
 * read as a stream, batches with every output allocated, and the invariants
 * every board must keep after each step. A broken invariant aborts, which
 * libFuzzer reports as a crash with the input that caused it.
 *
 * FUZZ_PRESETS (fuzz_presets.inc) is written at build time by
 * tests/fuzz/run_fuzz.py from the package's presets, so the targets play the
 * variants users get. */
#ifndef FIVEROW_FUZZ_H
#define FIVEROW_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env/batch.h"
#include "game/game.h"

#include "fuzz_presets.inc"

#define FUZZ_N_PRESETS ((int)(sizeof(FUZZ_PRESETS) / sizeof(FUZZ_PRESETS[0])))

/* The fuzzer's input, consumed front to back; past its end every read is 0. */
typedef struct fuzz_input {
    const uint8_t *p;
    size_t n;
} fuzz_input;

static inline uint8_t take_u8(fuzz_input *in)
{
    if (!in->n)
        return 0;
    in->n--;
    return *in->p++;
}

static inline uint16_t take_u16(fuzz_input *in)
{
    uint16_t lo = take_u8(in);
    return (uint16_t)(lo | (uint16_t)take_u8(in) << 8);
}

static inline uint64_t take_u64(fuzz_input *in)
{
    uint64_t x = 0;
    for (int k = 0; k < 8; k++)
        x |= (uint64_t)take_u8(in) << (8 * k);
    return x;
}

#define FUZZ_FAIL(...)                                                                             \
    do {                                                                                           \
        fprintf(stderr, "fuzz invariant broken: " __VA_ARGS__);                                    \
        fputc('\n', stderr);                                                                       \
        abort();                                                                                   \
    } while (0)

/* "key=value key=value" into p (starting from the defaults); -1 if refused. */
static inline int fuzz_params(const char *text, variant_params *p, char *err, size_t errlen)
{
    variant_params_default(p);
    char buf[1024];
    snprintf(buf, sizeof(buf), "%s", text);
    for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
        char *eq = strchr(tok, '=');
        if (!eq) {
            snprintf(err, errlen, "no '=' in %s", tok);
            return -1;
        }
        *eq = '\0';
        if (variant_params_set(p, tok, eq + 1, err, errlen))
            return -1;
    }
    return 0;
}

/* Every output array of o for nb boards of g (calloc; freed by
 * fuzz_outputs_free). */
static inline void fuzz_outputs_alloc(group_outputs *o, const group *g, size_t nb, int obs_kind)
{
    size_t obs = nb * (size_t)g->v.n_planes[obs_kind] * (size_t)g->v.g.n_cells;
    o->obs = calloc(obs, 1);
    o->mask = calloc(nb * (size_t)g->v.n_actions, 1);
    o->reward = calloc(nb, sizeof(float));
    o->rewards = calloc(2 * nb, sizeof(float));
    o->terminated = calloc(nb, 1);
    o->truncated = calloc(nb, 1);
    o->to_play = calloc(nb, 1);
    o->winner = calloc(nb, 1);
    o->episode_length = calloc(nb, sizeof(int32_t));
    o->illegal = calloc(nb, 1);
    o->has_final = calloc(nb, 1);
    o->sampled = calloc(nb, sizeof(int64_t));
    o->black_seat = calloc(nb, 1);
    o->phase = calloc(nb, 1);
    o->opening = calloc(nb, 1);
    o->scores = calloc(2 * nb, sizeof(int32_t));
    o->cast_points = calloc(2 * nb, sizeof(int32_t));
    o->casts = calloc(nb, sizeof(int32_t));
    o->captures = calloc(2 * nb, sizeof(int32_t));
    o->agent_seat = calloc(nb, 1);
    o->waiting = calloc(nb, 1);
}

static inline void fuzz_outputs_free(group_outputs *o)
{
    void *all[] = {o->obs,       o->mask,        o->reward,     o->rewards,        o->terminated,
                   o->truncated, o->to_play,     o->winner,     o->episode_length, o->illegal,
                   o->has_final, o->sampled,     o->black_seat, o->phase,          o->opening,
                   o->scores,    o->cast_points, o->casts,      o->agent_seat,     o->waiting,
                   o->captures};
    for (size_t k = 0; k < sizeof(all) / sizeof(all[0]); k++)
        free(all[k]);
}

/* A one-group batch of n boards with every output array allocated (the
 * finished games' block of same-step mode too; freed by fuzz_batch_free),
 * reset from seed; NULL with the reason in err. */
static inline batch *fuzz_batch(const variant_params *p, int n, int autoreset, int illegal,
                                int obs_kind, uint64_t seed, char *err, size_t errlen)
{
    batch *b = batch_create(p, &n, 1, 1, autoreset, illegal, obs_kind, err, errlen);
    if (!b)
        return NULL;
    group *g = &b->groups[0];
    fuzz_outputs_alloc(&g->out, g, (size_t)n, obs_kind);
    fuzz_outputs_alloc(&g->fin, g, (size_t)n, obs_kind);
    batch_reset(b, 1, seed, NULL);
    return b;
}

static inline void fuzz_batch_free(batch *b)
{
    if (!b)
        return;
    fuzz_outputs_free(&b->groups[0].out);
    fuzz_outputs_free(&b->groups[0].fin);
    batch_destroy(b);
}

/* Board i's state passes the restore checks, and its outputs are what its
 * state shows: the mask (kept incrementally by a step) and the observation
 * (updated in place) equal a fresh write. */
static inline void fuzz_check_board(const batch *b, int i)
{
    const group *g = &b->groups[0];
    const variant *v = &g->v;
    const board_hdr *h = group_board(g, i);
    const char *why = batch_check_state(g, (const uint8_t *)h, v->state_size);
    if (why)
        FUZZ_FAIL("board %d fails its state check: %s", i, why);
    size_t na = (size_t)v->n_actions;
    const uint8_t *mask = g->out.mask + (size_t)i * na;
    for (size_t a = 0; a < na; a++) {
        /* a finished board allows every action, in every autoreset mode */
        int want = h->status != STATUS_ONGOING ? 1 : bits_get(board_legal_c(v, h), (int)a);
        if (mask[a] != want)
            FUZZ_FAIL("board %d: mask[%zu] is %d, the state says %d", i, a, mask[a], want);
    }
    size_t ob = (size_t)v->n_planes[b->obs_kind] * (size_t)v->g.n_cells;
    uint8_t *fresh = malloc(ob ? ob : 1);
    game_write_obs(v, h, b->obs_kind, fresh);
    if (memcmp(fresh, g->out.obs + (size_t)i * ob, ob))
        FUZZ_FAIL("board %d: the observation differs from a fresh one", i);
    free(fresh);
    if (g->out.to_play[i] != h->seat || g->out.winner[i] != h->winner)
        FUZZ_FAIL("board %d: to_play / winner outputs differ from the state", i);
}

static inline void fuzz_check_all(const batch *b)
{
    for (int i = 0; i < b->groups[0].n; i++)
        fuzz_check_board(b, i);
}

/* After a step that was taken: rewards of an outcome game sum to zero. */
static inline void fuzz_check_rewards(const batch *b)
{
    const group *g = &b->groups[0];
    if (g->v.p.reward_mode != REWARD_OUTCOME)
        return;
    for (int i = 0; i < g->n; i++)
        if (g->out.rewards[2 * i] + g->out.rewards[2 * i + 1] != 0.0f)
            FUZZ_FAIL("board %d: rewards %g and %g do not sum to zero", i,
                      (double)g->out.rewards[2 * i], (double)g->out.rewards[2 * i + 1]);
}

/* `steps` steps of random legal actions, every invariant checked after each
 * (with autoreset disabled, until a board's episode ends). */
static inline void fuzz_play(batch *b, int steps)
{
    const group *g = &b->groups[0];
    const int64_t *per_group[1] = {g->out.sampled};
    batch_error errs[4];
    for (int t = 0; t < steps; t++) {
        if (b->autoreset == AUTORESET_DISABLED)
            for (int i = 0; i < g->n; i++)
                if (group_board(g, i)->status != STATUS_ONGOING)
                    return;
        batch_sample(b);
        if (batch_step(b, per_group, errs, 4))
            FUZZ_FAIL("a sampled legal action was refused: %s", errs[0].reason);
        fuzz_check_rewards(b);
        fuzz_check_all(b);
    }
}

/* Every board's state and the outputs a refused call must leave alone,
 * concatenated (free the result); compare two with memcmp. */
static inline uint8_t *fuzz_snapshot(const batch *b, size_t *len)
{
    const group *g = &b->groups[0];
    const group_outputs *o = &g->out;
    size_t nb = (size_t)g->n;
    size_t obs = nb * (size_t)g->v.n_planes[b->obs_kind] * (size_t)g->v.g.n_cells;
    const void *parts[] = {g->states,         o->obs,        o->mask,      o->to_play, o->winner,
                           o->episode_length, o->terminated, o->truncated, o->reward,  o->scores};
    size_t sizes[] = {nb * g->v.state_size,
                      obs,
                      nb * (size_t)g->v.n_actions,
                      nb,
                      nb,
                      nb * sizeof(int32_t),
                      nb,
                      nb,
                      nb * sizeof(float),
                      2 * nb * sizeof(int32_t)};
    size_t total = 0;
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++)
        total += sizes[k];
    uint8_t *out = malloc(total), *at = out;
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        memcpy(at, parts[k], sizes[k]);
        at += sizes[k];
    }
    *len = total;
    return out;
}

/* A refused call changed nothing: the snapshot taken before it still holds. */
static inline void fuzz_check_unchanged(const batch *b, uint8_t *before, size_t len,
                                        const char *call)
{
    size_t now_len;
    uint8_t *now = fuzz_snapshot(b, &now_len);
    if (now_len != len || memcmp(now, before, len))
        FUZZ_FAIL("a refused %s changed a board or its outputs", call);
    free(now);
    free(before);
}

#endif
