/* The 3x3 convolution of the network's forward pass, as direct loops.
 *
 * On the bordered planes (net_model.h) a 3x3 neighbour is a fixed offset,
 * so the convolution is, per input plane and tap, a scaled copy of a shifted
 * run of that plane into the outputs: no im2col matrix to build. The loops
 * keep a register block of NET_CB output channels x NET_JB positions
 * (8 vectors of 8 floats with AVX2) and run over every input plane and tap
 * before storing it, so each input load feeds NET_CB multiply-adds; the
 * compiler vectorises the fixed-size inner loops. benchmarks/c/net_conv.c
 * compares this with im2col + a blocked matrix product on 15x15 and 9x9
 * boards (docs/players.md has the figures). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__FMA__) && !defined(FIVEROW_NO_INTRINSICS)
#include <immintrin.h>
#endif

#include "players/net_model.h"

/* Eight floats, loaded and stored unaligned (the shifted runs start anywhere). */
typedef float v8 __attribute__((vector_size(32)));
typedef int32_t v8i __attribute__((vector_size(32)));
#define JV (NET_JB / 8)

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

void net_conv3x3(const net_conv *c, const net_planes *pl, const float *in, float *out,
                 const float *residual)
{
    const int wp = pl->wp, stride = pl->stride;
    const ptrdiff_t off[9] = {-wp - 1, -wp, -wp + 1, -1, 0, 1, wp - 1, wp, wp + 1};
    const v8 zero = {0};
    for (int ob = 0; ob < c->cout_pad / NET_CB; ob++) {
        const float *w = c->w + (size_t)ob * (size_t)c->cin * 9 * NET_CB;
        const float *bias = c->b + ob * NET_CB;
        for (int j0 = pl->base; j0 < pl->base + pl->span; j0 += NET_JB) {
            v8 acc[NET_CB][JV];
            for (int r = 0; r < NET_CB; r++)
                for (int v = 0; v < JV; v++)
                    acc[r][v] = zero + bias[r];
            for (int ci = 0; ci < c->cin; ci++) {
                const float *src = in + (size_t)ci * (size_t)stride + j0;
                const float *wc = w + (size_t)ci * 9 * NET_CB;
                for (int k = 0; k < 9; k++) {
                    v8 s[JV];
                    for (int v = 0; v < JV; v++)
                        LOAD8(s[v], src + off[k] + 8 * v);
                    for (int r = 0; r < NET_CB; r++) {
                        const v8 wv = zero + wc[k * NET_CB + r];
                        for (int v = 0; v < JV; v++)
                            acc[r][v] = MADD(wv, s[v], acc[r][v]);
                    }
                }
            }
            for (int r = 0; r < NET_CB; r++) {
                const size_t at = (size_t)(ob * NET_CB + r) * (size_t)stride + (size_t)j0;
                for (int v = 0; v < JV; v++) {
                    v8 x = acc[r][v], add, mask;
                    if (residual) {
                        LOAD8(add, residual + at + 8 * v);
                        x += add;
                    }
                    LOAD8(mask, pl->mask + j0 + 8 * v);
                    x = (v8)((v8i)x & (x > zero)) * mask; /* ReLU, border zeroed */
                    memcpy(out + at + 8 * v, &x, sizeof(x));
                }
            }
        }
    }
}
