#include "game.h"

#include <string.h>

#include "lines.h"
#include "renju.h"
#include "rng.h"

/* ---- the legal set ---- */

/* Legal cells from scratch: empty cells, less what the protocol and the rule
 * forbid the colour to place. */
static void refresh_legal(const variant *v, board_hdr *b)
{
    const uint8_t *cells = board_cells(v, b);
    uint64_t *legal = board_legal(v, b);
    memset(legal, 0, sizeof(uint64_t) * (size_t)v->legal_words);
    if (v->p.protocol == PROTO_CENTER && b->n_stones == 0) {
        bits_set(legal, v->g.centre);
        b->n_legal = 1;
        return;
    }
    if (v->p.rule == RULE_RENJU) {
        /* renju keeps the empty cells as bits: legal is a few word operations */
        const uint64_t *empty = renju_empty_c(v, b), *forbidden = renju_forbidden_c(v, b);
        int mask = v->p.forbidden == FORBIDDEN_MASK && b->colour == COLOUR_BLACK;
        for (int w = 0; w < BITS_WORDS(v->g.n_cells); w++)
            legal[w] = empty[w] & (mask ? ~forbidden[w] : ~0ULL);
    } else {
        for (int c = 0; c < v->g.n_cells; c++)
            if (cells[c] == CELL_EMPTY)
                bits_set(legal, c);
    }
    b->n_legal = (uint16_t)bits_count(legal, v->legal_words);
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
    game_derive(v, b);
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
    if (v->p.rule == RULE_RENJU)
        renju_derive(v, b);
    refresh_legal(v, b);
}

void game_forget_caches(const variant *v, board_hdr *b)
{
    if (v->p.rule == RULE_RENJU)
        renju_forget_cache(v, b);
}

/* ---- legality ---- */

static const char *renju_kind_name(int status)
{
    switch (status) {
    case RENJU_OVERLINE:
        return "forbidden for black (overline)";
    case RENJU_DOUBLE_FOUR:
        return "forbidden for black (double-four)";
    default:
        return "forbidden for black (double-three)";
    }
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
        if (v->p.rule == RULE_RENJU && b->colour == COLOUR_BLACK &&
            bits_get(renju_forbidden_c(v, b), action)) {
            uint8_t scratch[GEOM_MAX_CELLS + 1];
            memcpy(scratch, cells, (size_t)v->g.n_cells + 1);
            return renju_kind_name(renju_status(v, scratch, action));
        }
    }
    return "not legal now";
}

/* ---- moves ---- */

/* A stone of the colour to place on empty cell a: sets status and winner. */
static unsigned place_stone(const variant *v, board_hdr *b, int a)
{
    uint8_t *cells = board_cells(v, b);
    uint8_t stone = (uint8_t)(b->colour + 1);
    unsigned changes = 0;
    int foul = 0, wins;
    if (v->p.rule == RULE_RENJU) {
        /* black wins with exactly five, white with five or more; with
         * forbidden="lose" a black foul that is not a five loses at once */
        foul = b->colour == COLOUR_BLACK && bits_get(renju_forbidden_c(v, b), a);
        cells[a] = stone;
        wins = lines_place(v, b, a, stone);
    } else {
        cells[a] = stone;
        wins = lines_place(v, b, a, stone);
    }
    b->n_stones++;
    b->last_move = (int16_t)a;
    if (v->p.rule == RULE_RENJU) {
        /* black's legal set is not simply the empty cells when a foul stood
         * before or stands after this stone (forbidden="mask") */
        const uint64_t *forbidden = renju_forbidden_c(v, b);
        int words = BITS_WORDS(v->g.n_cells), any = 0;
        for (int w = 0; w < words; w++)
            any |= forbidden[w] != 0;
        renju_after_stone(v, b, a);
        for (int w = 0; w < words; w++)
            any |= forbidden[w] != 0;
        if (any && v->p.forbidden == FORBIDDEN_MASK)
            changes |= CHANGE_MASK_WIDE;
    }
    b->colour ^= 1;
    b->seat ^= 1;
    if (changes & CHANGE_MASK_WIDE || (v->p.protocol == PROTO_CENTER && b->n_stones == 1)) {
        refresh_legal(v, b);
        changes |= CHANGE_MASK_WIDE;
    } else {
        bits_clear(board_legal(v, b), a);
        b->n_legal--;
    }
    if (wins) {
        b->status = STATUS_TERMINATED;
        b->winner = (int8_t)(b->seat ^ 1);
    } else if (foul) {
        b->status = STATUS_TERMINATED;
        b->winner = (int8_t)b->seat; /* the foul loses: the other seat wins */
    } else if (b->n_legal == 0) {
        b->status = STATUS_TERMINATED; /* nothing left to play: draw */
        b->winner = -1;
    }
    return changes;
}

unsigned game_apply(const variant *v, board_hdr *b, int action)
{
    return place_stone(v, b, action);
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

/* ---- observations ---- */

static void fill_plane(uint8_t *plane, int n, uint8_t value)
{
    memset(plane, value, (size_t)n);
}

/* Planes that depend on the rule, rewritten whole. */
static void write_rule_planes(const variant *v, const board_hdr *b, uint8_t *out)
{
    const int n = v->g.n_cells;
    if (v->plane_forbidden >= 0)
        bits_to_bytes(renju_forbidden_c(v, b), n, out + (size_t)v->plane_forbidden * n);
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
    write_rule_planes(v, b, out);
    if (v->plane_on_board >= 0)
        memcpy(out + (size_t)v->plane_on_board * n, v->g.on_board, (size_t)n);
}

void game_rule_bits(const variant *v, const board_hdr *b, uint64_t *out)
{
    if (v->plane_forbidden >= 0)
        memcpy(out, renju_forbidden_c(v, b), sizeof(uint64_t) * BITS_WORDS(v->g.n_cells));
}

void game_update_obs_absolute(const variant *v, const board_hdr *b, int cell, int prev_last,
                              const uint64_t *rule_before, uint8_t *out)
{
    const int n = v->g.n_cells;
    const uint8_t *cells = board_cells_c(v, b);
    out[(cells[cell] == CELL_BLACK ? 0 : n) + cell] = 1;
    fill_plane(out + 2 * n, n, b->colour == COLOUR_BLACK);
    if (prev_last >= 0)
        out[3 * n + prev_last] = 0;
    out[3 * n + cell] = 1;
    if (v->plane_forbidden >= 0)
        bits_to_bytes_changed(rule_before, renju_forbidden_c(v, b), BITS_WORDS(n),
                              out + (size_t)v->plane_forbidden * n);
}
