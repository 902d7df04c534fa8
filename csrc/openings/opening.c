/* What the opening protocols share: the dispatch on the protocol, the 26
 * canonical renju openings, the symmetries of the square. */
#include "openings/opening.h"

#include <stdio.h>
#include <string.h>

#include "game/rule_family.h"

/* The 26 canonical openings, black stone 3 at (bx, by) from the centre (x to
 * the right, y up) with white stone 2 at (0, 1) for the direct ones (D) and
 * at (1, 1) for the indirect ones (I). renju_26_openings.json lists them. */
static const struct {
    const char *name;
    int bx, by;
} openings[N_OPENINGS] = {
    {"D1 Kansei", 0, 2},      {"D2 Keigetsu", 1, 2},  {"D3 Sosei", 2, 2},
    {"D4 Kagetsu", 1, 1},     {"D5 Zangetsu", 2, 1},  {"D6 Ugetsu", 1, 0},
    {"D7 Kinsei", 2, 0},      {"D8 Shogetsu", 0, -1}, {"D9 Kyugetsu", 1, -1},
    {"D10 Shingetsu", 2, -1}, {"D11 Zuisei", 0, -2},  {"D12 Sangetsu", 1, -2},
    {"D13 Yusei", 2, -2},     {"I1 Chosei", 2, 2},    {"I2 Kyogetsu", 2, 1},
    {"I3 Kosei", 2, 0},       {"I4 Suigetsu", 2, -1}, {"I5 Ryusei", 2, -2},
    {"I6 Ungetsu", 1, 0},     {"I7 Hogetsu", 1, -1},  {"I8 Rangetsu", 1, -2},
    {"I9 Gingetsu", 0, -1},   {"I10 Myojo", 0, -2},   {"I11 Shagetsu", -1, -1},
    {"I12 Meigetsu", -1, -2}, {"I13 Suisei", -2, -2},
};

/* The eight symmetries of the square on offsets (x, y). */
static void transform(int t, int x, int y, int *tx, int *ty)
{
    static const int m[8][4] = {{1, 0, 0, 1},  {0, -1, 1, 0}, {-1, 0, 0, -1}, {0, 1, -1, 0},
                                {-1, 0, 0, 1}, {1, 0, 0, -1}, {0, 1, 1, 0},   {0, -1, -1, 0}};
    *tx = m[t][0] * x + m[t][1] * y;
    *ty = m[t][2] * x + m[t][3] * y;
}

int protocol_opening_of(int wx, int wy, int bx, int by)
{
    for (int t = 0; t < 8; t++) {
        int x, y, cx, cy;
        transform(t, wx, wy, &x, &y);
        int direct = x == 0 && y == 1, indirect = x == 1 && y == 1;
        if (!direct && !indirect)
            continue;
        transform(t, bx, by, &cx, &cy);
        for (int k = direct ? 0 : 13; k < (direct ? 13 : N_OPENINGS); k++)
            if (openings[k].bx == cx && openings[k].by == cy)
                return k;
    }
    return -1;
}

void protocol_opening_stones(int opening, int xy[6])
{
    const int direct = opening < 13;
    xy[0] = xy[1] = 0;
    xy[2] = direct ? 0 : 1;
    xy[3] = 1;
    xy[4] = openings[opening].bx;
    xy[5] = openings[opening].by;
}

const char *protocol_opening_name(int opening)
{
    return opening >= 0 && opening < N_OPENINGS ? openings[opening].name : "";
}

int protocol_symmetric_cell(const geometry *g, int t, int c)
{
    int cr = g->height / 2, cc = g->width / 2;
    int x, y;
    transform(t, c % g->width - cc, cr - c / g->width, &x, &y);
    return (cr - y) * g->width + (cc + x);
}

const char *protocol_phase_name(int phase)
{
    static const char *const names[N_PHASES] = {
        "play",         "first stone",   "second stone", "third stone", "swap",
        "fourth stone", "declare",       "second swap",  "offer",       "pick",
        "first stone",  "second stone",  "third stone",  "choice",      "fourth stone",
        "fifth stone",  "second choice",
    };
    return phase >= 0 && phase < N_PHASES ? names[phase] : "?";
}

