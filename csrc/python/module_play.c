/* The binding of players, self-play (with the HDF5 writer) and replays:
 * argument checking, buffers and the GIL, nothing else. */
#include "python/module.h" /* Python.h first */

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/cpu_dispatch.h"
#include "env/replay.h"
#include "env/selfplay.h"
#include "game/game.h"
#include "io/h5writer.h"
#include "players/player.h"
#include "players/pvs.h"
#include "players/pvs_engine.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* ---- players ---- */

int module_get_number(PyObject *dict, const char *key, double *out)
{
    PyObject *x = PyDict_GetItemString(dict, key);
    if (!x)
        return 0;
    double d = PyFloat_AsDouble(x);
    if (d == -1.0 && PyErr_Occurred()) {
        PyErr_Format(PyExc_TypeError, "player parameter '%s' must be a number", key);
        return -1;
    }
    *out = d;
    return 0;
}

static int kind_of(PyObject *dict, const char *key, int *out)
{
    PyObject *x = PyDict_GetItemString(dict, key);
    if (!x)
        return 0;
    const char *s = PyUnicode_Check(x) ? PyUnicode_AsUTF8(x) : NULL;
    static const char *names[] = {"random", "heuristic", "mcts", "threat", "net", "pvs"};
    const int n = strcmp(key, "kind") == 0 ? 6 : 4; /* a rollout is random or heuristic */
    for (int k = 0; s && k < n; k++)
        if (strcmp(s, names[k]) == 0) {
            *out = k;
            return 0;
        }
    PyErr_Format(PyExc_ValueError,
                 "player '%s' must be 'random', 'heuristic', 'mcts', 'threat', 'net' or 'pvs'",
                 key);
    return -1;
}

int module_parse_player(PyObject *dict, player_spec *ps)
{
    static const char *known[] = {
        "kind",  "simulations", "rollout",   "width", "depth",       "c_uct",  "epsilon", "seed",
        "nodes", "plies",       "vct_depth", "path",  "temperature", "c_puct", "time_ms", NULL};
    if (!PyDict_Check(dict)) {
        PyErr_SetString(PyExc_TypeError, "a player must be given as a dict");
        return -1;
    }
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    while (PyDict_Next(dict, &pos, &key, &value)) {
        const char *k = PyUnicode_Check(key) ? PyUnicode_AsUTF8(key) : NULL;
        int ok = 0;
        for (int i = 0; k && known[i]; i++)
            ok |= strcmp(k, known[i]) == 0;
        if (!ok) {
            PyErr_Format(PyExc_ValueError, "unknown player parameter %R", key);
            return -1;
        }
    }
    int kind = PLAYER_RANDOM;
    if (kind_of(dict, "kind", &kind))
        return -1;
    player_spec_default(ps, kind);
    double sims = ps->simulations, width = ps->width, depth = ps->depth, c = ps->c_uct,
           eps = ps->epsilon, seed = 0, nodes = ps->nodes, plies = ps->plies,
           vct_depth = ps->vct_depth, temperature = ps->temperature, c_puct = ps->c_puct,
           time_ms = (double)ps->time_ms;
    if (kind_of(dict, "rollout", &ps->rollout) || module_get_number(dict, "simulations", &sims) ||
        module_get_number(dict, "width", &width) || module_get_number(dict, "depth", &depth) ||
        module_get_number(dict, "c_uct", &c) || module_get_number(dict, "epsilon", &eps) ||
        module_get_number(dict, "nodes", &nodes) || module_get_number(dict, "plies", &plies) ||
        module_get_number(dict, "vct_depth", &vct_depth) ||
        module_get_number(dict, "temperature", &temperature) ||
        module_get_number(dict, "c_puct", &c_puct) || module_get_number(dict, "time_ms", &time_ms))
        return -1;
    PyObject *s = PyDict_GetItemString(dict, "seed");
    if (s) {
        ps->seed = PyLong_AsUnsignedLongLongMask(s);
        if (PyErr_Occurred())
            return -1;
    }
    (void)seed;
    ps->simulations = sims > 2e9 ? -1 : (int)sims;
    ps->width = width > 2e9 ? -1 : (int)width;
    ps->depth = depth > 2e9 ? -1 : (int)depth;
    ps->nodes = nodes > 2e9 ? -1 : (int)nodes;
    ps->plies = plies > 2e9 ? -1 : (int)plies;
    ps->vct_depth = vct_depth > 2e9 ? -1 : (int)vct_depth;
    ps->time_ms = time_ms > 4e12 ? -1 : (int64_t)time_ms;
    ps->c_uct = (float)c;
    ps->epsilon = (float)eps;
    ps->temperature = (float)temperature;
    ps->c_puct = (float)c_puct;
    PyObject *path = PyDict_GetItemString(dict, "path");
    if (kind == PLAYER_NET && path && !(ps->net = module_net_for_path(path)))
        return -1;
    const char *why = player_spec_check(ps);
    if (why) {
        player_spec_release(ps);
        PyErr_SetString(PyExc_ValueError, why);
        return -1;
    }
    return 0;
}

