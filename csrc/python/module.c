/* The CPython binding, and nothing else: argument checking, buffers, the GIL.
 * Outputs are NumPy arrays allocated by Python and bound here through the
 * buffer protocol (no NumPy C API), so C writes straight into them. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>

#include "env/batch.h"
#include "game/game.h"
#include "game/rule_family.h"
#include "openings/opening.h"
#include "players/player.h"
#include "python/module.h"
#include "rules/renju.h"
#include "variants/registry.h"

#ifdef _OPENMP
#include <omp.h>
#endif

#define MAX_REPORTED_ERRORS 64

/* The largest thread count of a batch: more only makes OpenMP fail to create
 * its team (a crash), and no machine has that many processors. */
#define MAX_THREADS 1024

/* The outputs a group binds: the arrays of group.out, and of group.fin in
 * same-step mode (named final_*), each by its place in the group. */
enum per_board_kind { PER_ONE, PER_OBS, PER_ACTIONS, PER_SEATS };

typedef struct out_def {
    const char *name;
    int itemsize;
    const char *formats; /* accepted buffer format characters */
    int same_step_only;
    int per_board; /* per_board_kind */
    size_t offset; /* of the pointer in struct group */
} out_def;

#define OUT(name, size, fmt, per, field) {name, size, fmt, 0, per, offsetof(group, out.field)}
#define FIN(name, size, fmt, per, field) {name, size, fmt, 1, per, offsetof(group, fin.field)}

static const out_def out_defs[] = {
    OUT("obs", 1, "B", PER_OBS, obs),
    OUT("mask", 1, "B?", PER_ACTIONS, mask),
    OUT("reward", 4, "f", PER_ONE, reward),
    OUT("rewards", 4, "f", PER_SEATS, rewards),
    OUT("terminated", 1, "?B", PER_ONE, terminated),
    OUT("truncated", 1, "?B", PER_ONE, truncated),
    OUT("to_play", 1, "b", PER_ONE, to_play),
    OUT("winner", 1, "b", PER_ONE, winner),
    OUT("episode_length", 4, "i", PER_ONE, episode_length),
    OUT("illegal", 1, "?B", PER_ONE, illegal),
    OUT("sampled", 8, "ql", PER_ONE, sampled),
    OUT("black_seat", 1, "b", PER_ONE, black_seat),
    OUT("phase", 1, "b", PER_ONE, phase),
    OUT("opening", 1, "b", PER_ONE, opening),
    OUT("scores", 4, "i", PER_SEATS, scores),
    OUT("cast_points", 4, "i", PER_SEATS, cast_points),
    OUT("casts", 4, "i", PER_ONE, casts),
    OUT("captures", 4, "i", PER_SEATS, captures),
    OUT("agent_seat", 1, "b", PER_ONE, agent_seat),
    OUT("waiting", 1, "?B", PER_ONE, waiting),
    {"has_final", 1, "?B", 1, PER_ONE, offsetof(group, out.has_final)},
    FIN("final_obs", 1, "B", PER_OBS, obs),
    FIN("final_mask", 1, "B?", PER_ACTIONS, mask),
    FIN("final_rewards", 4, "f", PER_SEATS, rewards),
    FIN("final_to_play", 1, "b", PER_ONE, to_play),
    FIN("final_winner", 1, "b", PER_ONE, winner),
    FIN("final_length", 4, "i", PER_ONE, episode_length),
    FIN("final_illegal", 1, "?B", PER_ONE, illegal),
    FIN("final_black_seat", 1, "b", PER_ONE, black_seat),
    FIN("final_phase", 1, "b", PER_ONE, phase),
    FIN("final_opening", 1, "b", PER_ONE, opening),
    FIN("final_scores", 4, "i", PER_SEATS, scores),
    FIN("final_cast_points", 4, "i", PER_SEATS, cast_points),
    FIN("final_casts", 4, "i", PER_ONE, casts),
    FIN("final_captures", 4, "i", PER_SEATS, captures),
    FIN("final_agent_seat", 1, "b", PER_ONE, agent_seat),
};
#define N_OUTS ((int)(sizeof(out_defs) / sizeof(out_defs[0])))

PyObject *busy_error(void)
{
    PyErr_SetString(
        PyExc_RuntimeError,
        "this fiverow batch is being stepped by another thread; use one batch per thread");
    return NULL;
}

static size_t per_board(const batch *b, const group *g, int id)
{
    switch (out_defs[id].per_board) {
    case PER_OBS:
        return (size_t)g->v.n_planes[b->obs_kind] * (size_t)g->v.g.n_cells;
    case PER_ACTIONS:
        return (size_t)g->v.n_actions;
    case PER_SEATS:
        return 2;
    default:
        return 1;
    }
}

static void set_out_pointer(group *g, int id, void *p)
{
    memcpy((char *)g + out_defs[id].offset, &p, sizeof(p));
}

static int outputs_ready(BatchObject *self)
{
    batch *b = self->b;
    for (int gi = 0; gi < b->n_groups; gi++)
        for (int id = 0; id < N_OUTS; id++) {
            if (out_defs[id].same_step_only && b->autoreset != AUTORESET_SAME_STEP)
                continue;
            if (!self->views[gi * N_OUTS + id].obj) {
                PyErr_Format(PyExc_RuntimeError, "group %d: output '%s' is not bound", gi,
                             out_defs[id].name);
                return 0;
            }
        }
    return 1;
}

/* The batch can run a command now: initialised, not in use by another
 * thread, every output bound. 0 with an exception set otherwise. */
static int ready(BatchObject *self)
{
    if (!self->b) {
        PyErr_SetString(PyExc_RuntimeError, "Batch is not initialised");
        return 0;
    }
    if (self->busy) {
        busy_error();
        return 0;
    }
    return outputs_ready(self);
}

