#include "io/training_batches.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/half.h"
#include "game/game.h"

#if defined(__F16C__)
#include <immintrin.h>
#endif

void batches_farm_free(batches_farm *f)
{
    if (!f)
        return;
    free(f->sym.perms);
    free(f->sym.inverse);
    free(f->sym.first);
    free(f->sym.count);
    free(f->sym.identity);
    free(f->sym.maps);
    free(f);
}

/* NULL if row is a permutation of 0..n-1 (seen: n bytes of scratch). */
static const char *check_permutation(const int32_t *row, int n, uint8_t *seen)
{
    memset(seen, 0, (size_t)n);
    for (int c = 0; c < n; c++) {
        if (row[c] < 0 || row[c] >= n)
            return "a symmetry maps a cell outside the board";
        if (seen[row[c]]++)
            return "a symmetry maps two cells to one";
    }
    return NULL;
}

batches_farm *batches_farm_new(const batch *b, int kind, const int32_t *perms, int64_t n_perms,
                               const int64_t *first, const int32_t *count, char *err, size_t errlen)
{
    if (kind != OBS_ABSOLUTE && kind != OBS_MOVER) {
        snprintf(err, errlen, "unknown observation kind %d", kind);
        return NULL;
    }
    const variant *v0 = &b->groups[0].v;
    for (int gi = 1; gi < b->n_groups; gi++) {
        const variant *v = &b->groups[gi].v;
        if (v->g.n_cells != v0->g.n_cells || v->n_actions != v0->n_actions ||
            v->n_planes[kind] != v0->n_planes[kind]) {
            snprintf(err, errlen, "group %d differs in shape from group 0: one batch, one shape",
                     gi);
            return NULL;
        }
    }
    const int n = v0->g.n_cells;
    for (int gi = 0; gi < b->n_groups; gi++)
        if (count[gi] < 1 || first[gi] < 0 || first[gi] + count[gi] > n_perms) {
            snprintf(err, errlen, "group %d: symmetries %lld..%lld outside the %lld given", gi,
                     (long long)first[gi], (long long)first[gi] + count[gi] - 1,
                     (long long)n_perms);
            return NULL;
        }
    batches_farm *f = calloc(1, sizeof(*f));
    uint8_t *seen = malloc((size_t)n);
    const size_t perm_bytes = sizeof(int32_t) * (size_t)n_perms * (size_t)n;
    if (!f || !seen || !(f->sym.perms = malloc(perm_bytes)) ||
        !(f->sym.inverse = malloc(perm_bytes)) ||
        !(f->sym.first = malloc(sizeof(int64_t) * (size_t)b->n_groups)) ||
        !(f->sym.count = malloc(sizeof(int32_t) * (size_t)b->n_groups)) ||
        !(f->sym.identity = malloc((size_t)n_perms)) ||
        !(f->sym.maps = malloc(sizeof(plane_map) * (size_t)n_perms))) {
        snprintf(err, errlen, "out of memory");
        free(seen);
        batches_farm_free(f);
        return NULL;
    }
    memcpy(f->sym.perms, perms, perm_bytes);
    memcpy(f->sym.first, first, sizeof(int64_t) * (size_t)b->n_groups);
    memcpy(f->sym.count, count, sizeof(int32_t) * (size_t)b->n_groups);
    f->sym.n_perms = n_perms;
    for (int64_t k = 0; k < n_perms; k++) {
        const int32_t *row = f->sym.perms + k * n;
        const char *why = check_permutation(row, n, seen);
        if (why) {
            snprintf(err, errlen, "symmetry row %lld: %s", (long long)k, why);
            free(seen);
            batches_farm_free(f);
            return NULL;
        }
        int identity = 1;
        int32_t *inverse = f->sym.inverse + k * n;
        for (int c = 0; c < n; c++) {
            inverse[row[c]] = c;
            identity &= row[c] == c;
        }
        f->sym.identity[k] = (uint8_t)identity;
        plane_map_classify(&f->sym.maps[k], inverse, v0->g.height, v0->g.width);
    }
    free(seen);
    f->b = b;
    f->kind = kind;
    f->n_cells = n;
    f->height = v0->g.height;
    f->width = v0->g.width;
    f->n_actions = v0->n_actions;
    f->obs_bytes = (size_t)v0->n_planes[kind] * (size_t)n;
    return f;
}

