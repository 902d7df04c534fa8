/* Soosorv (SPEC section 5; seed 002 "Soosorv-8", RIF 2011): the opener
 * places one of the 26 canonical openings; the other seat may swap; white's
 * holder places stone 4 and declares N offers; the other seat may swap;
 * black's holder offers N fifth moves, legal for black and pairwise not
 * symmetrical; white's holder picks one and then plays stone 6.
 *
 * Symmetry of offers: the symmetries of the square about the centre that map
 * the four stones onto themselves, colours kept; two offers clash if one such
 * symmetry maps one onto the other (the identity makes duplicates clash). */
#include <stdio.h>
#include <string.h>

#include "game/game.h"
#include "openings/opening.h"

static inline uint64_t *excluded_of(const variant *v, board_hdr *b)
{
    return protocol_offered(v, b) + BITS_WORDS(v->g.n_cells);
}
static inline const uint64_t *excluded_of_c(const variant *v, const board_hdr *b)
{
    return protocol_offered_c(v, b) + BITS_WORDS(v->g.n_cells);
}

int soosorv_prepare(const variant *v, protocol_info *info, char *err, size_t errlen)
{
    const geometry *g = &v->g;
    if (g->kind != GEOM_PLANE || g->height != g->width || g->height % 2 == 0 || g->height < 7) {
        snprintf(err, errlen,
                 "protocol 'soosorv' needs a square plane board of odd size >= 7 (a centre, "
                 "its 5x5 zone and the square's symmetries)");
        return -1;
    }
    static const char *const names[SOOSORV_SPECIALS] = {
        "SWAP",      "NO_SWAP",   "DECLARE_1", "DECLARE_2", "DECLARE_3",
        "DECLARE_4", "DECLARE_5", "DECLARE_6", "DECLARE_7", "DECLARE_8",
    };
    info->n_special = SOOSORV_SPECIALS;
    memcpy(info->special_names, names, sizeof(names));
    for (int ph = SOOSORV_FIRST; ph <= SOOSORV_PICK; ph++)
        info->phases[info->n_phases++] = ph;
    info->first_phase = SOOSORV_FIRST;
    info->extra_steps = 3 + v->p.max_offers; /* two swaps, the declaration, the offers */
    return 0;
}

/* Is cell c within distance r (Chebyshev) of the centre? */
static int near_centre(const geometry *g, int c, int r)
{
    int dr = c / g->width - g->height / 2, dc = c % g->width - g->width / 2;
    return dr >= -r && dr <= r && dc >= -r && dc <= r;
}

static void soosorv_legal(const variant *v, const board_hdr *b, uint64_t *legal)
{
    const geometry *g = &v->g;
    const uint8_t *cells = board_cells_c(v, b);
    const protocol_state *ps = protocol_of_c(v, b);
    int n = g->n_cells;
    switch (b->phase) {
    case SOOSORV_FIRST:
        bits_set(legal, g->centre);
        break;
    case SOOSORV_SECOND:
    case SOOSORV_THIRD:
        for (int c = 0; c < n; c++)
            if (cells[c] == CELL_EMPTY && near_centre(g, c, b->phase == SOOSORV_SECOND ? 1 : 2))
                bits_set(legal, c);
        break;
    case SOOSORV_SWAP1:
    case SOOSORV_SWAP2:
        bits_set(legal, n + SOOSORV_SWAP);
        bits_set(legal, n + SOOSORV_NO_SWAP);
        break;
    case SOOSORV_FOURTH:
        for (int c = 0; c < n; c++)
            if (cells[c] == CELL_EMPTY)
                bits_set(legal, c);
        break;
    case SOOSORV_DECLARE:
        for (int k = 1; k <= v->p.max_offers; k++)
            bits_set(legal, n + SOOSORV_DECLARE_1 + k - 1);
        break;
    case SOOSORV_OFFER: {
        const uint64_t *excluded = excluded_of_c(v, b);
        const uint64_t *forbidden = game_forbidden(v, b, COLOUR_BLACK);
        for (int c = 0; c < n; c++)
            if (cells[c] == CELL_EMPTY && !bits_get(excluded, c) &&
                !(forbidden && bits_get(forbidden, c)))
                bits_set(legal, c);
        break;
    }
    default: /* SOOSORV_PICK */
        memcpy(legal, protocol_offered_c(v, b), sizeof(uint64_t) * BITS_WORDS(n));
        (void)ps;
        break;
    }
}

