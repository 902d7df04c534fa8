/* The binding of the batched search (search.h): buffers and the GIL. */
#include "python/module.h" /* Python.h first */

#include <string.h>

#include "env/puct_search.h"

typedef struct {
    PyObject_HEAD BatchObject *batch;
    search *s;
} SearchObject;

static void Search_dealloc(SearchObject *self)
{
    search_free(self->s);
    Py_XDECREF(self->batch);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int Search_init(SearchObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"batch",
                             "simulations",
                             "c_puct",
                             "dirichlet_alpha",
                             "dirichlet_fraction",
                             "leaves_per_round",
                             "reuse_tree",
                             "seed",
                             NULL};
    BatchObject *bo;
    search_params p = {0};
    unsigned long long seed = 0;
    if (self->s) {
        PyErr_SetString(PyExc_RuntimeError, "Search is already initialised");
        return -1;
    }
    if (!PyArg_ParseTupleAndKeywords(
            args, kwds, "O!ifffipK", kwlist, &BatchType, &bo, &p.simulations, &p.c_puct,
            &p.dirichlet_alpha, &p.dirichlet_fraction, &p.leaves_per_round, &p.reuse_tree, &seed))
        return -1;
    if (!bo->b) {
        PyErr_SetString(PyExc_RuntimeError, "Batch is not initialised");
        return -1;
    }
    p.seed = seed;
    char err[256];
    self->s = search_new(bo->b, &p, err, sizeof(err));
    if (!self->s) {
        PyErr_SetString(PyExc_ValueError, err);
        return -1;
    }
    Py_INCREF(bo);
    self->batch = bo;
    return 0;
}

/* Buffers of one kind, one per group, each of at least rows_per_board *
 * boards rows of row_items items of itemsize bytes. */
static int get_buffers(SearchObject *self, PyObject *seq, Py_buffer *views, int itemsize,
                       const char *formats, size_t rows_per_board, int per_action, int per_obs,
                       const char *what, int writable)
{
    batch *b = self->batch->b;
    if (!PySequence_Check(seq) || PySequence_Size(seq) != b->n_groups) {
        PyErr_Format(PyExc_ValueError, "%s: one array per group (%d) expected", what, b->n_groups);
        return -1;
    }
    for (int gi = 0; gi < b->n_groups; gi++) {
        const variant *v = &b->groups[gi].v;
        PyObject *item = PySequence_GetItem(seq, gi);
        int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
        int rc = item ? PyObject_GetBuffer(item, &views[gi], flags) : -1;
        Py_XDECREF(item);
        size_t row = per_action ? (size_t)v->n_actions
                     : per_obs  ? (size_t)v->n_planes[b->obs_kind] * (size_t)v->g.n_cells
                                : 1;
        size_t want = rows_per_board * (size_t)b->groups[gi].n * row;
        if (rc == 0 && (views[gi].itemsize != itemsize || !check_format(&views[gi], formats) ||
                        (size_t)views[gi].len < want * (size_t)itemsize)) {
            PyErr_Format(PyExc_ValueError,
                         "%s of group %d: C-contiguous with at least %zu items of %d bytes "
                         "(format %s) expected",
                         what, gi, want, itemsize, formats);
            PyBuffer_Release(&views[gi]);
            rc = -1;
        }
        if (rc) {
            for (int k = 0; k < gi; k++)
                PyBuffer_Release(&views[k]);
            return -1;
        }
    }
    return 0;
}

static void release(Py_buffer *views, int n)
{
    for (int k = 0; k < n; k++)
        PyBuffer_Release(&views[k]);
}

static int usable(SearchObject *self)
{
    if (!self->s) {
        PyErr_SetString(PyExc_RuntimeError, "Search is not initialised");
        return 0;
    }
    if (self->batch->busy) {
        busy_error();
        return 0;
    }
    return 1;
}

#define MAX_GROUPS 64

static PyObject *Search_begin(SearchObject *self, PyObject *Py_UNUSED(a))
{
    if (!usable(self))
        return NULL;
    self->batch->busy = 1;
    Py_BEGIN_ALLOW_THREADS;
    search_begin(self->s);
    Py_END_ALLOW_THREADS;
    self->batch->busy = 0;
    Py_RETURN_NONE;
}

static PyObject *Search_abort(SearchObject *self, PyObject *Py_UNUSED(a))
{
    if (!usable(self))
        return NULL;
    search_abort(self->s);
    Py_RETURN_NONE;
}

