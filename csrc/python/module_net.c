/* The binding of networks (players/net.h): the networks loaded by path,
 * shared by every player that names the same unchanged file, and the Net
 * type (fiverow.nets.load) with its forward pass over a batch. */
#include "python/module.h" /* Python.h first */

#include <string.h>
#include <sys/stat.h>

#include "players/net.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* ---- networks by path ---- */

/* A player spec names its network by path; specs are parsed on every act()
 * and step's opponent setup, so loaded files are kept, each while it is
 * unchanged (device, inode, size and modification time), the least
 * recently used dropped first. Callers hold the GIL. */
#define NET_CACHE 16

static struct {
    char *path;
    struct stat st;
    net_model *net; /* the cache's reference */
    unsigned long long used;
} cache[NET_CACHE];
static unsigned long long cache_clock;

static int same_file(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
           a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

const net_model *module_net_for_path(PyObject *path_obj)
{
    const char *path = PyUnicode_Check(path_obj) ? PyUnicode_AsUTF8(path_obj) : NULL;
    if (!path) {
        PyErr_SetString(PyExc_TypeError, "a network's path must be a string");
        return NULL;
    }
    struct stat st;
    if (stat(path, &st) != 0) {
        PyErr_Format(PyExc_FileNotFoundError, "%s: no such network file", path);
        return NULL;
    }
    int slot = -1;
    for (int k = 0; k < NET_CACHE && slot < 0; k++)
        if (cache[k].path && strcmp(cache[k].path, path) == 0) {
            if (same_file(&cache[k].st, &st)) {
                cache[k].used = ++cache_clock;
                net_retain(cache[k].net);
                return cache[k].net;
            }
            slot = k; /* the file changed: its entry is replaced */
        }
    for (int k = 0; k < NET_CACHE && slot < 0; k++)
        if (!cache[k].path)
            slot = k;
    if (slot < 0) { /* full: the least recently used goes */
        slot = 0;
        for (int k = 1; k < NET_CACHE; k++)
            if (cache[k].used < cache[slot].used)
                slot = k;
    }
    char err[1024];
    net_model *m = net_load(path, err, sizeof(err));
    if (!m) {
        PyErr_SetString(PyExc_ValueError, err);
        return NULL;
    }
    char *copy = strdup(path);
    if (!copy) {
        net_release(m);
        PyErr_NoMemory();
        return NULL;
    }
    free(cache[slot].path);
    net_release(cache[slot].net);
    cache[slot].path = copy;
    cache[slot].st = st;
    cache[slot].net = m;
    cache[slot].used = ++cache_clock;
    net_retain(m);
    return m;
}

/* ---- the Net type ---- */

typedef struct {
    PyObject_HEAD const net_model *net;
    PyObject *path;
} NetObject;

static void Net_dealloc(NetObject *self)
{
    net_release(self->net);
    Py_XDECREF(self->path);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int Net_init(NetObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"path", NULL};
    PyObject *path;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "U", kwlist, &path))
        return -1;
    const net_model *m = module_net_for_path(path);
    if (!m)
        return -1;
    net_release(self->net);
    self->net = m;
    Py_INCREF(path);
    Py_XSETREF(self->path, path);
    return 0;
}

static int ready(NetObject *self)
{
    if (!self->net) {
        PyErr_SetString(PyExc_RuntimeError, "Net is not initialised");
        return 0;
    }
    return 1;
}

static PyObject *Net_shape(NetObject *self, void *Py_UNUSED(closure))
{
    if (!ready(self))
        return NULL;
    const net_shape *s = net_shape_of(self->net);
    return Py_BuildValue("{s:s,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i}", "observation",
                         s->obs_kind == OBS_MOVER ? "mover" : "absolute", "planes", s->planes,
                         "height", s->height, "width", s->width, "n_actions", s->n_actions,
                         "channels", s->channels, "blocks", s->blocks, "policy_channels",
                         s->policy_channels, "value_hidden", s->value_hidden);
}

static PyObject *Net_text(NetObject *self, void *Py_UNUSED(closure))
{
    if (!ready(self))
        return NULL;
    return PyUnicode_FromString(net_text(self->net));
}

static PyObject *Net_parameters(NetObject *self, void *Py_UNUSED(closure))
{
    if (!ready(self))
        return NULL;
    return PyLong_FromSize_t(net_parameters(self->net));
}

static PyObject *Net_path(NetObject *self, void *Py_UNUSED(closure))
{
    if (!ready(self))
        return NULL;
    Py_INCREF(self->path);
    return self->path;
}

