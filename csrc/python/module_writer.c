/* The HDF5 writer from Python: opening it from a dict, and EpisodeWriter,
 * which writes episodes played in Python (a training loop's self-play)
 * through the same writer thread and file format as fiverow generate. */
#include "python/module.h" /* Python.h first */

#include <stdlib.h>
#include <string.h>

#include "base/half.h"
#include "env/selfplay.h"
#include "io/h5writer.h"
#include "openings/opening.h"

static const char *dict_str(PyObject *d, const char *key)
{
    PyObject *x = PyDict_GetItemString(d, key);
    return x && PyUnicode_Check(x) ? PyUnicode_AsUTF8(x) : NULL;
}

/* The writer from {"path", "overwrite", "gzip", "flush_seconds", "chunks", "run",
 * "groups": [{"name", "config"}]}. */
h5writer *module_open_writer(BatchObject *bo, int record_obs, int record_policy, PyObject *w)
{
    batch *b = bo->b;
    if (!PyDict_Check(w)) {
        PyErr_SetString(PyExc_TypeError, "writer must be a dict");
        return NULL;
    }
    PyObject *groups = PyDict_GetItemString(w, "groups");
    const char *path = dict_str(w, "path"), *run = dict_str(w, "run");
    if (!path || !run || !groups || !PyList_Check(groups) || PyList_Size(groups) != b->n_groups) {
        PyErr_SetString(PyExc_ValueError,
                        "writer needs 'path', 'run' and one {'name', 'config'} per group");
        return NULL;
    }
    h5_group_desc desc[64];
    if (b->n_groups > 64) {
        PyErr_SetString(PyExc_ValueError, "at most 64 variants per dataset");
        return NULL;
    }
    for (int gi = 0; gi < b->n_groups; gi++) {
        PyObject *g = PyList_GetItem(groups, gi);
        desc[gi].name = PyDict_Check(g) ? dict_str(g, "name") : NULL;
        desc[gi].config_json = PyDict_Check(g) ? dict_str(g, "config") : NULL;
        if (!desc[gi].name || !desc[gi].config_json) {
            PyErr_Format(PyExc_ValueError, "writer group %d needs 'name' and 'config'", gi);
            return NULL;
        }
    }
    h5writer_options o = {0};
    double gzip = 4, flush = 2.0;
    PyObject *ov = PyDict_GetItemString(w, "overwrite");
    o.overwrite = ov && PyObject_IsTrue(ov);

    if (module_get_number(w, "gzip", &gzip) || module_get_number(w, "flush_seconds", &flush))
        return NULL;
    if (gzip < 0 || gzip > 9 || gzip != (int)gzip) {
        PyErr_SetString(PyExc_ValueError, "gzip must be an integer level 0..9 (0: none)");
        return NULL;
    }
    if (!(flush > 0 && flush < 1e6)) {
        PyErr_SetString(PyExc_ValueError, "flush_seconds must be a positive number of seconds");
        return NULL;
    }
    o.gzip = (int)gzip;
    o.flush_seconds = flush;
    /* "chunks": "auto" (default), "zlib" or "fast": see h5chunk.h */
    const char *chunks = PyDict_GetItemString(w, "chunks") ? dict_str(w, "chunks") : "auto";
    static const char *chunk_names[] = {"auto", "zlib", "fast"};
    o.chunks = -1;
    for (int k = 0; chunks && k < 3; k++)
        if (!strcmp(chunks, chunk_names[k]))
            o.chunks = k;
    if (o.chunks < 0) {
        PyErr_SetString(PyExc_ValueError, "writer 'chunks' must be 'auto', 'zlib' or 'fast'");
        return NULL;
    }
    o.run_json = run;
    char err[1024];
    h5writer *hw;
    Py_BEGIN_ALLOW_THREADS;
    hw = h5writer_open(path, b, desc, record_obs, record_policy, &o, err, sizeof(err));
    Py_END_ALLOW_THREADS;
    if (!hw)
        PyErr_SetString(PyExc_OSError, err);
    return hw;
}