/* select(obs, masks, to_play, boards) -> [count per group] */
static PyObject *Search_select(SearchObject *self, PyObject *args)
{
    PyObject *obs, *masks, *to_play, *boards;
    if (!PyArg_ParseTuple(args, "OOOO", &obs, &masks, &to_play, &boards) || !usable(self))
        return NULL;
    batch *b = self->batch->b;
    if (b->n_groups > MAX_GROUPS)
        return PyErr_Format(PyExc_ValueError, "at most %d groups", MAX_GROUPS);
    size_t L = (size_t)search_leaves_per_round(self->s);
    Py_buffer v_obs[MAX_GROUPS], v_masks[MAX_GROUPS], v_play[MAX_GROUPS], v_boards[MAX_GROUPS];
    if (get_buffers(self, obs, v_obs, 1, "B", L, 0, 1, "obs", 1))
        return NULL;
    if (get_buffers(self, masks, v_masks, 1, "B?", L, 1, 0, "masks", 1)) {
        release(v_obs, b->n_groups);
        return NULL;
    }
    if (get_buffers(self, to_play, v_play, 1, "b", L, 0, 0, "to_play", 1)) {
        release(v_obs, b->n_groups);
        release(v_masks, b->n_groups);
        return NULL;
    }
    if (get_buffers(self, boards, v_boards, 4, "il", L, 0, 0, "boards", 1)) {
        release(v_obs, b->n_groups);
        release(v_masks, b->n_groups);
        release(v_play, b->n_groups);
        return NULL;
    }
    uint8_t *o[MAX_GROUPS], *m[MAX_GROUPS];
    int8_t *tp[MAX_GROUPS];
    int32_t *bd[MAX_GROUPS];
    int count[MAX_GROUPS];
    for (int gi = 0; gi < b->n_groups; gi++) {
        o[gi] = v_obs[gi].buf;
        m[gi] = v_masks[gi].buf;
        tp[gi] = v_play[gi].buf;
        bd[gi] = v_boards[gi].buf;
    }
    search_leaves out = {o, m, tp, bd, count};
    self->batch->busy = 1;
    Py_BEGIN_ALLOW_THREADS;
    search_select(self->s, &out);
    Py_END_ALLOW_THREADS;
    self->batch->busy = 0;
    release(v_obs, b->n_groups);
    release(v_masks, b->n_groups);
    release(v_play, b->n_groups);
    release(v_boards, b->n_groups);
    PyObject *counts = PyList_New(b->n_groups);
    for (int gi = 0; counts && gi < b->n_groups; gi++)
        PyList_SET_ITEM(counts, gi, PyLong_FromLong(count[gi]));
    return counts;
}

/* expand(priors, values) */
static PyObject *Search_expand(SearchObject *self, PyObject *args)
{
    PyObject *priors, *values;
    if (!PyArg_ParseTuple(args, "OO", &priors, &values) || !usable(self))
        return NULL;
    batch *b = self->batch->b;
    size_t L = (size_t)search_leaves_per_round(self->s);
    Py_buffer v_pri[MAX_GROUPS], v_val[MAX_GROUPS];
    if (get_buffers(self, priors, v_pri, 4, "f", L, 1, 0, "priors", 0))
        return NULL;
    if (get_buffers(self, values, v_val, 4, "f", L, 0, 0, "values", 0)) {
        release(v_pri, b->n_groups);
        return NULL;
    }
    const float *p[MAX_GROUPS], *v[MAX_GROUPS];
    for (int gi = 0; gi < b->n_groups; gi++) {
        p[gi] = v_pri[gi].buf;
        v[gi] = v_val[gi].buf;
    }
    const char *why;
    self->batch->busy = 1;
    Py_BEGIN_ALLOW_THREADS;
    why = search_expand(self->s, p, v);
    Py_END_ALLOW_THREADS;
    self->batch->busy = 0;
    release(v_pri, b->n_groups);
    release(v_val, b->n_groups);
    if (why) {
        PyErr_SetString(PyExc_ValueError, why);
        return NULL;
    }
    Py_RETURN_NONE;
}

/* results(visits, root_values) */
static PyObject *Search_results(SearchObject *self, PyObject *args)
{
    PyObject *visits, *values;
    if (!PyArg_ParseTuple(args, "OO", &visits, &values) || !usable(self))
        return NULL;
    batch *b = self->batch->b;
    Py_buffer v_vis[MAX_GROUPS], v_val[MAX_GROUPS];
    if (get_buffers(self, visits, v_vis, 4, "f", 1, 1, 0, "visits", 1))
        return NULL;
    if (get_buffers(self, values, v_val, 4, "f", 1, 0, 0, "root_values", 1)) {
        release(v_vis, b->n_groups);
        return NULL;
    }
    float *vis[MAX_GROUPS], *val[MAX_GROUPS];
    for (int gi = 0; gi < b->n_groups; gi++) {
        vis[gi] = v_vis[gi].buf;
        val[gi] = v_val[gi].buf;
    }
    search_results(self->s, vis, val);
    release(v_vis, b->n_groups);
    release(v_val, b->n_groups);
    Py_RETURN_NONE;
}

