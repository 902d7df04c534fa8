#include "io/h5writer.h"

#include <dirent.h>
#include <errno.h>
#include <hdf5.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "io/h5chunk.h"
#include "openings/opening.h"

#define MAX_GROUPS 64
#define STEP_CHUNK_ROWS 65536
#define EPISODE_CHUNK_ROWS 4096
#define ROW_CHUNK_BYTES (1 << 20) /* obs and policy chunks: about a MiB */

/* ---- the datasets of one variant group ---- */

enum ds_id {
    DS_ACTION,
    DS_SEAT,
    DS_COLOUR,
    DS_OBS,
    DS_POLICY,
    DS_OFFSET,
    DS_LENGTH,
    DS_WINNER,
    DS_TRUNCATED,
    DS_SCORES,
    DS_PLAYERS,
    DS_BLACK_SEAT,
    DS_OPENING,
    DS_SEED,
    DS_BOARD,
    DS_EPISODE,
    DS_GAME,
    N_DS
};
enum ds_type { T_I8, T_U8, T_I16, T_I32, T_U32, T_I64, T_U64, T_F16 };

static const struct ds_def {
    const char *name; /* under the variant's group */
    int type;
    int per_step; /* rows are steps (else episodes) */
} ds_defs[N_DS] = {
    {"steps/action", T_I16, 1},     {"steps/seat", T_I8, 1},       {"steps/colour", T_I8, 1},
    {"steps/obs", T_U8, 1},         {"steps/policy", T_F16, 1},    {"episodes/offset", T_I64, 0},
    {"episodes/length", T_I32, 0},  {"episodes/winner", T_I8, 0},  {"episodes/truncated", T_U8, 0},
    {"episodes/scores", T_I32, 0},  {"episodes/players", T_I8, 0}, {"episodes/black_seat", T_I8, 0},
    {"episodes/opening", T_I8, 0},  {"episodes/seed", T_U64, 0},   {"episodes/board", T_I32, 0},
    {"episodes/episode", T_U32, 0}, {"episodes/game", T_I64, 0},
};

static const size_t type_size[] = {1, 1, 2, 4, 4, 8, 8, 2};

typedef struct group_info {
    char name[64];
    char *config_json;
    int key_group; /* the group's index in the pool: part of every board's key */
    int n_actions, planes, height, width;
    /* rows written so far (closed segments and the open one) */
    int64_t steps, episodes;
    /* the open segment's datasets and rows */
    hid_t ds[N_DS];
    int64_t seg_rows[N_DS];
    /* each dataset's chunk being filled, written whole (H5Dwrite_chunk) */
    uint8_t *chunk[N_DS];
    int64_t chunk_fill[N_DS], flushed_rows[N_DS];
    /* a round gathered into contiguous rows */
    uint8_t *stage[N_DS];
    size_t stage_cap[N_DS];
} group_info;

typedef struct segment {
    int index;
    int64_t steps[MAX_GROUPS], episodes[MAX_GROUPS];
} segment;

struct h5writer {
    char *path, *parts, *parts_name; /* parts_name: relative to path's directory */
    char *run_json;
    char created[32];
    int n_groups, n_boards;
    group_info g[MAX_GROUPS];
    int record_obs, record_policy, gzip;
    chunk_coder *coder;
    int fast_chunks; /* enum h5writer_chunks */
    int fast;        /* chunks are encoded fast from now on */
    /* the segments are shards written apart, their episodes/offset counted
     * from 0 in each: the file's offsets are computed, not linked */
    int local_offsets;
    double flush_seconds, opened_at, segment_at;
    uint64_t seed;
    /* segments: closed ones, and the one open (seg_file >= 0) */
    segment *segs;
    int n_segs, cap_segs, next_seg;
    hid_t seg_file;
    segment open_seg;
    /* the thread */
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    const episode_buf *pending, *in_use;
    int pending_n, in_use_n; /* buffers in each */
    double last_round;       /* seconds the last write_round took */
    int quit, failed, started;
    char error[1024];
};

/* ---- small helpers ---- */

/* Before the library's first use: no exit handler. Every file is closed
 * explicitly; HDF5 1.10's handler crashes on a file whose close failed
 * (after a full disk), and a killed run relies on nothing being flushed at
 * exit anyway. Error stacks are read, not printed. */
static void h5_init(void)
{
    H5dont_atexit(); /* fails harmlessly once the library is initialised */
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

static herr_t first_error(unsigned n, const H5E_error2_t *e, void *data)
{
    char *out = data;
    if (n == 0 && e->desc)
        snprintf(out, 512, "%s (in %s)", e->desc, e->func_name ? e->func_name : "HDF5");
    return 0;
}

/* "what: the most specific HDF5 error", and the error stack cleared. */
static void h5_fail(char *err, size_t errlen, const char *what, const char *path)
{
    char detail[512] = "";
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, first_error, detail);
    H5Eclear2(H5E_DEFAULT);
    if (!detail[0] && errno)
        snprintf(detail, sizeof(detail), "%s", strerror(errno));
    snprintf(err, errlen, "%s '%s': %s", what, path, detail[0] ? detail : "HDF5 error");
}

static hid_t file_type(int t)
{
    static hid_t f16 = -1;
    switch (t) {
    case T_I8:
        return H5T_STD_I8LE;
    case T_U8:
        return H5T_STD_U8LE;
    case T_I16:
        return H5T_STD_I16LE;
    case T_I32:
        return H5T_STD_I32LE;
    case T_U32:
        return H5T_STD_U32LE;
    case T_I64:
        return H5T_STD_I64LE;
    case T_U64:
        return H5T_STD_U64LE;
    default:
        if (f16 < 0) { /* IEEE half: 1 sign, 5 exponent, 10 mantissa bits */
            hid_t t16 = H5Tcopy(H5T_IEEE_F32LE);
            H5Tset_fields(t16, 15, 10, 5, 0, 10);
            H5Tset_precision(t16, 16);
            H5Tset_size(t16, 2);
            H5Tset_ebias(t16, 15);
            f16 = t16;
        }
        return f16;
    }
}

static int ds_present(const h5writer *w, int d)
{
    return (d != DS_OBS || w->record_obs) && (d != DS_POLICY || w->record_policy);
}

/* Dimensions of one row (after the first axis); returns their count. */
static int row_dims(const group_info *gi, int d, hsize_t *dims)
{
    switch (d) {
    case DS_OBS:
        dims[0] = (hsize_t)gi->planes;
        dims[1] = (hsize_t)gi->height;
        dims[2] = (hsize_t)gi->width;
        return 3;
    case DS_POLICY:
        dims[0] = (hsize_t)gi->n_actions;
        return 1;
    case DS_SCORES:
    case DS_PLAYERS:
        dims[0] = 2;
        return 1;
    default:
        return 0;
    }
}

static size_t row_bytes(const group_info *gi, int d)
{
    hsize_t dims[3];
    int r = row_dims(gi, d, dims);
    size_t n = type_size[ds_defs[d].type];
    for (int k = 0; k < r; k++)
        n *= (size_t)dims[k];
    return n;
}