const char *batches_check(const batches_farm *f, const batches_games *g, const batches_positions *p)
{
    for (int64_t i = 0; i < g->n; i++) {
        if (g->group[i] < 0 || g->group[i] >= f->b->n_groups)
            return "a game's variant group is out of range";
        if (g->length[i] < 1 || g->start[i] < 0 || g->start[i] + g->length[i] > g->n_steps)
            return "a game's moves are outside the moves given";
    }
    if (p->n > INT32_MAX)
        return "too many positions in one fill (at most 2**31 - 1)";
    for (int64_t j = 0; j < p->n; j++) {
        int64_t i = p->game[j];
        if (i < 0 || i >= g->n)
            return "a position's game is out of range";
        if (p->ply[j] < 0 || p->ply[j] >= g->length[i])
            return "a position's ply is outside its game";
        if (p->symmetry[j] < 0 || p->symmetry[j] >= f->sym.count[g->group[i]])
            return "a position's symmetry is out of range";
    }
    return NULL;
}

/* Per-thread scratch. */
typedef struct scratch {
    board_hdr *board;
    uint8_t *obs, *mask;       /* as the game writes them, before a symmetry */
    uint8_t *obs_to, *mask_to; /* after it */
    uint16_t *policy;          /* a policy row after a symmetry */
    int64_t *keys;             /* (ply << 32 | position) of one game, sorted */
} scratch;

static void scratch_free(scratch *s)
{
    free(s->board);
    free(s->obs);
    free(s->mask);
    free(s->policy);
    free(s->obs_to);
    free(s->mask_to);
    free(s->keys);
}

static int scratch_init(scratch *s, const batches_farm *f, size_t max_state, int64_t max_keys)
{
    s->board = aligned_alloc(64, (max_state + 63) & ~(size_t)63);
    s->obs = malloc(f->obs_bytes + PLANE_MAP_SLACK);
    s->mask = malloc((size_t)f->n_actions + PLANE_MAP_SLACK);
    s->policy = malloc(sizeof(uint16_t) * (size_t)f->n_actions);
    s->obs_to = malloc(f->obs_bytes + PLANE_MAP_SLACK);
    s->mask_to = malloc((size_t)f->n_actions + PLANE_MAP_SLACK);
    s->keys = malloc(sizeof(int64_t) * (size_t)(max_keys ? max_keys : 1));
    return s->board && s->obs && s->mask && s->policy && s->obs_to && s->mask_to && s->keys ? 0
                                                                                            : -1;
}

static int compare_keys(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The cell x value actions of a mask row (MODLINSEQ: per_cell values per
 * cell) under a cell permutation given by its inverse: action c * per_cell +
 * k of the output is action inverse[c] * per_cell + k of the input. */
static void permute_cell_values(const uint8_t *restrict src, uint8_t *restrict dst,
                                const int32_t *restrict inverse, int n_cells, int per_cell)
{
    for (int c = 0; c < n_cells; c++)
        memcpy(dst + (size_t)c * per_cell, src + (size_t)inverse[c] * per_cell, (size_t)per_cell);
}

/* Halves to floats, n of them (F16C where the CPU has it). */
static void halves_to_floats(const uint16_t *restrict src, float *restrict dst, int n)
{
    int a = 0;
#if defined(__F16C__)
    for (; a + 8 <= n; a += 8)
        _mm256_storeu_ps(dst + a, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(src + a))));
#endif
    for (; a < n; a++)
        dst[a] = half_to_float(src[a]);
}

/* A policy row (halves) over the actions under a symmetry given by its
 * inverse (NULL: identity), as floats; tmp holds n_actions halves. */
