/* MODLINSEQ (SPEC section 7). A line through a tile is the walk of the
 * geometry's next-cell table along an axis: straight on plane and torus,
 * cyclic on wrap, tess and torus, reflecting on bounce edges, where a walk
 * may meet a cell twice and counts it twice. A segment is the maximal run of
 * tiles along such a walk; a segment that closes on itself (every cell of a
 * cycle holds a tile) is checked as a cycle, its last step included.
 *
 * Readings: a turn's first tile must touch a tile already on the board
 * (except in the game's first turn) and later tiles extend the turn's
 * segment along its line; this plays every turn the rules allow (start with
 * the touching tile, grow outwards). A turn of one tile scores every segment
 * through it. PASS places nothing and tops the hand up (a no-op unless the
 * bag ran short before). */
#include <stdio.h>
#include <string.h>

#include "game.h"
#include "modlinseq.h"
#include "rng.h"

#define MAX_WALK (GEOM_MAX_CELLS * 8)

int modlinseq_prepare(const variant *v, char *err, size_t errlen)
{
    if (v->p.protocol != PROTO_FREE) {
        snprintf(err, errlen, "rule 'modlinseq' has no opening protocol (protocol='free')");
        return -1;
    }
    if (v->p.geometry == GEOM_STRIP) {
        snprintf(err, errlen, "rule 'modlinseq' is played on hex, tess, plane or torus boards");
        return -1;
    }
    if (v->p.hand_size > modlinseq_bag_size(v) / 2) {
        snprintf(err, errlen, "two hands of %d need more than the bag's %d tiles", v->p.hand_size,
                 modlinseq_bag_size(v));
        return -1;
    }
    return 0;
}

size_t modlinseq_state_bytes(const variant *v)
{
    size_t bytes = (size_t)v->g.n_cells + (size_t)v->p.modulus * (2 + (size_t)v->p.copies);
    return sizeof(modlinseq_state) + ((bytes + 7) & ~(size_t)7) +
           sizeof(uint64_t) * BITS_WORDS(v->g.n_cells);
}

static inline int mod(int x, int m)
{
    int r = x % m;
    return r < 0 ? r + m : r;
}

/* ---- segments ---- */

typedef struct segment {
    int n;      /* cells met, with multiplicity */
    int cyclic; /* every cell of a cycle holds a tile */
    int canon;  /* the smallest (cell, direction) state of the walk either way: an id */
} segment;

/* The segment through tile c along axis, its cells in walk order into out. */
static segment walk_segment(const geometry *g, const uint8_t *values, int c, int axis, int16_t *out)
{
    segment s = {0, 0, 1 << 30};
    int cell = c, od = 2 * axis + 1;
    for (int guard = 0; guard < MAX_WALK; guard++) { /* back to the segment's first tile */
        int nod = od, nc = geom_step(g, cell, &nod);
        if (nc == GEOM_NONE || !values[nc])
            break;
        cell = nc;
        od = nod;
        if (cell == c && od == 2 * axis + 1) {
            s.cyclic = 1;
            break;
        }
    }
    int start = s.cyclic ? c : cell, start_od = s.cyclic ? 2 * axis : od ^ 1;
    cell = start;
    od = start_od;
    while (s.n < MAX_WALK) {
        out[s.n++] = (int16_t)cell;
        int a = cell * g->n_od + od, b = cell * g->n_od + (od ^ 1);
        s.canon = a < s.canon ? a : s.canon;
        s.canon = b < s.canon ? b : s.canon;
        int nod = od, nc = geom_step(g, cell, &nod);
        if (nc == GEOM_NONE || !values[nc] || (nc == start && nod == start_od))
            break;
        cell = nc;
        od = nod;
    }
    return s;
}