int check_format(const Py_buffer *view, const char *accepted)
{
    const char *f = view->format ? view->format : "B";
    if (*f == '<' || *f == '=' || *f == '@' || *f == '|')
        f++;
    return f[0] && !f[1] && strchr(accepted, f[0]) != NULL;
}

/* ---- construction ---- */

static int parse_params(PyObject *dict, variant_params *p)
{
    char err[512];
    variant_params_default(p);
    if (!PyDict_Check(dict)) {
        PyErr_SetString(PyExc_TypeError, "variant parameters must be a dict");
        return -1;
    }
    /* "size" first so height / width can refine it */
    PyObject *size = PyDict_GetItemString(dict, "size");
    for (int pass = 0; pass < 2; pass++) {
        PyObject *key, *value;
        Py_ssize_t pos = 0;
        while (PyDict_Next(dict, &pos, &key, &value)) {
            const char *k = PyUnicode_AsUTF8(key);
            if (!k)
                return -1;
            int is_size = strcmp(k, "size") == 0;
            if ((pass == 0) != is_size)
                continue;
            PyObject *s = PyObject_Str(value);
            if (!s)
                return -1;
            const char *text = PyUnicode_AsUTF8(s);
            int rc = text ? variant_params_set(p, k, text, err, sizeof(err)) : -1;
            Py_DECREF(s);
            if (rc) {
                if (text)
                    PyErr_SetString(PyExc_ValueError, err);
                return -1;
            }
        }
    }
    (void)size;
    return 0;
}

static void Batch_dealloc(BatchObject *self)
{
    if (self->views && self->b)
        for (int i = 0; i < self->b->n_groups * N_OUTS; i++)
            if (self->views[i].obj)
                PyBuffer_Release(&self->views[i]);
    PyMem_Free(self->views);
    batch_destroy(self->b);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* An integer argument in lo..hi: ValueError naming it and the range otherwise
 * (an int too large for C included), TypeError if it is not an integer. */
static int int_in_range(PyObject *obj, const char *what, long long lo, long long hi, int *out)
{
    int overflow;
    long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (overflow || v < lo || v > hi) {
        PyErr_Format(PyExc_ValueError, "%s must be in %lld..%lld, got %R", what, lo, hi, obj);
        return -1;
    }
    *out = (int)v;
    return 0;
}

static int Batch_init(BatchObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"groups", "num_threads", "autoreset", "illegal", "obs_kind", NULL};
    PyObject *groups, *threads_obj;
    int num_threads, autoreset, illegal, obs_kind;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOiii", kwlist, &groups, &threads_obj, &autoreset,
                                     &illegal, &obs_kind))
        return -1;
    if (int_in_range(threads_obj, "num_threads", 1, MAX_THREADS, &num_threads))
        return -1;
    if (self->b) {
        PyErr_SetString(PyExc_RuntimeError, "Batch is already initialised");
        return -1;
    }
    if (autoreset < 0 || autoreset > 2 || illegal < 0 || illegal > 2 || obs_kind < 0 ||
        obs_kind > 1) {
        PyErr_SetString(PyExc_ValueError, "autoreset / illegal / obs_kind code out of range");
        return -1;
    }
    PyObject *seq = PySequence_Fast(groups, "groups must be a sequence of (params, count)");
    if (!seq)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n < 1 || n > 1024) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "a batch needs 1..1024 groups");
        return -1;
    }
    variant_params *params = PyMem_Calloc((size_t)n, sizeof(variant_params));
    int *counts = PyMem_Calloc((size_t)n, sizeof(int));
    int ok = params && counts;
    for (Py_ssize_t i = 0; ok && i < n; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
        PyObject *pdict, *count;
        if (!PyArg_ParseTuple(item, "OO", &pdict, &count) ||
            int_in_range(count, "num_envs", 1, INT_MAX, &counts[i]) ||
            parse_params(pdict, &params[i]))
            ok = 0;
    }
    Py_DECREF(seq);
    if (ok) {
        char err[512];
        self->b = batch_create(params, counts, (int)n, num_threads, autoreset, illegal, obs_kind,
                               err, sizeof(err));
        if (!self->b) {
            PyErr_SetString(PyExc_ValueError, err);
            ok = 0;
        }
    } else if (!PyErr_Occurred()) {
        PyErr_NoMemory();
    }
    PyMem_Free(params);
    PyMem_Free(counts);
    if (!ok)
        return -1;
    self->views = PyMem_Calloc((size_t)self->b->n_groups * N_OUTS, sizeof(Py_buffer));
    if (!self->views) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static int check_group(BatchObject *self, int g)
{
    if (!self->b) {
        PyErr_SetString(PyExc_RuntimeError, "Batch is not initialised");
        return 0;
    }
    if (g < 0 || g >= self->b->n_groups) {
        PyErr_Format(PyExc_IndexError, "group %d out of range 0..%d", g, self->b->n_groups - 1);
        return 0;
    }
    return 1;
}

static int check_board(BatchObject *self, int g, int i)
{
    if (!check_group(self, g))
        return 0;
    if (i < 0 || i >= self->b->groups[g].n) {
        PyErr_Format(PyExc_IndexError, "env index %d out of range 0..%d", i,
                     self->b->groups[g].n - 1);
        return 0;
    }
    return 1;
}

/* ---- methods ---- */

/* The names of a family's traits (rule_family.h), as a tuple. */
static PyObject *trait_names(const rule_family *f)
{
    PyObject *list = PyList_New(0);
    for (int k = 0; list && k < RULE_TRAITS; k++)
        if (f->traits >> k & 1u) {
            PyObject *name = PyUnicode_FromString(rule_trait_names[k]);
            if (!name || PyList_Append(list, name))
                Py_CLEAR(list);
            Py_XDECREF(name);
        }
    PyObject *out = list ? PyList_AsTuple(list) : NULL;
    Py_XDECREF(list);
    return out;
}