/* ---- EpisodeWriter ---- */

typedef struct {
    PyObject_HEAD BatchObject *batch;
    h5writer *writer;
    episode_buf *bufs[2];
    int n[2], cap[2];
    int cur;
    int record_obs, record_policy;
} EpisodeWriterObject;

static void free_episodes(episode_buf *bufs, int n)
{
    for (int k = 0; k < n; k++) {
        free(bufs[k].action);
        free(bufs[k].seat);
        free(bufs[k].colour);
        free(bufs[k].obs);
        free(bufs[k].policy);
        memset(&bufs[k], 0, sizeof(bufs[k]));
    }
}

static int close_writer(EpisodeWriterObject *self, char *err, size_t errlen)
{
    if (!self->writer)
        return 0;
    int rc = 0;
    h5writer *w = self->writer;
    self->writer = NULL;
    if (self->n[self->cur] && h5writer_submit_n(w, self->bufs[self->cur], self->n[self->cur]))
        rc = -1;
    Py_BEGIN_ALLOW_THREADS;
    if (h5writer_close(w, 1, err, errlen))
        rc = -1;
    Py_END_ALLOW_THREADS;
    for (int k = 0; k < 2; k++) {
        free_episodes(self->bufs[k], self->n[k]);
        self->n[k] = 0;
    }
    return rc;
}

static void EpisodeWriter_dealloc(EpisodeWriterObject *self)
{
    char err[1024];
    close_writer(self, err, sizeof(err));
    free(self->bufs[0]);
    free(self->bufs[1]);
    Py_XDECREF(self->batch);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int EpisodeWriter_init(EpisodeWriterObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"batch", "writer", "record_obs", "record_policy", NULL};
    BatchObject *bo;
    PyObject *spec;
    int record_obs, record_policy;
    if (self->batch) {
        PyErr_SetString(PyExc_RuntimeError, "EpisodeWriter is already initialised");
        return -1;
    }
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!Opp", kwlist, &BatchType, &bo, &spec,
                                     &record_obs, &record_policy))
        return -1;
    if (!bo->b) {
        PyErr_SetString(PyExc_RuntimeError, "Batch is not initialised");
        return -1;
    }
    Py_INCREF(bo);
    self->batch = bo;
    self->record_obs = record_obs;
    self->record_policy = record_policy;
    self->writer = module_open_writer(bo, record_obs, record_policy, spec);
    return self->writer ? 0 : -1;
}

/* What is wrong with an episode's values, or NULL: they must be what a game
 * could have produced, or replay() would fail on the file later. */
static const char *episode_values_bad(const variant *v, const int16_t *actions, const int8_t *seats,
                                      const int8_t *colours, Py_ssize_t n, int winner,
                                      int black_seat, int opening)
{
    for (Py_ssize_t k = 0; k < n; k++) {
        if (actions[k] < 0 || actions[k] >= v->n_actions)
            return "actions must be in [0, n_actions)";
        if ((seats[k] != 0 && seats[k] != 1) || (colours[k] != 0 && colours[k] != 1))
            return "seats and colours must be 0 or 1";
    }
    if (winner < -1 || winner > 1)
        return "winner must be 0, 1 or -1 (none)";
    if (black_seat != 0 && black_seat != 1)
        return "black_seat must be 0 or 1";
    if (opening < -1 || opening >= N_OPENINGS)
        return "opening must be a renju opening 0..25, or -1 for none";
    return NULL;
}

/* add(group, board, episode, game, actions, seats, colours, obs, policy,
 *     winner, truncated, score0, score1, black_seat, opening[, player0, player1]):
 * player0 / player1 index the run's players in seats 0 and 1 (default 0, 1;
 * the caller checks them against the run's list) */
