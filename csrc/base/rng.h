/* Counter-based random numbers: every draw is a pure function of a key and a
 * counter, so a board's stream does not depend on which thread steps it.
 * The mixer is splitmix64's finaliser (Steele, Lea, Flood 2014). */
#ifndef FIVEROW_RNG_H
#define FIVEROW_RNG_H

#include <stdint.h>

enum rng_stream {
    RNG_STREAM_ENV = 1,    /* randomness of the rules (illegal="random", bags) */
    RNG_STREAM_SAMPLE = 2, /* sample_legal() and rollouts */
    RNG_STREAM_PLAYER = 3, /* built-in players */
    RNG_STREAM_SEAT = 4    /* the agent's seat, per episode, with an opponent */
};

static inline uint64_t rng_mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Key of one stream of one episode of one board. */
static inline uint64_t rng_key(uint64_t seed, uint64_t board, uint64_t episode, uint64_t stream)
{
    uint64_t k = rng_mix64(seed + 0x9e3779b97f4a7c15ULL);
    k = rng_mix64(k ^ (board * 0xd1b54a32d192ed03ULL));
    k = rng_mix64(k ^ (episode * 0x8cb92ba72f3d8dd7ULL));
    return rng_mix64(k ^ (stream * 0xaf251af3b0f025b5ULL));
}

static inline uint64_t rng_at(uint64_t key, uint64_t counter)
{
    return rng_mix64(key + (counter + 1) * 0x9e3779b97f4a7c15ULL);
}

/* Map a 64-bit draw to [0, n). Multiply-shift: the bias is below n / 2^32,
 * far under anything a game statistic can see for n < 2^16. */
static inline uint32_t rng_below(uint64_t r, uint32_t n)
{
    return (uint32_t)(((r >> 32) * (uint64_t)n) >> 32);
}

/* Uniform double in [0, 1). */
static inline double rng_unit(uint64_t r)
{
    return (double)(r >> 11) * (1.0 / 9007199254740992.0);
}

#endif