static int set_str_attr(hid_t loc, const char *name, const char *value)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    hid_t s = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(loc, name, t, s, H5P_DEFAULT, H5P_DEFAULT);
    int rc = a < 0 || H5Awrite(a, t, &value) < 0 ? -1 : 0;
    if (a >= 0)
        H5Aclose(a);
    H5Sclose(s);
    H5Tclose(t);
    return rc;
}

static int set_int_attr(hid_t loc, const char *name, const int64_t *values, int n)
{
    hsize_t dims[1] = {(hsize_t)n};
    hid_t s = n == 1 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, dims, NULL);
    hid_t a = H5Acreate2(loc, name, H5T_STD_I64LE, s, H5P_DEFAULT, H5P_DEFAULT);
    int rc = a < 0 || H5Awrite(a, H5T_NATIVE_INT64, values) < 0 ? -1 : 0;
    if (a >= 0)
        H5Aclose(a);
    H5Sclose(s);
    return rc;
}

/* Does attribute a hold exactly n values of this class (n = 1: a scalar or a
 * single value)? Reading more than the caller has room for would overflow. */
static int attr_is(hid_t a, H5T_class_t cls, hssize_t n)
{
    hid_t s = H5Aget_space(a), t = H5Aget_type(a);
    int ok = s >= 0 && t >= 0 && H5Tget_class(t) == cls && H5Sget_simple_extent_npoints(s) == n;
    if (s >= 0)
        H5Sclose(s);
    if (t >= 0)
        H5Tclose(t);
    return ok;
}

static char *get_str_attr(hid_t loc, const char *name)
{
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
    if (a < 0)
        return NULL;
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    char *value = NULL, *copy = NULL;
    if (attr_is(a, H5T_STRING, 1) && H5Aread(a, t, &value) >= 0 && value) {
        copy = dup_str(value);
        H5free_memory(value);
    }
    H5Tclose(t);
    H5Aclose(a);
    return copy;
}

/* An integer attribute of exactly n values into values; -1 if it is absent
 * or of another type or length. */
static int get_int_attr(hid_t loc, const char *name, int64_t *values, int n)
{
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
    if (a < 0)
        return -1;
    int rc = !attr_is(a, H5T_INTEGER, n) || H5Aread(a, H5T_NATIVE_INT64, values) < 0 ? -1 : 0;
    H5Aclose(a);
    return rc;
}

/* Is dataset ds integers of exactly these dimensions (rank 1: rows only)? */
static int table_is(hid_t ds, int rank, hsize_t rows, hsize_t cols)
{
    hid_t s = H5Dget_space(ds), t = H5Dget_type(ds);
    hsize_t dims[2] = {0, 0};
    /* the rank is checked before the dimensions are read into dims[2] */
    int ok = s >= 0 && t >= 0 && H5Tget_class(t) == H5T_INTEGER &&
             H5Sget_simple_extent_ndims(s) == rank &&
             H5Sget_simple_extent_dims(s, dims, NULL) == rank && dims[0] == rows &&
             (rank == 1 || dims[1] == cols);
    if (s >= 0)
        H5Sclose(s);
    if (t >= 0)
        H5Tclose(t);
    return ok;
}

/* Remove a directory of segment files (no subdirectories). */
static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    char file[4096];
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        snprintf(file, sizeof(file), "%s/%s", dir, e->d_name);
        unlink(file);
    }
    closedir(d);
    rmdir(dir);
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* ---- segments ---- */

/* Rows of one chunk of dataset d. */
static hsize_t chunk_rows(const group_info *gi, int d)
{
    size_t rb = row_bytes(gi, d);
    if (d == DS_OBS || d == DS_POLICY)
        return ROW_CHUNK_BYTES / rb ? ROW_CHUNK_BYTES / rb : 1;
    return ds_defs[d].per_step ? STEP_CHUNK_ROWS : EPISODE_CHUNK_ROWS;
}

static hid_t create_dataset(hid_t file, const h5writer *w, const group_info *gi, int d,
                            const char *name, int chunked_empty)
{
    hsize_t dims[4] = {0}, maxd[4], chunk[4];
    int rank = 1 + row_dims(gi, d, dims + 1);
    size_t rb = row_bytes(gi, d);
    hsize_t rows = chunk_rows(gi, d);
    for (int k = 0; k < rank; k++) {
        maxd[k] = k ? dims[k] : H5S_UNLIMITED;
        chunk[k] = k ? dims[k] : rows;
    }
    hid_t space = H5Screate_simple(rank, dims, maxd);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
    hid_t dapl = H5Pcreate(H5P_DATASET_ACCESS);
    H5Pset_create_intermediate_group(lcpl, 1);
    H5Pset_chunk(dcpl, rank, chunk);
    if (w->gzip > 0 && !chunked_empty) {
        H5Pset_shuffle(dcpl);
        H5Pset_deflate(dcpl, (unsigned)w->gzip);
    }
    /* room for a few whole chunks: appends fill a chunk over several writes */
    size_t chunk_bytes = (size_t)rows * rb;
    H5Pset_chunk_cache(dapl, 521, 4 * chunk_bytes > (1u << 20) ? 4 * chunk_bytes : (1u << 20), 1.0);
    hid_t ds = H5Dcreate2(file, name, file_type(ds_defs[d].type), space, lcpl, dcpl, dapl);
    H5Pclose(dapl);
    H5Pclose(lcpl);
    H5Pclose(dcpl);
    H5Sclose(space);
    return ds;
}

static int open_segment(h5writer *w)
{
    char file[4096], name[256];
    int index = w->next_seg;
    snprintf(file, sizeof(file), "%s/seg-%06d.h5", w->parts, index);
    w->seg_file = H5Fcreate(file, H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT);
    if (w->seg_file < 0) {
        h5_fail(w->error, sizeof(w->error), "cannot create segment", file);
        return -1;
    }
    w->next_seg++;
    memset(&w->open_seg, 0, sizeof(w->open_seg));
    w->open_seg.index = index;
    for (int k = 0; k < w->n_groups; k++) {
        group_info *gi = &w->g[k];
        for (int d = 0; d < N_DS; d++) {
            gi->ds[d] = -1;
            gi->seg_rows[d] = gi->chunk_fill[d] = gi->flushed_rows[d] = 0;
            if (!ds_present(w, d))
                continue;
            snprintf(name, sizeof(name), "/%s/%s", gi->name, ds_defs[d].name);
            gi->ds[d] = create_dataset(w->seg_file, w, gi, d, name, 0);
            if (gi->ds[d] < 0) {
                h5_fail(w->error, sizeof(w->error), "cannot create a dataset in", file);
                return -1;
            }
        }
    }
    w->segment_at = now_seconds();
    return 0;
}

