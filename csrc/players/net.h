/* A small residual network, read from a versioned file and evaluated in C:
 * the net player's policy and value (no Python framework at play time).
 *
 * The architecture is the examples' (examples/alphazero.py, fiverow.nets):
 *   stem:   3x3 convolution (batch norm folded in at export) + ReLU
 *   tower:  `blocks` residual blocks: 3x3 conv + ReLU, 3x3 conv, plus the
 *           block's input, ReLU
 *   policy: 1x1 conv to `policy_channels` planes + ReLU, flattened plane by
 *           plane, a linear layer to n_actions logits
 *   value:  1x1 conv to one plane + ReLU, linear to `value_hidden` + ReLU,
 *           linear to one number, tanh (for the seat to act)
 * Convolutions pad with zeros. The input is the observation the environment
 * gives (game_write_obs) of the kind the network was trained on.
 *
 * The file (little-endian; fiverow.nets.export writes it):
 *   "FIVERNET", u32 version (NET_VERSION),
 *   u32 obs_kind, planes, height, width, n_actions,
 *   u32 channels, blocks, policy_channels, value_hidden,
 *   u32 text_bytes, text (key=value lines: variant, params, planes, ...),
 *   the tensors in the order above, each u32 count then count float32,
 *   u32 CRC-32 of every byte before it.
 *
 * A loaded network never changes; threads share it. It is reference
 * counted: what keeps a player beyond a call (an opponent, a self-play
 * run) holds a reference. */
#ifndef FIVEROW_NET_H
#define FIVEROW_NET_H

#include <stddef.h>
#include <stdint.h>

#include "base/cpu_dispatch.h"
#include "game/variant.h"

#define NET_VERSION 1
#define NET_MAGIC "FIVERNET"

typedef struct net_shape {
    int obs_kind; /* OBS_ABSOLUTE or OBS_MOVER */
    int planes, height, width, n_actions;
    int channels, blocks, policy_channels, value_hidden;
} net_shape;

typedef struct net_model net_model;

/* Read a network file; NULL with a one-line message naming the file. */
net_model *net_load(const char *path, char *err, size_t errlen);
/* The same from bytes in memory; `name` stands for the file in messages. */
net_model *net_parse(const uint8_t *data, size_t len, const char *name, char *err, size_t errlen);

void net_retain(const net_model *n);
/* Drop a reference; the last one frees the network. NULL is ignored. */
void net_release(const net_model *n);

const net_shape *net_shape_of(const net_model *n);
/* The file's text block (key=value lines), NUL-terminated. */
const char *net_text(const net_model *n);
/* Float parameters held. */
size_t net_parameters(const net_model *n);

/* 0 if the network reads variant v's observation (same kind of planes,
 * the same plane names, board shape and action count), else -1 with why. */
int net_check_variant(const net_model *n, const variant *v, char *err, size_t errlen);

/* Memory of one thread's forward passes (NULL when out of memory). */
typedef struct net_work net_work;
net_work *net_work_new(const net_model *n);
void net_work_free(net_work *w);

/* One forward pass on an observation of planes x height x width cells
 * (bytes, as the environment writes it; or floats): n_actions logits
 * and the value in [-1, 1] for the seat to act. */
FIVEROW_HOT void net_forward(const net_model *n, net_work *w, const uint8_t *obs, float *logits,
                             float *value);
FIVEROW_HOT void net_forward_floats(const net_model *n, net_work *w, const float *obs,
                                    float *logits, float *value);

#endif
