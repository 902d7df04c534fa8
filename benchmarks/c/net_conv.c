/* C micro-benchmark: the network's 3x3 convolution, direct loops on the
 * bordered planes (csrc/players/net_conv.c, what the net player runs)
 * against im2col + a blocked matrix product (here: the shifted runs copied
 * into a [cin * 9][span] matrix first, then the same register-blocked
 * product over it). One board at a time, as the player evaluates.
 *
 *     net_conv HEIGHT WIDTH CHANNELS REPEATS
 *
 * Prints one JSON line: microseconds per convolution of each (the fastest of
 * five interleaved rounds of REPEATS / 5), GFLOP/s, and
 * the largest difference between their outputs. Built and run by
 * benchmarks/bench_net.py (--conv). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "players/net_model.h"

#if defined(__FMA__) && !defined(FIVEROW_NO_INTRINSICS)
#include <immintrin.h>
#endif

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static float uniform(uint64_t *state)
{
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (float)((*state >> 40) * (1.0 / 16777216.0)) - 0.5f;
}

typedef float v8 __attribute__((vector_size(32)));
typedef int32_t v8i __attribute__((vector_size(32)));

/* Macros, not functions: a function that takes or returns a 32-byte vector
 * has another ABI where AVX is off (the portable build's baseline), and the
 * compiler warns about it. LOAD8 reads eight floats from anywhere; MADD is
 * a * b + c, one fused instruction where the target has FMA (the compiler
 * fuses nothing by itself under -std=c11). */
#define LOAD8(dst, p) memcpy(&(dst), (p), sizeof(v8))
#if defined(__FMA__) && !defined(FIVEROW_NO_INTRINSICS)
#define MADD(a, b, c) _mm256_fmadd_ps(a, b, c)
#else
#define MADD(a, b, c) ((a) * (b) + (c))
#endif

/* im2col: col[ci * 9 + k][j] = in[ci][base + j + off_k], then out = W col
 * with the direct kernel's register block (NET_CB x NET_JB) over the rows. */
static void conv_im2col(const net_conv *c, const net_planes *pl, const float *in, float *col,
                        const float *w_rows, float *out)
{
    const int wp = pl->wp, span = pl->span, K = c->cin * 9;
    const int off[9] = {-wp - 1, -wp, -wp + 1, -1, 0, 1, wp - 1, wp, wp + 1};
    const v8 zero = {0};
    for (int ci = 0; ci < c->cin; ci++)
        for (int k = 0; k < 9; k++)
            memcpy(col + (size_t)(ci * 9 + k) * (size_t)span,
                   in + (size_t)ci * (size_t)pl->stride + pl->base + off[k],
                   sizeof(float) * (size_t)span);
    for (int ob = 0; ob < c->cout_pad / NET_CB; ob++)
        for (int j0 = 0; j0 < span; j0 += NET_JB) {
            v8 acc[NET_CB][NET_JB / 8];
            for (int r = 0; r < NET_CB; r++)
                for (int v = 0; v < NET_JB / 8; v++)
                    acc[r][v] = zero + c->b[ob * NET_CB + r];
            for (int kk = 0; kk < K; kk++) {
                const float *s = col + (size_t)kk * (size_t)span + j0;
                v8 sv[NET_JB / 8];
                for (int v = 0; v < NET_JB / 8; v++)
                    LOAD8(sv[v], s + 8 * v);
                for (int r = 0; r < NET_CB; r++) {
                    const v8 wv = zero + w_rows[(size_t)(ob * NET_CB + r) * (size_t)K + (size_t)kk];
                    for (int v = 0; v < NET_JB / 8; v++)
                        acc[r][v] = MADD(wv, sv[v], acc[r][v]);
                }
            }
            for (int r = 0; r < NET_CB; r++) {
                float *o = out + (size_t)(ob * NET_CB + r) * (size_t)pl->stride + pl->base + j0;
                for (int v = 0; v < NET_JB / 8; v++) {
                    v8 x = acc[r][v];
                    v8 mask;
                    LOAD8(mask, pl->mask + pl->base + j0 + 8 * v);
                    x = (v8)((v8i)x & (x > zero)) * mask;
                    memcpy(o + 8 * v, &x, sizeof(x));
                }
            }
        }
}

