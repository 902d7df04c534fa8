#include "geometry/plane_map.h"

#include <string.h>

#if defined(__SSSE3__) && !defined(FIVEROW_NO_INTRINSICS)
#include <immintrin.h>
#define PLANE_MAP_SIMD 1
#else
#define PLANE_MAP_SIMD 0
#endif

/* Is inverse the separable map that row[] and columns[] describe? */
static int separable(const plane_map *m, const int32_t *inverse, int h, int w)
{
    for (int r = 0; r < h; r++)
        for (int c = 0; c < w; c++) {
            const int32_t want = m->kind == PLANE_MAP_ROWS ? m->row[r] * w + m->columns[c]
                                                           : m->columns[c] * w + m->row[r];
            if (inverse[r * w + c] != want)
                return 0;
        }
    return 1;
}

/* The shuffle masks of the column map (0x80: the shuffle writes 0). */
static void make_masks(plane_map *m, int w)
{
    memset(m->mask, 0x80, sizeof(m->mask));
    for (int c = 0; c < w; c++) {
        const int q = c / 16, p = m->columns[c] / 16;
        m->mask[q][p][c % 16] = (uint8_t)(m->columns[c] % 16);
    }
}

void plane_map_classify(plane_map *m, const int32_t *inverse, int h, int w)
{
    memset(m, 0, sizeof(*m));
    m->kind = PLANE_MAP_GATHER;
    if (!PLANE_MAP_SIMD || h > PLANE_MAP_MAX || w > PLANE_MAP_MAX)
        return;
    for (int kind = PLANE_MAP_ROWS; kind <= PLANE_MAP_COLUMNS; kind++) {
        if (kind == PLANE_MAP_COLUMNS && h != w)
            break;
        m->kind = kind;
        for (int r = 0; r < h; r++)
            m->row[r] = (uint8_t)(kind == PLANE_MAP_ROWS ? inverse[r * w] / w : inverse[r * w] % w);
        for (int c = 0; c < w; c++)
            m->columns[c] = (uint8_t)(kind == PLANE_MAP_ROWS ? inverse[c] % w : inverse[c] / w);
        if (separable(m, inverse, h, w)) {
            make_masks(m, w);
            return;
        }
    }
    m->kind = PLANE_MAP_GATHER;
}

#if PLANE_MAP_SIMD
/* The 16 x 16 bytes whose rows start every `stride` bytes at in (rows rows,
 * 16 bytes readable from each start; rows from `rows` on read as zeros),
 * transposed into out (16 rows, `out_stride` apart). */
static void transpose16(const uint8_t *in, int stride, int rows, uint8_t *out, int out_stride)
{
    __m128i a[16], b[16];
    for (int r = 0; r < 16; r++)
        a[r] = r < rows ? _mm_loadu_si128((const __m128i *)(in + (size_t)r * (size_t)stride))
                        : _mm_setzero_si128();
    for (int i = 0; i < 8; i++) {
        b[i] = _mm_unpacklo_epi8(a[2 * i], a[2 * i + 1]);
        b[i + 8] = _mm_unpackhi_epi8(a[2 * i], a[2 * i + 1]);
    }
    for (int i = 0; i < 8; i++) {
        a[i] = _mm_unpacklo_epi16(b[2 * i], b[2 * i + 1]);
        a[i + 8] = _mm_unpackhi_epi16(b[2 * i], b[2 * i + 1]);
    }
    for (int i = 0; i < 8; i++) {
        b[i] = _mm_unpacklo_epi32(a[2 * i], a[2 * i + 1]);
        b[i + 8] = _mm_unpackhi_epi32(a[2 * i], a[2 * i + 1]);
    }
    for (int i = 0; i < 8; i++) {
        a[i] = _mm_unpacklo_epi64(b[2 * i], b[2 * i + 1]);
        a[i + 8] = _mm_unpackhi_epi64(b[2 * i], b[2 * i + 1]);
    }
    /* four interleaving stages leave column c in register bitreverse(c) */
    static const int column_of[16] = {0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15};
    for (int r = 0; r < 16; r++)
        _mm_storeu_si128((__m128i *)(out + (size_t)column_of[r] * (size_t)out_stride), a[r]);
}

/* Output rows from the rows of src (row k starts at src + k * stride, with
 * 32 bytes readable from each start). */
static void shuffle_rows(const plane_map *m, const uint8_t *src, int stride, uint8_t *dst, int h,
                         int w)
{
    const __m128i m00 = _mm_loadu_si128((const __m128i *)m->mask[0][0]);
    if (w <= 16) {
        for (int r = 0; r < h; r++) {
            const uint8_t *from = src + (size_t)m->row[r] * (size_t)stride;
            __m128i x = _mm_loadu_si128((const __m128i *)from);
            _mm_storeu_si128((__m128i *)(dst + (size_t)r * (size_t)w), _mm_shuffle_epi8(x, m00));
        }
        return;
    }
    const __m128i m01 = _mm_loadu_si128((const __m128i *)m->mask[0][1]);
    const __m128i m10 = _mm_loadu_si128((const __m128i *)m->mask[1][0]);
    const __m128i m11 = _mm_loadu_si128((const __m128i *)m->mask[1][1]);
    for (int r = 0; r < h; r++) {
        const uint8_t *from = src + (size_t)m->row[r] * (size_t)stride;
        __m128i x0 = _mm_loadu_si128((const __m128i *)from);
        __m128i x1 = _mm_loadu_si128((const __m128i *)(from + 16));
        uint8_t *to = dst + (size_t)r * (size_t)w;
        __m128i y0 = _mm_or_si128(_mm_shuffle_epi8(x0, m00), _mm_shuffle_epi8(x1, m01));
        __m128i y1 = _mm_or_si128(_mm_shuffle_epi8(x0, m10), _mm_shuffle_epi8(x1, m11));
        _mm_storeu_si128((__m128i *)to, y0);
        _mm_storeu_si128((__m128i *)(to + 16), y1);
    }
}
#endif

void plane_map_apply(const plane_map *m, const int32_t *inverse, const uint8_t *src, uint8_t *dst,
                     int h, int w, size_t planes)
{
    const size_t n = (size_t)h * (size_t)w;
#if PLANE_MAP_SIMD
    if (m->kind != PLANE_MAP_GATHER) {
        /* planes and rows in order: a 16-byte store that runs past its row
         * is overwritten by the rows after it, or lands in the slack */
        uint8_t t[PLANE_MAP_MAX * PLANE_MAP_MAX + PLANE_MAP_SLACK];
        for (size_t pl = 0; pl < planes; pl++) {
            const uint8_t *from = src + pl * n;
            if (m->kind == PLANE_MAP_COLUMNS) { /* h == w: t's row j is column j */
                for (int bi = 0; bi < h; bi += 16)
                    for (int bj = 0; bj < w; bj += 16)
                        transpose16(from + (size_t)bi * (size_t)w + (size_t)bj, w,
                                    h - bi < 16 ? h - bi : 16, t + (size_t)bj * PLANE_MAP_MAX + bi,
                                    PLANE_MAP_MAX);
                shuffle_rows(m, t, PLANE_MAP_MAX, dst + pl * n, h, w);
            } else {
                shuffle_rows(m, from, w, dst + pl * n, h, w);
            }
        }
        return;
    }
#else
    (void)m;
#endif
    for (size_t pl = 0; pl < planes; pl++) {
        const uint8_t *from = src + pl * n;
        uint8_t *to = dst + pl * n;
        for (size_t d = 0; d < n; d++)
            to[d] = from[inverse[d]];
    }
}
