/* libFuzzer target: the C reader of dataset files (h5writer_pack, what
 * `fiverow pack` and fiverow.data.pack run on a killed run's file) on files
 * whose every attribute and segment-table dataset the fuzzer chooses:
 * present or not, of the right type or another, of any length, with any
 * values. The file is built with the HDF5 API, so what is exercised is
 * fiverow's reading of what HDF5 hands back, not HDF5's own parser of raw
 * bytes (its robustness is HDF5's business; see docs/fuzzing.md). Whatever
 * the file holds, pack either succeeds or fails with a message, and never
 * reads or writes out of bounds.
 *
 * Input: one mode byte per attribute / dataset, then lengths and values. */
#include <dirent.h>
#include <hdf5.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "io/h5writer.h"

static char dir[256];

static void clear_dir(void)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    char path[512];
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
            unlink(path);
            rmdir(path); /* a .parts directory is left empty by pack */
        }
    closedir(d);
}

/* A string of up to 40 bytes from the input (never containing NUL). */
static void take_text(fuzz_input *in, char *out)
{
    int len = take_u8(in) % 41;
    for (int k = 0; k < len; k++) {
        uint8_t c = take_u8(in);
        out[k] = c ? (char)c : 'a';
    }
    out[len] = '\0';
}

static void str_attr(hid_t loc, const char *name, const char *value)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    hid_t s = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(loc, name, t, s, H5P_DEFAULT, H5P_DEFAULT);
    if (a >= 0) {
        H5Awrite(a, t, &value);
        H5Aclose(a);
    }
    H5Sclose(s);
    H5Tclose(t);
}

/* Numbers: `count` of them (0: a scalar), int64 or double. */
static void num_attr(hid_t loc, const char *name, fuzz_input *in, int count, int as_float)
{
    int64_t ints[8];
    double reals[8];
    for (int k = 0; k < (count ? count : 1); k++) {
        ints[k] = (int64_t)(int8_t)take_u8(in);
        reals[k] = (double)ints[k] + 0.5;
    }
    hsize_t dims[1] = {(hsize_t)count};
    hid_t s = count ? H5Screate_simple(1, dims, NULL) : H5Screate(H5S_SCALAR);
    hid_t ft = as_float ? H5T_IEEE_F64LE : H5T_STD_I64LE;
    hid_t a = H5Acreate2(loc, name, ft, s, H5P_DEFAULT, H5P_DEFAULT);
    if (a >= 0) {
        H5Awrite(a, as_float ? H5T_NATIVE_DOUBLE : H5T_NATIVE_INT64,
                 as_float ? (const void *)reals : (const void *)ints);
        H5Aclose(a);
    }
    H5Sclose(s);
}

/* An attribute as the input says: absent, the expected text (for strings),
 * other text, or numbers of some length and type. */
static void attr(hid_t loc, const char *name, const char *expected, fuzz_input *in)
{
    uint8_t mode = take_u8(in);
    char text[48];
    switch (mode % 5) {
    case 0:
        return;
    case 1:
        if (expected) {
            str_attr(loc, name, expected);
            return;
        }
        num_attr(loc, name, in, take_u8(in) % 5, 0);
        return;
    case 2:
        take_text(in, text);
        str_attr(loc, name, text);
        return;
    case 3:
        num_attr(loc, name, in, take_u8(in) % 9, 0);
        return;
    default:
        num_attr(loc, name, in, take_u8(in) % 4, 1);
    }
}

/* A dataset of the segment table: absent, or int64 / double of rank 1 or 2
 * with the input's dimensions and values. */
static void table(hid_t file, const char *name, fuzz_input *in)
{
    uint8_t mode = take_u8(in) % 3;
    if (!mode)
        return;
    hsize_t dims[2] = {take_u8(in) % 6, take_u8(in) % 4};
    int rank = 1 + (take_u8(in) & 1);
    size_t n = dims[0] * (rank == 2 ? dims[1] : 1);
    int64_t *values = calloc(n ? n : 1, sizeof(int64_t));
    for (size_t k = 0; k < n; k++)
        values[k] = (int64_t)(int8_t)take_u8(in);
    hid_t s = H5Screate_simple(rank, dims, NULL);
    hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
    H5Pset_create_intermediate_group(lcpl, 1);
    hid_t ft = mode == 1 ? H5T_STD_I64LE : H5T_IEEE_F64LE;
    hid_t ds = H5Dcreate2(file, name, ft, s, lcpl, H5P_DEFAULT, H5P_DEFAULT);
    if (ds >= 0) {
        if (n)
            H5Dwrite(ds, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, values);
        H5Dclose(ds);
    }
    H5Pclose(lcpl);
    H5Sclose(s);
    free(values);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!dir[0]) {
        snprintf(dir, sizeof(dir), "/tmp/fiverow-fuzz-h5-%ld", (long)getpid());
        mkdir(dir, 0700);
        H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    }
    fuzz_input in = {data, size};
    char path[300];
    snprintf(path, sizeof(path), "%s/run.h5", dir);
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (file < 0)
        FUZZ_FAIL("cannot create %s", path);
    /* variant names: one or two, from the input */
    char names[2][48], variants[100];
    take_text(&in, names[0]);
    take_text(&in, names[1]);
    int two = take_u8(&in) & 1;
    snprintf(variants, sizeof(variants), "%s%s%s", names[0], two ? "\n" : "", two ? names[1] : "");
    attr(file, "format", H5WRITER_FORMAT, &in);
    attr(file, "layout", take_u8(&in) & 1 ? "segments" : "packed", &in);
    attr(file, "variants", variants, &in);
    attr(file, "created", "2026-01-01T00:00:00Z", &in);
    attr(file, "run", "{}", &in);
    attr(file, "recorded", NULL, &in);
    attr(file, "seed", NULL, &in);
    for (int k = 0; k <= two; k++) {
        if (!names[k][0] || !(take_u8(&in) % 4))
            continue;
        hid_t grp = H5Gcreate2(file, names[k], H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        if (grp < 0)
            continue;
        attr(grp, "config", "{}", &in);
        attr(grp, "obs_shape", NULL, &in);
        attr(grp, "n_actions", NULL, &in);
        attr(grp, "key_group", NULL, &in);
        attr(grp, "counts", NULL, &in);
        H5Gclose(grp);
    }
    table(file, "/_segments/index", &in);
    table(file, "/_segments/steps", &in);
    table(file, "/_segments/episodes", &in);
    H5Fclose(file);

    char err[1024] = "";
    int rc = h5writer_pack(path, err, sizeof(err));
    if (rc && !err[0])
        FUZZ_FAIL("pack failed without a message");
    if (getenv("FUZZ_VERBOSE"))
        fprintf(stderr, "pack: %s\n", rc ? err : "packed");
    clear_dir();
    return 0;
}