/* Write the chunk being filled (its unused rows zero) and start the next. */
static int flush_chunk(h5writer *w, group_info *gi, int d)
{
    int64_t fill = gi->chunk_fill[d];
    if (fill == 0)
        return 0;
    size_t rb = row_bytes(gi, d), bytes = (size_t)chunk_rows(gi, d) * rb;
    memset(gi->chunk[d] + (size_t)fill * rb, 0, bytes - (size_t)fill * rb);
    hsize_t dims[4], offset[4] = {(hsize_t)gi->flushed_rows[d], 0, 0, 0};
    row_dims(gi, d, dims + 1);
    dims[0] = (hsize_t)(gi->flushed_rows[d] + fill);
    const uint8_t *data = gi->chunk[d];
    size_t size = bytes;
    if (w->gzip > 0) {
        /* observations and policies keep the run's level: recording them is
         * the writer's work anyway, and level 1 makes observations 5x larger */
        int fast = w->fast && d != DS_OBS && d != DS_POLICY;
        enum chunk_encoding how = fast ? CHUNK_FAST : CHUNK_ZLIB;
        size = chunk_encode(w->coder, gi->chunk[d], bytes, type_size[ds_defs[d].type], w->gzip, how,
                            &data);
        if (size == 0) {
            snprintf(w->error, sizeof(w->error), "out of memory compressing a chunk of %s",
                     w->path);
            return -1;
        }
    }
    if (H5Dset_extent(gi->ds[d], dims) < 0 ||
        H5Dwrite_chunk(gi->ds[d], H5P_DEFAULT, 0, offset, size, data) < 0) {
        h5_fail(w->error, sizeof(w->error), "cannot write to the segments of", w->path);
        return -1;
    }
    gi->flushed_rows[d] += fill;
    gi->chunk_fill[d] = 0;
    return 0;
}

/* Append rows to dataset d of the open segment, a whole chunk at a time. */
static int append_rows(h5writer *w, group_info *gi, int d, const void *data, int64_t rows)
{
    size_t rb = row_bytes(gi, d);
    int64_t cap = (int64_t)chunk_rows(gi, d);
    if (rows > 0 && !gi->chunk[d] && !(gi->chunk[d] = malloc((size_t)cap * rb))) {
        snprintf(w->error, sizeof(w->error), "out of memory for the chunks of %s", w->path);
        return -1;
    }
    const uint8_t *src = data;
    while (rows > 0) {
        int64_t take = cap - gi->chunk_fill[d] < rows ? cap - gi->chunk_fill[d] : rows;
        memcpy(gi->chunk[d] + (size_t)gi->chunk_fill[d] * rb, src, (size_t)take * rb);
        gi->chunk_fill[d] += take;
        gi->seg_rows[d] += take;
        src += (size_t)take * rb;
        rows -= take;
        if (gi->chunk_fill[d] == cap && flush_chunk(w, gi, d))
            return -1;
    }
    return 0;
}

/* Room for `rows` rows of dataset d in the group's staging area. */
static uint8_t *stage(group_info *gi, int d, int64_t rows)
{
    size_t need = (size_t)rows * row_bytes(gi, d);
    if (need > gi->stage_cap[d]) {
        uint8_t *p = realloc(gi->stage[d], need);
        if (!p)
            return NULL;
        gi->stage[d] = p;
        gi->stage_cap[d] = need;
    }
    return gi->stage[d];
}

/* Gather the round's episodes of one group into rows and append them. */
static int write_group(h5writer *w, int k, const episode_buf *bufs, int n_boards)
{
    group_info *gi = &w->g[k];
    int64_t steps = 0, eps = 0;
    for (int j = 0; j < n_boards; j++)
        if (bufs[j].played && bufs[j].group == k) {
            steps += bufs[j].n;
            eps++;
        }
    if (eps == 0)
        return 0;
    void *col[N_DS] = {0};
    for (int d = 0; d < N_DS; d++)
        if (ds_present(w, d) && !(col[d] = stage(gi, d, ds_defs[d].per_step ? steps : eps))) {
            snprintf(w->error, sizeof(w->error), "out of memory gathering a round");
            return -1;
        }
    const size_t obs_row = row_bytes(gi, DS_OBS), pol_row = row_bytes(gi, DS_POLICY);
    int64_t s = 0, e = 0;
    for (int j = 0; j < n_boards; j++) {
        const episode_buf *b = &bufs[j];
        if (!b->played || b->group != k)
            continue;
        memcpy((int16_t *)col[DS_ACTION] + s, b->action, sizeof(int16_t) * (size_t)b->n);
        memcpy((int8_t *)col[DS_SEAT] + s, b->seat, (size_t)b->n);
        memcpy((int8_t *)col[DS_COLOUR] + s, b->colour, (size_t)b->n);
        if (w->record_obs)
            memcpy((uint8_t *)col[DS_OBS] + (size_t)s * obs_row, b->obs, obs_row * (size_t)b->n);
        if (w->record_policy)
            memcpy((uint8_t *)col[DS_POLICY] + (size_t)s * pol_row, b->policy,
                   pol_row * (size_t)b->n);
        ((int64_t *)col[DS_OFFSET])[e] = gi->steps + s;
        ((int32_t *)col[DS_LENGTH])[e] = b->n;
        ((int8_t *)col[DS_WINNER])[e] = b->winner;
        ((uint8_t *)col[DS_TRUNCATED])[e] = (uint8_t)b->truncated;
        ((int32_t *)col[DS_SCORES])[2 * e] = b->scores[0];
        ((int32_t *)col[DS_SCORES])[2 * e + 1] = b->scores[1];
        ((int8_t *)col[DS_PLAYERS])[2 * e] = b->player[0];
        ((int8_t *)col[DS_PLAYERS])[2 * e + 1] = b->player[1];
        ((int8_t *)col[DS_BLACK_SEAT])[e] = b->black_seat;
        ((int8_t *)col[DS_OPENING])[e] = b->opening;
        ((uint64_t *)col[DS_SEED])[e] = b->seed;
        ((int32_t *)col[DS_BOARD])[e] = b->board;
        ((uint32_t *)col[DS_EPISODE])[e] = b->episode;
        ((int64_t *)col[DS_GAME])[e] = b->game;
        s += b->n;
        e++;
    }
    for (int d = 0; d < N_DS; d++)
        if (ds_present(w, d) && append_rows(w, gi, d, col[d], ds_defs[d].per_step ? steps : eps))
            return -1;
    gi->steps += steps;
    gi->episodes += eps;
    w->open_seg.steps[k] += steps;
    w->open_seg.episodes[k] += eps;
    return 0;
}

/* ---- the file at `path` ---- */

/* episodes/offset of shards written apart: each episode's first step in
 * the whole file, from the segments' episode lengths (a real dataset). */
