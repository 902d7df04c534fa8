/* Bit sets over cells and actions, stored as arrays of 64-bit words. */
#ifndef FIVEROW_BITS_H
#define FIVEROW_BITS_H

#include <stdint.h>
#include <string.h>

#include "base/cpu_dispatch.h"

/* pdep (BMI2) in three builds: compiled in where the whole build targets a
 * BMI2 CPU (a source build, setup.py: FIVEROW_MARCH); behind a test of the
 * CPU read at load in the portable wheel (FIVEROW_DISPATCH); never with
 * FIVEROW_NO_INTRINSICS, which leaves only portable C for any compiler and
 * CPU family. */
#if defined(__BMI2__) && !defined(FIVEROW_NO_INTRINSICS)
#define BITS_PDEP_BUILTIN 1
#include <immintrin.h>
#elif FIVEROW_CPU_DISPATCH && !defined(FIVEROW_NO_INTRINSICS)
#define BITS_PDEP_AT_RUN_TIME 1
__attribute__((target("bmi2"))) static inline int bits_select64_pdep(uint64_t x, int k)
{
    return __builtin_ctzll(__builtin_ia32_pdep_di(1ULL << k, x));
}
#endif

#define BITS_WORDS(n) (((n) + 63) / 64)

static inline int bits_get(const uint64_t *w, int i)
{
    return (int)((w[i >> 6] >> (i & 63)) & 1u);
}

static inline int bits_get_u32(uint32_t w, int i)
{
    return (int)((w >> i) & 1u);
}

static inline void bits_set(uint64_t *w, int i)
{
    w[i >> 6] |= 1ULL << (i & 63);
}

static inline void bits_clear(uint64_t *w, int i)
{
    w[i >> 6] &= ~(1ULL << (i & 63));
}

static inline int bits_count(const uint64_t *w, int n_words)
{
    int c = 0;
    for (int i = 0; i < n_words; i++)
        c += __builtin_popcountll(w[i]);
    return c;
}

/* Bit j of x (x < 256) moved to byte j. */
static inline uint64_t bits_spread8(unsigned x)
{
#if BITS_PDEP_BUILTIN
    return _pdep_u64(x, 0x0101010101010101ULL);
#else
    /* x copied into every byte, byte j keeps bit j, and adding 0x7f carries
     * that bit (whichever it is) into the byte's top bit */
    uint64_t r = ((uint64_t)x * 0x0101010101010101ULL) & 0x8040201008040201ULL;
    return ((r + 0x7f7f7f7f7f7f7f7fULL) >> 7) & 0x0101010101010101ULL;
#endif
}

/* Bytes of 0/1 from the first n bits of w (masks and observation planes). */
static inline void bits_to_bytes(const uint64_t *w, int n, uint8_t *out)
{
    int full = n / 8;
    for (int byte = 0; byte < full; byte++) {
        uint64_t s = bits_spread8((unsigned)(w[byte >> 3] >> (8 * (byte & 7))) & 0xffu);
        memcpy(out + 8 * byte, &s, 8);
    }
    for (int i = full * 8; i < n; i++)
        out[i] = (uint8_t)bits_get(w, i);
}

/* Rewrite the bytes of out whose bits differ between before and after. */
static inline void bits_to_bytes_changed(const uint64_t *before, const uint64_t *after, int n_words,
                                         uint8_t *out)
{
    for (int w = 0; w < n_words; w++)
        for (uint64_t d = before[w] ^ after[w]; d; d &= d - 1) {
            int i = w * 64 + __builtin_ctzll(d);
            out[i] = (uint8_t)bits_get(after, i);
        }
}

/* Position of the k-th set bit of x (k < popcount(x)), without branches. */
static inline int bits_select64(uint64_t x, int k)
{
#if BITS_PDEP_BUILTIN
    return __builtin_ctzll(_pdep_u64(1ULL << k, x));
#else
#if BITS_PDEP_AT_RUN_TIME
    if (fiverow_cpu_has_bmi2)
        return bits_select64_pdep(x, k);
#endif
    /* broadword select: byte popcounts, their prefix sums, then the byte
     * holding the k-th bit and a scan inside that byte */
    uint64_t s = x - ((x >> 1) & 0x5555555555555555ULL);
    s = (s & 0x3333333333333333ULL) + ((s >> 2) & 0x3333333333333333ULL);
    s = (s + (s >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
    uint64_t prefix = s * 0x0101010101010101ULL; /* byte j: bits set in bytes 0..j */
    uint64_t kk = (uint64_t)k * 0x0101010101010101ULL;
    /* bytes whose prefix is <= k lie wholly before the k-th bit */
    uint64_t le = ((kk | 0x8080808080808080ULL) - prefix) & 0x8080808080808080ULL;
    int byte = __builtin_popcountll(le);
    int before = byte ? (int)((prefix >> (8 * (byte - 1))) & 0xff) : 0;
    unsigned b = (unsigned)(x >> (8 * byte)) & 0xffu;
    for (int r = k - before; r > 0; r--)
        b &= b - 1;
    return 8 * byte + __builtin_ctz(b);
#endif
}

/* Index of the k-th set bit (k counted from 0); -1 if there are not k+1.
 * The word is chosen with conditional moves: which word holds a random k is
 * itself random, so a branch on it would mispredict. */
static inline int bits_select(const uint64_t *w, int n_words, int k)
{
    int word = -1, rank = 0, rest = k;
    for (int i = 0; i < n_words; i++) {
        int c = __builtin_popcountll(w[i]);
        int here = (rest >= 0) & (rest < c);
        word = here ? i : word;
        rank = here ? rest : rank;
        rest -= c;
    }
    if (word < 0)
        return -1;
    return word * 64 + bits_select64(w[word], rank);
}

#endif