/* forward(obs, logits, values, threads): rows of obs (uint8 or float32,
 * [rows][planes * height * width]) into logits ([rows][n_actions]) and
 * values ([rows]), float32, OpenMP over the rows. */
static PyObject *Net_forward(NetObject *self, PyObject *args)
{
    Py_buffer obs = {0}, logits = {0}, values = {0};
    PyObject *obs_obj, *logits_obj, *values_obj;
    int threads;
    if (!ready(self) ||
        !PyArg_ParseTuple(args, "OOOi", &obs_obj, &logits_obj, &values_obj, &threads))
        return NULL;
    PyObject *result = NULL;
    const int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT;
    if (PyObject_GetBuffer(obs_obj, &obs, flags) < 0 ||
        PyObject_GetBuffer(logits_obj, &logits, flags | PyBUF_WRITABLE) < 0 ||
        PyObject_GetBuffer(values_obj, &values, flags | PyBUF_WRITABLE) < 0)
        goto done;
    const net_shape *s = net_shape_of(self->net);
    const size_t in = (size_t)s->planes * (size_t)s->height * (size_t)s->width;
    const int is_float = check_format(&obs, "f") && obs.itemsize == 4;
    if (!is_float && !(check_format(&obs, "B?") && obs.itemsize == 1)) {
        PyErr_SetString(PyExc_ValueError, "obs must hold uint8 or float32 values");
        goto done;
    }
    const size_t rows = (size_t)obs.len / (size_t)obs.itemsize / in;
    if ((size_t)obs.len != rows * in * (size_t)obs.itemsize ||
        (size_t)logits.len != rows * (size_t)s->n_actions * sizeof(float) ||
        (size_t)values.len != rows * sizeof(float) || !check_format(&logits, "f") ||
        !check_format(&values, "f")) {
        PyErr_SetString(PyExc_ValueError,
                        "forward: obs, logits and values must describe the same rows");
        goto done;
    }
    if (threads < 1)
        threads = 1;
    int failed = 0;
    const net_model *m = self->net;
    Py_BEGIN_ALLOW_THREADS;
#pragma omp parallel num_threads(threads) if (threads > 1 && rows > 1) reduction(| : failed)
    {
        net_work *w = net_work_new(m);
        failed |= w == NULL;
#pragma omp for schedule(static)
        for (long long r = 0; r < (long long)rows; r++) {
            if (!w)
                continue;
            float *lo = (float *)logits.buf + (size_t)r * (size_t)s->n_actions;
            float *va = (float *)values.buf + r;
            if (is_float)
                net_forward_floats(m, w, (const float *)obs.buf + (size_t)r * in, lo, va);
            else
                net_forward(m, w, (const uint8_t *)obs.buf + (size_t)r * in, lo, va);
        }
        net_work_free(w);
    }
    Py_END_ALLOW_THREADS;
    if (failed) {
        PyErr_NoMemory();
        goto done;
    }
    result = Py_None;
    Py_INCREF(result);
done:
    if (obs.obj)
        PyBuffer_Release(&obs);
    if (logits.obj)
        PyBuffer_Release(&logits);
    if (values.obj)
        PyBuffer_Release(&values);
    return result;
}

static PyMethodDef Net_methods[] = {
    {"forward", (PyCFunction)Net_forward, METH_VARARGS,
     "forward(obs, logits, values, threads): the network on rows of observations."},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef Net_getset[] = {
    {"shape", (getter)Net_shape, NULL, "The header's numbers, as a dict.", NULL},
    {"text", (getter)Net_text, NULL, "The file's text block (key=value lines).", NULL},
    {"parameters", (getter)Net_parameters, NULL, "Float parameters held.", NULL},
    {"path", (getter)Net_path, NULL, "The file it was read from.", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyTypeObject NetType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "fiverow._core.Net",
    .tp_basicsize = sizeof(NetObject),
    .tp_dealloc = (destructor)Net_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A network file loaded for evaluation in C (fiverow.nets).",
    .tp_methods = Net_methods,
    .tp_getset = Net_getset,
    .tp_init = (initproc)Net_init,
    .tp_new = PyType_GenericNew,
};

int module_net_add(PyObject *m)
{
    if (PyType_Ready(&NetType) < 0)
        return -1;
    Py_INCREF(&NetType);
    if (PyModule_AddObject(m, "Net", (PyObject *)&NetType) < 0) {
        Py_DECREF(&NetType);
        return -1;
    }
    if (PyModule_AddIntConstant(m, "NET_VERSION", NET_VERSION) < 0)
        return -1;
    return 0;
}
