/* libFuzzer target: positions given to load_position (cells, colour to move,
 * gomorpion's stone statuses and scores) and MODLINSEQ's load_tiles (tiles
 * and hands). The text parser in front of them is Python
 * (fiverow.env.pool.parse_position), covered by tests/test_properties.py.
 * A refused position changes nothing; one accepted is sound to play on, and
 * a refusal for a five names only stones of the board.
 *
 * Input: preset, colour, flags, random moves played first, then one byte per
 * cell (mostly empty / black / white / off, sometimes any value), statuses
 * and scores when the flags ask, or tiles and hands for MODLINSEQ. */
#include "fuzz.h"

enum { BOARDS = 2 };

static uint8_t cell_value(uint8_t x)
{
    if (x < 128)
        return CELL_EMPTY;
    if (x < 176)
        return CELL_BLACK;
    if (x < 224)
        return CELL_WHITE;
    if (x < 240)
        return CELL_OFF;
    return x; /* not a cell value */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_input in = {data, size};
    const char *preset = FUZZ_PRESETS[take_u8(&in) % FUZZ_N_PRESETS];
    uint8_t colour_byte = take_u8(&in), flags = take_u8(&in);
    int moves = take_u8(&in) % 16;
    int colour = colour_byte < 250 ? colour_byte & 1 : colour_byte;
    variant_params p;
    char err[512];
    if (fuzz_params(preset, &p, err, sizeof(err)))
        FUZZ_FAIL("preset refused: %s", err);
    batch *b = fuzz_batch(&p, BOARDS, flags >> 4 & 1 ? AUTORESET_SAME_STEP : AUTORESET_NEXT_STEP,
                          ILLEGAL_LOSE, flags >> 5 & 1, moves, err, sizeof(err));
    if (!b)
        FUZZ_FAIL("batch refused: %s", err);
    group *g = &b->groups[0];
    const variant *v = &g->v;
    fuzz_play(b, moves);
    int n = v->g.n_cells;
    uint8_t *cells = calloc((size_t)n, 1), *status = calloc((size_t)n, 1);
    int32_t *five = calloc((size_t)n, sizeof(int32_t)), scores[2];
    const char *why;
    size_t snap_len;
    uint8_t *before = fuzz_snapshot(b, &snap_len);
    int five_len = -1;
    if (rule_has(v, RULE_TRAIT_TILES) && (flags & 8)) {
        int m = v->p.modulus;
        for (int c = 0; c < n; c++) {
            uint8_t x = take_u8(&in);
            cells[c] = x < 160 ? 0 : x < 250 ? (uint8_t)(1 + x % m) : x;
        }
        uint8_t *hands = calloc(2 * (size_t)m, 1);
        for (int k = 0; k < 2 * m; k++)
            hands[k] = take_u8(&in) % 4;
        why = batch_load_tiles(b, 0, 0, cells, flags & 4 ? hands : NULL);
        free(hands);
    } else {
        for (int c = 0; c < n; c++)
            cells[c] = cell_value(take_u8(&in));
        if (flags & 1)
            for (int c = 0; c < n; c++) {
                uint8_t x = take_u8(&in);
                status[c] = x < 200 ? x % 3 : x;
            }
        scores[0] = (int32_t)(int16_t)take_u16(&in);
        scores[1] = (int32_t)(int16_t)take_u16(&in);
        why = batch_load_position(b, 0, 0, cells, colour, flags & 1 ? status : NULL,
                                  flags & 2 ? scores : NULL, flags & 4 ? five : NULL, &five_len);
    }
    if (why) {
        if (!why[0])
            FUZZ_FAIL("a refusal without a reason");
        fuzz_check_unchanged(b, before, snap_len, "position");
        for (int k = 0; (flags & 4) && k < five_len; k++)
            if (five[k] < 0 || five[k] >= n || cells[five[k]] == CELL_EMPTY)
                FUZZ_FAIL("the five names cell %d, which holds no stone", five[k]);
    } else {
        free(before);
        if ((flags & 4) && five_len > 0)
            FUZZ_FAIL("a five was reported for a position that was accepted");
        fuzz_check_all(b);
        fuzz_play(b, 32);
    }
    free(cells);
    free(status);
    free(five);
    fuzz_batch_free(b);
    return 0;
}