static int batch_usable(BatchObject *bo)
{
    if (!bo->b) {
        PyErr_SetString(PyExc_RuntimeError, "Batch is not initialised");
        return 0;
    }
    if (bo->busy) {
        busy_error();
        return 0;
    }
    return 1;
}

/* One writable, C-contiguous buffer per group of n_per_board items per board. */
static int group_buffers(BatchObject *bo, PyObject *seq, Py_buffer *views, int itemsize,
                         const char *formats, const char *what, int per_board_of_actions)
{
    batch *b = bo->b;
    if (!PySequence_Check(seq) || PySequence_Size(seq) != b->n_groups) {
        PyErr_Format(PyExc_ValueError, "%s: one array per group (%d) expected", what, b->n_groups);
        return -1;
    }
    for (int gi = 0; gi < b->n_groups; gi++) {
        PyObject *item = PySequence_GetItem(seq, gi);
        if (!item)
            goto fail;
        int rc = PyObject_GetBuffer(item, &views[gi],
                                    PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS | PyBUF_FORMAT);
        Py_DECREF(item);
        if (rc < 0)
            goto fail;
        const group *g = &b->groups[gi];
        Py_ssize_t want = (Py_ssize_t)g->n * (per_board_of_actions ? g->v.n_actions : 1);
        if (views[gi].itemsize != itemsize || !check_format(&views[gi], formats) ||
            views[gi].len != want * itemsize) {
            PyErr_Format(PyExc_ValueError, "%s of group %d: %zd items of %d bytes expected", what,
                         gi, want, itemsize);
            PyBuffer_Release(&views[gi]);
            goto fail;
        }
        continue;
    fail:
        for (int k = 0; k < gi; k++)
            PyBuffer_Release(&views[k]);
        return -1;
    }
    return 0;
}

static void release_all(Py_buffer *views, int n)
{
    for (int k = 0; k < n; k++)
        if (views[k].obj)
            PyBuffer_Release(&views[k]);
}

/* act(batch, player, actions, policies=None): the player's action on every
 * ongoing board (0 on finished ones), in parallel. */
static PyObject *core_act(PyObject *Py_UNUSED(m), PyObject *args)
{
    BatchObject *bo;
    PyObject *player, *actions, *policies = Py_None;
    if (!PyArg_ParseTuple(args, "O!OO|O", &BatchType, &bo, &player, &actions, &policies))
        return NULL;
    player_spec ps;
    if (!batch_usable(bo) || module_parse_player(player, &ps))
        return NULL;
    batch *b = bo->b;
    char why[1024];
    for (int gi = 0; gi < b->n_groups; gi++)
        if (player_spec_check_variant(&ps, &b->groups[gi].v, why, sizeof(why))) {
            player_spec_release(&ps);
            PyErr_SetString(PyExc_ValueError, why);
            return NULL;
        }
    Py_buffer *views = PyMem_Calloc(2 * (size_t)b->n_groups, sizeof(Py_buffer));
    if (!views) {
        player_spec_release(&ps);
        return PyErr_NoMemory();
    }
    Py_buffer *pviews = views + b->n_groups;
    if (group_buffers(bo, actions, views, 8, "ql", "actions", 0) ||
        (policies != Py_None && group_buffers(bo, policies, pviews, 4, "f", "policies", 1))) {
        release_all(views, b->n_groups);
        PyMem_Free(views);
        player_spec_release(&ps);
        return NULL;
    }
    int threads = batch_team_size(b), failed = 0;
    bo->busy = 1;
    Py_BEGIN_ALLOW_THREADS;
    for (int gi = 0; gi < b->n_groups && !failed; gi++) {
        group *g = &b->groups[gi];
        int64_t *out = views[gi].buf;
        float *pol = policies != Py_None ? pviews[gi].buf : NULL;
#pragma omp parallel num_threads(threads) if (threads > 1 && g -> n > 1) reduction(| : failed)
        {
            policy_scratch *s = policy_scratch_new(&g->v);
            failed |= s == NULL;
#pragma omp for schedule(dynamic, 1)
            for (int i = 0; i < g->n; i++) {
                const board_hdr *h = group_board(g, i);
                float *pi = pol ? pol + (size_t)i * (size_t)g->v.n_actions : NULL;
                if (h->status != STATUS_ONGOING || !s) {
                    out[i] = 0;
                    if (pi)
                        memset(pi, 0, sizeof(float) * (size_t)g->v.n_actions);
                    continue;
                }
                out[i] = policy_act(&ps, &g->v, h, s, policy_decision_key(&ps, h), pi);
            }
            policy_scratch_free(s);
        }
    }
    Py_END_ALLOW_THREADS;
    bo->busy = 0;
    release_all(views, 2 * b->n_groups);
    PyMem_Free(views);
    player_spec_release(&ps);
    if (failed)
        return PyErr_NoMemory();
    Py_RETURN_NONE;
}

