#include "game.h"

#include <string.h>

#include "lines.h"
#include "rng.h"

static void legal_all_empty(const variant *v, board_hdr *b)
{
    const uint8_t *cells = board_cells(v, b);
    uint64_t *legal = board_legal(v, b);
    memset(legal, 0, sizeof(uint64_t) * (size_t)v->legal_words);
    int n = 0;
    for (int c = 0; c < v->g.n_cells; c++)
        if (cells[c] == CELL_EMPTY) {
            bits_set(legal, c);
            n++;
        }
    b->n_legal = (uint16_t)n;
}

static void legal_centre_only(const variant *v, board_hdr *b)
{
    uint64_t *legal = board_legal(v, b);
    memset(legal, 0, sizeof(uint64_t) * (size_t)v->legal_words);
    bits_set(legal, v->g.centre);
    b->n_legal = 1;
}

void game_build_initial(const variant *v, board_hdr *b)
{
    memset(b, 0, v->state_size);
    uint8_t *cells = board_cells(v, b);
    for (int c = 0; c < v->g.n_cells; c++)
        cells[c] = v->g.on_board[c] ? CELL_EMPTY : CELL_OFF;
    cells[v->g.n_cells] = CELL_OFF; /* the edge sentinel */
    b->fingerprint = v->fingerprint;
    b->last_move = -1;
    b->colour = COLOUR_BLACK;
    b->status = STATUS_ONGOING;
    b->winner = -1;
    if (v->p.protocol == PROTO_CENTER)
        legal_centre_only(v, b);
    else
        legal_all_empty(v, b);
}

void game_derive(const variant *v, board_hdr *b)
{
    const uint8_t *cells = board_cells(v, b);
    int stones = 0;
    for (int colour = 0; colour < 2; colour++) {
        uint32_t *bits = board_line_bits(v, b, colour);
        if (bits)
            memset(bits, 0, sizeof(uint32_t) * (size_t)v->g.n_lines);
    }
    for (int c = 0; c < v->g.n_cells; c++)
        if (cells[c] == CELL_BLACK || cells[c] == CELL_WHITE) {
            uint32_t *bits = board_line_bits(v, b, cells[c] - 1);
            if (bits)
                line_bits_add(&v->g, bits, c);
            stones++;
        }
    b->n_stones = (uint16_t)stones;
    b->phase = 0;
    if (v->p.protocol == PROTO_CENTER && stones == 0)
        legal_centre_only(v, b);
    else
        legal_all_empty(v, b);
}

const char *game_illegal_reason(const variant *v, const board_hdr *b, int action)
{
    if (action < 0 || action >= v->n_actions)
        return "out of range";
    if (game_is_legal(v, b, action))
        return NULL;
    if (b->status != STATUS_ONGOING)
        return "the episode is over";
    const uint8_t *cells = board_cells_c(v, b);
    if (action < v->g.n_cells) {
        if (cells[action] == CELL_OFF)
            return "off the board";
        if (cells[action] != CELL_EMPTY)
            return "occupied";
        if (v->p.protocol == PROTO_CENTER && b->n_stones == 0)
            return "the first stone must go to the centre";
    }
    return "not legal now";
}

unsigned game_apply(const variant *v, board_hdr *b, int action)
{
    uint8_t *cells = board_cells(v, b);
    uint64_t *legal = board_legal(v, b);
    unsigned changes = 0;
    uint8_t stone = (uint8_t)(b->colour + 1);
    cells[action] = stone;
    b->n_stones++;
    b->last_move = (int16_t)action;
    if (v->p.protocol == PROTO_CENTER && b->n_stones == 1) {
        legal_all_empty(v, b);
        changes |= CHANGE_MASK_WIDE;
    } else {
        bits_clear(legal, action);
        b->n_legal--;
    }
    if (lines_place(v, b, action, stone)) {
        b->status = STATUS_TERMINATED;
        b->winner = (int8_t)b->seat;
    } else if (b->n_legal == 0) {
        b->status = STATUS_TERMINATED; /* full board: draw */
        b->winner = -1;
    }
    b->colour ^= 1;
    b->seat ^= 1;
    return changes;
}

int game_random_legal(const variant *v, const board_hdr *b, uint64_t key, uint32_t *ctr)
{
    const uint64_t *legal = board_legal_c(v, b);
    if (b->n_legal == 0)
        return -1;
    /* One rejection draw first: it hits while most actions are legal (the
     * common case) and costs a load; otherwise an exact select over the bit
     * set. Each branch is uniform over the legal actions, so the mixture is. */
    int a = (int)rng_below(rng_at(key, (*ctr)++), (uint32_t)v->n_actions);
    if (bits_get(legal, a))
        return a;
    int k = (int)rng_below(rng_at(key, (*ctr)++), b->n_legal);
    return bits_select(legal, v->legal_words, k);
}

static void fill_plane(uint8_t *plane, int n, uint8_t value)
{
    memset(plane, value, (size_t)n);
}

void game_write_obs(const variant *v, const board_hdr *b, int kind, uint8_t *out)
{
    const int n = v->g.n_cells;
    const uint8_t *cells = board_cells_c(v, b);
    int np = v->n_planes[kind];
    memset(out, 0, (size_t)np * (size_t)n);
    /* the colour whose point of view "mover" planes take: the seat to act */
    uint8_t mover = (uint8_t)((b->seat == b->black_seat) ? COLOUR_BLACK : COLOUR_WHITE);
    uint8_t first = kind == OBS_ABSOLUTE ? CELL_BLACK : (uint8_t)(mover + 1);
    uint8_t second = (uint8_t)(first ^ 3);
    for (int c = 0; c < n; c++) {
        out[c] = cells[c] == first;
        out[n + c] = cells[c] == second;
    }
    if (kind == OBS_ABSOLUTE)
        fill_plane(out + 2 * n, n, b->colour == COLOUR_BLACK);
    else
        fill_plane(out + 2 * n, n, mover == COLOUR_BLACK);
    if (b->last_move >= 0)
        out[3 * n + b->last_move] = 1;
    if (np > 4)
        memcpy(out + 4 * n, v->g.on_board, (size_t)n);
}

void game_update_obs_absolute(const variant *v, const board_hdr *b, int cell, int prev_last,
                              uint8_t *out)
{
    const int n = v->g.n_cells;
    const uint8_t *cells = board_cells_c(v, b);
    out[(cells[cell] == CELL_BLACK ? 0 : n) + cell] = 1;
    fill_plane(out + 2 * n, n, b->colour == COLOUR_BLACK);
    if (prev_last >= 0)
        out[3 * n + prev_last] = 0;
    out[3 * n + cell] = 1;
}