static int write_offsets(h5writer *w, hid_t file, int k, const char *name, int64_t total)
{
    group_info *gi = &w->g[k];
    int64_t *offsets = malloc(sizeof(int64_t) * (size_t)total);
    int32_t *lengths = malloc(sizeof(int32_t) * (size_t)total);
    int rc = offsets && lengths ? 0 : -1;
    int64_t e = 0, step = 0;
    char seg_file[4096], src[256];
    snprintf(src, sizeof(src), "/%s/episodes/length", gi->name);
    for (int s = 0; s < w->n_segs && !rc; s++) {
        if (w->segs[s].episodes[k] == 0)
            continue;
        snprintf(seg_file, sizeof(seg_file), "%s/seg-%06d.h5", w->parts, w->segs[s].index);
        hid_t sf = H5Fopen(seg_file, H5F_ACC_RDONLY, H5P_DEFAULT);
        hid_t ds = sf >= 0 ? H5Dopen2(sf, src, H5P_DEFAULT) : -1;
        hid_t space = ds >= 0 ? H5Dget_space(ds) : -1;
        if (space < 0 || H5Sget_simple_extent_npoints(space) != w->segs[s].episodes[k] ||
            H5Dread(ds, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, lengths + e) < 0)
            rc = -1;
        if (space >= 0)
            H5Sclose(space);
        if (ds >= 0)
            H5Dclose(ds);
        if (sf >= 0)
            H5Fclose(sf);
        for (int64_t end = e + w->segs[s].episodes[k]; !rc && e < end; e++) {
            offsets[e] = step;
            step += lengths[e];
        }
    }
    hid_t ds = rc ? -1 : create_dataset(file, w, gi, DS_OFFSET, name, 0);
    hsize_t dims[1] = {(hsize_t)total};
    if (ds < 0 || H5Dset_extent(ds, dims) < 0 ||
        H5Dwrite(ds, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, offsets) < 0)
        rc = -1;
    if (ds >= 0)
        H5Dclose(ds);
    free(offsets);
    free(lengths);
    return rc;
}

/* One dataset of the file: a virtual dataset over the segments (or, packed
 * with one segment, the data itself); empty datasets are real ones. */