/* pvs_probe(batch, group, board, player): the pvs player's decision on one
 * ongoing board and what it read: {"move", "value", "depth", "nodes",
 * "decided_by", "classes", "features"} (classes: bytes, black's threat class
 * of every cell then white's, 255 on stones and off the board; features:
 * the side to move's pattern counts over the empty cells' lines, the other
 * side's, then both sides' class counts, the evaluation's inputs). For
 * tests, diagnostics and benchmarks/tune_eval.py. */
static PyObject *core_pvs_probe(PyObject *Py_UNUSED(m), PyObject *args)
{
    BatchObject *bo;
    int gi, i;
    PyObject *player;
    if (!PyArg_ParseTuple(args, "O!iiO", &BatchType, &bo, &gi, &i, &player))
        return NULL;
    player_spec ps;
    if (!batch_usable(bo) || module_parse_player(player, &ps))
        return NULL;
    if (ps.kind != PLAYER_PVS) {
        PyErr_SetString(PyExc_ValueError, "pvs_probe takes a pvs player");
        return NULL;
    }
    if (gi < 0 || gi >= bo->b->n_groups || i < 0 || i >= bo->b->groups[gi].n) {
        PyErr_SetString(PyExc_IndexError, "no such group or board");
        return NULL;
    }
    const variant *v = &bo->b->groups[gi].v;
    char why[1024];
    if (player_spec_check_variant(&ps, v, why, sizeof(why))) {
        player_spec_release(&ps);
        PyErr_SetString(PyExc_ValueError, why);
        return NULL;
    }
    const board_hdr *h = group_board(&bo->b->groups[gi], i);
    if (h->status != STATUS_ONGOING) {
        PyErr_SetString(PyExc_ValueError, "the game on this board is over");
        return NULL;
    }
    policy_scratch *s = policy_scratch_new(v);
    if (!s)
        return PyErr_NoMemory();
    int a;
    Py_BEGIN_ALLOW_THREADS;
    a = policy_act(&ps, v, h, s, policy_decision_key(&ps, h), NULL);
    Py_END_ALLOW_THREADS;
    pvs_engine *e = s->pvs;
    if (!e) {
        policy_scratch_free(s);
        return PyErr_NoMemory();
    }
    const int n = v->g.n_cells;
    PyObject *classes = PyBytes_FromStringAndSize(NULL, 2 * (Py_ssize_t)n);
    if (!classes) {
        policy_scratch_free(s);
        return NULL;
    }
    char *out = PyBytes_AS_STRING(classes);
    for (int colour = 0; colour < 2; colour++)
        for (int c = 0; c < n; c++)
            out[colour * n + c] =
                (char)(e->board.cells[c] == CELL_EMPTY ? e->board.cls[colour][c] : 255);
    /* the root's features: pattern counts over the empty cells' lines and
     * class counts, the side to move's first */
    PyObject *features = PyTuple_New(4 * PAT_NB);
    const pvs_board *pb = &e->board;
    for (int side = 0; side < 2 && features; side++) {
        const int colour = pb->side ^ side;
        long pats[PAT_NB] = {0}, cls[CLS_NB] = {0};
        for (int c = 0; c < n; c++) {
            if (pb->cells[c] != CELL_EMPTY)
                continue;
            for (int a = 0; a < e->ctx.n_axes; a++)
                pats[pb->pat[colour][c * e->ctx.n_axes + a]]++;
            cls[pb->cls[colour][c]]++;
        }
        for (int k = 0; k < PAT_NB; k++) {
            PyTuple_SET_ITEM(features, side * PAT_NB + k, PyLong_FromLong(pats[k]));
            PyTuple_SET_ITEM(features, 2 * PAT_NB + side * PAT_NB + k, PyLong_FromLong(cls[k]));
        }
    }
    if (!features) {
        Py_DECREF(classes);
        policy_scratch_free(s);
        return NULL;
    }
    static const char *by[] = {"five", "only",   "lost",     "open four",
                               "vcf",  "search", "protocol", "vct"};
    PyObject *r = Py_BuildValue("{s:i,s:i,s:i,s:L,s:s,s:N,s:N}", "move", a, "value", e->value,
                                "depth", e->depth, "nodes", (long long)e->nodes, "decided_by",
                                by[e->decided_by], "classes", classes, "features", features);
    policy_scratch_free(s);
    return r;
}

/* ---- self-play ---- */