static PyObject *EpisodeWriter_add(EpisodeWriterObject *self, PyObject *args)
{
    int gi, board, winner, truncated, score0, score1, black_seat, opening;
    int player0 = 0, player1 = 1;
    unsigned int episode;
    long long game;
    Py_buffer actions = {0}, seats = {0}, colours = {0};
    PyObject *obs_obj, *policy_obj;
    if (!PyArg_ParseTuple(args, "iiILy*y*y*OOiiiiii|ii", &gi, &board, &episode, &game, &actions,
                          &seats, &colours, &obs_obj, &policy_obj, &winner, &truncated, &score0,
                          &score1, &black_seat, &opening, &player0, &player1))
        return NULL;
    Py_buffer obs = {0}, policy = {0};
    PyObject *result = NULL;
    batch *b = self->batch->b;
    if (!self->writer) {
        PyErr_SetString(PyExc_RuntimeError, "the writer is closed");
        goto done;
    }
    if (gi < 0 || gi >= b->n_groups || board < 0 || board >= b->groups[gi].n) {
        PyErr_SetString(PyExc_ValueError, "no such group or board");
        goto done;
    }
    if (player0 < 0 || player0 > INT8_MAX || player1 < 0 || player1 > INT8_MAX) {
        PyErr_SetString(PyExc_ValueError, "players must be indices 0..127 into the run's players");
        goto done;
    }
    const variant *v = &b->groups[gi].v;
    Py_ssize_t n = actions.len / 2;
    size_t obs_bytes = (size_t)v->n_planes[OBS_ABSOLUTE] * (size_t)v->g.n_cells;
    if (actions.len % 2 || seats.len != n || colours.len != n || n < 1 || n > v->max_steps) {
        PyErr_SetString(PyExc_ValueError,
                        "actions (int16), seats and colours (int8) must have the same length, "
                        "between 1 and max_steps");
        goto done;
    }
    if ((obs_obj != Py_None) != self->record_obs ||
        (policy_obj != Py_None) != self->record_policy) {
        PyErr_SetString(PyExc_ValueError,
                        "obs and policy must be given exactly when the writer records them");
        goto done;
    }
    if (obs_obj != Py_None && (PyObject_GetBuffer(obs_obj, &obs, PyBUF_C_CONTIGUOUS) < 0 ||
                               (size_t)obs.len != obs_bytes * (size_t)n)) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "obs: uint8 [steps, planes, height, width] expected");
        goto done;
    }
    if (policy_obj != Py_None &&
        (PyObject_GetBuffer(policy_obj, &policy, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0 ||
         !check_format(&policy, "f") ||
         (size_t)policy.len != sizeof(float) * (size_t)v->n_actions * (size_t)n)) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "policy: float32 [steps, n_actions] expected");
        goto done;
    }
    const char *bad =
        episode_values_bad(v, actions.buf, seats.buf, colours.buf, n, winner, black_seat, opening);
    if (bad) {
        PyErr_SetString(PyExc_ValueError, bad);
        goto done;
    }
    int c = self->cur;
    if (self->n[c] == self->cap[c]) {
        int cap = self->cap[c] ? 2 * self->cap[c] : 64;
        episode_buf *nb = realloc(self->bufs[c], sizeof(episode_buf) * (size_t)cap);
        if (!nb) {
            PyErr_NoMemory();
            goto done;
        }
        self->bufs[c] = nb;
        self->cap[c] = cap;
    }
    episode_buf *e = &self->bufs[c][self->n[c]];
    memset(e, 0, sizeof(*e));
    e->action = malloc(sizeof(int16_t) * (size_t)n);
    e->seat = malloc((size_t)n);
    e->colour = malloc((size_t)n);
    e->obs = obs.obj ? malloc(obs_bytes * (size_t)n) : NULL;
    e->policy = policy.obj ? malloc(sizeof(uint16_t) * (size_t)v->n_actions * (size_t)n) : NULL;
    if (!e->action || !e->seat || !e->colour || (obs.obj && !e->obs) ||
        (policy.obj && !e->policy)) {
        free_episodes(e, 1);
        PyErr_NoMemory();
        goto done;
    }
    memcpy(e->action, actions.buf, (size_t)actions.len);
    memcpy(e->seat, seats.buf, (size_t)n);
    memcpy(e->colour, colours.buf, (size_t)n);
    if (obs.obj)
        memcpy(e->obs, obs.buf, (size_t)obs.len);
    if (policy.obj) {
        const float *src = policy.buf;
        for (size_t k = 0; k < (size_t)v->n_actions * (size_t)n; k++)
            e->policy[k] = half_from_float(src[k]);
    }
    e->n = e->cap = (int32_t)n;
    e->played = 1;
    e->group = gi;
    e->board = board;
    e->episode = episode;
    e->seed = b->seed; /* the seed of the last reset, which keyed the boards */
    e->game = game;
    e->player[0] = (int8_t)player0;
    e->player[1] = (int8_t)player1;
    e->winner = (int8_t)winner;
    e->truncated = (int8_t)truncated;
    e->scores[0] = score0;
    e->scores[1] = score1;
    e->black_seat = (int8_t)black_seat;
    e->opening = (int8_t)opening;
    self->n[c]++;
    result = Py_None;
    Py_INCREF(result);