static int link_dataset(h5writer *w, hid_t file, int k, int d, int packed)
{
    group_info *gi = &w->g[k];
    char name[256], src_file[4096], src_name[256];
    snprintf(name, sizeof(name), "/%s/%s", gi->name, ds_defs[d].name);
    int64_t total = 0, used = 0;
    for (int s = 0; s < w->n_segs; s++)
        total += ds_defs[d].per_step ? w->segs[s].steps[k] : w->segs[s].episodes[k];
    if (total == 0) {
        hid_t ds = create_dataset(file, w, gi, d, name, 1);
        if (ds < 0)
            return -1;
        H5Dclose(ds);
        return 0;
    }
    if (d == DS_OFFSET && w->local_offsets)
        return write_offsets(w, file, k, name, total);
    hsize_t dims[4], start[4] = {0}, count[4];
    int rank = 1 + row_dims(gi, d, dims + 1);
    dims[0] = (hsize_t)total;
    hid_t vspace = H5Screate_simple(rank, dims, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
    H5Pset_create_intermediate_group(lcpl, 1);
    int rc = 0;
    for (int s = 0; s < w->n_segs && !rc; s++) {
        int64_t rows = ds_defs[d].per_step ? w->segs[s].steps[k] : w->segs[s].episodes[k];
        if (rows == 0)
            continue;
        for (int j = 0; j < rank; j++)
            count[j] = j ? dims[j] : (hsize_t)rows;
        start[0] = (hsize_t)used;
        hid_t src = H5Screate_simple(rank, count, NULL);
        H5Sselect_hyperslab(vspace, H5S_SELECT_SET, start, NULL, count, NULL);
        if (packed) {
            snprintf(src_file, sizeof(src_file), ".");
            snprintf(src_name, sizeof(src_name), "/_segments/%06d/%s/%s", w->segs[s].index,
                     gi->name, ds_defs[d].name);
        } else {
            snprintf(src_file, sizeof(src_file), "%s/seg-%06d.h5", w->parts_name, w->segs[s].index);
            snprintf(src_name, sizeof(src_name), "/%s/%s", gi->name, ds_defs[d].name);
        }
        rc = H5Pset_virtual(dcpl, vspace, src_file, src_name, src) < 0 ? -1 : 0;
        H5Sclose(src);
        used += rows;
    }
    H5Sselect_all(vspace);
    hid_t ds =
        rc ? -1
           : H5Dcreate2(file, name, file_type(ds_defs[d].type), vspace, lcpl, dcpl, H5P_DEFAULT);
    if (ds >= 0)
        H5Dclose(ds);
    H5Pclose(lcpl);
    H5Pclose(dcpl);
    H5Sclose(vspace);
    return ds < 0 ? -1 : 0;
}

/* Layout of the segments, kept so that a killed run can be packed. */
static int write_segment_table(h5writer *w, hid_t file)
{
    int n = w->n_segs, g = w->n_groups;
    int64_t *idx = malloc(sizeof(int64_t) * (size_t)(n ? n : 1));
    int64_t *steps = malloc(sizeof(int64_t) * (size_t)(n ? n : 1) * (size_t)g);
    int64_t *eps = malloc(sizeof(int64_t) * (size_t)(n ? n : 1) * (size_t)g);
    int rc = -1;
    if (idx && steps && eps) {
        for (int s = 0; s < n; s++) {
            idx[s] = w->segs[s].index;
            for (int k = 0; k < g; k++) {
                steps[(size_t)s * g + k] = w->segs[s].steps[k];
                eps[(size_t)s * g + k] = w->segs[s].episodes[k];
            }
        }
        hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
        H5Pset_create_intermediate_group(lcpl, 1);
        const char *names[3] = {"/_segments/index", "/_segments/steps", "/_segments/episodes"};
        const int64_t *data[3] = {idx, steps, eps};
        rc = 0;
        for (int t = 0; t < 3 && !rc; t++) {
            hsize_t dims[2] = {(hsize_t)n, (hsize_t)g};
            hid_t sp = H5Screate_simple(t ? 2 : 1, dims, NULL);
            hid_t ds =
                H5Dcreate2(file, names[t], H5T_STD_I64LE, sp, lcpl, H5P_DEFAULT, H5P_DEFAULT);
            rc = ds < 0 || (n && H5Dwrite(ds, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                                          data[t]) < 0)
                     ? -1
                     : 0;
            if (!rc && t == 0 && w->local_offsets) {
                int64_t one = 1, gzip = w->gzip;
                rc =
                    set_int_attr(ds, "local_offsets", &one, 1) || set_int_attr(ds, "gzip", &gzip, 1)
                        ? -1
                        : 0;
            }
            if (ds >= 0)
                H5Dclose(ds);
            H5Sclose(sp);
        }
        H5Pclose(lcpl);
    }
    free(idx);
    free(steps);
    free(eps);
    return rc;
}

static int write_attrs(h5writer *w, hid_t file, int packed)
{
    int64_t version = H5WRITER_FORMAT_VERSION, flags[2] = {w->record_obs, w->record_policy};
    unsigned maj, min, rel;
    H5get_libversion(&maj, &min, &rel);
    char lib[64], names[MAX_GROUPS * 65] = "";
    snprintf(lib, sizeof(lib), "%u.%u.%u", maj, min, rel);
    for (int k = 0; k < w->n_groups; k++) {
        strcat(names, w->g[k].name);
        if (k + 1 < w->n_groups)
            strcat(names, "\n");
    }
    int64_t seed = (int64_t)w->seed;
    char openings[26 * 32] = "";
    for (int k = 0; k < 26; k++) {
        strcat(openings, protocol_opening_name(k));
        if (k < 25)
            strcat(openings, "\n");
    }
    if (set_str_attr(file, "format", H5WRITER_FORMAT) ||
        set_str_attr(file, "opening_names", openings) ||
        set_int_attr(file, "format_version", &version, 1) ||
        set_str_attr(file, "created", w->created) || set_str_attr(file, "hdf5_version", lib) ||
        set_str_attr(file, "run", w->run_json) || set_str_attr(file, "variants", names) ||
        set_str_attr(file, "layout", packed ? "packed" : "segments") ||
        set_int_attr(file, "recorded", flags, 2) || set_int_attr(file, "seed", &seed, 1))
        return -1;
    for (int k = 0; k < w->n_groups; k++) {
        group_info *gi = &w->g[k];
        hid_t grp = H5Gopen2(file, gi->name, H5P_DEFAULT);
        if (grp < 0)
            return -1;
        int64_t shape[3] = {gi->planes, gi->height, gi->width};
        int64_t n_actions = gi->n_actions, key_group = gi->key_group;
        int64_t counts[2] = {gi->steps, gi->episodes};
        int rc = set_str_attr(grp, "config", gi->config_json) ||
                 set_int_attr(grp, "obs_shape", shape, 3) ||
                 set_int_attr(grp, "n_actions", &n_actions, 1) ||
                 set_int_attr(grp, "key_group", &key_group, 1) ||
                 set_int_attr(grp, "counts", counts, 2);
        H5Gclose(grp);
        if (rc)
            return -1;
    }
    return 0;
}

/* Write the file aside, then rename it over `path` (atomic on one file
 * system): a reader, or a kill, sees the old file or the new one. */
/* A run of one segment: that segment becomes the packed file, its datasets
 * in place (no copy), with the attributes and the segment table added. */
static int promote_segment(h5writer *w, char *err, size_t errlen)
{
    char seg_file[4096];
    snprintf(seg_file, sizeof(seg_file), "%s/seg-%06d.h5", w->parts, w->segs[0].index);
    hid_t file = H5Fopen(seg_file, H5F_ACC_RDWR, H5P_DEFAULT);
    if (file < 0) {
        h5_fail(err, errlen, "cannot open segment", seg_file);
        return -1;
    }
    int rc = write_segment_table(w, file) || write_attrs(w, file, 1) ? -1 : 0;
    if (rc)
        h5_fail(err, errlen, "cannot write the attributes of", seg_file);
    if (H5Fclose(file) < 0 && !rc) {
        h5_fail(err, errlen, "cannot close", seg_file);
        rc = -1;
    }
    if (!rc && rename(seg_file, w->path) != 0) {
        snprintf(err, errlen, "cannot rename '%s' to '%s': %s", seg_file, w->path, strerror(errno));
        rc = -1;
    }
    return rc;
}

static int write_file(h5writer *w, int packed, char *err, size_t errlen)
{
    if (packed && w->n_segs == 1 && !w->local_offsets)
        return promote_segment(w, err, errlen);
    char tmp[4096], seg_file[4096], src[256], dst[256];
    snprintf(tmp, sizeof(tmp), "%s.tmp-%ld", w->path, (long)getpid());
    hid_t file = H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (file < 0) {
        h5_fail(err, errlen, "cannot create", tmp);
        return -1;
    }
    int rc = 0;
    /* packed: the segments' data copied in raw (chunks stay compressed) */
    hid_t ocpl = H5Pcreate(H5P_OBJECT_COPY), lcpl = H5Pcreate(H5P_LINK_CREATE);
    H5Pset_create_intermediate_group(lcpl, 1);
    for (int s = 0; packed && s < w->n_segs && !rc; s++) {
        snprintf(seg_file, sizeof(seg_file), "%s/seg-%06d.h5", w->parts, w->segs[s].index);
        hid_t sf = H5Fopen(seg_file, H5F_ACC_RDONLY, H5P_DEFAULT);
        if (sf < 0) {
            h5_fail(err, errlen, "cannot open segment", seg_file);
            rc = -1;
            break;
        }
        for (int k = 0; k < w->n_groups && !rc; k++) {
            snprintf(src, sizeof(src), "/%s", w->g[k].name);
            snprintf(dst, sizeof(dst), "/_segments/%06d/%s", w->segs[s].index, w->g[k].name);
            if (H5Ocopy(sf, src, file, dst, ocpl, lcpl) < 0) {
                h5_fail(err, errlen, "cannot copy segment", seg_file);
                rc = -1;
            }
        }
        H5Fclose(sf);
    }
    H5Pclose(ocpl);
    H5Pclose(lcpl);
    for (int k = 0; k < w->n_groups && !rc; k++)
        for (int d = 0; d < N_DS && !rc; d++)
            if (ds_present(w, d) && link_dataset(w, file, k, d, packed)) {
                h5_fail(err, errlen, "cannot write the datasets of", tmp);
                rc = -1;
            }
    if (!rc && (write_segment_table(w, file) || write_attrs(w, file, packed))) {
        h5_fail(err, errlen, "cannot write the attributes of", tmp);
        rc = -1;
    }
    if (H5Fclose(file) < 0 && !rc) {
        h5_fail(err, errlen, "cannot close", tmp);
        rc = -1;
    }
    if (!rc && rename(tmp, w->path) != 0) {
        snprintf(err, errlen, "cannot rename '%s' to '%s': %s", tmp, w->path, strerror(errno));
        rc = -1;
    }
    if (rc)
        unlink(tmp);
    return rc;
}

/* After an error: let go of the open segment's handles, publishing nothing. */
static void abandon_segment(h5writer *w)
{
    if (w->seg_file < 0)
        return;
    for (int k = 0; k < w->n_groups; k++)
        for (int d = 0; d < N_DS; d++)
            if (w->g[k].ds[d] >= 0)
                H5Dclose(w->g[k].ds[d]);
    H5Fclose(w->seg_file);
    H5Eclear2(H5E_DEFAULT);
    w->seg_file = -1;
}

/* Close the open segment and publish it in the file at `path`. */
static int close_segment(h5writer *w)
{
    if (w->seg_file < 0)
        return 0;
    for (int k = 0; k < w->n_groups; k++)
        for (int d = 0; d < N_DS; d++)
            if (w->g[k].ds[d] >= 0 && flush_chunk(w, &w->g[k], d)) {
                abandon_segment(w);
                return -1;
            }
    int empty = 1;
    for (int k = 0; k < w->n_groups; k++) {
        for (int d = 0; d < N_DS; d++)
            if (w->g[k].ds[d] >= 0)
                H5Dclose(w->g[k].ds[d]);
        empty &= w->open_seg.episodes[k] == 0;
    }
    herr_t rc = H5Fclose(w->seg_file);
    w->seg_file = -1;
    if (rc < 0) {
        h5_fail(w->error, sizeof(w->error), "cannot close a segment of", w->path);
        return -1;
    }
    if (empty)
        return 0;
    if (w->n_segs == w->cap_segs) {
        int cap = w->cap_segs ? 2 * w->cap_segs : 16;
        segment *s = realloc(w->segs, sizeof(segment) * (size_t)cap);
        if (!s) {
            snprintf(w->error, sizeof(w->error), "out of memory");
            return -1;
        }
        w->segs = s;
        w->cap_segs = cap;
    }
    w->segs[w->n_segs++] = w->open_seg;
    return write_file(w, 0, w->error, sizeof(w->error));
}

/* ---- the thread ---- */

static int write_round(h5writer *w, const episode_buf *bufs, int n_boards)
{
    if (w->seg_file < 0 && open_segment(w))
        return -1;
    for (int k = 0; k < w->n_groups; k++)
        if (write_group(w, k, bufs, n_boards))
            return -1;
    /* segments get longer as the run does, so that their number grows
     * with the logarithm of its length */
    double t = now_seconds(), every = w->flush_seconds, age = (t - w->opened_at) / 64.0;
    if (age > every)
        every = age;
    if (t - w->segment_at >= every)
        return close_segment(w);
    return 0;
}

static void *writer_main(void *arg)
{
    h5writer *w = arg;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (!w->pending && !w->quit)
            pthread_cond_wait(&w->cv, &w->mu);
        if (!w->pending && w->quit)
            break;
        w->in_use = w->pending;
        w->in_use_n = w->pending_n;
        w->pending = NULL;
        pthread_cond_broadcast(&w->cv);
        pthread_mutex_unlock(&w->mu);
        double t0 = now_seconds();
        int rc = w->failed ? 0 : write_round(w, w->in_use, w->in_use_n);
        double took = now_seconds() - t0;
        pthread_mutex_lock(&w->mu);
        w->last_round = took;
        /* the next round came in while this one was written: play is
         * waiting on compression, so encode fast from now on */
        if (w->pending && w->fast_chunks == H5WRITER_CHUNKS_AUTO)
            w->fast = 1;
        if (rc)
            w->failed = 1;
        w->in_use = NULL;
        pthread_cond_broadcast(&w->cv);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

/* ---- public face ---- */

static void free_writer(h5writer *w)
{
    if (!w)
        return;
    for (int k = 0; k < w->n_groups; k++) {
        free(w->g[k].config_json);
        for (int d = 0; d < N_DS; d++) {
            free(w->g[k].stage[d]);
            free(w->g[k].chunk[d]);
        }
    }
    chunk_coder_free(w->coder);
    free(w->segs);
    free(w->path);
    free(w->parts);
    free(w->parts_name);
    free(w->run_json);
    free(w);
}

static int valid_name(const char *s)
{
    if (!*s || strlen(s) > 60 || !strcmp(s, "_segments"))
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              strchr("_-.+:=,", *s)))
            return 0;
    return 1;
}