static PyObject *Batch_group_info(BatchObject *self, PyObject *args)
{
    int g;
    if (!PyArg_ParseTuple(args, "i", &g) || !check_group(self, g))
        return NULL;
    const group *gr = &self->b->groups[g];
    const variant *v = &gr->v;
    char desc[1024];
    if (variant_params_describe(&v->p, desc, sizeof(desc)))
        return PyErr_Format(PyExc_RuntimeError, "parameter description overflow");
    int kind = self->b->obs_kind;
    PyObject *planes = PyList_New(v->n_planes[kind]);
    if (!planes)
        return NULL;
    for (int p = 0; p < v->n_planes[kind]; p++)
        PyList_SET_ITEM(planes, p, PyUnicode_FromString(v->plane_names[kind][p]));
    PyObject *specials = PyList_New(v->n_special);
    PyObject *phases = PyList_New(v->n_phases);
    if (!specials || !phases) {
        Py_XDECREF(specials);
        Py_XDECREF(phases);
        Py_DECREF(planes);
        return NULL;
    }
    for (int k = 0; k < v->n_special; k++)
        PyList_SET_ITEM(specials, k, PyUnicode_FromString(v->special_names[k]));
    for (int k = 0; k < v->n_phases; k++)
        PyList_SET_ITEM(phases, k,
                        Py_BuildValue("(is)", v->phases[k], protocol_phase_name(v->phases[k])));
    PyObject *traits = trait_names(v->rules);
    if (!traits) {
        Py_DECREF(specials);
        Py_DECREF(phases);
        Py_DECREF(planes);
        return NULL;
    }
    int action_cells = v->n_actions - v->n_special;
    /* the largest value of each plane: 1, or the family's counts */
    PyObject *highs = PyTuple_New(v->n_planes[kind]);
    for (int p = 0; highs && p < v->n_planes[kind]; p++) {
        int rule_plane = v->plane_rule >= 0 && p >= v->plane_rule &&
                         p < v->plane_rule + v->n_rule_planes && v->rules->plane_max;
        PyTuple_SET_ITEM(highs, p, PyLong_FromLong(rule_plane ? v->rules->plane_max : 1));
    }
    if (!highs) {
        Py_DECREF(traits);
        Py_DECREF(specials);
        Py_DECREF(phases);
        Py_DECREF(planes);
        return NULL;
    }
    return Py_BuildValue(
        "{s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:N,s:s,s:y#,s:K,s:N,s:N,s:s,s:N,s:i,s:N}",
        "num_envs", gr->n, "n_actions", v->n_actions, "n_special", v->n_special, "n_cells",
        v->g.n_cells, "height", v->g.height, "width", v->g.width, "max_steps", v->max_steps,
        "state_size", (int)v->state_size, "centre", v->g.centre, "n_axes", v->g.n_axes, "planes",
        planes, "params", desc, "on_board", (const char *)v->g.on_board, (Py_ssize_t)v->g.n_cells,
        "fingerprint", (unsigned long long)v->fingerprint, "specials", specials, "phases", phases,
        "family", v->rules->name, "traits", traits, "action_cells", action_cells, "plane_high",
        highs);
}

static PyObject *Batch_bind(BatchObject *self, PyObject *args)
{
    int g;
    const char *name;
    PyObject *array;
    if (!PyArg_ParseTuple(args, "isO", &g, &name, &array) || !check_group(self, g))
        return NULL;
    if (self->busy)
        return busy_error();
    int id = -1;
    for (int k = 0; k < N_OUTS; k++)
        if (strcmp(out_defs[k].name, name) == 0)
            id = k;
    if (id < 0)
        return PyErr_Format(PyExc_ValueError, "unknown output '%s'", name);
    Py_buffer view;
    if (PyObject_GetBuffer(array, &view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS | PyBUF_FORMAT))
        return NULL;
    group *gr = &self->b->groups[g];
    size_t want = (size_t)gr->n * per_board(self->b, gr, id) * (size_t)out_defs[id].itemsize;
    if (view.itemsize != out_defs[id].itemsize || !check_format(&view, out_defs[id].formats) ||
        (size_t)view.len != want) {
        PyErr_Format(PyExc_ValueError,
                     "output '%s' needs %zu bytes of item size %d (format %s), got %zd bytes "
                     "of item size %zd (format %s)",
                     name, want, out_defs[id].itemsize, out_defs[id].formats, view.len,
                     view.itemsize, view.format ? view.format : "B");
        PyBuffer_Release(&view);
        return NULL;
    }
    Py_buffer *slot = &self->views[g * N_OUTS + id];
    if (slot->obj)
        PyBuffer_Release(slot);
    *slot = view;
    set_out_pointer(gr, id, view.buf);
    Py_RETURN_NONE;
}

/* Fill per-group pointers from a sequence of buffers (one per group). */
static int get_group_buffers(BatchObject *self, PyObject *seq_obj, Py_buffer *views, int itemsize,
                             const char *formats, const char *what)
{
    batch *b = self->b;
    PyObject *seq = PySequence_Fast(seq_obj, "expected one array per group");
    if (!seq)
        return -1;
    if (PySequence_Fast_GET_SIZE(seq) != b->n_groups) {
        PyErr_Format(PyExc_ValueError, "expected %d %s arrays (one per group), got %zd",
                     b->n_groups, what, PySequence_Fast_GET_SIZE(seq));
        Py_DECREF(seq);
        return -1;
    }
    int gi;
    for (gi = 0; gi < b->n_groups; gi++) {
        Py_buffer *v = &views[gi];
        if (PyObject_GetBuffer(PySequence_Fast_GET_ITEM(seq, gi), v,
                               PyBUF_C_CONTIGUOUS | PyBUF_FORMAT))
            break;
        if (v->itemsize != itemsize || !check_format(v, formats) ||
            v->len != (Py_ssize_t)b->groups[gi].n * itemsize) {
            PyErr_Format(PyExc_ValueError,
                         "group %d: %s must be %d contiguous items of size %d (format %s)", gi,
                         what, b->groups[gi].n, itemsize, formats);
            PyBuffer_Release(v);
            break;
        }
    }
    Py_DECREF(seq);
    if (gi == b->n_groups)
        return 0;
    for (int j = 0; j < gi; j++)
        PyBuffer_Release(&views[j]);
    return -1;
}

