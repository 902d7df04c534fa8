/* libFuzzer target: action sequences with arbitrary values on every preset,
 * under each illegal-action mode (raise / lose / random), autoreset mode and
 * observation kind.
 *
 * Input: preset, mode byte, seed byte, then per step and per board a tag
 * byte: mostly a legal action (the tag-th legal one, so games go deep), else
 * any value in range (often illegal), else an arbitrary int64. A step the
 * batch refuses must change nothing and be refused exactly when the
 * documented rules say; a step taken must leave every board sound. */
#include "fuzz.h"

enum { BOARDS = 2 };

static int64_t read_action(fuzz_input *in, const variant *v, const board_hdr *h)
{
    uint8_t tag = take_u8(in);
    if (tag < 176 && h->status == STATUS_ONGOING && h->n_legal)
        return bits_select(board_legal_c(v, h), v->legal_words, tag % h->n_legal);
    if (tag < 232)
        return take_u16(in) % (v->n_actions + 8) - 4; /* in range, a little beyond */
    return (int64_t)take_u64(in);
}

/* Would batch_step refuse this action on this board (batch.h, SPEC 9)? */
static int refused(const batch *b, const board_hdr *h, int64_t a)
{
    const variant *v = &b->groups[0].v;
    if (a < 0 || a >= v->n_actions)
        return 1;
    if (h->status != STATUS_ONGOING)
        return b->autoreset != AUTORESET_NEXT_STEP;
    return b->illegal == ILLEGAL_RAISE && !game_is_legal(v, h, (int)a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_input in = {data, size};
    const char *preset = FUZZ_PRESETS[take_u8(&in) % FUZZ_N_PRESETS];
    uint8_t mode = take_u8(&in);
    int illegal = mode % 3, autoreset = mode / 3 % 3, obs_kind = mode / 9 % 2;
    uint64_t seed = take_u8(&in);
    variant_params p;
    char err[512];
    if (fuzz_params(preset, &p, err, sizeof(err)))
        FUZZ_FAIL("preset refused: %s", err);
    batch *b = fuzz_batch(&p, BOARDS, autoreset, illegal, obs_kind, seed, err, sizeof(err));
    if (!b)
        FUZZ_FAIL("batch refused: %s", err);
    group *g = &b->groups[0];
    fuzz_check_all(b);
    while (in.n) {
        int64_t actions[BOARDS];
        int expect_refusal = 0;
        for (int i = 0; i < BOARDS; i++) {
            actions[i] = read_action(&in, &g->v, group_board(g, i));
            expect_refusal |= refused(b, group_board(g, i), actions[i]);
        }
        const int64_t *per_group[1] = {actions};
        batch_error errs[BOARDS];
        size_t len;
        uint8_t *before = fuzz_snapshot(b, &len);
        int n_err = batch_step(b, per_group, errs, BOARDS);
        if (n_err != 0) {
            if (!expect_refusal)
                FUZZ_FAIL("a step was refused that the rules allow: %s", errs[0].reason);
            for (int k = 0; k < n_err; k++)
                if (!errs[k].reason || !errs[k].reason[0])
                    FUZZ_FAIL("a refusal without a reason");
            fuzz_check_unchanged(b, before, len, "step");
            /* disabled autoreset: a finished board waits for its reset */
            uint8_t finished[BOARDS];
            int any = 0;
            for (int i = 0; i < BOARDS; i++)
                any |= finished[i] = group_board(g, i)->status != STATUS_ONGOING;
            uint8_t *masks[1] = {finished};
            if (any && autoreset == AUTORESET_DISABLED)
                batch_reset(b, 0, 0, masks);
        } else {
            free(before);
            if (expect_refusal)
                FUZZ_FAIL("a step was taken that the rules refuse");
            fuzz_check_rewards(b);
        }
        fuzz_check_all(b);
    }
    fuzz_batch_free(b);
    return 0;
}