/* The writer's paths: `path`, `path.parts`, and the latter relative to the
 * directory of the former (virtual datasets name their sources that way). */
static int set_paths(h5writer *w, const char *path)
{
    size_t n = strlen(path);
    const char *slash = strrchr(path, '/');
    w->path = dup_str(path);
    w->parts = malloc(n + 8);
    w->parts_name = malloc(n + 8);
    if (!w->path || !w->parts || !w->parts_name)
        return -1;
    snprintf(w->parts, n + 8, "%s.parts", path);
    snprintf(w->parts_name, n + 8, "%s.parts", slash ? slash + 1 : path);
    return 0;
}

h5writer *h5writer_open(const char *path, const batch *b, const h5_group_desc *groups,
                        int record_obs, int record_policy, const h5writer_options *o, char *err,
                        size_t errlen)
{
    h5_init();
    if (b->n_groups > MAX_GROUPS) {
        snprintf(err, errlen, "at most %d variants in one dataset", MAX_GROUPS);
        return NULL;
    }
    if (o->gzip < 0 || o->gzip > 9 || !(o->flush_seconds > 0)) {
        snprintf(err, errlen, "gzip must be 0..9 and flush_seconds positive");
        return NULL;
    }
    h5writer *w = calloc(1, sizeof(*w));
    if (!w || set_paths(w, path) || !(w->run_json = dup_str(o->run_json)) ||
        !(w->coder = chunk_coder_new())) {
        free_writer(w);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    w->n_groups = b->n_groups;
    w->n_boards = b->n_total;
    w->record_obs = record_obs;
    w->record_policy = record_policy;
    w->gzip = o->gzip;
    w->fast_chunks = o->chunks;
    w->fast = o->chunks == H5WRITER_CHUNKS_FAST;
    w->flush_seconds = o->flush_seconds;
    w->seed = b->seed;
    w->seg_file = -1;
    for (int k = 0; k < b->n_groups; k++) {
        group_info *gi = &w->g[k];
        const variant *v = &b->groups[k].v;
        if (!valid_name(groups[k].name)) {
            snprintf(err, errlen,
                     "variant name '%s' cannot name an HDF5 group (letters, digits and _-.+:=, "
                     "only, at most 60, not _segments)",
                     groups[k].name);
            free_writer(w);
            return NULL;
        }
        for (int j = 0; j < k; j++)
            if (!strcmp(w->g[j].name, groups[k].name)) {
                snprintf(err, errlen, "variant name '%s' appears twice", groups[k].name);
                free_writer(w);
                return NULL;
            }
        snprintf(gi->name, sizeof(gi->name), "%s", groups[k].name);
        gi->config_json = dup_str(groups[k].config_json);
        gi->key_group = k;
        gi->n_actions = v->n_actions;
        gi->planes = v->n_planes[OBS_ABSOLUTE];
        gi->height = v->g.height;
        gi->width = v->g.width;
        for (int d = 0; d < N_DS; d++)
            gi->ds[d] = -1;
    }
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(w->created, sizeof(w->created), "%Y-%m-%dT%H:%M:%SZ", &tm);
    if (!o->overwrite && exists(w->path)) {
        snprintf(err, errlen, "'%s' exists; pass overwrite=True (CLI: --overwrite) to replace it",
                 w->path);
        free_writer(w);
        return NULL;
    }
    if (!o->overwrite && exists(w->parts)) {
        snprintf(err, errlen,
                 "'%s' holds the segments of an interrupted run: pack them with `fiverow pack %s`, "
                 "or pass overwrite=True (CLI: --overwrite)",
                 w->parts, w->path);
        free_writer(w);
        return NULL;
    }
    if (o->overwrite) {
        remove_dir(w->parts);
        if (exists(w->path) && unlink(w->path) != 0) {
            snprintf(err, errlen, "cannot replace '%s': %s", w->path, strerror(errno));
            free_writer(w);
            return NULL;
        }
    }
    if (mkdir(w->parts, 0777) != 0) {
        snprintf(err, errlen, "cannot create '%s': %s", w->parts, strerror(errno));
        free_writer(w);
        return NULL;
    }
    w->opened_at = now_seconds();
    if (write_file(w, 0, err, errlen)) { /* the empty dataset: proves the path is writable */
        remove_dir(w->parts);
        free_writer(w);
        return NULL;
    }
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
    if (pthread_create(&w->thread, NULL, writer_main, w) != 0) {
        snprintf(err, errlen, "cannot start the writer thread");
        free_writer(w);
        return NULL;
    }
    w->started = 1;
    return w;
}

int h5writer_submit(h5writer *w, const episode_buf *bufs)
{
    return h5writer_submit_n(w, bufs, w->n_boards);
}

int h5writer_submit_n(h5writer *w, const episode_buf *bufs, int n)
{
    pthread_mutex_lock(&w->mu);
    while (w->pending && !w->failed)
        pthread_cond_wait(&w->cv, &w->mu);
    int failed = w->failed;
    if (!failed) {
        w->pending = bufs;
        w->pending_n = n;
        pthread_cond_broadcast(&w->cv);
    }
    pthread_mutex_unlock(&w->mu);
    return failed ? -1 : 0;
}

double h5writer_wait(h5writer *w, const episode_buf *bufs)
{
    double t0 = now_seconds();
    pthread_mutex_lock(&w->mu);
    while (w->pending == bufs || w->in_use == bufs)
        pthread_cond_wait(&w->cv, &w->mu);
    pthread_mutex_unlock(&w->mu);
    return now_seconds() - t0;
}

double h5writer_last_round_seconds(h5writer *w)
{
    pthread_mutex_lock(&w->mu);
    double t = w->last_round;
    pthread_mutex_unlock(&w->mu);
    return t;
}

const char *h5writer_failed(h5writer *w)
{
    pthread_mutex_lock(&w->mu);
    const char *e = w->failed ? w->error : NULL;
    pthread_mutex_unlock(&w->mu);
    return e;
}

int h5writer_close(h5writer *w, int pack, char *err, size_t errlen)
{
    pthread_mutex_lock(&w->mu);
    while (w->pending || w->in_use)
        pthread_cond_wait(&w->cv, &w->mu);
    w->quit = 1;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->thread, NULL);
    pthread_mutex_destroy(&w->mu);
    pthread_cond_destroy(&w->cv);
    int rc = 0;
    if (w->failed) {
        abandon_segment(w);
        snprintf(err, errlen,
                 "%s (the episodes written before the error are in '%s'; `fiverow pack %s` makes "
                 "it one file)",
                 w->error, w->path, w->path);
        rc = -1;
    } else if (close_segment(w)) {
        snprintf(err, errlen, "%s", w->error);
        rc = -1;
    } else if (pack && !write_file(w, 1, err, errlen)) {
        remove_dir(w->parts);
    } else if (pack) {
        rc = -1;
    }
    free_writer(w);
    return rc;
}

