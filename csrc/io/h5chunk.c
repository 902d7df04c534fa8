#include "io/h5chunk.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "chunks are written as the file's little-endian types: a big-endian host needs a swap"
#endif

struct chunk_coder {
    uint8_t *shuffled, *out;
    size_t cap_shuffled, cap_out;
    z_stream z;
    int z_level; /* 0: no stream yet */
};

chunk_coder *chunk_coder_new(void)
{
    return calloc(1, sizeof(chunk_coder));
}

void chunk_coder_free(chunk_coder *c)
{
    if (!c)
        return;
    if (c->z_level)
        deflateEnd(&c->z);
    free(c->shuffled);
    free(c->out);
    free(c);
}

static int reserve(uint8_t **p, size_t *cap, size_t need)
{
    if (need <= *cap)
        return 0;
    uint8_t *q = realloc(*p, need);
    if (!q)
        return -1;
    *p = q;
    *cap = need;
    return 0;
}

/* HDF5's shuffle: byte k of every element, then byte k + 1, ... */
static const uint8_t *shuffle(chunk_coder *c, const uint8_t *in, size_t n_bytes, size_t size)
{
    if (size == 1)
        return in;
    if (reserve(&c->shuffled, &c->cap_shuffled, n_bytes))
        return NULL;
    size_t n = n_bytes / size;
    for (size_t k = 0; k < size; k++) {
        uint8_t *plane = c->shuffled + k * n;
        const uint8_t *src = in + k;
        for (size_t i = 0; i < n; i++)
            plane[i] = src[i * size];
    }
    return c->shuffled;
}

/* ---- zlib ---- */

static size_t encode_zlib(chunk_coder *c, const uint8_t *in, size_t n, int level)
{
    if (c->z_level != level) {
        if (c->z_level)
            deflateEnd(&c->z);
        c->z_level = 0;
        memset(&c->z, 0, sizeof(c->z));
        if (deflateInit(&c->z, level) != Z_OK)
            return 0;
        c->z_level = level;
    } else if (deflateReset(&c->z) != Z_OK) {
        return 0;
    }
    size_t bound = deflateBound(&c->z, (uLong)n);
    if (reserve(&c->out, &c->cap_out, bound))
        return 0;
    c->z.next_in = (Bytef *)in;
    c->z.avail_in = (uInt)n;
    c->z.next_out = c->out;
    c->z.avail_out = (uInt)bound;
    return deflate(&c->z, Z_FINISH) == Z_STREAM_END ? (size_t)c->z.total_out : 0;
}

/* ---- the fast encoder: a zlib stream written directly ---- */

typedef struct {
    uint8_t *p;
    uint64_t bits;
    int n; /* bits held */
} bit_writer;

/* Append the low n bits of v, least significant first (deflate's order). */
static void put_bits(bit_writer *w, uint32_t v, int n)
{
    w->bits |= (uint64_t)v << w->n;
    w->n += n;
    while (w->n >= 8) {
        *w->p++ = (uint8_t)w->bits;
        w->bits >>= 8;
        w->n -= 8;
    }
}

/* A Huffman code: its bits go most significant first. */
static void put_code(bit_writer *w, uint32_t code, int len)
{
    uint32_t r = 0;
    for (int k = 0; k < len; k++)
        r |= ((code >> k) & 1u) << (len - 1 - k);
    put_bits(w, r, len);
}

static void align_byte(bit_writer *w)
{
    if (w->n > 0)
        put_bits(w, 0, 8 - w->n);
}

/* The fixed Huffman code of literal/length symbol s (RFC 1951, 3.2.6). */
static void put_fixed(bit_writer *w, int s)
{
    if (s < 144)
        put_code(w, 0x30u + (uint32_t)s, 8);
    else if (s < 256)
        put_code(w, 0x190u + (uint32_t)(s - 144), 9);
    else if (s < 280)
        put_code(w, (uint32_t)(s - 256), 7);
    else
        put_code(w, 0xC0u + (uint32_t)(s - 280), 8);
}

