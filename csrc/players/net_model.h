/* Inside a loaded network (net.h): weights repacked for the forward pass and
 * the layout of its activation planes. Shared by the file reader
 * (net_file.c), the convolution (net_conv.c) and the forward pass
 * (net_forward.c); nothing else looks in here. */
#ifndef FIVEROW_NET_MODEL_H
#define FIVEROW_NET_MODEL_H

#include <stdatomic.h>
#include <stddef.h>

#include "players/net.h"

/* Output channels and positions one register block of the 3x3 convolution
 * computes (net_conv.c). */
#define NET_CB 4
#define NET_JB 16

/* An activation plane is the board with a border of zeros, row after row
 * (width + 2 per row), so that a 3x3 neighbour is a fixed offset and a
 * convolution runs over one contiguous span of positions: from the first
 * cell to the last, the border cells between rows included (their results
 * are masked back to zero). Planes are `stride` floats apart. */
typedef struct net_planes {
    int height, width;
    int wp;      /* width + 2 */
    int base;    /* position of the first cell: wp + 1 */
    int span;    /* positions computed, from base, a multiple of NET_JB */
    int stride;  /* floats per plane: every position a 3x3 read can reach */
    float *mask; /* [stride]: 1 on the board's cells, 0 on the border and beyond */
} net_planes;

/* Position of cell (y, x) in a plane. */
static inline int net_pos(const net_planes *pl, int y, int x)
{
    return pl->base + y * pl->wp + x;
}

/* A 3x3 convolution, batch norm folded in. */
typedef struct net_conv {
    int cin, cout;
    int cout_pad; /* cout rounded up to NET_CB (the extra outputs are zero) */
    float *w;     /* [cout_pad / NET_CB][cin][9][NET_CB] */
    float *b;     /* [cout_pad] */
} net_conv;

struct net_model {
    atomic_int refs;
    net_shape s;
    char *name; /* the file, for messages */
    char *text;
    size_t n_params;
    char **plane_names; /* [planes], from the text's planes= line */
    net_planes pl;
    int channels_pad; /* channels rounded up to NET_CB */
    net_conv *convs;  /* [1 + 2 * blocks]: the stem, then each block's two */
    /* heads; linear layers stored transposed ([inputs][outputs]) so that
     * each input adds a scaled row to the outputs (no reduction to vectorise) */
    float *policy_conv_w; /* [policy_channels][channels] */
    float *policy_conv_b; /* [policy_channels] */
    float *policy_fc_t;   /* [policy_channels * cells][n_actions] */
    float *policy_fc_b;   /* [n_actions] */
    float *value_conv_w;  /* [channels] */
    float value_conv_b;
    float *value_fc1_t; /* [cells][value_hidden] */
    float *value_fc1_b; /* [value_hidden] */
    float *value_fc2_w; /* [value_hidden] */
    float value_fc2_b;
    float *storage; /* every array above, in one allocation */
};

/* The convolution of `in` (c->cin planes) into `out` (c->cout_pad planes),
 * plus `residual` (the same planes as out; NULL for none), ReLU, border
 * masked to zero. out may be residual, never in. */
void net_conv3x3(const net_conv *c, const net_planes *pl, const float *in, float *out,
                 const float *residual);

#endif