size_t protocol_state_bytes(const variant *v)
{
    if (v->p.protocol != PROTO_SOOSORV && v->p.protocol != PROTO_SWAP2)
        return 0;
    return sizeof(protocol_state) + 2 * sizeof(uint64_t) * BITS_WORDS(v->g.n_cells);
}

int soosorv_prepare(const variant *v, protocol_info *info, char *err, size_t errlen);
int swap2_prepare(const variant *v, protocol_info *info, char *err, size_t errlen);

int protocol_prepare(variant *v, protocol_info *info, char *err, size_t errlen)
{
    memset(info, 0, sizeof(*info));
    info->n_phases = 1;
    info->phases[0] = PHASE_PLAY;
    v->opening = NULL;
    v->first_stone_centre = v->p.protocol == PROTO_CENTER;
    if (v->p.protocol != PROTO_SOOSORV && v->p.protocol != PROTO_SWAP2)
        return 0;
    if (v->p.connect < 4) {
        /* the opener's stones could already make a line */
        snprintf(err, errlen, "protocol '%s' needs connect >= 4, got %d",
                 v->p.protocol == PROTO_SOOSORV ? "soosorv" : "swap2", v->p.connect);
        return -1;
    }
    if (!v->rules->put_stone) {
        snprintf(err, errlen, "rule '%s' takes no opening protocol with phases", v->rules->name);
        return -1;
    }
    v->opening = v->p.protocol == PROTO_SOOSORV ? &opening_soosorv : &opening_swap2;
    return v->p.protocol == PROTO_SOOSORV ? soosorv_prepare(v, info, err, errlen)
                                          : swap2_prepare(v, info, err, errlen);
}

/* ---- what both protocols' rows share ---- */

void protocol_clear(const variant *v, board_hdr *b)
{
    memset(protocol_of(v, b), 0, protocol_state_bytes(v));
    protocol_of(v, b)->opening = -1;
}

void protocol_write_planes(const variant *v, const board_hdr *b, uint8_t *declared,
                           uint8_t *offered)
{
    const int n = v->g.n_cells;
    const protocol_state *ps = protocol_of_c(v, b);
    for (int k = 0; k < 4; k++)
        memset(declared + (size_t)k * n, (ps->declared >> k) & 1u, (size_t)n);
    bits_to_bytes(protocol_offered_c(v, b), n, offered);
}

int protocol_opening_code(const variant *v, const board_hdr *b)
{
    return protocol_of_c(v, b)->opening;
}

const char *protocol_check(const variant *v, const board_hdr *b)
{
    const protocol_state *ps = protocol_of_c(v, b);
    int known = 0;
    for (int k = 0; k < v->n_phases; k++)
        known |= v->phases[k] == b->phase;
    if (!known || ps->declared > v->p.max_offers || ps->offers > ps->declared || ps->opening < -1 ||
        ps->opening > 25)
        return "protocol fields out of range";
    return NULL;
}

const char *protocol_illegal_reason(const variant *v, const board_hdr *b, int action)
{
    static _Thread_local char why[160];
    int n_cells = v->g.n_cells;
    const char *phase = protocol_phase_name(b->phase);
    if (action >= n_cells) {
        snprintf(why, sizeof(why), "%s is not allowed now (phase: %s)",
                 v->special_names[action - n_cells], phase);
        return why;
    }
    const uint8_t *cells = board_cells_c(v, b);
    if (cells[action] != CELL_EMPTY)
        return "occupied";
    switch (b->phase) {
    case SOOSORV_FIRST:
        return "stone 1 goes to the centre";
    case SOOSORV_SECOND:
        return "stone 2 goes in the central 3x3";
    case SOOSORV_THIRD:
        return "stone 3 goes in the central 5x5";
    case SOOSORV_OFFER:
        return "this offer is forbidden for black, or symmetrical to an earlier offer";
    case SOOSORV_PICK:
        return "only an offered cell can be picked";
    case SWAP2_FIRST:
    case SWAP2_SECOND:
    case SWAP2_THIRD:
    case SWAP2_FOURTH:
    case SWAP2_FIFTH:
        return "forbidden for black";
    default:
        snprintf(why, sizeof(why), "a decision is due, not a stone (phase: %s)", phase);
        return why;
    }
}