/* A writer with no thread, for files already written. */
static h5writer *writer_for(const char *path, char *err, size_t errlen)
{
    h5_init();
    h5writer *w = calloc(1, sizeof(*w));
    if (!w || set_paths(w, path)) {
        free_writer(w);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    w->seg_file = -1;
    return w;
}

/* The run's attributes and variant groups from a dataset file: a run's
 * file, or a shard written as a dataset of its own. NULL, or what is wrong. */
static const char *read_run(h5writer *w, hid_t file)
{
    char *format = get_str_attr(file, "format"), *names = get_str_attr(file, "variants");
    char *created = get_str_attr(file, "created");
    free(w->run_json);
    w->run_json = get_str_attr(file, "run");
    int64_t flags[2], seed = 0;
    const char *why = NULL;
    if (!format || strcmp(format, H5WRITER_FORMAT))
        why = "not a fiverow self-play file";
    else if (!names || !created || !w->run_json || get_int_attr(file, "recorded", flags, 2) ||
             get_int_attr(file, "seed", &seed, 1))
        why = "its attributes are damaged";
    if (!why) {
        w->record_obs = (int)flags[0];
        w->record_policy = (int)flags[1];
        w->seed = (uint64_t)seed;
        snprintf(w->created, sizeof(w->created), "%s", created);
        for (char *tok = strtok(names, "\n"); tok && !why; tok = strtok(NULL, "\n")) {
            group_info *gi = &w->g[w->n_groups++];
            snprintf(gi->name, sizeof(gi->name), "%s", tok);
            hid_t grp = H5Gopen2(file, tok, H5P_DEFAULT);
            int64_t shape[3], n_actions, key_group, counts[2];
            if (grp < 0 || !(gi->config_json = get_str_attr(grp, "config")) ||
                get_int_attr(grp, "obs_shape", shape, 3) ||
                get_int_attr(grp, "n_actions", &n_actions, 1) ||
                get_int_attr(grp, "key_group", &key_group, 1) ||
                get_int_attr(grp, "counts", counts, 2))
                why = "a variant group is damaged";
            else {
                gi->planes = (int)shape[0];
                gi->height = (int)shape[1];
                gi->width = (int)shape[2];
                gi->n_actions = (int)n_actions;
                gi->key_group = (int)key_group;
                gi->steps = counts[0];
                gi->episodes = counts[1];
            }
            if (grp >= 0)
                H5Gclose(grp);
            if (w->n_groups == MAX_GROUPS)
                break;
        }
    }
    free(format);
    free(names);
    free(created);
    return why;
}

/* The writer a killed run left, read back from its file (no thread). */
static h5writer *reopen(const char *path, char *err, size_t errlen)
{
    h5writer *w = writer_for(path, err, errlen);
    if (!w)
        return NULL;
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file < 0) {
        h5_fail(err, errlen, "cannot open", path);
        free_writer(w);
        return NULL;
    }
    char *layout = get_str_attr(file, "layout");
    const char *why = read_run(w, file);
    if (!why && !layout)
        why = "its attributes are damaged";
    else if (!why && !strcmp(layout, "packed"))
        why = "already packed";
    /* the segment table */
    hid_t ids = why ? -1 : H5Dopen2(file, "/_segments/index", H5P_DEFAULT);
    hid_t st = why ? -1 : H5Dopen2(file, "/_segments/steps", H5P_DEFAULT);
    hid_t ep = why ? -1 : H5Dopen2(file, "/_segments/episodes", H5P_DEFAULT);
    if (!why && (ids < 0 || st < 0 || ep < 0))
        why = "its segment table is missing";
    if (!why) {
        int64_t local = 0, gzip = 0;
        if (H5Aexists(ids, "local_offsets") > 0 && get_int_attr(ids, "local_offsets", &local, 1))
            why = "its segment table is damaged";
        if (H5Aexists(ids, "gzip") > 0 && get_int_attr(ids, "gzip", &gzip, 1))
            why = "its segment table is damaged";
        w->local_offsets = (int)local;
        w->gzip = (int)gzip;
    }
    int n = 0;
    if (!why) {
        hid_t sp = H5Dget_space(ids);
        hssize_t rows =
            sp < 0 || H5Sget_simple_extent_ndims(sp) != 1 ? -1 : H5Sget_simple_extent_npoints(sp);
        if (sp >= 0)
            H5Sclose(sp);
        n = rows >= 0 && rows <= INT32_MAX / MAX_GROUPS ? (int)rows : 0;
        /* every table exactly [n] and [n][groups]: the reads below fill
         * buffers of those sizes */
        if (n != rows || !table_is(ids, 1, (hsize_t)n, 0) ||
            !table_is(st, 2, (hsize_t)n, (hsize_t)w->n_groups) ||
            !table_is(ep, 2, (hsize_t)n, (hsize_t)w->n_groups))
            why = "its segment table is damaged";
    }
    if (!why) {
        size_t cells = (size_t)(n ? n : 1) * (size_t)w->n_groups;
        int64_t *idx = malloc(sizeof(int64_t) * (size_t)(n ? n : 1));
        int64_t *steps = malloc(sizeof(int64_t) * cells), *eps = malloc(sizeof(int64_t) * cells);
        w->segs = calloc((size_t)(n ? n : 1), sizeof(segment));
        if (!idx || !steps || !eps || !w->segs)
            why = "out of memory";
        else if (n && (H5Dread(ids, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, idx) < 0 ||
                       H5Dread(st, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, steps) < 0 ||
                       H5Dread(ep, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, eps) < 0))
            why = "its segment table is damaged";
        else {
            w->n_segs = w->cap_segs = n;
            for (int s = 0; s < n; s++) {
                w->segs[s].index = (int)idx[s];
                for (int k = 0; k < w->n_groups; k++) {
                    w->segs[s].steps[k] = steps[(size_t)s * w->n_groups + k];
                    w->segs[s].episodes[k] = eps[(size_t)s * w->n_groups + k];
                }
            }
        }
        free(idx);
        free(steps);
        free(eps);
    }
    if (ids >= 0)
        H5Dclose(ids);
    if (st >= 0)
        H5Dclose(st);
    if (ep >= 0)
        H5Dclose(ep);
    H5Fclose(file);
    free(layout);
    if (why) {
        snprintf(err, errlen, "cannot pack '%s': %s", path, why);
        free_writer(w);
        return NULL;
    }
    return w;
}