static PyObject *Batch_reset(BatchObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"seed", "masks", NULL};
    PyObject *seed_obj = Py_None, *masks_obj = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|OO", kwlist, &seed_obj, &masks_obj))
        return NULL;
    if (!ready(self))
        return NULL;
    uint64_t seed = 0;
    int has_seed = seed_obj != Py_None;
    if (has_seed) {
        seed = PyLong_AsUnsignedLongLongMask(seed_obj);
        if (PyErr_Occurred())
            return NULL;
    }
    batch *b = self->b;
    Py_buffer views[1024];
    uint8_t *masks[1024];
    int has_masks = masks_obj != Py_None;
    if (has_masks) {
        if (get_group_buffers(self, masks_obj, views, 1, "?B", "reset mask"))
            return NULL;
        for (int gi = 0; gi < b->n_groups; gi++)
            masks[gi] = views[gi].buf;
    }
    self->busy = 1;
    Py_BEGIN_ALLOW_THREADS batch_reset(b, has_seed, seed, has_masks ? masks : NULL);
    Py_END_ALLOW_THREADS self->busy = 0;
    if (has_masks)
        for (int gi = 0; gi < b->n_groups; gi++)
            PyBuffer_Release(&views[gi]);
    Py_RETURN_NONE;
}

typedef int (*step_fn)(batch *, const int64_t *const *, batch_error *, int);

/* A step of every board (batch_step), or of the boards waiting for an
 * external opponent (batch_opponent_step): None, or (count, [(group, index,
 * action, reason), ...]) when actions were refused and nothing moved. */
static PyObject *run_step(BatchObject *self, PyObject *args, step_fn fn)
{
    PyObject *actions_obj;
    if (!PyArg_ParseTuple(args, "O", &actions_obj))
        return NULL;
    if (!ready(self))
        return NULL;
    batch *b = self->b;
    Py_buffer views[1024];
    const int64_t *actions[1024];
    if (get_group_buffers(self, actions_obj, views, 8, "ql", "actions"))
        return NULL;
    for (int gi = 0; gi < b->n_groups; gi++)
        actions[gi] = views[gi].buf;
    batch_error errs[MAX_REPORTED_ERRORS];
    int n_err;
    self->busy = 1;
    Py_BEGIN_ALLOW_THREADS n_err = fn(b, actions, errs, MAX_REPORTED_ERRORS);
    Py_END_ALLOW_THREADS self->busy = 0;
    for (int gi = 0; gi < b->n_groups; gi++)
        PyBuffer_Release(&views[gi]);
    if (n_err == 0)
        Py_RETURN_NONE;
    int shown = n_err < MAX_REPORTED_ERRORS ? n_err : MAX_REPORTED_ERRORS;
    PyObject *list = PyList_New(shown);
    if (!list)
        return NULL;
    for (int k = 0; k < shown; k++) {
        PyObject *t = Py_BuildValue("(iiLs)", errs[k].group, errs[k].index,
                                    (long long)errs[k].action, errs[k].reason);
        if (!t) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, k, t);
    }
    return Py_BuildValue("(iN)", n_err, list);
}

static PyObject *Batch_step(BatchObject *self, PyObject *args)
{
    return run_step(self, args, batch_step);
}

static PyObject *Batch_opponent_step(BatchObject *self, PyObject *args)
{
    if (self->b && self->b->opp.kind != OPPONENT_EXTERNAL)
        return PyErr_Format(PyExc_RuntimeError, "this batch has no external opponent");
    return run_step(self, args, batch_opponent_step);
}

/* set_opponent(kind, player, agent_seat): kind 0 none, 1 built-in (player a
 * dict as act() takes), 2 external; agent_seat 0, 1 or 2 (random). */
static PyObject *Batch_set_opponent(BatchObject *self, PyObject *args)
{
    int kind, agent_seat;
    PyObject *player_obj;
    if (!PyArg_ParseTuple(args, "iOi", &kind, &player_obj, &agent_seat) || !ready(self))
        return NULL;
    player_spec ps;
    player_spec_default(&ps, PLAYER_RANDOM);
    if (kind == OPPONENT_BUILTIN && module_parse_player(player_obj, &ps))
        return NULL;
    const char *why = batch_set_opponent(self->b, kind, &ps, agent_seat);
    player_spec_release(&ps); /* the opponent holds its own reference */
    if (why)
        return PyErr_Format(PyExc_ValueError, "%s", why);
    Py_RETURN_NONE;
}

static PyObject *Batch_sample(BatchObject *self, PyObject *Py_UNUSED(ignored))
{
    if (!ready(self))
        return NULL;
    self->busy = 1;
    Py_BEGIN_ALLOW_THREADS batch_sample(self->b);
    Py_END_ALLOW_THREADS self->busy = 0;
    Py_RETURN_NONE;
}

static PyObject *Batch_rollout(BatchObject *self, PyObject *args)
{
    int steps;
    if (!PyArg_ParseTuple(args, "i", &steps))
        return NULL;
    if (!ready(self))
        return NULL;
    if (steps < 0)
        return PyErr_Format(PyExc_ValueError, "steps must be >= 0, got %d", steps);
    rollout_stats st;
    self->busy = 1;
    Py_BEGIN_ALLOW_THREADS batch_rollout(self->b, steps, &st);
    Py_END_ALLOW_THREADS self->busy = 0;
    return Py_BuildValue("{s:L,s:L,s:L,s:L,s:L,s:L,s:L}", "steps", (long long)st.steps, "episodes",
                         (long long)st.episodes, "seat0_wins", (long long)st.wins[0], "seat1_wins",
                         (long long)st.wins[1], "draws", (long long)st.draws, "truncations",
                         (long long)st.truncations, "length_sum", (long long)st.length_sum);
}

