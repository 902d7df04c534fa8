/* Gomorpion (SPEC section 6, seed 001). The seed's text is loose; the
 * readings taken here:
 * - Rule 4 ("recaptured"): a recapturable stone of the winner that is part of
 *   the winning run is rescued by being captured for the winner with the run.
 * - Rule 7 ("broken"): a siege is solid when every wall stone is captured,
 *   breakable otherwise; the opponent may play in a breakable siege, which
 *   ends it (both cells of a two-cell siege) and unprotects the owner's safe
 *   stones in it.
 * - Sieges and captures use the same neighbourhood (8 by default, or 4).
 * - Captured stones stay on the board, block their cell, count as neighbours
 *   of their colour, and never count toward a five.
 * - When the seat to move has no legal cell the game ends: if the other seat
 *   can move, it wins the unfinished cast (resolved without a winning run);
 *   if neither can, the cast scores nothing. */
#include <stdio.h>
#include <string.h>

#include "game/game.h"
#include "geometry/lines.h"
#include "rules/gomorpion.h"

/* Neighbour k of cell c, or GEOM_NONE: oriented directions 0..3 are the
 * horizontal and vertical ones, 4..7 the diagonals. */
static inline int neighbour(const geometry *g, int c, int k)
{
    return g->next[c * g->n_od + k];
}

static inline int n_neighbours(const variant *v)
{
    return v->p.neighbourhood == 4 ? 4 : 8;
}

int gomorpion_prepare(const variant *v, char *err, size_t errlen)
{
    if (v->g.kind != GEOM_PLANE || !v->g.n_lines) {
        snprintf(err, errlen, "rule 'gomorpion' is played on a plane board (geometry='plane')");
        return -1;
    }
    if (v->p.protocol != PROTO_FREE && v->p.protocol != PROTO_CENTER) {
        snprintf(err, errlen, "rule 'gomorpion' takes protocol 'free' or 'center'");
        return -1;
    }
    if (v->p.neighbourhood != 4 && v->p.neighbourhood != 8) {
        snprintf(err, errlen, "parameter 'neighbourhood' must be 4 or 8, got %d",
                 v->p.neighbourhood);
        return -1;
    }
    if (v->p.capture_threshold > v->p.neighbourhood) {
        snprintf(err, errlen,
                 "parameter 'capture_threshold' = %d exceeds the %d neighbours a stone has",
                 v->p.capture_threshold, v->p.neighbourhood);
        return -1;
    }
    return 0;
}

size_t gomorpion_state_bytes(const variant *v)
{
    return sizeof(gomorpion_state) + (((size_t)v->g.n_cells + 7) & ~(size_t)7) +
           4 * sizeof(uint64_t) * BITS_WORDS(v->g.n_cells);
}

/* ---- sieges ---- */

/* The colour of stone x (any status), -1 if x is not a stone. */
static inline int stone_colour(const uint8_t *cells, int x)
{
    return (cells[x] == CELL_BLACK || cells[x] == CELL_WHITE) ? cells[x] - 1 : -1;
}

/* If every on-board neighbour of e other than `except` is a stone of one
 * colour, that colour; -1 otherwise. *empty_nb receives the empty neighbour
 * when there is exactly one (and it is not `except`), -2 if more. */
static int wall_colour(const variant *v, const uint8_t *cells, int e, int except, int *empty_nb)
{
    int colour = -1, seen_empty = -1;
    for (int k = 0; k < n_neighbours(v); k++) {
        int x = neighbour(&v->g, e, k);
        if (x == GEOM_NONE || x == except)
            continue;
        int c = stone_colour(cells, x);
        if (c < 0) {
            seen_empty = seen_empty == -1 ? x : -2;
            continue;
        }
        if (colour >= 0 && c != colour)
            return -1;
        colour = c;
    }
    *empty_nb = seen_empty;
    return seen_empty == -1 ? colour : colour >= 0 ? colour | 0x100 : -1;
}