static int is_progression(const uint8_t *values, const int16_t *cells, segment s, int m)
{
    if (s.n < 2)
        return 1;
    int step = mod(values[cells[1]] - values[cells[0]], m);
    for (int i = 1; i + 1 < s.n; i++)
        if (mod(values[cells[i + 1]] - values[cells[i]], m) != step)
            return 0;
    return !s.cyclic || mod(values[cells[0]] - values[cells[s.n - 1]], m) == step;
}

/* Would value val on empty cell c leave every segment through it a progression? */
static int fits(const variant *v, uint8_t *values, int c, int val)
{
    int16_t cells[MAX_WALK];
    int ok = 1;
    values[c] = (uint8_t)(val + 1);
    for (int a = 0; a < v->g.n_axes && ok; a++)
        ok = is_progression(values, cells, walk_segment(&v->g, values, c, a, cells), v->p.modulus);
    values[c] = 0;
    return ok;
}

/* The empty cells just past each end of the segment through tile c along axis. */
static void segment_ends(const geometry *g, const uint8_t *values, int c, int axis, uint64_t *ends)
{
    for (int s = 0; s < 2; s++) {
        int cell = c, od = 2 * axis + s;
        for (int guard = 0; guard < MAX_WALK; guard++) {
            int nc = geom_step(g, cell, &od);
            if (nc == GEOM_NONE || (nc == c && guard > 0 && od == 2 * axis + s))
                break;
            if (!values[nc]) {
                bits_set(ends, nc);
                break;
            }
            cell = nc;
        }
    }
}

static int touches_a_tile(const geometry *g, const uint8_t *values, int c)
{
    for (int od = 0; od < g->n_od; od++) {
        int d = od, nc = geom_step(g, c, &d);
        if (nc != GEOM_NONE && values[nc])
            return 1;
    }
    return 0;
}

/* ---- the game ---- */

static void refill(const variant *v, board_hdr *b, int seat)
{
    modlinseq_state *ms = modlinseq_of(v, b);
    uint8_t *hand = modlinseq_hand(v, b, seat), *bag = modlinseq_bag(v, b);
    int held = 0;
    for (int k = 0; k < v->p.modulus; k++)
        held += hand[k];
    while (held < v->p.hand_size && ms->bag_pos < modlinseq_bag_size(v)) {
        hand[bag[ms->bag_pos++]]++;
        held++;
    }
}

static void shuffle_bag(const variant *v, board_hdr *b, int from, uint64_t key, uint32_t *ctr)
{
    uint8_t *bag = modlinseq_bag(v, b);
    for (int i = modlinseq_bag_size(v) - 1; i > from; i--) {
        int j = from + (int)rng_below(rng_at(key, (*ctr)++), (uint32_t)(i - from + 1));
        uint8_t t = bag[i];
        bag[i] = bag[j];
        bag[j] = t;
    }
}

void modlinseq_start(const variant *v, board_hdr *b, uint64_t key, uint32_t *ctr)
{
    uint8_t *bag = modlinseq_bag(v, b);
    modlinseq_of(v, b)->turn_first = -1;
    modlinseq_of(v, b)->turn_axis = -1;
    for (int k = 0; k < modlinseq_bag_size(v); k++)
        bag[k] = (uint8_t)(k % v->p.modulus);
    shuffle_bag(v, b, 0, key, ctr);
    refill(v, b, 0);
    refill(v, b, 1);
}