/* A match of len (3..258) at distance 1: the last byte, repeated. */
static void put_repeat(bit_writer *w, int len)
{
    static const int base[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
    static const int extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                  2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
    int k = 28;
    while (base[k] > len)
        k--;
    put_fixed(w, 257 + k);
    if (extra[k])
        put_bits(w, (uint32_t)(len - base[k]), extra[k]);
    put_code(w, 0, 5); /* distance code 0: distance 1 */
}

/* n bytes of value b as one fixed-Huffman block. */
static void put_run(bit_writer *w, uint8_t b, size_t n, int final)
{
    put_bits(w, (uint32_t) final | 1u << 1, 3);
    put_fixed(w, b);
    size_t left = n - 1;
    while (left >= 3) {
        int len = left > 258 ? 258 : (int)left;
        put_repeat(w, len);
        left -= (size_t)len;
    }
    while (left--)
        put_fixed(w, b);
    put_fixed(w, 256); /* end of block */
}

/* n bytes stored as they are, in blocks of at most 65,535. */
static void put_stored(bit_writer *w, const uint8_t *src, size_t n, int final)
{
    do {
        size_t len = n > 65535 ? 65535 : n;
        n -= len;
        put_bits(w, (uint32_t)(final && n == 0), 3); /* BTYPE 00 */
        align_byte(w);
        put_bits(w, (uint32_t)len, 16);
        put_bits(w, (uint32_t)len ^ 0xFFFFu, 16);
        memcpy(w->p, src, len);
        w->p += len;
        src += len;
    } while (n > 0);
}

/* Bytes at the end of p equal to its last one (a partial chunk's zero
 * padding, or the whole plane when it holds one value). */
static size_t trailing_run(const uint8_t *p, size_t n)
{
    size_t k = n - 1;
    while (k > 0 && p[k - 1] == p[n - 1])
        k--;
    return n - k;
}

static size_t encode_fast(chunk_coder *c, const uint8_t *in, size_t n_bytes, size_t size)
{
    size_t n = n_bytes / size;
    /* header; per plane its bytes, stored block headers (5 bytes per 65,535)
     * and a run block (at most 2 bits a byte: 13 per 258 bytes); Adler-32 */
    size_t bound = 2 + size * (n + n / 4 + 5 * (n / 65535 + 2) + 8) + 4;
    if (reserve(&c->out, &c->cap_out, bound))
        return 0;
    bit_writer w = {c->out, 0, 0};
    put_bits(&w, 0x78, 8); /* zlib header: deflate, 32 KiB window, fastest */
    put_bits(&w, 0x01, 8);
    for (size_t k = 0; k < size; k++) {
        const uint8_t *plane = in + k * n;
        int final = k + 1 == size;
        size_t run = trailing_run(plane, n);
        if (run < 64) { /* too short to be worth a block of its own */
            put_stored(&w, plane, n, final);
            continue;
        }
        if (run < n)
            put_stored(&w, plane, n - run, 0);
        put_run(&w, plane[n - 1], run, final);
    }
    align_byte(&w);
    uint32_t adler = (uint32_t)adler32(adler32(0, NULL, 0), in, (uInt)n_bytes);
    for (int s = 24; s >= 0; s -= 8)
        *w.p++ = (uint8_t)(adler >> s);
    return (size_t)(w.p - c->out);
}

size_t chunk_encode(chunk_coder *c, const void *data, size_t n_bytes, size_t elem_size, int level,
                    enum chunk_encoding how, const uint8_t **out)
{
    const uint8_t *in = shuffle(c, data, n_bytes, elem_size);
    if (!in || n_bytes == 0)
        return 0;
    size_t size;
    if (how == CHUNK_FAST && elem_size > 1)
        size = encode_fast(c, in, n_bytes, elem_size);
    else
        size = encode_zlib(c, in, n_bytes, how == CHUNK_FAST ? 1 : level);
    *out = c->out;
    return size;
}