static int actions_buffers(SearchObject *self, PyObject *seq, Py_buffer *views, int64_t **out,
                           int writable)
{
    if (get_buffers(self, seq, views, 8, "ql", 1, 0, 0, "actions", writable))
        return -1;
    for (int gi = 0; gi < self->batch->b->n_groups; gi++)
        out[gi] = views[gi].buf;
    return 0;
}

/* actions(temperature, out) */
static PyObject *Search_actions(SearchObject *self, PyObject *args)
{
    float temperature;
    PyObject *seq;
    if (!PyArg_ParseTuple(args, "fO", &temperature, &seq) || !usable(self))
        return NULL;
    if (!(temperature >= 0)) {
        PyErr_SetString(PyExc_ValueError, "temperature must be >= 0");
        return NULL;
    }
    Py_buffer views[MAX_GROUPS];
    int64_t *a[MAX_GROUPS];
    if (actions_buffers(self, seq, views, a, 1))
        return NULL;
    search_actions(self->s, temperature, a);
    release(views, self->batch->b->n_groups);
    Py_RETURN_NONE;
}

/* advance(actions): after the boards were stepped with them */
static PyObject *Search_advance(SearchObject *self, PyObject *args)
{
    PyObject *seq;
    if (!PyArg_ParseTuple(args, "O", &seq) || !usable(self))
        return NULL;
    Py_buffer views[MAX_GROUPS];
    int64_t *a[MAX_GROUPS];
    if (actions_buffers(self, seq, views, a, 0))
        return NULL;
    self->batch->busy = 1;
    Py_BEGIN_ALLOW_THREADS;
    search_advance(self->s, (const int64_t *const *)a);
    Py_END_ALLOW_THREADS;
    self->batch->busy = 0;
    release(views, self->batch->b->n_groups);
    Py_RETURN_NONE;
}

static PyObject *Search_run_uniform(SearchObject *self, PyObject *Py_UNUSED(a))
{
    if (!usable(self))
        return NULL;
    self->batch->busy = 1;
    Py_BEGIN_ALLOW_THREADS;
    search_run_uniform(self->s);
    Py_END_ALLOW_THREADS;
    self->batch->busy = 0;
    Py_RETURN_NONE;
}

static PyObject *Search_nodes(SearchObject *self, PyObject *Py_UNUSED(a))
{
    if (!usable(self))
        return NULL;
    return PyLong_FromSize_t(search_nodes(self->s));
}

static PyMethodDef Search_methods[] = {
    {"begin", (PyCFunction)Search_begin, METH_NOARGS, "Start a move's search."},
    {"abort", (PyCFunction)Search_abort, METH_NOARGS, "Undo the open round, if any."},
    {"select", (PyCFunction)Search_select, METH_VARARGS, "A round of descents; leaves per group."},
    {"expand", (PyCFunction)Search_expand, METH_VARARGS, "Priors and values of the leaves."},
    {"results", (PyCFunction)Search_results, METH_VARARGS, "Root visit counts and values."},
    {"actions", (PyCFunction)Search_actions, METH_VARARGS, "Actions from the visits."},
    {"advance", (PyCFunction)Search_advance, METH_VARARGS, "Follow the moves played."},
    {"run_uniform", (PyCFunction)Search_run_uniform, METH_NOARGS,
     "A whole search with uniform priors and zero values, in C."},
    {"nodes", (PyCFunction)Search_nodes, METH_NOARGS, "Nodes in use over all trees."},
    {NULL, NULL, 0, NULL}};

static PyTypeObject SearchType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "fiverow._core.Search",
    .tp_basicsize = sizeof(SearchObject),
    .tp_dealloc = (destructor)Search_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Batched PUCT search over the boards of a batch.",
    .tp_methods = Search_methods,
    .tp_init = (initproc)Search_init,
    .tp_new = PyType_GenericNew,
};

int module_search_add(PyObject *m)
{
    if (PyType_Ready(&SearchType) < 0)
        return -1;
    Py_INCREF(&SearchType);
    if (PyModule_AddObject(m, "Search", (PyObject *)&SearchType) < 0) {
        Py_DECREF(&SearchType);
        return -1;
    }
    return 0;
}