void modlinseq_legal(const variant *v, const board_hdr *b, uint64_t *legal)
{
    const geometry *g = &v->g;
    const modlinseq_state *ms = modlinseq_of_c(v, b);
    const uint8_t *hand = modlinseq_hand_c(v, b, b->seat);
    int n = g->n_cells, m = v->p.modulus;
    uint8_t values[GEOM_MAX_CELLS];
    memcpy(values, modlinseq_values_c(v, b), (size_t)n);
    bits_set(legal, n * m + (ms->turn_tiles ? MODLINSEQ_END_TURN : MODLINSEQ_PASS));
    uint64_t where[BITS_WORDS(GEOM_MAX_CELLS)] = {0};
    if (ms->turn_tiles) { /* extend the turn's segment along its line */
        for (int a = 0; a < g->n_axes; a++)
            if (ms->turn_axis < 0 || ms->turn_axis == a)
                segment_ends(g, values, ms->turn_first, a, where);
    } else {
        for (int c = 0; c < n; c++)
            if (g->on_board[c] && !values[c] && (!ms->opened || touches_a_tile(g, values, c)))
                bits_set(where, c);
    }
    for (int w = 0; w < BITS_WORDS(n); w++)
        for (uint64_t x = where[w]; x; x &= x - 1) {
            int c = w * 64 + __builtin_ctzll(x);
            for (int val = 0; val < m; val++)
                if (hand[val] && (!b->n_stones || fits(v, values, c, val)))
                    bits_set(legal, c * m + val);
        }
}

int modlinseq_turn_points(const variant *v, const board_hdr *b)
{
    const geometry *g = &v->g;
    const uint8_t *values = modlinseq_values_c(v, b);
    const uint64_t *placed = modlinseq_placed_c(v, b);
    int16_t cells[MAX_WALK];
    int seen[8 * 16], n_seen = 0, points = 0;
    for (int w = 0; w < BITS_WORDS(g->n_cells); w++)
        for (uint64_t x = placed[w]; x; x &= x - 1) {
            int c = w * 64 + __builtin_ctzll(x);
            for (int a = 0; a < g->n_axes; a++) {
                segment s = walk_segment(g, values, c, a, cells);
                int dup = 0;
                for (int k = 0; k < n_seen; k++)
                    dup |= seen[k] == s.canon;
                if (dup || s.n < 2)
                    continue;
                if (n_seen < (int)(sizeof(seen) / sizeof(seen[0])))
                    seen[n_seen++] = s.canon;
                points += (s.n - 1) * (s.n - 2) / 2;
            }
        }
    return points;
}

static void end_game(const variant *v, board_hdr *b)
{
    const modlinseq_state *ms = modlinseq_of_c(v, b);
    (void)v;
    b->status = STATUS_TERMINATED;
    b->winner = (int8_t)(ms->score[0] > ms->score[1] ? 0 : ms->score[1] > ms->score[0] ? 1 : -1);
}

void modlinseq_apply(const variant *v, board_hdr *b, int action)
{
    const geometry *g = &v->g;
    modlinseq_state *ms = modlinseq_of(v, b);
    int n = g->n_cells, m = v->p.modulus, seat = b->seat;
    if (action >= n * m) {
        if (action - n * m == MODLINSEQ_END_TURN) {
            int points = modlinseq_turn_points(v, b);
            ms->score[seat] += points;
            ms->step_points[seat] = points;
            memset(modlinseq_placed(v, b), 0, sizeof(uint64_t) * BITS_WORDS(n));
            ms->turn_tiles = 0;
            ms->turn_first = -1;
            ms->turn_axis = -1;
            ms->opened = 1;
            ms->passes = 0;
        } else {
            ms->passes++;
        }
        refill(v, b, seat);
        ms->turns++;
        const uint8_t *hand = modlinseq_hand_c(v, b, seat);
        int held = 0;
        for (int k = 0; k < m; k++)
            held += hand[k];
        b->seat ^= 1;
        if (ms->passes >= 2 || held == 0)
            end_game(v, b);
        return;
    }
    int c = action / m, val = action % m;
    uint8_t *values = modlinseq_values(v, b);
    if (ms->turn_tiles == 1) { /* the second tile fixes the turn's line */
        for (int a = 0; a < g->n_axes && ms->turn_axis < 0; a++) {
            uint64_t ends[BITS_WORDS(GEOM_MAX_CELLS)] = {0};
            segment_ends(g, values, ms->turn_first, a, ends);
            if (bits_get(ends, c))
                ms->turn_axis = (int8_t)a;
        }
    }
    values[c] = (uint8_t)(val + 1);
    board_cells(v, b)[c] = CELL_BLACK;
    modlinseq_hand(v, b, seat)[val]--;
    bits_set(modlinseq_placed(v, b), c);
    if (ms->turn_tiles++ == 0)
        ms->turn_first = (int16_t)c;
    b->n_stones++;
    b->last_move = (int16_t)c;
}