/* One finished game as Python reads it (numpy dtype in fiverow/selfplay.py). */
typedef struct game_record {
    int64_t game;
    int32_t group, board;
    uint32_t episode;
    int32_t length;
    int32_t scores[2];
    int8_t seat0_player, winner, truncated, black_seat, opening;
    uint8_t book;        /* steps that were an opening book's stones */
    int16_t last_action; /* the game's last action (the winning move of a decided game) */
    uint64_t moves_hash; /* FNV-1a of the game's actions: equal games, equal hashes */
} game_record;

typedef struct {
    PyObject_HEAD BatchObject *batch;
    selfplay *sp;
    episode_buf *bufs[2];
    int cur;
    int64_t next_game;
    h5writer *writer;
    game_record *records;
    size_t n_records, cap_records;
    int running;
    int threads;       /* threads of the next round */
    double last_round; /* seconds the last round played */
} SelfPlayObject;

/* Play threads while writing. Play and the writer share the cores: when
 * rounds wait for the writer (compression of fast random games), a play
 * thread gives its core to the writer; when the writer needs well under
 * half a round's time, the thread comes back. The games do not depend on
 * the thread count, only the speed does. */
static void adapt_threads(SelfPlayObject *self, double waited, int max_threads)
{
    double writing = h5writer_last_round_seconds(self->writer), round = self->last_round;
    if (round <= 0)
        return;
    if (waited > 0.05 * round && self->threads > 1)
        self->threads--;
    else if (waited == 0 && writing < 0.4 * round && self->threads < max_threads)
        self->threads++;
}

static void SelfPlay_dealloc(SelfPlayObject *self)
{
    if (self->writer) {
        char err[512];
        Py_BEGIN_ALLOW_THREADS;
        h5writer_close(self->writer, 1, err, sizeof(err));
        Py_END_ALLOW_THREADS;
    }
    if (self->sp) {
        selfplay_buffers_free(self->sp, self->bufs[0]);
        selfplay_buffers_free(self->sp, self->bufs[1]);
        selfplay_free(self->sp);
    }
    free(self->records);
    if (self->batch)
        self->batch->busy = 0;
    Py_XDECREF(self->batch);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int SelfPlay_init(SelfPlayObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"batch",      "players",       "seed",   "alternate",
                             "record_obs", "record_policy", "writer", NULL};
    BatchObject *bo;
    PyObject *players, *writer = Py_None;
    unsigned long long seed;
    int alternate, record_obs, record_policy;
    if (self->sp) {
        PyErr_SetString(PyExc_RuntimeError, "SelfPlay is already initialised");
        return -1;
    }
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!OKppp|O", kwlist, &BatchType, &bo, &players,
                                     &seed, &alternate, &record_obs, &record_policy, &writer))
        return -1;
    if (!batch_usable(bo))
        return -1;
    if (!PySequence_Check(players) || PySequence_Size(players) != 2) {
        PyErr_SetString(PyExc_ValueError, "players: a pair of player dicts expected");
        return -1;
    }
    player_spec ps[2];
    for (int p = 0; p < 2; p++) {
        PyObject *d = PySequence_GetItem(players, p);
        int rc = d ? module_parse_player(d, &ps[p]) : -1;
        Py_XDECREF(d);
        if (rc) {
            if (p == 1)
                player_spec_release(&ps[0]);
            return -1;
        }
    }
    char err[1200];
    Py_INCREF(bo);
    self->batch = bo;
    self->sp =
        selfplay_new(bo->b, ps, seed, alternate, record_obs, record_policy, err, sizeof(err));
    player_spec_release(&ps[0]); /* the run holds its own references */
    player_spec_release(&ps[1]);
    if (!self->sp) {
        PyErr_SetString(PyExc_ValueError, err);
        return -1;
    }
    self->bufs[0] = selfplay_buffers_new(self->sp);
    self->bufs[1] = selfplay_buffers_new(self->sp);
    if (!self->bufs[0] || !self->bufs[1]) {
        PyErr_NoMemory();
        return -1;
    }
    if (writer != Py_None &&
        !(self->writer = module_open_writer(bo, record_obs, record_policy, writer)))
        return -1;
    self->threads = batch_team_size(bo->b);
    return 0;
}

static int ready_to_play(SelfPlayObject *self)
{
    if (!self->sp) {
        PyErr_SetString(PyExc_RuntimeError, "SelfPlay is not initialised, or closed");
        return 0;
    }
    if (self->running || self->batch->busy) {
        busy_error();
        return 0;
    }
    return 1;
}

/* FNV-1a over the actions (little-endian 16-bit): fiverow.data.selfplay
 * computes the same for games played from Python. */
static uint64_t moves_hash(const int16_t *action, int n)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (int t = 0; t < n; t++) {
        uint16_t a = (uint16_t)action[t];
        h = (h ^ (a & 0xff)) * 0x100000001b3ULL;
        h = (h ^ (a >> 8)) * 0x100000001b3ULL;
    }
    return h;
}