/* Are all stones around e (other than `except`) captured? */
static int walls_captured(const variant *v, const board_hdr *b, int e, int except)
{
    const uint8_t *cells = board_cells_c(v, b), *status = gomorpion_status_c(v, b);
    for (int k = 0; k < n_neighbours(v); k++) {
        int x = neighbour(&v->g, e, k);
        if (x != GEOM_NONE && x != except && stone_colour(cells, x) >= 0 &&
            (status[x] & STONE_STATUS) != STONE_CAPTURED)
            return 0;
    }
    return 1;
}

/* Sieges from scratch (at a cast end): single cells whose every neighbour is
 * a stone of one colour, and pairs of adjacent empty cells whose other
 * neighbours are. */
static void compute_sieges(const variant *v, board_hdr *b)
{
    const uint8_t *cells = board_cells_c(v, b);
    int words = BITS_WORDS(v->g.n_cells);
    memset(gomorpion_bits(v, b, 1), 0, 3 * sizeof(uint64_t) * (size_t)words);
    uint64_t *solid = gomorpion_bits(v, b, GBITS_SOLID);
    for (int e = 0; e < v->g.n_cells; e++) {
        if (cells[e] != CELL_EMPTY)
            continue;
        int other, colour = wall_colour(v, cells, e, -1, &other);
        if (colour >= 0 && colour < 0x100) { /* every neighbour a stone of one colour */
            bits_set(gomorpion_bits(v, b, GBITS_SIEGED + colour), e);
            if (walls_captured(v, b, e, -1))
                bits_set(solid, e);
            continue;
        }
        if (colour < 0 || other < 0 || other < e)
            continue; /* not a pair, or the pair was seen from its other cell */
        colour &= 0xff;
        int back, partner = wall_colour(v, cells, other, e, &back);
        if (partner != colour || back != -1)
            continue;
        bits_set(gomorpion_bits(v, b, GBITS_SIEGED + colour), e);
        bits_set(gomorpion_bits(v, b, GBITS_SIEGED + colour), other);
        if (walls_captured(v, b, e, other) && walls_captured(v, b, other, e)) {
            bits_set(solid, e);
            bits_set(solid, other);
        }
    }
}

/* The other cell of e's siege of colour x (its sieged neighbour), or -1. */
static int siege_partner(const variant *v, const board_hdr *b, int e, int x)
{
    const uint64_t *sieged = gomorpion_bits_c(v, b, GBITS_SIEGED + x);
    for (int k = 0; k < n_neighbours(v); k++) {
        int n = neighbour(&v->g, e, k);
        if (n != GEOM_NONE && bits_get(sieged, n))
            return n;
    }
    return -1;
}

/* The opponent of x played in x's breakable siege at e: the siege ends, and
 * the safe stone of x in it, if any, is no longer protected. */
static void break_siege(const variant *v, board_hdr *b, int x, int e)
{
    int partner = siege_partner(v, b, e, x);
    uint64_t *sieged = gomorpion_bits(v, b, GBITS_SIEGED + x);
    uint64_t *solid = gomorpion_bits(v, b, GBITS_SOLID);
    bits_clear(sieged, e);
    bits_clear(solid, e);
    if (partner >= 0) {
        bits_clear(sieged, partner);
        bits_clear(solid, partner);
        gomorpion_status(v, b)[partner] &= (uint8_t)~STONE_SAFE;
    }
}

void gomorpion_derive(const variant *v, board_hdr *b)
{
    const uint8_t *cells = board_cells_c(v, b), *status = gomorpion_status_c(v, b);
    uint64_t *empty = gomorpion_bits(v, b, GBITS_EMPTY);
    memset(empty, 0, sizeof(uint64_t) * BITS_WORDS(v->g.n_cells));
    for (int c = 0; c < v->g.n_cells; c++) {
        if (cells[c] == CELL_EMPTY)
            bits_set(empty, c);
        else if ((status[c] & STONE_STATUS) == STONE_CAPTURED) /* captured: no fives */
            line_bits_remove(&v->g, board_line_bits(v, b, cells[c] - 1), c);
    }
    compute_sieges(v, b);
}

