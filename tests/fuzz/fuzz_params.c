/* libFuzzer target: variant parameters as text, the way presets, overrides
 * and saved configs reach variant_params_set ("key=value" lines). Each
 * refusal carries a message; a parameter set that variant_params_describe
 * prints reads back to the same parameters; a variant that variant_init
 * accepts makes a batch that plays soundly. tests/fuzz/params.dict gives the
 * fuzzer the parameter names and choices. */
#include "fuzz.h"

enum { MAX_TEXT = 1024 };

static void set_line(variant_params *p, char *line)
{
    char err[512] = "";
    char *eq = strchr(line, '=');
    if (!eq)
        return;
    *eq = '\0';
    if (variant_params_set(p, line, eq + 1, err, sizeof(err)) && !err[0])
        FUZZ_FAIL("parameter '%s' refused without a message", line);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char text[MAX_TEXT + 1];
    size_t n = size < MAX_TEXT ? size : MAX_TEXT;
    memcpy(text, data, n);
    text[n] = '\0';
    variant_params p;
    variant_params_default(&p);
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
        set_line(&p, line);

    /* describe, then read back: the same parameters */
    char described[2048];
    if (variant_params_describe(&p, described, sizeof(described)))
        FUZZ_FAIL("variant_params_describe ran out of room");
    variant_params q;
    variant_params_default(&q);
    char *save2 = NULL;
    for (char *line = strtok_r(described, "\n", &save2); line; line = strtok_r(NULL, "\n", &save2))
        set_line(&q, line);
    if (memcmp(&p, &q, sizeof(p)))
        FUZZ_FAIL("described parameters read back differently");

    variant v;
    char err[512] = "";
    if (variant_init(&v, &p, err, sizeof(err))) {
        if (!err[0])
            FUZZ_FAIL("variant refused without a message");
        return 0;
    }
    int cells = v.g.n_cells;
    variant_free(&v);
    if (cells > 1024) /* large boards: resolved above; play costs too much per input */
        return 0;
    batch *b = fuzz_batch(&p, 2, AUTORESET_NEXT_STEP, ILLEGAL_RANDOM, (int)(size & 1), size, err,
                          sizeof(err));
    if (!b)
        FUZZ_FAIL("variant_init accepted what batch_create refused: %s", err);
    fuzz_check_all(b);
    fuzz_play(b, 24);
    fuzz_batch_free(b);
    return 0;
}