static int keep_records(SelfPlayObject *self, const episode_buf *bufs)
{
    int n_total = self->batch->b->n_total;
    if (self->n_records + (size_t)n_total > self->cap_records) {
        size_t cap = self->cap_records ? self->cap_records : 4096;
        while (cap < self->n_records + (size_t)n_total)
            cap *= 2;
        game_record *r = realloc(self->records, cap * sizeof(game_record));
        if (!r)
            return -1;
        self->records = r;
        self->cap_records = cap;
    }
    for (int j = 0; j < n_total; j++) {
        const episode_buf *e = &bufs[j];
        if (!e->played)
            continue;
        game_record *r = &self->records[self->n_records++];
        memset(r, 0, sizeof(*r));
        r->game = e->game;
        r->group = e->group;
        r->board = e->board;
        r->episode = e->episode;
        r->length = e->n;
        r->scores[0] = e->scores[0];
        r->scores[1] = e->scores[1];
        r->seat0_player = e->player[0];
        r->winner = e->winner;
        r->truncated = e->truncated;
        r->black_seat = e->black_seat;
        r->opening = e->opening;
        r->last_action = e->n ? e->action[e->n - 1] : -1;
        r->book = (uint8_t)e->book;
        r->moves_hash = moves_hash(e->action, e->n);
    }
    return 0;
}

/* run(games): play rounds until `games` more games are played or stop() is
 * called; returns the games completed. */
static PyObject *SelfPlay_run(SelfPlayObject *self, PyObject *args)
{
    long long games;
    if (!PyArg_ParseTuple(args, "L", &games) || !ready_to_play(self))
        return NULL;
    if (games < 0) {
        PyErr_SetString(PyExc_ValueError, "games must be >= 0");
        return NULL;
    }
    selfplay *sp = self->sp;
    atomic_store(&sp->stop, 0);
    self->running = 1;
    self->batch->busy = 1;
    long long done = 0;
    const char *error = NULL;
    const int max_threads = batch_team_size(sp->b);
    Py_BEGIN_ALLOW_THREADS;
    while (done < games) {
        if (atomic_load(&sp->stop))
            break;
        int room = selfplay_round_room(sp, self->next_game); /* rounds never straddle */
        int n = games - done < room ? (int)(games - done) : room;
        episode_buf *bufs = self->bufs[self->cur];
        if (self->writer) {
            /* the round before last must be written before its buffers are
             * reused; a writer that keeps play waiting is short of a core */
            double waited = h5writer_wait(self->writer, bufs);
            adapt_threads(self, waited, max_threads);
        }
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        int r = selfplay_round(sp, self->next_game, n, bufs, self->threads);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        self->last_round =
            (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
        if (r < 0 || keep_records(self, bufs)) {
            error = "out of memory";
            break;
        }
        self->next_game += n;
        done += r;
        if (self->writer && h5writer_submit(self->writer, bufs)) {
            error = h5writer_failed(self->writer);
            break;
        }
        self->cur ^= 1;
    }
    Py_END_ALLOW_THREADS;
    self->running = 0;
    self->batch->busy = 0;
    if (error) {
        PyErr_SetString(PyExc_OSError, error);
        return NULL;
    }
    return PyLong_FromLongLong(done);
}

/* Openings from Python: a sequence of openings, each a sequence of (dx, dy)
 * offsets from the centre, as flat pairs and offsets (opening_book.h). -1
 * with a Python error. */
static int parse_openings(PyObject *seq, int32_t **xy_out, int32_t **first_out, int *n_out)
{
    PyObject *fast = PySequence_Fast(seq, "openings must be a sequence of openings");
    if (!fast)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast), total = 0;
    int32_t *first = malloc(sizeof(int32_t) * ((size_t)n + 1)), *xy = NULL;
    int rc = -1;
    if (!first || n > INT32_MAX / 2) {
        PyErr_NoMemory();
        goto done;
    }
    first[0] = 0;
    for (Py_ssize_t j = 0; j < n; j++) {
        Py_ssize_t len = PySequence_Size(PySequence_Fast_GET_ITEM(fast, j));
        if (len < 0 || len > 255) {
            PyErr_Clear();
            PyErr_Format(PyExc_ValueError, "opening %zd must be a sequence of at most 255 stones",
                         j + 1);
            goto done;
        }
        total += len;
        first[j + 1] = (int32_t)total;
    }
    xy = malloc(sizeof(int32_t) * 2 * (size_t)(total > 0 ? total : 1));
    if (!xy) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t j = 0, s = 0; j < n; j++)
        for (Py_ssize_t k = 0; k < first[j + 1] - first[j]; k++, s++) {
            PyObject *stone = PySequence_GetItem(PySequence_Fast_GET_ITEM(fast, j), k);
            long dx = -1000000, dy = -1000000;
            if (stone && PySequence_Check(stone) && PySequence_Size(stone) == 2) {
                PyObject *x = PySequence_GetItem(stone, 0), *y = PySequence_GetItem(stone, 1);
                dx = x ? PyLong_AsLong(x) : -1000000;
                dy = y ? PyLong_AsLong(y) : -1000000;
                Py_XDECREF(x);
                Py_XDECREF(y);
            }
            Py_XDECREF(stone);
            if (PyErr_Occurred() || dx < -1000 || dx > 1000 || dy < -1000 || dy > 1000) {
                PyErr_Clear();
                PyErr_Format(PyExc_ValueError,
                             "opening %zd, stone %zd: an (x, y) pair of small integers expected",
                             j + 1, k + 1);
                goto done;
            }
            xy[2 * s] = (int32_t)dx;
            xy[2 * s + 1] = (int32_t)dy;
        }
    rc = 0;