static void permute_policy(const uint16_t *restrict src, float *restrict dst,
                           const int32_t *restrict inverse, int n_cells, int per_cell,
                           int n_actions, uint16_t *restrict tmp)
{
    if (inverse) {
        for (int c = 0; c < n_cells; c++)
            memcpy(tmp + (size_t)c * per_cell, src + (size_t)inverse[c] * per_cell,
                   sizeof(uint16_t) * (size_t)per_cell);
        for (int a = n_cells * per_cell; a < n_actions; a++)
            tmp[a] = src[a];
        src = tmp;
    }
    halves_to_floats(src, dst, n_actions);
}

static int64_t map_action(int64_t a, const int32_t *perm, int n_cells, int per_cell)
{
    if (!perm || a >= (int64_t)n_cells * per_cell)
        return a;
    return (int64_t)perm[a / per_cell] * per_cell + a % per_cell;
}

/* The outputs of position j: board h at its ply, under symmetry row `row`
 * of the farm's table. */
static void write_position(const batches_farm *f, const variant *v, const board_hdr *h,
                           const batches_games *g, int64_t i, int ply, int64_t row, int64_t j,
                           batches_out *out, scratch *s)
{
    const int n_cells = f->n_cells, n_actions = f->n_actions;
    const int per_cell = (n_actions - v->n_special) / n_cells;
    const size_t planes = f->obs_bytes / (size_t)n_cells;
    const int identity = f->sym.identity[row];
    const int32_t *perm = identity ? NULL : f->sym.perms + (size_t)row * (size_t)n_cells;
    const int32_t *inverse = identity ? NULL : f->sym.inverse + (size_t)row * (size_t)n_cells;
    uint8_t *obs = out->obs + (size_t)j * f->obs_bytes;
    uint8_t *mask = out->mask + (size_t)j * (size_t)n_actions;
    if (identity) {
        game_write_obs(v, h, f->kind, obs);
        bits_to_bytes(board_legal_c(v, h), n_actions, mask);
    } else {
        /* byte stores straight into the output (lines not in cache) fill the
         * store buffer: permute in scratch, then copy out with wide stores */
        game_write_obs(v, h, f->kind, s->obs);
        const plane_map *map = &f->sym.maps[row];
        plane_map_apply(map, inverse, s->obs, s->obs_to, f->height, f->width, planes);
        memcpy(obs, s->obs_to, f->obs_bytes);
        bits_to_bytes(board_legal_c(v, h), n_actions, s->mask);
        if (per_cell == 1) /* the cells as one more plane, then the special actions */
            plane_map_apply(map, inverse, s->mask, s->mask_to, f->height, f->width, 1);
        else
            permute_cell_values(s->mask, s->mask_to, inverse, n_cells, per_cell);
        memcpy(s->mask_to + n_cells * per_cell, s->mask + n_cells * per_cell,
               (size_t)(n_actions - n_cells * per_cell));
        memcpy(mask, s->mask_to, (size_t)n_actions);
    }
    const int64_t step = g->start[i] + ply;
    out->action[j] = map_action(g->actions[step], perm, n_cells, per_cell);
    const int winner = g->winner[i];
    out->value[j] = winner < 0 ? 0.0f : winner == h->seat ? 1.0f : -1.0f;
    if (out->policy)
        permute_policy(g->policy + (size_t)step * (size_t)n_actions,
                       out->policy + (size_t)j * (size_t)n_actions, inverse, n_cells, per_cell,
                       n_actions, s->policy);
}

/* Replay game i up to the last of its positions (keys[0..n), sorted by ply)
 * and write each; 0, or -1 with err's message set. */