void gomorpion_legal(const variant *v, const board_hdr *b, int colour, uint64_t *legal)
{
    const uint64_t *empty = gomorpion_bits_c(v, b, GBITS_EMPTY);
    const uint64_t *theirs = gomorpion_bits_c(v, b, GBITS_SIEGED + (colour ^ 1));
    const uint64_t *solid = gomorpion_bits_c(v, b, GBITS_SOLID);
    for (int w = 0; w < BITS_WORDS(v->g.n_cells); w++)
        legal[w] = empty[w] & ~(theirs[w] & solid[w]);
}

/* ---- casts ---- */

static void capture(const variant *v, board_hdr *b, int c, int for_colour, int points[2])
{
    uint8_t *status = gomorpion_status(v, b);
    if ((status[c] & STONE_STATUS) == STONE_CAPTURED)
        return;
    status[c] = STONE_CAPTURED;
    line_bits_remove(&v->g, board_line_bits(v, b, board_cells(v, b)[c] - 1), c);
    points[for_colour]++;
}

/* Resolve a cast won by colour w, through `move` (its winning runs), or
 * without a winning run (move < 0: the game ends and w can still move). */
static void resolve_cast(const variant *v, board_hdr *b, int w, int move)
{
    const geometry *g = &v->g;
    const uint8_t *cells = board_cells_c(v, b);
    uint8_t *status = gomorpion_status(v, b);
    int points[2] = {0, 0}, n = g->n_cells;
    /* the winning runs, read before anything is captured */
    uint64_t run[BITS_WORDS(GEOM_MAX_CELLS)] = {0};
    if (move >= 0) {
        const uint32_t *bits = board_line_bits_c(v, b, w);
        for (int a = 0; a < g->n_axes; a++) {
            int ends[2];
            unsigned lp = g->line_of[move * g->n_axes + a];
            if (line_run_bits(g, bits, move, a, ends) < v->p.connect)
                continue;
            unsigned line = lp / LINE_BITS, pos = lp % LINE_BITS;
            const int16_t *line_cells = g->line_cells + line * LINE_BITS;
            for (int u = (int)pos; u >= 0 && bits_get_u32(bits[line], u); u--)
                bits_set(run, line_cells[u]);
            for (unsigned u = pos; u < g->line_len[line] && bits_get_u32(bits[line], u); u++)
                bits_set(run, line_cells[u]);
        }
    }
    /* 1. safe stones of unbroken sieges, for their siege's owner */
    for (int c = 0; c < n; c++)
        if (status[c] & STONE_SAFE)
            capture(v, b, c, cells[c] - 1, points);
    /* 2. the winning runs, for w (a recapturable stone of w in them is rescued) */
    for (int c = 0; c < n; c++)
        if (bits_get(run, c))
            capture(v, b, c, w, points);
    /* 3. stones with capture_threshold of w's stones around them, all judged
     * on the board as it is now */
    uint64_t doomed[BITS_WORDS(GEOM_MAX_CELLS)] = {0};
    for (int c = 0; c < n; c++) {
        if (stone_colour(cells, c) < 0 || (status[c] & STONE_STATUS) == STONE_CAPTURED)
            continue;
        int around = 0;
        for (int k = 0; k < n_neighbours(v); k++) {
            int x = neighbour(g, c, k);
            around += x != GEOM_NONE && stone_colour(cells, x) == w;
        }
        if (around >= v->p.capture_threshold)
            bits_set(doomed, c);
    }
    for (int c = 0; c < n; c++)
        if (bits_get(doomed, c))
            capture(v, b, c, w, points);
    /* 4. w's other stones shift; the loser's become recapturable */
    for (int c = 0; c < n; c++) {
        int colour = stone_colour(cells, c);
        if (colour >= 0 && (status[c] & STONE_STATUS) != STONE_CAPTURED)
            status[c] = colour == w ? STONE_LIVE : STONE_RECAPTURABLE;
    }
    /* 5. points; 6. sieges from scratch */
    gomorpion_state *gs = gomorpion_of(v, b);
    for (int s = 0; s < 2; s++) {
        gs->score[s] += points[s];
        gs->cast_points[s] = points[s];
        gs->step_points[s] += points[s];
    }
    gs->casts++;
    compute_sieges(v, b);
}