done:
    Py_DECREF(fast);
    if (rc) {
        free(first);
        free(xy);
        return -1;
    }
    *xy_out = xy;
    *first_out = first;
    *n_out = (int)n;
    return 0;
}

/* set_book(group, openings): start the group's games from openings
 * (parse_openings); an empty sequence: none. ValueError when an opening is
 * not playable in the group's variant. */
static PyObject *SelfPlay_set_book(SelfPlayObject *self, PyObject *args)
{
    int gi, n;
    PyObject *seq;
    int32_t *xy, *first;
    if (!PyArg_ParseTuple(args, "iO", &gi, &seq) || !ready_to_play(self) ||
        parse_openings(seq, &xy, &first, &n))
        return NULL;
    char err[512];
    int rc = selfplay_set_book(self->sp, gi, xy, first, n, err, sizeof(err));
    free(xy);
    free(first);
    if (rc) {
        PyErr_SetString(PyExc_ValueError, err);
        return NULL;
    }
    Py_RETURN_NONE;
}

/* opening_cells(batch, group, openings): the raster cells of each opening's
 * stones in the group's variant (checked as set_book checks them). */
static PyObject *core_opening_cells(PyObject *Py_UNUSED(m), PyObject *args)
{
    BatchObject *bo;
    int gi, n;
    PyObject *seq;
    int32_t *xy, *first;
    if (!PyArg_ParseTuple(args, "O!iO", &BatchType, &bo, &gi, &seq) || !batch_usable(bo))
        return NULL;
    if (gi < 0 || gi >= bo->b->n_groups) {
        PyErr_SetString(PyExc_IndexError, "no such group");
        return NULL;
    }
    if (parse_openings(seq, &xy, &first, &n))
        return NULL;
    opening_book book;
    char err[512];
    int rc = opening_book_init(&book, &bo->b->groups[gi].v, xy, first, n, err, sizeof(err));
    free(xy);
    free(first);
    if (rc) {
        PyErr_SetString(PyExc_ValueError, err);
        return NULL;
    }
    PyObject *out = PyList_New(book.n);
    for (int j = 0; out && j < book.n; j++) {
        PyObject *cells = PyList_New(book.first[j + 1] - book.first[j]);
        if (!cells) {
            Py_CLEAR(out);
            break;
        }
        for (int s = book.first[j]; s < book.first[j + 1]; s++)
            PyList_SET_ITEM(cells, s - book.first[j], PyLong_FromLong(book.cells[s]));
        PyList_SET_ITEM(out, j, cells);
    }
    opening_book_free(&book);
    return out;
}

/* seek(game): the next game run() plays (a shard of a run starts there). */
static PyObject *SelfPlay_seek(SelfPlayObject *self, PyObject *args)
{
    long long game;
    if (!PyArg_ParseTuple(args, "L", &game) || !ready_to_play(self))
        return NULL;
    if (game < 0) {
        PyErr_SetString(PyExc_ValueError, "game must be >= 0");
        return NULL;
    }
    self->next_game = game;
    Py_RETURN_NONE;
}

static PyObject *SelfPlay_stop(SelfPlayObject *self, PyObject *Py_UNUSED(a))
{
    if (self->sp)
        atomic_store(&self->sp->stop, 1);
    Py_RETURN_NONE;
}

static PyObject *SelfPlay_progress(SelfPlayObject *self, PyObject *Py_UNUSED(a))
{
    if (!self->sp)
        return Py_BuildValue("LL", 0LL, 0LL);
    long long g = atomic_load(&self->sp->games_done);
    long long s = atomic_load(&self->sp->steps_done);
    return Py_BuildValue("LL", g, s);
}

/* take_records(): bytes of the game records since the last call. */
static PyObject *SelfPlay_take_records(SelfPlayObject *self, PyObject *Py_UNUSED(a))
{
    if (self->running)
        return busy_error();
    PyObject *out = PyBytes_FromStringAndSize((const char *)self->records,
                                              (Py_ssize_t)(self->n_records * sizeof(game_record)));
    if (out)
        self->n_records = 0;
    return out;
}