/* ---- segments for users and checks ---- */

int modlinseq_segments(const variant *v, const board_hdr *b, int16_t *cells, int max_cells,
                       int *lengths, int max)
{
    const geometry *g = &v->g;
    const uint8_t *values = modlinseq_values_c(v, b);
    int16_t walk[MAX_WALK];
    int count = 0, used = 0;
    int seen[GEOM_MAX_CELLS * 4];
    int n_seen = 0;
    for (int c = 0; c < g->n_cells; c++) {
        if (!values[c])
            continue;
        for (int a = 0; a < g->n_axes; a++) {
            segment s = walk_segment(g, values, c, a, walk);
            int dup = 0;
            for (int k = 0; k < n_seen && !dup; k++)
                dup = seen[k] == s.canon;
            if (dup || s.n < 2)
                continue;
            seen[n_seen++] = s.canon;
            if (count < max && used + s.n <= max_cells) {
                memcpy(cells + used, walk, sizeof(int16_t) * (size_t)s.n);
                lengths[count] = s.n;
                used += s.n;
            }
            count++;
        }
    }
    return count;
}

const char *modlinseq_check(const variant *v, const board_hdr *b)
{
    const geometry *g = &v->g;
    const modlinseq_state *ms = modlinseq_of_c(v, b);
    const uint8_t *values = modlinseq_values_c(v, b), *cells = board_cells_c(v, b);
    int m = v->p.modulus, count[64] = {0};
    int16_t walk[MAX_WALK];
    if (ms->bag_pos > modlinseq_bag_size(v) || ms->turn_tiles > v->p.hand_size ||
        ms->score[0] < 0 || ms->score[1] < 0)
        return "tile game fields out of range";
    for (int c = 0; c < g->n_cells; c++) {
        if (values[c] > m || (values[c] != 0) != (cells[c] == CELL_BLACK))
            return "tile values do not match the cells";
        if (values[c])
            count[values[c] - 1]++;
    }
    for (int s = 0; s < 2; s++)
        for (int k = 0; k < m; k++)
            count[k] += modlinseq_hand_c(v, b, s)[k];
    const uint8_t *bag = modlinseq_bag(v, (board_hdr *)b);
    for (int k = ms->bag_pos; k < modlinseq_bag_size(v); k++)
        count[bag[k] < m ? bag[k] : 0] += 1;
    for (int k = 0; k < m; k++)
        if (count[k] != v->p.copies)
            return "board, hands and bag do not hold every tile once";
    for (int c = 0; c < g->n_cells; c++)
        for (int a = 0; a < g->n_axes && values[c]; a++)
            if (!is_progression(values, walk, walk_segment(g, values, c, a, walk), m))
                return "a segment is not an arithmetic progression mod M";
    return NULL;
}