done:
    PyBuffer_Release(&actions);
    PyBuffer_Release(&seats);
    PyBuffer_Release(&colours);
    if (obs.obj)
        PyBuffer_Release(&obs);
    if (policy.obj)
        PyBuffer_Release(&policy);
    return result;
}

/* flush(): hand the episodes added so far to the writer thread. */
static PyObject *EpisodeWriter_flush(EpisodeWriterObject *self, PyObject *Py_UNUSED(a))
{
    if (!self->writer) {
        PyErr_SetString(PyExc_RuntimeError, "the writer is closed");
        return NULL;
    }
    int c = self->cur, rc = 0;
    if (self->n[c] == 0)
        Py_RETURN_NONE;
    Py_BEGIN_ALLOW_THREADS;
    rc = h5writer_submit_n(self->writer, self->bufs[c], self->n[c]);
    if (!rc && self->n[c ^ 1] > 0) {
        /* the other set was submitted last time: once written, reuse it
         * (an empty set was never submitted, and may be a null pointer) */
        h5writer_wait(self->writer, self->bufs[c ^ 1]);
    }
    Py_END_ALLOW_THREADS;
    if (rc) {
        PyErr_SetString(PyExc_OSError, h5writer_failed(self->writer));
        return NULL;
    }
    free_episodes(self->bufs[c ^ 1], self->n[c ^ 1]);
    self->n[c ^ 1] = 0;
    self->cur ^= 1;
    Py_RETURN_NONE;
}

static PyObject *EpisodeWriter_close(EpisodeWriterObject *self, PyObject *Py_UNUSED(a))
{
    char err[1024];
    if (close_writer(self, err, sizeof(err))) {
        PyErr_SetString(PyExc_OSError, err);
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyMethodDef EpisodeWriter_methods[] = {
    {"add", (PyCFunction)EpisodeWriter_add, METH_VARARGS, "Add one finished episode."},
    {"flush", (PyCFunction)EpisodeWriter_flush, METH_NOARGS,
     "Hand the episodes added so far to the writer thread."},
    {"close", (PyCFunction)EpisodeWriter_close, METH_NOARGS, "Write the rest; pack the file."},
    {NULL, NULL, 0, NULL}};

static PyTypeObject EpisodeWriterType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "fiverow._core.EpisodeWriter",
    .tp_basicsize = sizeof(EpisodeWriterObject),
    .tp_dealloc = (destructor)EpisodeWriter_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Episodes played in Python, written by the HDF5 writer thread.",
    .tp_methods = EpisodeWriter_methods,
    .tp_init = (initproc)EpisodeWriter_init,
    .tp_new = PyType_GenericNew,
};

int module_writer_add(PyObject *m)
{
    if (PyType_Ready(&EpisodeWriterType) < 0)
        return -1;
    Py_INCREF(&EpisodeWriterType);
    if (PyModule_AddObject(m, "EpisodeWriter", (PyObject *)&EpisodeWriterType) < 0) {
        Py_DECREF(&EpisodeWriterType);
        return -1;
    }
    return 0;
}
