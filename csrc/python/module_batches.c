/* The binding of the batch farm (batches.c): fiverow.data.Batches hands it
 * the games of its shuffle buffer and the positions it drew, and gets them
 * back as training rows written into its NumPy arrays. */
#include "python/module.h" /* Python.h first */

#include "io/training_batches.h"

typedef struct {
    PyObject_HEAD BatchObject *batch; /* the variants; kept alive */
    batches_farm *farm;
} FarmObject;

/* A C-contiguous buffer of `count` items (any count if count < 0) of
 * itemsize bytes in one of `formats`; -1 with ValueError naming `what`. */
static int get_array(PyObject *obj, Py_buffer *view, const char *what, const char *formats,
                     Py_ssize_t itemsize, Py_ssize_t count, int writable)
{
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, view, flags))
        return -1;
    if (view->itemsize != itemsize || !check_format(view, formats) ||
        (count >= 0 && view->len != count * itemsize)) {
        PyErr_Format(PyExc_ValueError,
                     "%s: C-contiguous with %zd items of %zd bytes (format %s) expected", what,
                     count, itemsize, formats);
        PyBuffer_Release(view);
        view->obj = NULL;
        return -1;
    }
    return 0;
}

static void Farm_dealloc(FarmObject *self)
{
    batches_farm_free(self->farm);
    Py_XDECREF(self->batch);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* BatchFarm(batch, kind, perms int32 [rows, cells], first int64 [groups],
 * count int32 [groups]) */
static int Farm_init(FarmObject *self, PyObject *args, PyObject *Py_UNUSED(kw))
{
    BatchObject *bo;
    int kind;
    PyObject *perms_o, *first_o, *count_o;
    if (!PyArg_ParseTuple(args, "O!iOOO", &BatchType, &bo, &kind, &perms_o, &first_o, &count_o))
        return -1;
    if (!bo->b) {
        PyErr_SetString(PyExc_ValueError, "the batch is closed");
        return -1;
    }
    const int groups = bo->b->n_groups, cells = bo->b->groups[0].v.g.n_cells;
    Py_buffer perms = {0}, first = {0}, count = {0};
    int rc = -1;
    if (get_array(perms_o, &perms, "perms", "i", 4, -1, 0) ||
        get_array(first_o, &first, "first", "ql", 8, groups, 0) ||
        get_array(count_o, &count, "count", "i", 4, groups, 0))
        goto done;
    if (perms.len % ((Py_ssize_t)cells * 4)) {
        PyErr_SetString(PyExc_ValueError, "perms: rows of one entry per cell expected");
        goto done;
    }
    char err[256];
    batches_farm *f = batches_farm_new(bo->b, kind, perms.buf, perms.len / ((Py_ssize_t)cells * 4),
                                       first.buf, count.buf, err, sizeof(err));
    if (!f) {
        PyErr_SetString(PyExc_ValueError, err);
        goto done;
    }
    batches_farm_free(self->farm);
    Py_XDECREF(self->batch);
    self->farm = f;
    Py_INCREF(bo);
    self->batch = bo;
    rc = 0;
done:
    if (perms.obj)
        PyBuffer_Release(&perms);
    if (first.obj)
        PyBuffer_Release(&first);
    if (count.obj)
        PyBuffer_Release(&count);
    return rc;
}

enum {
    A_GROUP,
    A_SEED,
    A_KEY_GROUP,
    A_BOARD,
    A_EPISODE,
    A_START,
    A_LENGTH,
    A_WINNER,
    A_ACTIONS,
    A_POLICY,
    A_POS_GAME,
    A_POS_PLY,
    A_POS_SYM,
    A_OBS,
    A_MASK,
    A_ACTION,
    A_OUT_POLICY,
    A_VALUE,
    N_ARGS
};

/* fill(group, seed, key_group, board, episode, start, length, winner,
 * actions, policy, game, ply, symmetry, obs, mask, action, out_policy,
 * value): the games (the first eight: one entry per game), their moves and
 * policies (None: none), the positions (one entry each) and the outputs (one
 * row each; out_policy None: not written). Returns None, or (game, reason)
 * when a game does not replay. */
static PyObject *Farm_fill(FarmObject *self, PyObject *args)
{
    if (!self->farm) {
        PyErr_SetString(PyExc_ValueError, "BatchFarm is not initialised");
        return NULL;
    }
    PyObject *o[N_ARGS];
    if (!PyArg_UnpackTuple(args, "fill", N_ARGS, N_ARGS, &o[0], &o[1], &o[2], &o[3], &o[4], &o[5],
                           &o[6], &o[7], &o[8], &o[9], &o[10], &o[11], &o[12], &o[13], &o[14],
                           &o[15], &o[16], &o[17]))
        return NULL;
    const batches_farm *f = self->farm;
    Py_buffer v[N_ARGS];
    memset(v, 0, sizeof(v));
    PyObject *result = NULL;
    Py_ssize_t n_games = PyObject_Length(o[A_GROUP]), n_pos = PyObject_Length(o[A_POS_GAME]);
    if (n_games < 0 || n_pos < 0)
        goto done;
    const Py_ssize_t A = f->n_actions;
    const Py_ssize_t obs_bytes = (Py_ssize_t)f->obs_bytes;
    if (get_array(o[A_GROUP], &v[A_GROUP], "group", "i", 4, n_games, 0) ||
        get_array(o[A_SEED], &v[A_SEED], "seed", "QL", 8, n_games, 0) ||
        get_array(o[A_KEY_GROUP], &v[A_KEY_GROUP], "key_group", "i", 4, n_games, 0) ||
        get_array(o[A_BOARD], &v[A_BOARD], "board", "i", 4, n_games, 0) ||
        get_array(o[A_EPISODE], &v[A_EPISODE], "episode", "I", 4, n_games, 0) ||
        get_array(o[A_START], &v[A_START], "start", "ql", 8, n_games, 0) ||
        get_array(o[A_LENGTH], &v[A_LENGTH], "length", "i", 4, n_games, 0) ||
        get_array(o[A_WINNER], &v[A_WINNER], "winner", "b", 1, n_games, 0) ||
        get_array(o[A_ACTIONS], &v[A_ACTIONS], "actions", "h", 2, -1, 0))
        goto done;
    const Py_ssize_t n_steps = v[A_ACTIONS].len / 2;
    if (o[A_POLICY] != Py_None &&
        get_array(o[A_POLICY], &v[A_POLICY], "policy", "eH", 2, n_steps * A, 0))
        goto done;
    if (get_array(o[A_POS_GAME], &v[A_POS_GAME], "game", "ql", 8, n_pos, 0) ||
        get_array(o[A_POS_PLY], &v[A_POS_PLY], "ply", "i", 4, n_pos, 0) ||
        get_array(o[A_POS_SYM], &v[A_POS_SYM], "symmetry", "i", 4, n_pos, 0) ||
        get_array(o[A_OBS], &v[A_OBS], "obs", "B", 1, n_pos * obs_bytes, 1) ||
        get_array(o[A_MASK], &v[A_MASK], "mask", "B?", 1, n_pos * A, 1) ||
        get_array(o[A_ACTION], &v[A_ACTION], "action", "ql", 8, n_pos, 1) ||
        get_array(o[A_VALUE], &v[A_VALUE], "value", "f", 4, n_pos, 1))
        goto done;
    if (o[A_OUT_POLICY] != Py_None) {
        if (o[A_POLICY] == Py_None) {
            PyErr_SetString(PyExc_ValueError, "out_policy given without policies to read");
            goto done;
        }
        if (get_array(o[A_OUT_POLICY], &v[A_OUT_POLICY], "out_policy", "f", 4, n_pos * A, 1))
            goto done;
    }
    batches_games g = {
        .n = n_games,
        .group = v[A_GROUP].buf,
        .seed = v[A_SEED].buf,
        .key_group = v[A_KEY_GROUP].buf,
        .board = v[A_BOARD].buf,
        .episode = v[A_EPISODE].buf,
        .start = v[A_START].buf,
        .length = v[A_LENGTH].buf,
        .winner = v[A_WINNER].buf,
        .actions = v[A_ACTIONS].buf,
        .n_steps = n_steps,
        .policy = v[A_POLICY].obj ? v[A_POLICY].buf : NULL,
    };
    batches_positions p = {.n = n_pos,
                           .game = v[A_POS_GAME].buf,
                           .ply = v[A_POS_PLY].buf,
                           .symmetry = v[A_POS_SYM].buf};
    batches_out out = {
        .obs = v[A_OBS].buf,
        .mask = v[A_MASK].buf,
        .action = v[A_ACTION].buf,
        .policy = v[A_OUT_POLICY].obj ? v[A_OUT_POLICY].buf : NULL,
        .value = v[A_VALUE].buf,
    };
    const char *why = batches_check(f, &g, &p);
    if (why) {
        PyErr_SetString(PyExc_ValueError, why);
        goto done;
    }
    batches_error err;
    int rc;
    Py_BEGIN_ALLOW_THREADS;
    rc = batches_fill(f, &g, &p, &out, &err);
    Py_END_ALLOW_THREADS;
    if (rc == -2)
        PyErr_NoMemory();
    else if (rc == -1)
        result = Py_BuildValue("Ls", (long long)err.game, err.message);
    else
        result = Py_NewRef(Py_None);
done:
    for (int k = 0; k < N_ARGS; k++)
        if (v[k].obj)
            PyBuffer_Release(&v[k]);
    return result;
}

static PyMethodDef Farm_methods[] = {
    {"fill", (PyCFunction)Farm_fill, METH_VARARGS,
     "Replay the positions drawn and write them into the output arrays."},
    {NULL, NULL, 0, NULL}};

static PyTypeObject FarmType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "fiverow._core.BatchFarm",
    .tp_basicsize = sizeof(FarmObject),
    .tp_dealloc = (destructor)Farm_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Training rows rebuilt in C from recorded games (fiverow.data.Batches).",
    .tp_methods = Farm_methods,
    .tp_init = (initproc)Farm_init,
    .tp_new = PyType_GenericNew,
};

int module_batches_add(PyObject *m)
{
    if (PyType_Ready(&FarmType) < 0)
        return -1;
    Py_INCREF(&FarmType);
    if (PyModule_AddObject(m, "BatchFarm", (PyObject *)&FarmType) < 0) {
        Py_DECREF(&FarmType);
        return -1;
    }
    return 0;
}
