/* The HDF5 trajectory writer. One thread owns every HDF5 handle; self-play
 * hands it whole rounds (double buffered: the next round plays while the
 * last is compressed and written).
 *
 * Crash safety comes from never changing a file that a reader may need:
 * rounds go into a segment file under `<path>.parts/`, closed every
 * flush_seconds or so; after each one the file at `path` is rewritten aside
 * and renamed over the old one, with virtual datasets (HDF5 VDS) that join
 * the closed segments. A kill at any moment leaves `path` naming only closed
 * segments. On close the segments are copied (raw chunks, no recompression)
 * into one self-contained file at `path`. docs/hdf5.md has the schema. */
#ifndef FIVEROW_H5WRITER_H
#define FIVEROW_H5WRITER_H

#include <stddef.h>

#include "env/batch.h"
#include "env/selfplay.h"

#define H5WRITER_FORMAT "fiverow-selfplay"
#define H5WRITER_FORMAT_VERSION 1

typedef struct h5_group_desc {
    const char *name;        /* HDF5 group of the variant (unique, no '/') */
    const char *config_json; /* the variant's parameters, as JSON */
} h5_group_desc;

/* How compressed chunks are encoded (h5chunk.h): zlib at the gzip level
 * until play outruns the writer, then fast (auto); or always one way. */
enum h5writer_chunks { H5WRITER_CHUNKS_AUTO, H5WRITER_CHUNKS_ZLIB, H5WRITER_CHUNKS_FAST };

typedef struct h5writer_options {
    int overwrite;        /* replace an existing file (and its segments) */
    int gzip;             /* gzip level 1..9 with shuffle; 0: no filter */
    double flush_seconds; /* a segment is closed at least this often */
    const char *run_json; /* root attribute "run": players, seed, versions */
    int chunks;           /* enum h5writer_chunks */
} h5writer_options;

typedef struct h5writer h5writer;

/* Open a dataset at path for the groups of batch b (one HDF5 group per batch
 * group, in order) and write its empty first version, so that a bad path
 * fails here. NULL with a message in err. */
h5writer *h5writer_open(const char *path, const batch *b, const h5_group_desc *groups,
                        int record_obs, int record_policy, const h5writer_options *o, char *err,
                        size_t errlen);

/* Hand over a round's buffers (one per board of the batch, in order); the
 * played episodes are written. Returns -1 if the writer has failed. */
int h5writer_submit(h5writer *w, const episode_buf *bufs);
/* The same for n buffers of episodes played elsewhere (from Python): each
 * with played = 1, its group, board, episode and game set. */
int h5writer_submit_n(h5writer *w, const episode_buf *bufs, int n);
/* Wait until the writer no longer reads bufs; returns the seconds waited. */
double h5writer_wait(h5writer *w, const episode_buf *bufs);
/* Seconds the writer spent on the last round it wrote. */
double h5writer_last_round_seconds(h5writer *w);
/* The writer thread's error, or NULL. */
const char *h5writer_failed(h5writer *w);

/* Write what is left, then (pack) make `path` one self-contained file and
 * remove the segments. Frees w. 0, or -1 with a message. */
int h5writer_close(h5writer *w, int pack, char *err, size_t errlen);

/* Make one file of a dataset whose run was killed (path + path.parts). */
int h5writer_pack(const char *path, char *err, size_t errlen);

/* The file at path over shards written apart, each a one-segment dataset
 * of the run at path.parts/seg-NNNNNN.h5 (NNNNNN: shards[s], in game order):
 * with pack, one self-contained file (the shards are then removed); else
 * a file naming them (layout "segments", `fiverow pack` finishes it).
 * run_json replaces the shards' run attribute (NULL: kept). 0, or -1 with a
 * message. */
int h5writer_assemble(const char *path, const int *shards, int n, int pack, const char *run_json,
                      char *err, size_t errlen);

void h5writer_library_version(unsigned *major, unsigned *minor, unsigned *release);
/* 0 when the HDF5 library loaded at run time matches the headers built
 * against (major.minor), else -1 with a message. */
int h5writer_check_library(char *err, size_t errlen);

#endif