static void run(int height, int width, int channels, int repeats)
{
    net_planes pl = {.height = height, .width = width, .wp = width + 2, .base = width + 3};
    int last = (height - 1) * pl.wp + width; /* positions from the first cell to the last */
    pl.span = (last + NET_JB - 1) / NET_JB * NET_JB;
    pl.stride = (pl.base + pl.span + pl.wp + 1 + 15) / 16 * 16;
    pl.mask = calloc((size_t)pl.stride, sizeof(float));
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++)
            pl.mask[net_pos(&pl, y, x)] = 1.0f;
    net_conv c = {.cin = channels, .cout = channels, .cout_pad = channels};
    size_t n_w = (size_t)channels * (size_t)channels * 9;
    c.w = malloc(sizeof(float) * n_w);
    c.b = malloc(sizeof(float) * (size_t)channels);
    float *w_rows = malloc(sizeof(float) * n_w);
    uint64_t rng = 12345;
    for (int co = 0; co < channels; co++) {
        c.b[co] = uniform(&rng);
        for (int ci = 0; ci < channels; ci++)
            for (int k = 0; k < 9; k++) {
                float w = uniform(&rng) * 0.2f;
                w_rows[(size_t)co * (size_t)channels * 9 + (size_t)ci * 9 + (size_t)k] = w;
                c.w[(((size_t)(co / NET_CB) * (size_t)channels + (size_t)ci) * 9 + (size_t)k) *
                        NET_CB +
                    (size_t)(co % NET_CB)] = w;
            }
    }
    size_t plane_floats = (size_t)channels * (size_t)pl.stride;
    float *in = calloc(plane_floats, sizeof(float));
    float *out_a = calloc(plane_floats, sizeof(float));
    float *out_b = calloc(plane_floats, sizeof(float));
    float *col = malloc(sizeof(float) * (size_t)channels * 9 * (size_t)pl.span);
    for (int ci = 0; ci < channels; ci++)
        for (int j = 0; j < pl.stride; j++)
            in[(size_t)ci * (size_t)pl.stride + (size_t)j] = pl.mask[j] * uniform(&rng);

    /* five rounds of each, interleaved; the fastest round of each counts
     * (the least disturbed by whatever else runs) */
    double direct = 1e30, im2col = 1e30;
    const int per_round = repeats / 5 > 0 ? repeats / 5 : 1;
    for (int round = 0; round < 5; round++) {
        double t0 = now();
        for (int r = 0; r < per_round; r++)
            net_conv3x3(&c, &pl, in, out_a, NULL);
        direct = fmin(direct, (now() - t0) / per_round);
        t0 = now();
        for (int r = 0; r < per_round; r++)
            conv_im2col(&c, &pl, in, col, w_rows, out_b);
        im2col = fmin(im2col, (now() - t0) / per_round);
    }
    double diff = 0;
    for (size_t k = 0; k < plane_floats; k++)
        diff = fmax(diff, fabs((double)out_a[k] - (double)out_b[k]));
    double flop = 2.0 * (double)n_w * height * width;
    printf("{\"board\": \"%dx%d\", \"channels\": %d, \"direct_us\": %.2f, \"im2col_us\": %.2f, "
           "\"direct_gflops\": %.1f, \"im2col_gflops\": %.1f, \"max_difference\": %.2g}\n",
           height, width, channels, 1e6 * direct, 1e6 * im2col, flop / direct / 1e9,
           flop / im2col / 1e9, diff);
    free(pl.mask);
    free(c.w);
    free(c.b);
    free(w_rows);
    free(in);
    free(out_a);
    free(out_b);
    free(col);
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: net_conv HEIGHT WIDTH CHANNELS REPEATS\n");
        return 2;
    }
    int h = atoi(argv[1]), w = atoi(argv[2]), ch = atoi(argv[3]), repeats = atoi(argv[4]);
    if (h < 1 || w < 1 || h > 32 || w > 32 || ch < NET_CB || ch % NET_CB || repeats < 1) {
        fprintf(stderr, "net_conv: sizes 1..32, channels a multiple of %d, repeats >= 1\n", NET_CB);
        return 2;
    }
    run(h, w, ch, repeats);
    return 0;
}
