/* Chunks for HDF5's shuffle + deflate filters, encoded here (the writer
 * stores them with H5Dwrite_chunk), so that any HDF5 reader, h5py included,
 * decodes them with its built-in filters.
 *
 * Two encoders. zlib at the run's gzip level, as HDF5 itself would. And a
 * fast one, for when play outruns the writer (random players make 40 M
 * steps/s, more than zlib compresses on one core): after the shuffle each
 * byte plane of the chunk is one deflate block, a plane of one repeated byte
 * (the zero high bytes of small actions, a constant column) as a literal and
 * distance-1 matches, any other plane stored as it is. That costs a copy and
 * an Adler-32; a random player's actions cost a byte each either way. */
#ifndef FIVEROW_H5CHUNK_H
#define FIVEROW_H5CHUNK_H

#include <stddef.h>
#include <stdint.h>

enum chunk_encoding {
    CHUNK_ZLIB, /* zlib at the given level */
    CHUNK_FAST, /* per plane: repeated byte or stored (elements of 2+ bytes); zlib level 1 else */
};

typedef struct chunk_coder chunk_coder;

chunk_coder *chunk_coder_new(void);
void chunk_coder_free(chunk_coder *c);

/* Encode n_bytes of elements of elem_size bytes (n_bytes a multiple of it)
 * for the shuffle + deflate pipeline at gzip level 1..9. Returns the encoded
 * size and sets *out (valid until the next call), or 0 when out of memory or
 * zlib fails. */
size_t chunk_encode(chunk_coder *c, const void *data, size_t n_bytes, size_t elem_size, int level,
                    enum chunk_encoding how, const uint8_t **out);

#endif