static int legal_count(const variant *v, const board_hdr *b, int colour)
{
    uint64_t legal[BITS_WORDS(GEOM_MAX_CELLS)];
    gomorpion_legal(v, b, colour, legal);
    return bits_count(legal, BITS_WORDS(v->g.n_cells));
}

unsigned gomorpion_apply(const variant *v, board_hdr *b, int a)
{
    gomorpion_state *gs = gomorpion_of(v, b);
    uint8_t *cells = board_cells(v, b), *status = gomorpion_status(v, b);
    int colour = b->colour;
    unsigned changes = CHANGE_MASK_WIDE; /* the other colour meets other sieges */
    cells[a] = (uint8_t)(colour + 1);
    status[a] = STONE_LIVE;
    bits_clear(gomorpion_bits(v, b, GBITS_EMPTY), a);
    if (bits_get(gomorpion_bits_c(v, b, GBITS_SIEGED + colour), a)) {
        status[a] |= STONE_SAFE; /* in its own siege */
        changes |= CHANGE_OBS_WIDE;
    } else if (bits_get(gomorpion_bits_c(v, b, GBITS_SIEGED + (colour ^ 1)), a)) {
        break_siege(v, b, colour ^ 1, a); /* legal, so breakable */
        changes |= CHANGE_OBS_WIDE;
    }
    b->n_stones++;
    b->last_move = (int16_t)a;
    if (lines_place(v, b, a, (uint8_t)(colour + 1))) {
        resolve_cast(v, b, colour, a);
        changes |= CHANGE_OBS_WIDE;
    }
    b->colour ^= 1;
    b->seat ^= 1;
    if (!legal_count(v, b, b->colour)) {
        /* the game ends: the other colour wins the unfinished cast if it can
         * still move, else the cast scores nothing */
        if (legal_count(v, b, colour))
            resolve_cast(v, b, colour, -1);
        b->status = STATUS_TERMINATED;
        b->winner = (int8_t)(gs->score[0] > gs->score[1]   ? 0
                             : gs->score[1] > gs->score[0] ? 1
                                                           : -1);
        changes |= CHANGE_OBS_WIDE;
    }
    return changes;
}

const char *gomorpion_check(const variant *v, const board_hdr *b)
{
    const uint8_t *cells = board_cells_c(v, b), *status = gomorpion_status_c(v, b);
    const uint64_t *empty = gomorpion_bits_c(v, b, GBITS_EMPTY);
    const uint64_t *solid = gomorpion_bits_c(v, b, GBITS_SOLID);
    const gomorpion_state *gs = gomorpion_of_c(v, b);
    int captured = 0;
    for (int c = 0; c < v->g.n_cells; c++) {
        int colour = stone_colour(cells, c), st = status[c] & STONE_STATUS;
        int in_siege[2] = {bits_get(gomorpion_bits_c(v, b, GBITS_SIEGED), c),
                           bits_get(gomorpion_bits_c(v, b, GBITS_SIEGED + 1), c)};
        if (status[c] > (STONE_STATUS | STONE_SAFE) || st == STONE_STATUS)
            return "a stone status out of range";
        if (bits_get(empty, c) != (colour < 0))
            return "the empty cells do not match the cells";
        if (colour < 0 && status[c])
            return "an empty cell has a stone status";
        if ((status[c] & STONE_SAFE) && (st == STONE_CAPTURED || !in_siege[colour]))
            return "a safe stone outside its colour's siege";
        if ((in_siege[0] && in_siege[1]) || (bits_get(solid, c) && !in_siege[0] && !in_siege[1]))
            return "siege sets overlap";
        for (int x = 0; x < 2; x++)
            if (in_siege[x] && colour >= 0 && (colour != x || !(status[c] & STONE_SAFE)))
                return "a siege holds a stone that is not its owner's safe stone";
        captured += st == STONE_CAPTURED;
    }
    if (gs->score[0] < 0 || gs->score[1] < 0 || gs->casts < 0 ||
        gs->score[0] + gs->score[1] != captured)
        return "the scores do not add up to the captured stones";
    return NULL;
}