/* Symmetries of the square that map the stones onto themselves, colours kept. */
static uint8_t stabilizer(const variant *v, const board_hdr *b)
{
    const uint8_t *cells = board_cells_c(v, b);
    uint8_t bits = 0;
    for (int t = 0; t < 8; t++) {
        int ok = 1;
        for (int c = 0; c < v->g.n_cells && ok; c++)
            if (cells[c] == CELL_BLACK || cells[c] == CELL_WHITE)
                ok = cells[protocol_symmetric_cell(&v->g, t, c)] == cells[c];
        bits |= (uint8_t)(ok << t);
    }
    return bits;
}

static int holder_of(const board_hdr *b, int colour)
{
    return colour == COLOUR_BLACK ? b->black_seat : b->black_seat ^ 1;
}

static void soosorv_apply(const variant *v, board_hdr *b, int action)
{
    const geometry *g = &v->g;
    protocol_state *ps = protocol_of(v, b);
    int n = g->n_cells;
    switch (b->phase) {
    case SOOSORV_FIRST:
        game_put_stone(v, b, action, COLOUR_BLACK);
        b->phase = SOOSORV_SECOND;
        b->colour = COLOUR_WHITE;
        break;
    case SOOSORV_SECOND:
        game_put_stone(v, b, action, COLOUR_WHITE);
        b->phase = SOOSORV_THIRD;
        b->colour = COLOUR_BLACK;
        break;
    case SOOSORV_THIRD: {
        game_put_stone(v, b, action, COLOUR_BLACK);
        const uint8_t *cells = board_cells_c(v, b);
        int cr = g->height / 2, cc = g->width / 2, w2 = -1;
        for (int c = 0; c < n; c++)
            if (cells[c] == CELL_WHITE)
                w2 = c;
        ps->opening = (int8_t)protocol_opening_of(w2 % g->width - cc, cr - w2 / g->width,
                                                  action % g->width - cc, cr - action / g->width);
        b->phase = SOOSORV_SWAP1;
        b->colour = COLOUR_WHITE;
        b->seat ^= 1; /* the other seat decides */
        break;
    }
    case SOOSORV_SWAP1:
    case SOOSORV_SWAP2: {
        if (action == n + SOOSORV_SWAP)
            b->black_seat ^= 1;
        int first = b->phase == SOOSORV_SWAP1;
        b->phase = first ? SOOSORV_FOURTH : SOOSORV_OFFER;
        b->colour = first ? COLOUR_WHITE : COLOUR_BLACK;
        b->seat = (uint8_t)holder_of(b, b->colour);
        if (!first)
            ps->stabilizer = stabilizer(v, b);
        break;
    }
    case SOOSORV_FOURTH:
        game_put_stone(v, b, action, COLOUR_WHITE);
        b->phase = SOOSORV_DECLARE;
        break;
    case SOOSORV_DECLARE:
        ps->declared = (uint8_t)(action - n - SOOSORV_DECLARE_1 + 1);
        b->phase = SOOSORV_SWAP2;
        b->colour = COLOUR_BLACK;
        b->seat ^= 1; /* the other seat (black's holder) decides */
        break;
    case SOOSORV_OFFER: {
        bits_set(protocol_offered(v, b), action);
        uint64_t *excluded = excluded_of(v, b);
        for (int t = 0; t < 8; t++)
            if (ps->stabilizer & (1u << t))
                bits_set(excluded, protocol_symmetric_cell(g, t, action));
        if (++ps->offers == ps->declared) {
            b->phase = SOOSORV_PICK;
            b->seat = (uint8_t)holder_of(b, COLOUR_WHITE);
        }
        break;
    }
    default: /* SOOSORV_PICK: the offer becomes black stone 5, white plays stone 6 */
        memset(protocol_offered(v, b), 0, sizeof(uint64_t) * BITS_WORDS(n));
        game_put_stone(v, b, action, COLOUR_BLACK);
        b->phase = PHASE_PLAY;
        b->colour = COLOUR_WHITE;
        b->seat = (uint8_t)holder_of(b, COLOUR_WHITE);
        break;
    }
}

const opening_row opening_soosorv = {
    .name = "soosorv",
    .offer_planes = 1,
    .clear = protocol_clear,
    .legal = soosorv_legal,
    .apply = soosorv_apply,
    .illegal_reason = protocol_illegal_reason,
    .write_planes = protocol_write_planes,
    .opening_code = protocol_opening_code,
    .check = protocol_check,
};
