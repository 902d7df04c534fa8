/* IEEE half-precision floats (policy targets in datasets), converted in C so
 * that no compiler support for _Float16 is needed. */
#ifndef FIVEROW_HALF_H
#define FIVEROW_HALF_H

#include <stdint.h>
#include <string.h>

/* Round to nearest, ties to even; overflow to infinity, NaN kept. */
static inline uint16_t half_from_float(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    uint32_t exp = (x >> 23) & 0xffu, man = x & 0x7fffffu;
    if (exp == 0xff) /* infinity or NaN */
        return (uint16_t)(sign | 0x7c00u | (man ? 0x200u : 0));
    int e = (int)exp - 127 + 15;
    if (e >= 31)
        return (uint16_t)(sign | 0x7c00u);
    if (e <= 0) { /* subnormal half, or zero */
        if (e < -10)
            return sign;
        man |= 0x800000u;
        int shift = 14 - e;
        uint32_t half = man >> shift, rest = man & ((1u << shift) - 1), mid = 1u << (shift - 1);
        if (rest > mid || (rest == mid && (half & 1u)))
            half++;
        return (uint16_t)(sign | half);
    }
    uint32_t half = ((uint32_t)e << 10) | (man >> 13), rest = man & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (half & 1u)))
        half++; /* may carry into the exponent: still correct */
    return (uint16_t)(sign | half);
}

/* Exact widening of a half (subnormals, infinities and NaN included). */
static inline float half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, man = h & 0x3ffu;
    uint32_t x;
    if (exp == 0x1f) { /* infinity or NaN */
        x = sign | 0x7f800000u | (man << 13);
    } else if (exp) {
        x = sign | ((exp + 127 - 15) << 23) | (man << 13);
    } else if (!man) {
        x = sign;
    } else { /* subnormal half: normalise */
        int e = -1;
        do {
            man <<= 1;
            e++;
        } while (!(man & 0x400u));
        x = sign | ((uint32_t)(127 - 15 - e) << 23) | ((man & 0x3ffu) << 13);
    }
    float f;
    memcpy(&f, &x, 4);
    return f;
}

#endif
