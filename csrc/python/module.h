/* What the binding's files share: the Batch object and small helpers. */
#ifndef FIVEROW_MODULE_H
#define FIVEROW_MODULE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "env/batch.h"

typedef struct {
    PyObject_HEAD batch *b;
    Py_buffer *views; /* [n_groups * N_OUTS] */
    int busy;         /* a call runs with the GIL released */
} BatchObject;

extern PyTypeObject BatchType;

/* RuntimeError: the batch is in use by another thread; returns NULL. */
PyObject *busy_error(void);
/* Does a buffer's format hold one of the accepted characters? */
int check_format(const Py_buffer *view, const char *accepted);

/* module_play.c: players, self-play and replays; adds its types and
 * functions to the module. */
int module_play_add(PyObject *m);
/* A number from a dict (0 if the key is absent; -1 with TypeError if it is
 * not a number). */
int module_get_number(PyObject *dict, const char *key, double *out);
/* A built-in player from a dict {"kind": ..., "simulations": ..., ...};
 * -1 with an exception set if it is not one. A net player's spec holds a
 * reference to its network: the caller ends with player_spec_release. */
struct player_spec;
int module_parse_player(PyObject *dict, struct player_spec *ps);

/* module_writer.c: the HDF5 writer from Python. */
struct h5writer;
struct h5writer *module_open_writer(BatchObject *bo, int record_obs, int record_policy,
                                    PyObject *spec);
int module_writer_add(PyObject *m);
/* module_search.c: the batched search. */
int module_search_add(PyObject *m);
/* module_solve.c: the threat-space solver. */
int module_solve_add(PyObject *m);
/* module_batches.c: training batches rebuilt from recorded games. */
int module_batches_add(PyObject *m);
/* module_net.c: networks evaluated in C. The network at a path, loaded or
 * kept from an earlier call while the file is unchanged: a new reference
 * (net_release), or NULL with an exception set. */
struct net_model;
const struct net_model *module_net_for_path(PyObject *path);
int module_net_add(PyObject *m);

#endif