/* The gzip level of a dataset's deflate filter, 0 if none. */
static int gzip_of(hid_t ds)
{
    hid_t dcpl = H5Dget_create_plist(ds);
    int level = 0;
    for (int f = 0; dcpl >= 0 && f < H5Pget_nfilters(dcpl); f++) {
        unsigned flags, cd[4];
        size_t n_cd = 4;
        char name[32];
        if (H5Pget_filter2(dcpl, (unsigned)f, &flags, &n_cd, cd, sizeof(name), name, NULL) ==
                H5Z_FILTER_DEFLATE &&
            n_cd >= 1)
            level = (int)cd[0];
    }
    if (dcpl >= 0)
        H5Pclose(dcpl);
    return level;
}

/* One shard's file as segment s: its rows per variant, checked against the
 * first shard's variants; the first one gives the run's attributes. */
static const char *read_shard(h5writer *w, int s, int index)
{
    char file_name[4096];
    snprintf(file_name, sizeof(file_name), "%s/seg-%06d.h5", w->parts, index);
    hid_t file = H5Fopen(file_name, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file < 0)
        return "a shard file is missing or damaged";
    const char *why = NULL;
    if (s == 0) {
        why = read_run(w, file);
        for (int k = 0; k < w->n_groups; k++)
            w->g[k].steps = w->g[k].episodes = 0;
    }
    segment *seg = &w->segs[s];
    memset(seg, 0, sizeof(*seg));
    seg->index = index;
    for (int k = 0; k < w->n_groups && !why; k++) {
        char name[128];
        snprintf(name, sizeof(name), "/%s/episodes/length", w->g[k].name);
        hid_t grp = H5Gopen2(file, w->g[k].name, H5P_DEFAULT);
        hid_t ds = H5Dopen2(file, name, H5P_DEFAULT);
        int64_t counts[2];
        H5D_layout_t layout = H5D_LAYOUT_ERROR;
        hid_t dcpl = ds >= 0 ? H5Dget_create_plist(ds) : -1;
        if (dcpl >= 0) {
            layout = H5Pget_layout(dcpl);
            H5Pclose(dcpl);
        }
        if (grp < 0 || ds < 0 || get_int_attr(grp, "counts", counts, 2))
            why = "a shard file lacks a variant of the run, or is damaged";
        else if (layout != H5D_CHUNKED)
            why = "a shard file is not one segment (its datasets must be its own)";
        else {
            seg->steps[k] = counts[0];
            seg->episodes[k] = counts[1];
            w->g[k].steps += counts[0];
            w->g[k].episodes += counts[1];
            if (s == 0 && k == 0)
                w->gzip = gzip_of(ds);
        }
        if (ds >= 0)
            H5Dclose(ds);
        if (grp >= 0)
            H5Gclose(grp);
    }
    H5Fclose(file);
    return why;
}

int h5writer_assemble(const char *path, const int *shards, int n, int pack, const char *run_json,
                      char *err, size_t errlen)
{
    h5writer *w = writer_for(path, err, errlen);
    if (!w)
        return -1;
    const char *why = n < 1 ? "no shard has finished" : NULL;
    if (!why && !(w->segs = calloc((size_t)n, sizeof(segment))))
        why = "out of memory";
    for (int s = 0; s < n && !why; s++) {
        why = read_shard(w, s, shards[s]);
        w->n_segs = w->cap_segs = s + 1;
    }
    if (!why && run_json) {
        free(w->run_json);
        if (!(w->run_json = dup_str(run_json)))
            why = "out of memory";
    }
    w->local_offsets = 1;
    int rc = -1;
    if (why)
        snprintf(err, errlen, "cannot assemble '%s' from '%s': %s", path, w->parts, why);
    else
        rc = write_file(w, pack, err, errlen);
    if (!rc && pack)
        remove_dir(w->parts);
    free_writer(w);
    return rc;
}

int h5writer_pack(const char *path, char *err, size_t errlen)
{
    h5writer *w = reopen(path, err, errlen);
    if (!w)
        return -1;
    int rc = write_file(w, 1, err, errlen);
    if (!rc)
        remove_dir(w->parts);
    free_writer(w);
    return rc;
}

void h5writer_library_version(unsigned *major, unsigned *minor, unsigned *release)
{
    H5get_libversion(major, minor, release);
}

int h5writer_check_library(char *err, size_t errlen)
{
    unsigned maj, min, rel;
    h5_init();
    /* never H5check_version(): on a mismatch it aborts the interpreter */
    H5get_libversion(&maj, &min, &rel);
    if (maj != H5_VERS_MAJOR || min != H5_VERS_MINOR) {
        snprintf(err, errlen,
                 "fiverow was built against HDF5 %d.%d but HDF5 %u.%u.%u is loaded; rebuild "
                 "fiverow (make build)",
                 H5_VERS_MAJOR, H5_VERS_MINOR, maj, min, rel);
        return -1;
    }
    return 0;
}