const char *modlinseq_load(const variant *v, board_hdr *b, const uint8_t *values,
                           const uint8_t *hands, uint64_t key, uint32_t *ctr)
{
    const geometry *g = &v->g;
    int m = v->p.modulus, left[64];
    for (int k = 0; k < m; k++)
        left[k] = v->p.copies;
    for (int c = 0; c < g->n_cells; c++) {
        if (values[c] > m || (values[c] && !g->on_board[c]))
            return "a tile value out of range, or a tile off the board";
        if (values[c] && --left[values[c] - 1] < 0)
            return "more tiles of a value than the bag holds";
    }
    for (int s = 0; hands && s < 2; s++)
        for (int k = 0; k < m; k++)
            if ((left[k] -= hands[s * m + k]) < 0)
                return "the hands hold more tiles of a value than are left";
    modlinseq_state *ms = modlinseq_of(v, b);
    uint8_t *mine = modlinseq_values(v, b), *cells = board_cells(v, b);
    int stones = 0;
    for (int c = 0; c < g->n_cells; c++) {
        mine[c] = values[c];
        if (g->on_board[c])
            cells[c] = values[c] ? CELL_BLACK : CELL_EMPTY;
        stones += values[c] != 0;
    }
    b->n_stones = (uint16_t)stones;
    /* the bag: what is left, shuffled; hands as given or dealt from it */
    uint8_t *bag = modlinseq_bag(v, b);
    int pos = modlinseq_bag_size(v);
    for (int k = m - 1; k >= 0; k--)
        for (int j = 0; j < left[k]; j++)
            bag[--pos] = (uint8_t)k;
    ms->bag_pos = (uint16_t)pos;
    shuffle_bag(v, b, pos, key, ctr);
    memset(modlinseq_hand(v, b, 0), 0, 2 * (size_t)m);
    if (hands) {
        memcpy(modlinseq_hand(v, b, 0), hands, 2 * (size_t)m);
    } else {
        refill(v, b, 0);
        refill(v, b, 1);
    }
    ms->opened = stones > 0;
    ms->turn_first = -1;
    ms->turn_axis = -1;
    return modlinseq_check(v, b);
}

void modlinseq_write_obs(const variant *v, const board_hdr *b, int viewer, uint8_t *out)
{
    const int n = v->g.n_cells, m = v->p.modulus;
    const modlinseq_state *ms = modlinseq_of_c(v, b);
    const uint8_t *values = modlinseq_values_c(v, b), *hand = modlinseq_hand_c(v, b, viewer);
    uint8_t *tile = out, *value = out + n, *placed = value + (size_t)m * n;
    uint8_t *last = placed + n, *seat0 = last + n, *held = seat0 + n;
    uint8_t *held2 = held + (size_t)m * n, *bag = held2 + (size_t)m * n;
    for (int c = 0; c < n; c++)
        if (values[c]) {
            tile[c] = 1;
            value[(size_t)(values[c] - 1) * n + c] = 1;
        }
    bits_to_bytes(modlinseq_placed_c(v, b), n, placed);
    if (b->last_move >= 0)
        last[b->last_move] = 1;
    memset(seat0, b->seat == 0, (size_t)n);
    for (int k = 0; k < m; k++) {
        memset(held + (size_t)k * n, hand[k] >= 1, (size_t)n);
        memset(held2 + (size_t)k * n, hand[k] >= 2, (size_t)n);
    }
    int in_bag = modlinseq_bag_size(v) - ms->bag_pos;
    for (int k = 0; k < MODLINSEQ_BAG_BITS; k++)
        memset(bag + (size_t)k * n, (in_bag >> k) & 1, (size_t)n);
}

const char *modlinseq_illegal_reason(const variant *v, const board_hdr *b, int action)
{
    const modlinseq_state *ms = modlinseq_of_c(v, b);
    int n = v->g.n_cells, m = v->p.modulus;
    if (action >= n * m)
        return action - n * m == MODLINSEQ_END_TURN ? "END_TURN needs a tile placed this turn"
                                                    : "PASS comes instead of a turn's first tile";
    int c = action / m, val = action % m;
    if (!v->g.on_board[c])
        return "off the board";
    if (modlinseq_values_c(v, b)[c])
        return "occupied";
    if (!modlinseq_hand_c(v, b, b->seat)[val])
        return "that value is not in the hand";
    if (ms->turn_tiles)
        return "a turn's tiles extend one unbroken segment along one line";
    if (ms->opened && !touches_a_tile(&v->g, modlinseq_values_c(v, b), c))
        return "the turn's first tile must touch a tile on the board";
    return "the value breaks a progression through this cell (or the cell is blocked)";
}