static PyObject *Batch_get_state(BatchObject *self, PyObject *args)
{
    int g, i;
    if (!PyArg_ParseTuple(args, "ii", &g, &i) || !check_board(self, g, i))
        return NULL;
    const group *gr = &self->b->groups[g];
    return PyBytes_FromStringAndSize((const char *)group_board(gr, i),
                                     (Py_ssize_t)gr->v.state_size);
}

/* The observation of one board as a seat sees it (either seat, to act or
 * not), in planes of the given kind: a fresh bytes object. */
static PyObject *Batch_observe(BatchObject *self, PyObject *args)
{
    int g, i, seat, kind;
    if (!PyArg_ParseTuple(args, "iiii", &g, &i, &seat, &kind) || !check_board(self, g, i))
        return NULL;
    if (seat != 0 && seat != 1)
        return PyErr_Format(PyExc_ValueError, "seat must be 0 or 1, got %d", seat);
    if (kind != OBS_ABSOLUTE && kind != OBS_MOVER)
        return PyErr_Format(PyExc_ValueError, "observation kind must be 0 or 1, got %d", kind);
    const group *gr = &self->b->groups[g];
    Py_ssize_t size = (Py_ssize_t)gr->v.n_planes[kind] * gr->v.g.n_cells;
    PyObject *out = PyBytes_FromStringAndSize(NULL, size);
    if (out)
        game_write_obs_for(&gr->v, group_board(gr, i), kind, seat,
                           (uint8_t *)PyBytes_AS_STRING(out));
    return out;
}

static PyObject *Batch_set_state(BatchObject *self, PyObject *args)
{
    int g, i;
    Py_buffer state;
    if (!PyArg_ParseTuple(args, "iiy*", &g, &i, &state))
        return NULL;
    if (!check_board(self, g, i) || !ready(self)) {
        PyBuffer_Release(&state);
        return NULL;
    }
    const char *why = batch_install_state(self->b, g, i, state.buf, (size_t)state.len);
    PyBuffer_Release(&state);
    if (why)
        return PyErr_Format(PyExc_ValueError, "not a valid state for this variant: %s", why);
    Py_RETURN_NONE;
}

static PyObject *Batch_clone(BatchObject *self, PyObject *args)
{
    int g, src, dst;
    if (!PyArg_ParseTuple(args, "iii", &g, &src, &dst) || !check_board(self, g, src) ||
        !check_board(self, g, dst) || !ready(self))
        return NULL;
    group *gr = &self->b->groups[g];
    if (src != dst)
        memcpy(group_board(gr, dst), group_board(gr, src), gr->v.state_size);
    batch_refresh_board(self->b, g, dst);
    Py_RETURN_NONE;
}

static PyObject *Batch_load_position(BatchObject *self, PyObject *args)
{
    int g, i, colour;
    Py_buffer cells, status = {0};
    PyObject *scores_obj = Py_None;
    int32_t scores[2], *five = NULL;
    int five_len = 0;
    PyObject *result = NULL;
    if (!PyArg_ParseTuple(args, "iiy*i|z*O", &g, &i, &cells, &colour, &status, &scores_obj))
        return NULL;
    const char *why = NULL;
    if (!check_board(self, g, i) || !ready(self))
        goto done;
    group *gr = &self->b->groups[g];
    if (cells.len != gr->v.g.n_cells || (status.buf && status.len != gr->v.g.n_cells)) {
        PyErr_Format(PyExc_ValueError, "position needs %d cells, got %zd", gr->v.g.n_cells,
                     cells.len);
        goto done;
    }
    if (scores_obj != Py_None &&
        !PyArg_ParseTuple(scores_obj, "ii;scores must be two ints", &scores[0], &scores[1]))
        goto done;
    five = PyMem_Malloc(sizeof(int32_t) * (size_t)gr->v.g.n_cells);
    if (!five) {
        PyErr_NoMemory();
        goto done;
    }
    why = batch_load_position(self->b, g, i, cells.buf, colour, status.buf,
                              scores_obj != Py_None ? scores : NULL, five, &five_len);
    if (why && five_len) { /* already won: the caller names the five's cells */
        result = PyTuple_New(five_len);
        for (int k = 0; result && k < five_len; k++)
            PyTuple_SET_ITEM(result, k, PyLong_FromLong(five[k]));
    } else if (why) {
        PyErr_Format(PyExc_ValueError, "position refused: %s", why);
    }
done:
    PyMem_Free(five);
    PyBuffer_Release(&cells);
    if (status.buf)
        PyBuffer_Release(&status);
    if (PyErr_Occurred()) {
        Py_XDECREF(result);
        return NULL;
    }
    if (result)
        return result;
    Py_RETURN_NONE;
}

static PyObject *Batch_load_tiles(BatchObject *self, PyObject *args)
{
    int g, i;
    Py_buffer values, hands = {0};
    if (!PyArg_ParseTuple(args, "iiy*|z*", &g, &i, &values, &hands))
        return NULL;
    if (check_board(self, g, i) && ready(self)) {
        const variant *v = &self->b->groups[g].v;
        if (values.len != v->g.n_cells ||
            (hands.buf && hands.len != 2 * (Py_ssize_t)v->p.modulus)) {
            PyErr_Format(PyExc_ValueError, "tiles need %d cells and hands 2 x %d counts",
                         v->g.n_cells, v->p.modulus);
        } else {
            const char *why = batch_load_tiles(self->b, g, i, values.buf, hands.buf);
            if (why)
                PyErr_Format(PyExc_ValueError, "position refused: %s", why);
        }
    }
    PyBuffer_Release(&values);
    if (hands.buf)
        PyBuffer_Release(&hands);
    if (PyErr_Occurred())
        return NULL;
    Py_RETURN_NONE;
}