/* close(): finish the file (pack the segments into one file). */
static PyObject *SelfPlay_close(SelfPlayObject *self, PyObject *Py_UNUSED(a))
{
    if (self->running)
        return busy_error();
    if (!self->writer)
        Py_RETURN_NONE;
    char err[1024];
    int rc;
    h5writer *w = self->writer;
    self->writer = NULL;
    Py_BEGIN_ALLOW_THREADS;
    rc = h5writer_close(w, 1, err, sizeof(err));
    Py_END_ALLOW_THREADS;
    if (rc) {
        PyErr_SetString(PyExc_OSError, err);
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *SelfPlay_record_size(PyObject *Py_UNUSED(cls), PyObject *Py_UNUSED(a))
{
    return PyLong_FromSize_t(sizeof(game_record));
}

static PyMethodDef SelfPlay_methods[] = {
    {"run", (PyCFunction)SelfPlay_run, METH_VARARGS, "Play games; returns how many ended."},
    {"seek", (PyCFunction)SelfPlay_seek, METH_VARARGS, "Set the number of the next game."},
    {"set_book", (PyCFunction)SelfPlay_set_book, METH_VARARGS,
     "set_book(group, openings): start the group's games from openings ((dx, dy) stones)."},
    {"stop", (PyCFunction)SelfPlay_stop, METH_NOARGS, "Ask a running run() to stop."},
    {"progress", (PyCFunction)SelfPlay_progress, METH_NOARGS, "(games, steps) so far."},
    {"take_records", (PyCFunction)SelfPlay_take_records, METH_NOARGS,
     "Bytes of the game records since the last call."},
    {"close", (PyCFunction)SelfPlay_close, METH_NOARGS, "Finish the HDF5 file."},
    {"record_size", (PyCFunction)SelfPlay_record_size, METH_NOARGS | METH_CLASS,
     "Bytes of one game record."},
    {NULL, NULL, 0, NULL}};

static PyTypeObject SelfPlayType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "fiverow._core.SelfPlay",
    .tp_basicsize = sizeof(SelfPlayObject),
    .tp_dealloc = (destructor)SelfPlay_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Self-play of two players over a batch, optionally written to HDF5.",
    .tp_methods = SelfPlay_methods,
    .tp_init = (initproc)SelfPlay_init,
    .tp_new = PyType_GenericNew,
};

/* check_player(dict): ValueError / TypeError if the player is not valid. */
static PyObject *core_check_player(PyObject *Py_UNUSED(m), PyObject *player)
{
    player_spec ps;
    if (module_parse_player(player, &ps))
        return NULL;
    player_spec_release(&ps);
    Py_RETURN_NONE;
}

/* ---- replays and files ---- */

/* replay(batch, group, seed, key_group, key_board, episode, actions, obs, masks,
 * rewards[, kind]): rebuild the observations (of kind `kind`, absolute by
 * default) and masks before each action of one recorded episode (and after
 * the last), and each step's rewards by seat, on group `group`'s variant. */
static PyObject *core_replay(PyObject *Py_UNUSED(m), PyObject *args)
{
    BatchObject *bo;
    int gi, key_group, key_board, kind = OBS_ABSOLUTE;
    unsigned long long seed;
    unsigned int episode;
    Py_buffer actions = {0}, obs = {0}, masks = {0}, rewards = {0};
    if (!PyArg_ParseTuple(args, "O!iKiiIy*w*w*w*|i", &BatchType, &bo, &gi, &seed, &key_group,
                          &key_board, &episode, &actions, &obs, &masks, &rewards, &kind))
        return NULL;
    PyObject *result = NULL;
    if (!bo->b || gi < 0 || gi >= bo->b->n_groups) {
        PyErr_SetString(PyExc_ValueError, "no such group");
        goto done;
    }
    if (kind != OBS_ABSOLUTE && kind != OBS_MOVER) {
        PyErr_SetString(PyExc_ValueError, "replay: unknown observation kind");
        goto done;
    }
    const variant *v = &bo->b->groups[gi].v;
    Py_ssize_t n = actions.len / 2;
    size_t obs_bytes = (size_t)v->n_planes[kind] * (size_t)v->g.n_cells;
    if (actions.len % 2 || obs.len != (Py_ssize_t)(obs_bytes * (size_t)(n + 1)) ||
        masks.len != (Py_ssize_t)((size_t)v->n_actions * (size_t)(n + 1)) ||
        rewards.len != (Py_ssize_t)(2 * sizeof(float) * (size_t)n)) {
        PyErr_SetString(PyExc_ValueError, "replay: buffer sizes do not match the actions");
        goto done;
    }
    char err[256];
    int rc;
    Py_BEGIN_ALLOW_THREADS;
    rc = replay_episode(v, seed, key_group, key_board, episode, actions.buf, (int)n, kind, obs.buf,
                        masks.buf, rewards.buf, err, sizeof(err));
    Py_END_ALLOW_THREADS;
    if (rc) {
        PyErr_SetString(PyExc_ValueError, err);
        goto done;
    }
    result = Py_None;
    Py_INCREF(result);
done:
    PyBuffer_Release(&actions);
    if (obs.obj)
        PyBuffer_Release(&obs);
    if (masks.obj)
        PyBuffer_Release(&masks);
    if (rewards.obj)
        PyBuffer_Release(&rewards);
    return result;
}

/* pack(path): make one file of a run that was killed (master + segments). */
static PyObject *core_pack(PyObject *Py_UNUSED(m), PyObject *args)
{
    const char *path;
    if (!PyArg_ParseTuple(args, "s", &path))
        return NULL;
    char err[1024];
    int rc;
    Py_BEGIN_ALLOW_THREADS;
    rc = h5writer_pack(path, err, sizeof(err));
    Py_END_ALLOW_THREADS;
    if (rc) {
        PyErr_SetString(PyExc_OSError, err);
        return NULL;
    }
    Py_RETURN_NONE;
}

/* assemble(path, shards, pack, run_json): the file of a run played in shards
 * (h5writer_assemble). */
static PyObject *core_assemble(PyObject *Py_UNUSED(m), PyObject *args)
{
    const char *path, *run_json = NULL;
    PyObject *seq;
    int pack;
    if (!PyArg_ParseTuple(args, "sOp|z", &path, &seq, &pack, &run_json))
        return NULL;
    PyObject *fast = PySequence_Fast(seq, "shards must be a sequence of shard numbers");
    if (!fast)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    int *shards = malloc(sizeof(int) * (size_t)(n ? n : 1));
    if (!shards) {
        Py_DECREF(fast);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t k = 0; k < n; k++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, k));
        if ((v == -1 && PyErr_Occurred()) || v < 0 || v > 999999) {
            PyErr_Clear();
            PyErr_SetString(PyExc_ValueError, "shards: numbers 0..999999 expected");
            free(shards);
            Py_DECREF(fast);
            return NULL;
        }
        shards[k] = (int)v;
    }
    Py_DECREF(fast);
    char err[1024];
    int rc;
    Py_BEGIN_ALLOW_THREADS;
    rc = h5writer_assemble(path, shards, (int)n, pack, run_json, err, sizeof(err));
    Py_END_ALLOW_THREADS;
    free(shards);
    if (rc) {
        PyErr_SetString(PyExc_OSError, err);
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *core_hdf5_version(PyObject *Py_UNUSED(m), PyObject *Py_UNUSED(a))
{
    unsigned maj, min, rel;
    h5writer_library_version(&maj, &min, &rel);
    return Py_BuildValue("III", maj, min, rel);
}

static PyObject *core_cpu_path(PyObject *Py_UNUSED(m), PyObject *Py_UNUSED(a))
{
    return PyUnicode_FromString(fiverow_cpu_path());
}

static PyMethodDef play_functions[] = {
    {"act", core_act, METH_VARARGS,
     "act(batch, player, actions[, policies]): a built-in player's actions on every board."},
    {"check_player", core_check_player, METH_O, "Validate a player dict."},
    {"opening_cells", core_opening_cells, METH_VARARGS,
     "opening_cells(batch, group, openings): each opening's cells in the group's variant."},
    {"pvs_probe", core_pvs_probe, METH_VARARGS,
     "pvs_probe(batch, group, board, player): the pvs player's decision and what it read."},
    {"replay", core_replay, METH_VARARGS, "Rebuild observations and masks of a recorded episode."},
    {"pack", core_pack, METH_VARARGS, "Pack a dataset left by an interrupted run."},
    {"assemble", core_assemble, METH_VARARGS, "The file of a run played in shards."},
    {"hdf5_version", core_hdf5_version, METH_NOARGS, "Version of the HDF5 library linked."},
    {"cpu_path", core_cpu_path, METH_NOARGS,
     "Code path this CPU runs: 'x86-64-v3' or 'baseline' (wheel), 'compiled' (source build)."},
    {NULL, NULL, 0, NULL}};

int module_play_add(PyObject *m)
{
    if (PyType_Ready(&SelfPlayType) < 0)
        return -1;
    Py_INCREF(&SelfPlayType);
    if (PyModule_AddObject(m, "SelfPlay", (PyObject *)&SelfPlayType) < 0) {
        Py_DECREF(&SelfPlayType);
        return -1;
    }
    if (PyModule_AddFunctions(m, play_functions) < 0)
        return -1;
    char err[256];
    if (h5writer_check_library(err, sizeof(err))) {
        PyErr_SetString(PyExc_ImportError, err);
        return -1;
    }
    return 0;
}
