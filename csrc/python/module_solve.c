/* The binding of the threat-space solver (solver.h): argument checks, the
 * GIL, and the lines as Python lists. */
#include "python/module.h" /* Python.h first */

#include "env/solve_batch.h"
#include "openings/opening.h"
#include "players/solver.h"
#include "players/threats.h"

static const char *kind_names[] = {"vcf", "vct"};

/* The line of one board as a list of ints, or None. */
static PyObject *line_or_none(int result, const int32_t *line, int len)
{
    if (result != SOLVE_WIN)
        Py_RETURN_NONE;
    PyObject *list = PyList_New(len);
    for (int j = 0; list && j < len; j++) {
        PyObject *x = PyLong_FromLong(line[j]);
        if (!x) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, j, x);
    }
    return list;
}

static int check_args(BatchObject *bo, int gi, int kind, int max_depth, long long max_nodes)
{
    if (!bo->b) {
        PyErr_SetString(PyExc_RuntimeError, "Batch is not initialised");
        return -1;
    }
    if (bo->busy) {
        busy_error();
        return -1;
    }
    if (gi < 0 || gi >= bo->b->n_groups) {
        PyErr_Format(PyExc_ValueError, "group %d out of range", gi);
        return -1;
    }
    if (kind != SOLVE_VCF && kind != SOLVE_VCT) {
        PyErr_SetString(PyExc_ValueError, "kind must be 0 (vcf) or 1 (vct)");
        return -1;
    }
    if (max_depth < 1 || max_depth > SOLVE_MAX_DEPTH) {
        PyErr_Format(PyExc_ValueError, "max_depth must be in 1..%d, got %d", SOLVE_MAX_DEPTH,
                     max_depth);
        return -1;
    }
    if (max_nodes < 1) {
        PyErr_Format(PyExc_ValueError, "max_nodes must be >= 1, got %lld", max_nodes);
        return -1;
    }
    const char *why = threat_refusal(&bo->b->groups[gi].v);
    if (why) {
        PyErr_SetString(PyExc_ValueError, why);
        return -1;
    }
    return 0;
}

/* solve(batch, group, index, kind, max_depth, max_nodes): (result, line or
 * None, nodes) for one board, result -1 unknown (nodes ran out), 0 none, 1 win. */
static PyObject *core_solve(PyObject *Py_UNUSED(m), PyObject *args)
{
    BatchObject *bo;
    int gi, index, kind, max_depth;
    long long max_nodes;
    if (!PyArg_ParseTuple(args, "O!iiiiL", &BatchType, &bo, &gi, &index, &kind, &max_depth,
                          &max_nodes) ||
        check_args(bo, gi, kind, max_depth, max_nodes))
        return NULL;
    const group *g = &bo->b->groups[gi];
    if (index < 0 || index >= g->n) {
        PyErr_Format(PyExc_IndexError, "index %d out of range for %d boards", index, g->n);
        return NULL;
    }
    const board_hdr *h = group_board(g, index);
    if (h->status != STATUS_ONGOING) {
        PyErr_Format(PyExc_ValueError, "board %d: its episode is over; %s needs a seat to act",
                     index, kind_names[kind]);
        return NULL;
    }
    if (h->phase != PHASE_PLAY) {
        PyErr_Format(PyExc_ValueError,
                     "board %d is in an opening-protocol phase; %s searches normal play", index,
                     kind_names[kind]);
        return NULL;
    }
    solver *s = solver_new(&g->v);
    int32_t *line = PyMem_Malloc(sizeof(int32_t) * 2 * (size_t)max_depth);
    if (!s || !line) {
        solver_free(s);
        PyMem_Free(line);
        return PyErr_NoMemory();
    }
    int len = 0, result;
    bo->busy = 1;
    Py_BEGIN_ALLOW_THREADS;
    result = solver_solve(s, h, kind, max_depth, max_nodes, line, &len);
    Py_END_ALLOW_THREADS;
    bo->busy = 0;
    long long nodes = solver_nodes(s);
    solver_free(s);
    PyObject *list = line_or_none(result, line, len);
    PyMem_Free(line);
    if (!list)
        return NULL;
    return Py_BuildValue("(iNL)", result, list, nodes);
}

/* solve_group(batch, group, kind, max_depth, max_nodes): [(result, line or
 * None)] for every board of the group, in parallel. */
static PyObject *core_solve_group(PyObject *Py_UNUSED(m), PyObject *args)
{
    BatchObject *bo;
    int gi, kind, max_depth;
    long long max_nodes;
    if (!PyArg_ParseTuple(args, "O!iiiL", &BatchType, &bo, &gi, &kind, &max_depth, &max_nodes) ||
        check_args(bo, gi, kind, max_depth, max_nodes))
        return NULL;
    const group *g = &bo->b->groups[gi];
    const size_t stride = 2 * (size_t)max_depth;
    int8_t *results = PyMem_Malloc((size_t)g->n);
    int32_t *lens = PyMem_Malloc(sizeof(int32_t) * (size_t)g->n);
    int32_t *lines = PyMem_Malloc(sizeof(int32_t) * stride * (size_t)g->n);
    if (!results || !lens || !lines) {
        PyMem_Free(results);
        PyMem_Free(lens);
        PyMem_Free(lines);
        return PyErr_NoMemory();
    }
    int threads = batch_team_size(bo->b), rc;
    bo->busy = 1;
    Py_BEGIN_ALLOW_THREADS;
    rc = solver_solve_group(g, kind, max_depth, max_nodes, threads, results, lens, lines);
    Py_END_ALLOW_THREADS;
    bo->busy = 0;
    PyObject *out = rc ? PyErr_NoMemory() : PyList_New(g->n);
    for (int i = 0; out && i < g->n; i++) {
        PyObject *line = line_or_none(results[i], lines + (size_t)i * stride, lens[i]);
        PyObject *item = line ? Py_BuildValue("(iN)", results[i], line) : NULL;
        if (!item) {
            Py_CLEAR(out);
            break;
        }
        PyList_SET_ITEM(out, i, item);
    }
    PyMem_Free(results);
    PyMem_Free(lens);
    PyMem_Free(lines);
    return out;
}

static PyMethodDef solve_methods[] = {
    {"solve", core_solve, METH_VARARGS,
     "solve(batch, group, index, kind, max_depth, max_nodes): (result, line, nodes)."},
    {"solve_group", core_solve_group, METH_VARARGS,
     "solve_group(batch, group, kind, max_depth, max_nodes): [(result, line)] per board."},
    {NULL, NULL, 0, NULL},
};

int module_solve_add(PyObject *m)
{
    return PyModule_AddFunctions(m, solve_methods);
}
