/* Swap2 (SPEC section 5): the opener places black, white, black anywhere;
 * the other seat takes black (then white's holder plays stone 4), takes
 * white (and plays stone 4 itself), or places a white and a black stone,
 * after which the opener takes black or white and white plays stone 6. */
#include <stdio.h>
#include <string.h>

#include "game/game.h"
#include "openings/opening.h"

int swap2_prepare(const variant *v, protocol_info *info, char *err, size_t errlen)
{
    (void)v;
    (void)err;
    (void)errlen;
    static const char *const names[SWAP2_SPECIALS] = {"TAKE_BLACK", "TAKE_WHITE", "PLACE_TWO"};
    info->n_special = SWAP2_SPECIALS;
    memcpy(info->special_names, names, sizeof(names));
    for (int ph = SWAP2_FIRST; ph <= SWAP2_CHOICE2; ph++)
        info->phases[info->n_phases++] = ph;
    info->first_phase = SWAP2_FIRST;
    info->extra_steps = 2; /* the two choices */
    return 0;
}

static void swap2_legal(const variant *v, const board_hdr *b, uint64_t *legal)
{
    int n = v->g.n_cells;
    const uint8_t *cells = board_cells_c(v, b);
    switch (b->phase) {
    case SWAP2_CHOICE:
        bits_set(legal, n + SWAP2_PLACE_TWO);
        /* fall through */
    case SWAP2_CHOICE2:
        bits_set(legal, n + SWAP2_TAKE_BLACK);
        bits_set(legal, n + SWAP2_TAKE_WHITE);
        break;
    default: { /* a stone anywhere empty; renju's fouls bind black's stones */
        const uint64_t *forbidden =
            v->p.forbidden == FORBIDDEN_MASK ? game_forbidden(v, b, b->colour) : NULL;
        for (int c = 0; c < n; c++)
            if (cells[c] == CELL_EMPTY && !(forbidden && bits_get(forbidden, c)))
                bits_set(legal, c);
        break;
    }
    }
}

/* The game proper starts with white to play: its holder acts. */
static void start_play(board_hdr *b)
{
    b->phase = PHASE_PLAY;
    b->colour = COLOUR_WHITE;
    b->seat = b->black_seat ^ 1;
}

static void swap2_apply(const variant *v, board_hdr *b, int action)
{
    int n = v->g.n_cells;
    switch (b->phase) {
    case SWAP2_FIRST:
    case SWAP2_SECOND:
    case SWAP2_FOURTH:
        game_put_stone(v, b, action, b->colour);
        b->phase++;
        b->colour ^= 1;
        break;
    case SWAP2_THIRD:
        game_put_stone(v, b, action, COLOUR_BLACK);
        b->phase = SWAP2_CHOICE;
        b->colour = COLOUR_WHITE;
        b->seat ^= 1; /* the other seat chooses */
        break;
    case SWAP2_FIFTH:
        game_put_stone(v, b, action, COLOUR_BLACK);
        b->phase = SWAP2_CHOICE2;
        b->colour = COLOUR_WHITE;
        b->seat ^= 1; /* the opener chooses */
        break;
    default: { /* SWAP2_CHOICE, SWAP2_CHOICE2: the seat choosing is b->seat */
        int choice = action - n;
        if (choice == SWAP2_PLACE_TWO) {
            b->phase = SWAP2_FOURTH;
            b->colour = COLOUR_WHITE;
            break;
        }
        b->black_seat = (uint8_t)(choice == SWAP2_TAKE_BLACK ? b->seat : b->seat ^ 1);
        start_play(b);
        break;
    }
    }
}

const opening_row opening_swap2 = {
    .name = "swap2",
    .clear = protocol_clear,
    .legal = swap2_legal,
    .apply = swap2_apply,
    .illegal_reason = protocol_illegal_reason,
    .write_planes = protocol_write_planes,
    .opening_code = protocol_opening_code,
    .check = protocol_check,
};
