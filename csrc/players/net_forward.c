/* The network's forward pass on one observation (net.h): the observation
 * into bordered planes, the stem and the residual tower (net_conv.c), then
 * the two heads. A linear layer's weights are stored transposed, so each
 * input adds a scaled row of them to the outputs: a loop the compiler
 * vectorises without reordering a sum, skipped for inputs the ReLU zeroed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/cpu_dispatch.h"
#include "players/net_model.h"

struct net_work {
    const net_model *model;
    float *in;     /* [planes][stride] */
    float *x, *y;  /* [channels_pad][stride]: the tower's planes */
    float *plane;  /* [stride]: a head's plane */
    float *feat;   /* [policy_channels * cells]: the policy head's flattened planes */
    float *hidden; /* [value_hidden] */
};

static float *zeroed(size_t n)
{
    float *p = aligned_alloc(64, sizeof(float) * ((n + 15) & ~(size_t)15));
    if (p)
        memset(p, 0, sizeof(float) * n);
    return p;
}

net_work *net_work_new(const net_model *n)
{
    net_work *w = calloc(1, sizeof(*w));
    if (!w)
        return NULL;
    const net_shape *s = &n->s;
    const size_t stride = (size_t)n->pl.stride, cells = (size_t)s->height * (size_t)s->width;
    w->model = n;
    w->in = zeroed((size_t)s->planes * stride);
    w->x = zeroed((size_t)n->channels_pad * stride);
    w->y = zeroed((size_t)n->channels_pad * stride);
    w->plane = zeroed(stride);
    w->feat = zeroed((size_t)s->policy_channels * cells);
    w->hidden = zeroed((size_t)s->value_hidden);
    if (!w->in || !w->x || !w->y || !w->plane || !w->feat || !w->hidden) {
        net_work_free(w);
        return NULL;
    }
    return w;
}

void net_work_free(net_work *w)
{
    if (!w)
        return;
    free(w->in);
    free(w->x);
    free(w->y);
    free(w->plane);
    free(w->feat);
    free(w->hidden);
    free(w);
}

/* out[o] += f * row[o] for o < n. */
static void add_scaled(float *out, const float *row, float f, int n)
{
    for (int o = 0; o < n; o++)
        out[o] += f * row[o];
}

/* A 1x1 convolution of the tower's planes to one plane (over the computed
 * span), ReLU, written cell by cell into out[cells]. */
static void conv1x1_cells(const net_model *m, const float *x, const float *weights, float bias,
                          float *plane, float *out)
{
    const net_planes *pl = &m->pl;
    const int lo = pl->base, hi = pl->base + pl->span;
    for (int j = lo; j < hi; j++)
        plane[j] = bias;
    for (int c = 0; c < m->s.channels; c++) {
        const float *src = x + (size_t)c * (size_t)pl->stride;
        const float wc = weights[c];
        for (int j = lo; j < hi; j++)
            plane[j] += wc * src[j];
    }
    for (int y = 0, k = 0; y < pl->height; y++)
        for (int xx = 0; xx < pl->width; xx++, k++) {
            float v = plane[net_pos(pl, y, xx)];
            out[k] = v > 0.0f ? v : 0.0f;
        }
}

static void run(const net_model *m, net_work *w, float *logits, float *value)
{
    const net_shape *s = &m->s;
    const int cells = s->height * s->width, A = s->n_actions, VH = s->value_hidden;
    float *x = w->x, *y = w->y;
    net_conv3x3(&m->convs[0], &m->pl, w->in, x, NULL);
    for (int b = 0; b < s->blocks; b++) {
        net_conv3x3(&m->convs[1 + 2 * b], &m->pl, x, y, NULL);
        net_conv3x3(&m->convs[2 + 2 * b], &m->pl, y, x, x);
    }
    /* policy: planes, flattened plane by plane, then the linear layer */
    for (int c2 = 0; c2 < s->policy_channels; c2++)
        conv1x1_cells(m, x, m->policy_conv_w + (size_t)c2 * (size_t)s->channels,
                      m->policy_conv_b[c2], w->plane, w->feat + (size_t)c2 * (size_t)cells);
    memcpy(logits, m->policy_fc_b, sizeof(float) * (size_t)A);
    for (int i = 0; i < s->policy_channels * cells; i++)
        if (w->feat[i] != 0.0f)
            add_scaled(logits, m->policy_fc_t + (size_t)i * (size_t)A, w->feat[i], A);
    /* value: one plane, two linear layers, tanh */
    float *cell_values = w->feat; /* the policy's features are used up */
    conv1x1_cells(m, x, m->value_conv_w, m->value_conv_b, w->plane, cell_values);
    memcpy(w->hidden, m->value_fc1_b, sizeof(float) * (size_t)VH);
    for (int i = 0; i < cells; i++)
        if (cell_values[i] != 0.0f)
            add_scaled(w->hidden, m->value_fc1_t + (size_t)i * (size_t)VH, cell_values[i], VH);
    float v = m->value_fc2_b;
    for (int h = 0; h < VH; h++)
        v += m->value_fc2_w[h] * (w->hidden[h] > 0.0f ? w->hidden[h] : 0.0f);
    *value = tanhf(v);
}

FIVEROW_HOT void net_forward(const net_model *m, net_work *w, const uint8_t *obs, float *logits,
                             float *value)
{
    const net_planes *pl = &m->pl;
    for (int p = 0; p < m->s.planes; p++) {
        float *dst = w->in + (size_t)p * (size_t)pl->stride;
        const uint8_t *src = obs + (size_t)p * (size_t)pl->height * (size_t)pl->width;
        for (int y = 0; y < pl->height; y++)
            for (int x = 0; x < pl->width; x++)
                dst[net_pos(pl, y, x)] = (float)src[y * pl->width + x];
    }
    run(m, w, logits, value);
}

FIVEROW_HOT void net_forward_floats(const net_model *m, net_work *w, const float *obs,
                                    float *logits, float *value)
{
    const net_planes *pl = &m->pl;
    for (int p = 0; p < m->s.planes; p++) {
        float *dst = w->in + (size_t)p * (size_t)pl->stride;
        const float *src = obs + (size_t)p * (size_t)pl->height * (size_t)pl->width;
        for (int y = 0; y < pl->height; y++)
            for (int x = 0; x < pl->width; x++)
                dst[net_pos(pl, y, x)] = src[y * pl->width + x];
    }
    run(m, w, logits, value);
}
