/* C micro-benchmark: what the memory of this machine gives a step-major pass.
 *
 * Over a buffer of `mb` megabytes (far beyond the caches), on `threads`
 * OpenMP threads, the best of `repeats` runs of:
 *   copy        memcpy-like streaming, bytes read + bytes written per second
 *   read        streaming sum of 64-bit words, bytes read per second
 *   lines       read-modify-write of one byte in each of `per_board` random
 *               cache lines inside consecutive 1 KB "boards" (what a step
 *               does to a board's state), cache lines touched per second
 *   lines_pf    the same with each board's lines prefetched 8 boards ahead
 * Prints one JSON line. Built and run by bench_bandwidth.py. */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return x;
}

enum { BOARD = 1024, LINES = BOARD / 64, AHEAD = 8 };

/* The line of board i touched k-th: a fixed pseudo-random pick. */
static size_t line_of(size_t i, int k)
{
    return (size_t)(mix(i * 16 + (uint64_t)k) % LINES) * 64;
}

static double touch_lines(uint8_t *buf, size_t boards, int per_board, int prefetch)
{
    double start = now();
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < boards; i++) {
        if (prefetch && i + AHEAD < boards)
            for (int k = 0; k < per_board; k++)
                __builtin_prefetch(buf + (i + AHEAD) * BOARD + line_of(i + AHEAD, k), 1);
        for (int k = 0; k < per_board; k++)
            buf[i * BOARD + line_of(i, k)]++;
    }
    return now() - start;
}

int main(int argc, char **argv)
{
    size_t mb = argc > 1 ? (size_t)atol(argv[1]) : 512;
    int repeats = argc > 2 ? atoi(argv[2]) : 5;
    int per_board = argc > 3 ? atoi(argv[3]) : 12;
    size_t bytes = mb << 20, words = bytes / 8, boards = bytes / BOARD;
    uint64_t *a = aligned_alloc(64, bytes), *b = aligned_alloc(64, bytes);
    if (!a || !b)
        return 1;
    memset(a, 1, bytes);
    memset(b, 2, bytes);
    double copy = 1e9, read = 1e9, lines = 1e9, lines_pf = 1e9;
    uint64_t sum = 0;
    for (int r = 0; r < repeats; r++) {
        double t = now();
#pragma omp parallel for schedule(static)
        for (size_t i = 0; i < words; i++)
            b[i] = a[i];
        t = now() - t;
        copy = t < copy ? t : copy;
        t = now();
#pragma omp parallel for schedule(static) reduction(+ : sum)
        for (size_t i = 0; i < words; i++)
            sum += b[i];
        t = now() - t;
        read = t < read ? t : read;
        t = touch_lines((uint8_t *)a, boards, per_board, 0);
        lines = t < lines ? t : lines;
        t = touch_lines((uint8_t *)a, boards, per_board, 1);
        lines_pf = t < lines_pf ? t : lines_pf;
    }
    double touched = (double)boards * per_board;
    printf("{\"threads\": %d, \"buffer_mb\": %zu, \"copy_gb_s\": %.2f, \"read_gb_s\": %.2f, "
           "\"lines_per_board\": %d, \"lines_m_per_s\": %.1f, \"lines_prefetched_m_per_s\": %.1f, "
           "\"boards_m_per_s\": %.2f, \"boards_prefetched_m_per_s\": %.2f, \"check\": %llu}\n",
           omp_get_max_threads(), mb, 2.0 * (double)bytes / copy / 1e9, (double)bytes / read / 1e9,
           per_board, touched / lines / 1e6, touched / lines_pf / 1e6, (double)boards / lines / 1e6,
           (double)boards / lines_pf / 1e6, (unsigned long long)(sum & 0xff));
    free(a);
    free(b);
    return 0;
}