/* MODLINSEQ: the segments of a board, each a list of cells along its walk. */
static PyObject *Batch_segments(BatchObject *self, PyObject *args)
{
    int g, i;
    if (!PyArg_ParseTuple(args, "ii", &g, &i) || !check_board(self, g, i))
        return NULL;
    const group *gr = &self->b->groups[g];
    if (!gr->v.rules->segments)
        return PyErr_Format(PyExc_ValueError, "segments exist only in modlinseq");
    enum { MAX_SEGMENTS = 4096, MAX_SEGMENT_CELLS = 65536 };
    int16_t *cells = PyMem_Malloc(sizeof(int16_t) * MAX_SEGMENT_CELLS);
    int *lengths = PyMem_Malloc(sizeof(int) * MAX_SEGMENTS);
    if (!cells || !lengths) {
        PyMem_Free(cells);
        PyMem_Free(lengths);
        return PyErr_NoMemory();
    }
    int n = gr->v.rules->segments(&gr->v, group_board(gr, i), cells, MAX_SEGMENT_CELLS, lengths,
                                  MAX_SEGMENTS);
    if (n > MAX_SEGMENTS)
        n = MAX_SEGMENTS;
    PyObject *out = PyList_New(n);
    for (int k = 0, at = 0; out && k < n; k++) {
        PyObject *seg = PyTuple_New(lengths[k]);
        for (int j = 0; seg && j < lengths[k]; j++)
            PyTuple_SET_ITEM(seg, j, PyLong_FromLong(cells[at + j]));
        if (!seg) {
            Py_CLEAR(out);
            break;
        }
        PyList_SET_ITEM(out, k, seg);
        at += lengths[k];
    }
    PyMem_Free(cells);
    PyMem_Free(lengths);
    return out;
}

static PyObject *Batch_board(BatchObject *self, PyObject *args)
{
    int g, i;
    if (!PyArg_ParseTuple(args, "ii", &g, &i) || !check_board(self, g, i))
        return NULL;
    const group *gr = &self->b->groups[g];
    const variant *v = &gr->v;
    const board_hdr *h = group_board(gr, i);
    /* protocol fields: offered cells as bytes, the symmetries kept by the stones */
    uint8_t offered[GEOM_MAX_CELLS] = {0};
    int declared = 0, offers = 0, stabilizer = 0, opening = -1;
    if (v->off_protocol) {
        const protocol_state *ps = protocol_of_c(v, h);
        bits_to_bytes(protocol_offered_c(v, h), v->g.n_cells, offered);
        declared = ps->declared;
        offers = ps->offers;
        stabilizer = ps->stabilizer;
        opening = ps->opening;
    }
    /* the family's own: gomorpion's statuses and sieges, modlinseq's tiles,
     * hands, the tiles left in the bag */
    static _Thread_local rule_details d;
    memset(&d, 0, sizeof(d));
    if (v->rules->details)
        v->rules->details(v, h, &d);
    rule_figures f;
    game_figures(v, h, &f);
    Py_ssize_t n = v->g.n_cells;
    PyObject *extra =
        Py_BuildValue("{s:y#,s:y#,s:i,s:i,s:(ii)}", "tiles", (const char *)d.tiles, n, "hands",
                      (const char *)d.hands, (Py_ssize_t)d.n_hands, "bag_left", d.bag_left,
                      "turn_tiles", d.turn_tiles, "captures", f.captures[0], f.captures[1]);
    if (!extra)
        return NULL;
    PyObject *dict = Py_BuildValue(
        "{s:y#,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:I,s:i,s:s,s:i,s:i,s:i,s:i,s:y#,s:y#,s:y#,"
        "s:(ii),s:(ii),s:i}",
        "cells", (const char *)board_cells_c(v, h), n, "colour", h->colour, "seat", h->seat,
        "black_seat", h->black_seat, "status", h->status, "winner", h->winner, "steps", h->steps,
        "last_move", h->last_move, "n_legal", h->n_legal, "episode", h->episode, "phase", h->phase,
        "phase_name", protocol_phase_name(h->phase), "declared", declared, "offers", offers,
        "stabilizer", stabilizer, "opening", opening, "offered", (const char *)offered, n,
        "stone_status", (const char *)d.stone_status, n, "siege", (const char *)d.siege, n,
        "scores", f.scores[0], f.scores[1], "cast_points", f.cast_points[0], f.cast_points[1],
        "casts", f.casts);
    if (!dict || PyDict_Update(dict, extra)) {
        Py_XDECREF(dict);
        Py_DECREF(extra);
        return NULL;
    }
    Py_DECREF(extra);
    return dict;
}

static PyObject *Batch_windows(BatchObject *self, PyObject *args)
{
    int g, k;
    if (!PyArg_ParseTuple(args, "ii", &g, &k) || !check_group(self, g))
        return NULL;
    if (k < 1 || k > 64)
        return PyErr_Format(PyExc_ValueError, "window length must be 1..64, got %d", k);
    const geometry *geo = &self->b->groups[g].v.g;
    int n = geometry_windows(geo, k, NULL, 0);
    int16_t *cells = PyMem_Malloc(sizeof(int16_t) * (size_t)(n ? n : 1) * (size_t)k);
    if (!cells)
        return PyErr_NoMemory();
    geometry_windows(geo, k, cells, n);
    PyObject *list = PyList_New(n);
    for (int w = 0; list && w < n; w++) {
        PyObject *t = PyTuple_New(k);
        for (int j = 0; t && j < k; j++)
            PyTuple_SET_ITEM(t, j, PyLong_FromLong(cells[(size_t)w * k + j]));
        if (!t) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, w, t);
    }
    PyMem_Free(cells);
    return list;
}

