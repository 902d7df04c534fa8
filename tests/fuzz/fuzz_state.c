/* libFuzzer target: state bytes given to the restore path (set_state,
 * unpickling). A hostile or corrupt state must be refused by
 * batch_check_state with nothing changed; a state it accepts must be sound
 * enough to play on: every later step keeps every invariant.
 *
 * Input: preset, observation kind, random moves played first, then either
 * raw state bytes (mode 0, any length) or patches (offset, value, set or
 * xor) to board 0's real state, at a length off by -1, 0 or +1. */
#include "fuzz.h"

enum { BOARDS = 2 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_input in = {data, size};
    const char *preset = FUZZ_PRESETS[take_u8(&in) % FUZZ_N_PRESETS];
    int obs_kind = take_u8(&in) & 1;
    int moves = take_u8(&in) % 64;
    variant_params p;
    char err[512];
    if (fuzz_params(preset, &p, err, sizeof(err)))
        FUZZ_FAIL("preset refused: %s", err);
    batch *b = fuzz_batch(&p, BOARDS, AUTORESET_NEXT_STEP, ILLEGAL_LOSE, obs_kind, moves, err,
                          sizeof(err));
    if (!b)
        FUZZ_FAIL("batch refused: %s", err);
    group *g = &b->groups[0];
    fuzz_play(b, moves);
    size_t state_size = g->v.state_size;
    uint8_t *state;
    size_t len;
    if (take_u8(&in) == 0) { /* raw bytes */
        len = in.n;
        state = malloc(len ? len : 1);
        memcpy(state, in.p, len);
        in.n = 0;
    } else {
        len = state_size + (size_t)(take_u8(&in) % 3) - 1;
        state = calloc(len + 1, 1);
        memcpy(state, group_board(g, 0), len < state_size ? len : state_size);
        while (in.n) {
            size_t off = take_u16(&in) % len;
            uint8_t op = take_u8(&in), value = take_u8(&in);
            state[off] = op & 1 ? (uint8_t)(state[off] ^ value) : value;
        }
    }
    size_t snap_len;
    uint8_t *before = fuzz_snapshot(b, &snap_len);
    const char *why = batch_install_state(b, 0, 0, state, len);
    if (why) {
        if (!why[0])
            FUZZ_FAIL("a refusal without a reason");
        fuzz_check_unchanged(b, before, snap_len, "state");
    } else {
        free(before);
        if (len != state_size)
            FUZZ_FAIL("a state of the wrong length was installed");
        fuzz_check_all(b);
        fuzz_play(b, 48);
    }
    free(state);
    fuzz_batch_free(b);
    return 0;
}