static int replay_game(const batches_farm *f, const batches_games *g, const batches_positions *p,
                       int64_t i, int64_t n, batches_out *out, scratch *s, char *msg, size_t msglen)
{
    const int gi = g->group[i];
    const variant *v = &f->b->groups[gi].v;
    board_hdr *h = s->board;
    memset(h, 0, v->state_size);
    h->board_key = board_key_of(g->seed[i], g->key_group[i], g->board[i]);
    game_new_episode(v, h, g->episode[i]);
    const int16_t *actions = g->actions + g->start[i];
    const int last = (int)(s->keys[n - 1] >> 32);
    int64_t k = 0;
    for (int t = 0; t <= last; t++) {
        if (h->status != STATUS_ONGOING) {
            snprintf(msg, msglen, "the game ended after %d of its %d recorded actions", t,
                     g->length[i]);
            return -1;
        }
        const char *why =
            game_is_legal(v, h, actions[t]) ? NULL : game_illegal_reason(v, h, actions[t]);
        if (why) {
            snprintf(msg, msglen, "step %d: action %d is not legal (%s)", t, actions[t], why);
            return -1;
        }
        for (; k < n && (s->keys[k] >> 32) == t; k++) {
            const int64_t j = s->keys[k] & 0xffffffffLL;
            write_position(f, v, h, g, i, t, f->sym.first[gi] + p->symmetry[j], j, out, s);
        }
        if (t < last)
            game_step(v, h, actions[t]);
    }
    return 0;
}

int batches_fill(const batches_farm *f, const batches_games *g, const batches_positions *p,
                 batches_out *out, batches_error *err)
{
    /* positions grouped by game (a counting sort), games that have any listed */
    int64_t *begin = calloc((size_t)g->n + 1, sizeof(int64_t));
    int64_t *order = malloc(sizeof(int64_t) * (size_t)(p->n ? p->n : 1));
    int64_t *used = malloc(sizeof(int64_t) * (size_t)(g->n ? g->n : 1));
    if (!begin || !order || !used) {
        free(begin);
        free(order);
        free(used);
        return -2;
    }
    for (int64_t j = 0; j < p->n; j++)
        begin[p->game[j] + 1]++;
    int64_t n_used = 0, max_per_game = 0;
    for (int64_t i = 0; i < g->n; i++) {
        if (begin[i + 1]) {
            used[n_used++] = i;
            if (begin[i + 1] > max_per_game)
                max_per_game = begin[i + 1];
        }
        begin[i + 1] += begin[i];
    }
    for (int64_t j = 0; j < p->n; j++)
        order[begin[p->game[j]]++] = j;
    for (int64_t i = g->n; i > 0; i--) /* back to the starts */
        begin[i] = begin[i - 1];
    begin[0] = 0;

    size_t max_state = 0;
    for (int gi = 0; gi < f->b->n_groups; gi++)
        if (f->b->groups[gi].v.state_size > max_state)
            max_state = f->b->groups[gi].v.state_size;
    int threads = batch_team_size(f->b);
    int oom = 0;
    err->game = -1;
    int64_t first_bad = g->n; /* lowest game that failed */
#pragma omp parallel num_threads(threads) if (threads > 1 && n_used > 1)
    {
        scratch s;
        int ok = scratch_init(&s, f, max_state, max_per_game) == 0;
        if (!ok) {
#pragma omp atomic write
            oom = 1;
        }
        char msg[256];
#pragma omp for schedule(dynamic, 4)
        for (int64_t u = 0; u < n_used; u++) {
            if (!ok)
                continue;
            const int64_t i = used[u], lo = begin[i], n = begin[i + 1] - lo;
            for (int64_t k = 0; k < n; k++) {
                const int64_t j = order[lo + k];
                s.keys[k] = (int64_t)p->ply[j] << 32 | j;
            }
            qsort(s.keys, (size_t)n, sizeof(int64_t), compare_keys);
            if (replay_game(f, g, p, i, n, out, &s, msg, sizeof(msg))) {
#pragma omp critical(batches_error)
                if (i < first_bad) {
                    first_bad = i;
                    err->game = i;
                    snprintf(err->message, sizeof(err->message), "%s", msg);
                }
            }
        }
        scratch_free(&s);
    }
    free(begin);
    free(order);
    free(used);
    if (oom)
        return -2;
    return err->game >= 0 ? -1 : 0;
}