static PyObject *Batch_neighbours(BatchObject *self, PyObject *args)
{
    int g, cell;
    if (!PyArg_ParseTuple(args, "ii", &g, &cell) || !check_group(self, g))
        return NULL;
    const geometry *geo = &self->b->groups[g].v.g;
    if (cell < 0 || cell >= geo->n_cells)
        return PyErr_Format(PyExc_IndexError, "cell %d out of range", cell);
    PyObject *t = PyTuple_New(geo->n_od);
    for (int od = 0; t && od < geo->n_od; od++) {
        int d = od, nxt = geom_step(geo, cell, &d);
        PyTuple_SET_ITEM(t, od, Py_BuildValue("(ii)", nxt, d));
    }
    return t;
}

static PyMethodDef Batch_methods[] = {
    {"group_info", (PyCFunction)Batch_group_info, METH_VARARGS, "Facts about group g."},
    {"bind", (PyCFunction)Batch_bind, METH_VARARGS, "Bind an output array of group g."},
    {"reset", (PyCFunction)(void (*)(void))Batch_reset, METH_VARARGS | METH_KEYWORDS,
     "Reset boards (all, or where masks[g] is set)."},
    {"set_opponent", (PyCFunction)Batch_set_opponent, METH_VARARGS,
     "Seat an opponent: kind (0 none, 1 built-in, 2 external), player, agent_seat."},
    {"opponent_step", (PyCFunction)Batch_opponent_step, METH_VARARGS,
     "An external opponent's actions on the boards waiting for it."},
    {"step", (PyCFunction)Batch_step, METH_VARARGS,
     "Step every board; None, or (n_errors, [(group, index, action, reason)])."},
    {"sample", (PyCFunction)Batch_sample, METH_NOARGS, "Random legal actions into 'sampled'."},
    {"rollout", (PyCFunction)Batch_rollout, METH_VARARGS, "Random play in C; statistics."},
    {"get_state", (PyCFunction)Batch_get_state, METH_VARARGS, "State bytes of one board."},
    {"set_state", (PyCFunction)Batch_set_state, METH_VARARGS, "Install state bytes."},
    {"observe", (PyCFunction)Batch_observe, METH_VARARGS,
     "Observation of one board as a seat sees it (planes of a kind), as bytes."},
    {"clone", (PyCFunction)Batch_clone, METH_VARARGS, "Copy board src onto dst."},
    {"load_position", (PyCFunction)Batch_load_position, METH_VARARGS,
     "Install a position from cell codes."},
    {"board", (PyCFunction)Batch_board, METH_VARARGS, "Cells and header of one board."},
    {"load_tiles", (PyCFunction)Batch_load_tiles, METH_VARARGS,
     "MODLINSEQ: install tiles (value + 1 per cell) and optionally the hands."},
    {"segments", (PyCFunction)Batch_segments, METH_VARARGS,
     "MODLINSEQ: every segment of two or more tiles, as cells along its walk."},
    {"windows", (PyCFunction)Batch_windows, METH_VARARGS, "k-cell line windows."},
    {"neighbours", (PyCFunction)Batch_neighbours, METH_VARARGS,
     "(next cell, direction after the step) along each oriented direction."},
    {NULL, NULL, 0, NULL}};

PyTypeObject BatchType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "fiverow._core.Batch",
    .tp_basicsize = sizeof(BatchObject),
    .tp_dealloc = (destructor)Batch_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Groups of game boards stepped together in C.",
    .tp_methods = Batch_methods,
    .tp_init = (initproc)Batch_init,
    .tp_new = PyType_GenericNew,
};

static PyObject *core_resolve(PyObject *Py_UNUSED(m), PyObject *dict)
{
    variant_params p;
    if (parse_params(dict, &p))
        return NULL;
    variant v;
    char err[512], desc[1024];
    if (variant_init(&v, &p, err, sizeof(err))) {
        PyErr_SetString(PyExc_ValueError, err);
        return NULL;
    }
    variant_params_describe(&v.p, desc, sizeof(desc)); /* as resolved: tess drops 'edge' */
    variant_free(&v);
    return PyUnicode_FromString(desc);
}

static PyObject *core_param_table(PyObject *Py_UNUSED(m), PyObject *Py_UNUSED(a))
{
    int n = variant_param_count();
    PyObject *list = PyList_New(n);
    for (int i = 0; list && i < n; i++) {
        const char *name;
        const char *const *choices;
        const char *applies;
        int lo, hi, is_set;
        variant_param_info(i, &name, &choices, &lo, &hi, &is_set, &applies);
        PyObject *ch;
        if (choices) {
            ch = PyList_New(0);
            for (int j = 0; ch && choices[j]; j++) {
                PyObject *s = PyUnicode_FromString(choices[j]);
                if (!s || PyList_Append(ch, s)) {
                    Py_XDECREF(s);
                    Py_CLEAR(ch);
                    break;
                }
                Py_DECREF(s);
            }
        } else {
            ch = Py_NewRef(Py_None);
        }
        PyObject *row =
            ch ? Py_BuildValue("(sNiiNz)", name, ch, lo, hi, PyBool_FromLong(is_set), applies)
               : NULL;
        if (!row) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, i, row);
    }
    return list;
}

/* Every value of the `rule` parameter: its family's name and traits. */
static PyObject *core_rule_families(PyObject *Py_UNUSED(m), PyObject *Py_UNUSED(a))
{
    PyObject *out = PyDict_New();
    for (int i = 0; out && i < registry_rule_count(); i++) {
        const rule_entry *e = registry_rule(i);
        PyObject *traits = trait_names(e->family);
        PyObject *row = traits ? Py_BuildValue("(sN)", e->family->name, traits) : NULL;
        if (!row || PyDict_SetItemString(out, e->name, row))
            Py_CLEAR(out);
        Py_XDECREF(row);
    }
    return out;
}

/* Black's forbidden points of a renju position given as cell codes. */
static PyObject *core_renju_forbidden(PyObject *Py_UNUSED(m), PyObject *args)
{
    Py_buffer cells;
    int height, width;
    if (!PyArg_ParseTuple(args, "y*ii", &cells, &height, &width))
        return NULL;
    variant_params p;
    variant_params_default(&p);
    char why[256];
    variant_params_set(&p, "rule", "renju", why, sizeof(why));
    p.height = height;
    p.width = width;
    variant v;
    char err[512];
    if (height < 3 || width < 3 || height > GEOM_MAX_SIDE || width > GEOM_MAX_SIDE ||
        cells.len != (Py_ssize_t)height * width) {
        PyBuffer_Release(&cells);
        return PyErr_Format(PyExc_ValueError, "board must be HxW cells with 3 <= H, W <= %d",
                            GEOM_MAX_SIDE);
    }
    if (variant_init(&v, &p, err, sizeof(err))) {
        PyBuffer_Release(&cells);
        PyErr_SetString(PyExc_ValueError, err);
        return NULL;
    }
    uint8_t board[GEOM_MAX_CELLS + 1];
    memcpy(board, cells.buf, (size_t)cells.len);
    PyBuffer_Release(&cells);
    board[v.g.n_cells] = CELL_OFF;
    PyObject *out = PyList_New(0);
    for (int c = 0; out && c < v.g.n_cells; c++) {
        if (board[c] > CELL_WHITE) {
            Py_CLEAR(out);
            PyErr_Format(PyExc_ValueError, "cell %d holds %d: cells are 0 empty, 1 black, 2 white",
                         c, board[c]);
            break;
        }
        if (board[c] != CELL_EMPTY)
            continue;
        int s;
        Py_BEGIN_ALLOW_THREADS s = renju_status(&v, board, c);
        Py_END_ALLOW_THREADS if (s >= RENJU_OVERLINE)
        {
            PyObject *t = Py_BuildValue("(ii)", c, s);
            if (!t || PyList_Append(out, t))
                Py_CLEAR(out);
            Py_XDECREF(t);
        }
    }
    variant_free(&v);
    return out;
}

static PyObject *core_openings(PyObject *Py_UNUSED(m), PyObject *Py_UNUSED(a))
{
    PyObject *t = PyTuple_New(26);
    for (int k = 0; t && k < 26; k++)
        PyTuple_SET_ITEM(t, k, PyUnicode_FromString(protocol_opening_name(k)));
    return t;
}

/* opening_stones(): the 26 canonical openings' stones, ((x, y) offsets from
 * the centre, x right, y up; black, white, black), in opening order. */
static PyObject *core_opening_stones(PyObject *Py_UNUSED(m), PyObject *Py_UNUSED(a))
{
    PyObject *t = PyTuple_New(N_OPENINGS);
    for (int k = 0; t && k < N_OPENINGS; k++) {
        int xy[6];
        protocol_opening_stones(k, xy);
        PyObject *o = Py_BuildValue("((ii)(ii)(ii))", xy[0], xy[1], xy[2], xy[3], xy[4], xy[5]);
        if (!o) {
            Py_CLEAR(t);
            break;
        }
        PyTuple_SET_ITEM(t, k, o);
    }
    return t;
}

static PyObject *core_opening_of(PyObject *Py_UNUSED(m), PyObject *args)
{
    int wx, wy, bx, by;
    if (!PyArg_ParseTuple(args, "iiii", &wx, &wy, &bx, &by))
        return NULL;
    return PyLong_FromLong(protocol_opening_of(wx, wy, bx, by));
}

static PyObject *core_max_threads(PyObject *Py_UNUSED(m), PyObject *Py_UNUSED(a))
{
#ifdef _OPENMP
    int procs = omp_get_num_procs();
    return PyLong_FromLong(procs < MAX_THREADS ? procs : MAX_THREADS);
#else
    return PyLong_FromLong(1);
#endif
}

static PyMethodDef core_methods[] = {
    {"resolve", core_resolve, METH_O,
     "Validate variant parameters; 'key=value' lines of every parameter."},
    {"rule_families", core_rule_families, METH_NOARGS,
     "Every value of the rule parameter: (its family's name, its traits)."},
    {"param_table", core_param_table, METH_NOARGS,
     "[(name, choices or None, lo, hi)] for every variant parameter."},
    {"renju_forbidden", core_renju_forbidden, METH_VARARGS,
     "[(cell, status)] of black's forbidden points (status 2 overline, 3 double-four, "
     "4 double-three)."},
    {"openings", core_openings, METH_NOARGS, "Names of the 26 canonical renju openings."},
    {"opening_stones", core_opening_stones, METH_NOARGS,
     "Stones of the 26 canonical renju openings, (x, y) offsets from the centre."},
    {"opening_of", core_opening_of, METH_VARARGS,
     "Canonical opening index of white at (wx, wy), black at (bx, by) from the centre."},
    {"max_threads", core_max_threads, METH_NOARGS, "Processors OpenMP can use (at most 1024)."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT, .m_name = "_core",         .m_doc = "fiverow's C engine.",
    .m_size = -1,          .m_methods = core_methods,
};

PyMODINIT_FUNC PyInit__core(void)
{
    if (PyType_Ready(&BatchType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&core_module);
    if (!m)
        return NULL;
    Py_INCREF(&BatchType);
    if (PyModule_AddObject(m, "Batch", (PyObject *)&BatchType) < 0) {
        Py_DECREF(&BatchType);
        Py_DECREF(m);
        return NULL;
    }
    if (module_play_add(m) < 0 || module_search_add(m) < 0 || module_writer_add(m) < 0 ||
        module_solve_add(m) < 0 || module_batches_add(m) < 0 || module_net_add(m) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    PyModule_AddStringConstant(m, "PARAM_NAMES", variant_param_names());
    PyModule_AddIntConstant(m, "MAX_THREADS", MAX_THREADS);
    pthread_atfork(NULL, NULL, batch_after_fork_in_child);
    return m;
}
