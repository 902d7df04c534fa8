/* MODLINSEQ (SPEC section 7). Lines are sequences of positions
 * (modlinseq_lines.h): straight on plane and torus, cyclic on wrap, tess and
 * torus, reflecting on bounce edges, where a line may meet a cell twice and
 * counts it twice. A segment is a maximal run of tiles along a line, one
 * segment whichever end it is read from; a segment that closes on itself
 * (every position of a cycle holds a tile) is checked as a cycle, its last
 * step included.
 *
 * Readings: a turn's first tile must touch a tile already on the board
 * (except in the game's first turn) and later tiles extend the turn's
 * segment; every line on which the turn's tiles lie in one segment stays a
 * candidate, and the next tile goes just past an end of a candidate's
 * segment. This plays every turn the rules allow (start with the touching
 * tile, grow outwards), in every such order. A turn of one tile scores every
 * segment through it. PASS places nothing and tops the hand up (a no-op
 * unless the bag ran short before).
 *
 * The mask reads fit[] (see modlinseq.h): the values each empty cell allows,
 * kept exact by recomputing, after each tile, the cells just past the ends
 * of the segments through it. */
#include <stdio.h>
#include <string.h>

#include "base/rng.h"
#include "game/game.h"
#include "rules/modlinseq.h"

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
    ((variant *)v)->rule_data = mls_build(&v->g, err, errlen);
    return v->rule_data ? 0 : -1;
}

size_t modlinseq_state_bytes(const variant *v)
{
    size_t bytes = (size_t)v->g.n_cells + (size_t)v->p.modulus * (2 + (size_t)v->p.copies);
    return sizeof(modlinseq_state) + ((bytes + 7) & ~(size_t)7) +
           sizeof(uint64_t) * BITS_WORDS(v->g.n_cells);
}

size_t modlinseq_derived_bytes(const variant *v)
{
    return sizeof(uint64_t) * ((size_t)v->g.n_cells + BITS_WORDS(v->g.n_cells));
}

static inline int mod(int x, int m)
{
    int r = x % m;
    return r < 0 ? r + m : r;
}

static inline uint64_t all_values(int m)
{
    return m >= 64 ? ~0ULL : (1ULL << m) - 1;
}

/* ---- progressions ---- */

/* a - b mod m, for a and b in 0..m-1: no division */
static inline int diff_mod(int a, int b, int m)
{
    int d = a - b;
    return d < 0 ? d + m : d;
}

/* Is seq (x where it holds -1) a progression mod m, closing if a loop? */
static int is_progression(const int8_t *seq, int n, int loop, int m, int x)
{
    if (n < 2)
        return 1;
    int prev = seq[0] < 0 ? x : seq[0], first = prev;
    int step = diff_mod(seq[1] < 0 ? x : seq[1], prev, m);
    for (int k = 1; k < n; k++) {
        int cur = seq[k] < 0 ? x : seq[k];
        if (diff_mod(cur, prev, m) != step)
            return 0;
        prev = cur;
    }
    return !loop || diff_mod(first, prev, m) == step;
}

/* The values x that keep the segment through position p of empty cell e
 * (e holding x wherever the line meets it) a progression. */
static uint64_t run_fits(const variant *v, const uint8_t *values, int p, int e)
{
    int m = v->p.modulus;
    mls_run r = mls_run_at(modlinseq_lines_of(v), values, p, e);
    if (r.n < 2 || (r.n == 2 && !r.loop)) /* two cells: any step */
        return all_values(m);
    int8_t seq[MLS_MAX_RUN];
    mls_run_values(modlinseq_lines_of(v), values, r, e, seq);
    /* two tiles side by side give the step, and then x: one candidate */
    for (int k = 0; k + 1 < r.n + r.loop; k++) {
        int next = k + 1 < r.n ? k + 1 : 0;
        if (seq[k] < 0 || seq[next] < 0)
            continue;
        int j = 0;
        while (seq[j] >= 0)
            j++;
        int x = mod(seq[k] + (j - k) * diff_mod(seq[next], seq[k], m), m);
        return is_progression(seq, r.n, r.loop, m, x) ? 1ULL << x : 0;
    }
    uint64_t fits = 0;
    for (int x = 0; x < m; x++)
        if (is_progression(seq, r.n, r.loop, m, x))
            fits |= 1ULL << x;
    return fits;
}

/* The values empty cell e allows: every segment through it a progression. */
static uint64_t cell_fits(const variant *v, const uint8_t *values, int e)
{
    const int32_t *visits = modlinseq_lines_of(v)->visits + (size_t)e * GEOM_MAX_AXES;
    uint64_t fits = all_values(v->p.modulus);
    for (int k = 0; k < GEOM_MAX_AXES && visits[k] >= 0 && fits; k++)
        fits &= run_fits(v, values, visits[k], e);
    return fits;
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

void modlinseq_derive(const variant *v, board_hdr *b)
{
    const uint8_t *values = modlinseq_values_c(v, b);
    uint64_t *fit = modlinseq_fit(v, b), *frontier = modlinseq_frontier(v, b);
    memset(fit, 0, modlinseq_derived_bytes(v));
    for (int c = 0; c < v->g.n_cells; c++)
        if (v->g.on_board[c] && !values[c]) {
            /* a cell with no tile next to it allows every value */
            int touches = touches_a_tile(&v->g, values, c);
            fit[c] = touches ? cell_fits(v, values, c) : all_values(v->p.modulus);
            if (touches)
                bits_set(frontier, c);
        }
}

/* After a tile on c: the empty cells just past the ends of the segments
 * through c are the only ones whose segments changed, and only along the
 * line of that end. fit[q] is the AND over q's lines of the values each
 * allows; tiles are never taken away, so a line's run through q only grows
 * and the values it allows only shrink: ANDing the new factor in gives the
 * AND with the old factor replaced. */
static void after_tile(const variant *v, board_hdr *b, int c)
{
    const mls_lines *L = modlinseq_lines_of(v);
    const uint8_t *values = modlinseq_values_c(v, b);
    uint64_t *fit = modlinseq_fit(v, b), *frontier = modlinseq_frontier(v, b);
    fit[c] = 0;
    bits_clear(frontier, c);
    for (int od = 0; od < v->g.n_od; od++) {
        int d = od, nc = geom_step(&v->g, c, &d);
        if (nc != GEOM_NONE && !values[nc])
            bits_set(frontier, nc);
    }
    const int32_t *visits = L->visits + (size_t)c * GEOM_MAX_AXES;
    for (int k = 0; k < GEOM_MAX_AXES && visits[k] >= 0; k++) {
        mls_run r = mls_run_at(L, values, visits[k], -1);
        int ends[2] = {mls_before(L, r), mls_after(L, r)};
        for (int j = 0; j < 2; j++) {
            if (ends[j] < 0)
                continue;
            int q = L->cell[ends[j]], line = L->line_of[ends[j]];
            const int32_t *at = L->visits + (size_t)q * GEOM_MAX_AXES;
            for (int i = 0; i < GEOM_MAX_AXES && at[i] >= 0 && fit[q]; i++)
                if (L->line_of[at[i]] == line)
                    fit[q] &= run_fits(v, values, at[i], q);
        }
    }
}

/* ---- turns ---- */

/* Does run r (with cell `also` filled) hold every tile placed this turn? */
static int holds_turn(const variant *v, const board_hdr *b, mls_run r)
{
    const mls_lines *L = modlinseq_lines_of(v);
    const uint64_t *placed = modlinseq_placed_c(v, b);
    uint64_t run[BITS_WORDS(GEOM_MAX_CELLS)];
    int words = BITS_WORDS(v->g.n_cells), holds = 1;
    memset(run, 0, sizeof(uint64_t) * (size_t)words);
    for (int j = 0, p = r.head; j < r.n; j++, p = L->next[p])
        bits_set(run, L->cell[p]);
    for (int w = 0; w < words; w++)
        holds &= (placed[w] & ~run[w]) == 0;
    return holds;
}

/* The empty cells that may take the turn's next tile: those with which the
 * turn's tiles form one segment of a line (a candidate). Such a line passes
 * the turn's first tile, and the cell lies just past an end of the segment
 * through it (the tile may join that segment to another that holds the rest
 * of the turn). Returns the number of candidates now. */
static int turn_ends(const variant *v, const board_hdr *b, uint64_t *where)
{
    const mls_lines *L = modlinseq_lines_of(v);
    const modlinseq_state *ms = modlinseq_of_c(v, b);
    const uint8_t *values = modlinseq_values_c(v, b);
    const int32_t *visits = L->visits + (size_t)ms->turn_first * GEOM_MAX_AXES;
    int candidates = 0;
    for (int k = 0; k < GEOM_MAX_AXES && visits[k] >= 0; k++) {
        mls_run r = mls_run_at(L, values, visits[k], -1);
        int holds = holds_turn(v, b, r), ends[2] = {mls_before(L, r), mls_after(L, r)};
        candidates += holds;
        for (int j = 0; j < 2; j++) {
            if (ends[j] < 0)
                continue;
            int q = L->cell[ends[j]];
            /* a run that holds the turn still does with q; else q may join it
             * to the segment beyond that holds the rest */
            if (holds || holds_turn(v, b, mls_run_at(L, values, visits[k], q)))
                bits_set(where, q);
        }
    }
    return candidates;
}

/* The cells the next tile may go to (before its value is asked). */
static void tile_cells(const variant *v, const board_hdr *b, uint64_t *where)
{
    const modlinseq_state *ms = modlinseq_of_c(v, b);
    const uint8_t *values = modlinseq_values_c(v, b);
    if (ms->turn_tiles) {
        turn_ends(v, b, where);
    } else if (ms->opened) {
        memcpy(where, modlinseq_frontier_c(v, b), sizeof(uint64_t) * BITS_WORDS(v->g.n_cells));
    } else {
        for (int c = 0; c < v->g.n_cells; c++)
            if (v->g.on_board[c] && !values[c])
                bits_set(where, c);
    }
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
    for (int k = 0; k < modlinseq_bag_size(v); k++)
        bag[k] = (uint8_t)(k % v->p.modulus);
    shuffle_bag(v, b, 0, key, ctr);
    refill(v, b, 0);
    refill(v, b, 1);
}

int modlinseq_legal(const variant *v, const board_hdr *b, uint64_t *legal)
{
    const modlinseq_state *ms = modlinseq_of_c(v, b);
    const uint8_t *hand = modlinseq_hand_c(v, b, b->seat);
    const uint64_t *fit = modlinseq_fit_c(v, b);
    int n = v->g.n_cells, m = v->p.modulus;
    bits_set(legal, n * m + (ms->turn_tiles ? MODLINSEQ_END_TURN : MODLINSEQ_PASS));
    int count = 1;
    uint64_t held = 0;
    for (int val = 0; val < m; val++)
        held |= (uint64_t)(hand[val] != 0) << val;
    uint64_t where[BITS_WORDS(GEOM_MAX_CELLS)];
    memset(where, 0, sizeof(uint64_t) * BITS_WORDS(n));
    tile_cells(v, b, where);
    for (int w = 0; w < BITS_WORDS(n); w++)
        for (uint64_t x = where[w]; x; x &= x - 1) {
            int c = w * 64 + __builtin_ctzll(x), at = c * m, s = at & 63;
            uint64_t bits = fit[c] & held;
            count += __builtin_popcountll(bits);
            legal[at >> 6] |= bits << s;
            if (s && s + m > 64)
                legal[(at >> 6) + 1] |= bits >> (64 - s);
        }
    return count;
}

int modlinseq_turn_points(const variant *v, const board_hdr *b)
{
    const mls_lines *L = modlinseq_lines_of(v);
    const uint8_t *values = modlinseq_values_c(v, b);
    const uint64_t *placed = modlinseq_placed_c(v, b);
    int32_t seen[12 * GEOM_MAX_AXES];
    int n_seen = 0, points = 0;
    for (int w = 0; w < BITS_WORDS(v->g.n_cells); w++)
        for (uint64_t x = placed[w]; x; x &= x - 1) {
            const int32_t *visits =
                L->visits + (size_t)(w * 64 + __builtin_ctzll(x)) * GEOM_MAX_AXES;
            for (int k = 0; k < GEOM_MAX_AXES && visits[k] >= 0; k++) {
                mls_run r = mls_run_at(L, values, visits[k], -1);
                int32_t id = mls_run_id(L, r);
                int dup = 0;
                for (int j = 0; j < n_seen; j++)
                    dup |= seen[j] == id;
                if (dup || r.n < 3)
                    continue;
                if (n_seen < (int)(sizeof(seen) / sizeof(seen[0])))
                    seen[n_seen++] = id;
                points += (r.n - 1) * (r.n - 2) / 2;
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
    modlinseq_values(v, b)[c] = (uint8_t)(val + 1);
    board_cells(v, b)[c] = CELL_BLACK;
    modlinseq_hand(v, b, seat)[val]--;
    bits_set(modlinseq_placed(v, b), c);
    if (ms->turn_tiles++ == 0)
        ms->turn_first = (int16_t)c;
    b->n_stones++;
    b->last_move = (int16_t)c;
    after_tile(v, b, c);
}

/* ---- segments for users and checks ---- */

/* Each segment once: calls fn with its run (walk order) and returns how many
 * there are; stops early (returning -1) when fn returns nonzero. */
static int each_segment(const variant *v, const uint8_t *values,
                        int (*fn)(const variant *, const uint8_t *, mls_run, void *), void *ctx)
{
    const mls_lines *L = modlinseq_lines_of(v);
    int count = 0;
    for (int line = 0; line < L->n_lines; line++) {
        int len = mls_len(L, line), i = 0;
        if (L->cyclic[line]) { /* read a cycle from an empty position, or whole */
            while (i < len && values[L->cell[L->first[line] + i]])
                i++;
            if (i == len) {
                count++;
                int head = L->first[line];
                if (fn(v, values, (mls_run){line, 0, len, 1, head, head + len - 1}, ctx))
                    return -1;
                continue;
            }
        }
        for (int k = 0; k < len;) {
            int p = mls_at(L, line, i, k);
            if (!values[L->cell[p]]) {
                k++;
                continue;
            }
            mls_run r = mls_run_at(L, values, p, -1);
            k += r.n;
            /* a line that retraces itself holds each run twice: keep one */
            if (r.n < 2 || mls_run_id(L, r) != L->first[line] + r.lo)
                continue;
            count++;
            if (fn(v, values, r, ctx))
                return -1;
        }
    }
    return count;
}

typedef struct segment_out {
    int16_t *cells;
    int *lengths;
    int max_cells, max, count, used;
} segment_out;

static int copy_segment(const variant *v, const uint8_t *values, mls_run r, void *ctx)
{
    segment_out *o = ctx;
    (void)values;
    if (o->count < o->max && o->used + r.n <= o->max_cells) {
        for (int k = 0; k < r.n; k++)
            o->cells[o->used + k] =
                modlinseq_lines_of(v)->cell[mls_at(modlinseq_lines_of(v), r.line, r.lo, k)];
        o->lengths[o->count] = r.n;
        o->used += r.n;
    }
    o->count++;
    return 0;
}

int modlinseq_segments(const variant *v, const board_hdr *b, int16_t *cells, int max_cells,
                       int *lengths, int max)
{
    segment_out o = {cells, lengths, max_cells, max, 0, 0};
    return each_segment(v, modlinseq_values_c(v, b), copy_segment, &o);
}

static int breaks_progression(const variant *v, const uint8_t *values, mls_run r, void *ctx)
{
    int8_t seq[MLS_MAX_RUN];
    (void)ctx;
    mls_run_values(modlinseq_lines_of(v), values, r, -1, seq);
    return !is_progression(seq, r.n, r.loop, v->p.modulus, 0);
}

/* The turn's fields: placed tiles, as many as counted, the first among
 * them, all on one segment of a line through the first. */
static const char *check_turn(const variant *v, const board_hdr *b)
{
    const modlinseq_state *ms = modlinseq_of_c(v, b);
    const uint8_t *values = modlinseq_values_c(v, b);
    const uint64_t *placed = modlinseq_placed_c(v, b);
    int n = v->g.n_cells, count = 0;
    for (int w = 0; w < BITS_WORDS(n); w++)
        count += __builtin_popcountll(placed[w]);
    for (int c = 0; c < 64 * BITS_WORDS(n); c++)
        if (bits_get(placed, c) && (c >= n || !values[c]))
            return "a tile placed this turn is not on the board";
    if (count != ms->turn_tiles)
        return "the turn's tile count does not match its tiles";
    if (!count)
        return ms->turn_first == -1 ? NULL : "the turn's first tile without a turn";
    if (ms->turn_first < 0 || ms->turn_first >= n || !bits_get(placed, ms->turn_first))
        return "the turn's first tile is not one of its tiles";
    uint64_t where[BITS_WORDS(GEOM_MAX_CELLS)] = {0};
    if (count > 1 && !turn_ends(v, b, where))
        return "the turn's tiles do not lie on one segment";
    return NULL;
}

const char *modlinseq_check(const variant *v, const board_hdr *b)
{
    const geometry *g = &v->g;
    const modlinseq_state *ms = modlinseq_of_c(v, b);
    const uint8_t *values = modlinseq_values_c(v, b), *cells = board_cells_c(v, b);
    int m = v->p.modulus, count[64] = {0};
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
    if (each_segment(v, values, breaks_progression, NULL) < 0)
        return "a segment is not an arithmetic progression mod M";
    return check_turn(v, b);
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
    modlinseq_derive(v, b);
    return modlinseq_check(v, b);
}

/* The observation's planes (variant.c names them). */
typedef struct obs_planes {
    uint8_t *tile, *value, *placed, *last, *seat0, *held, *held2, *bag;
} obs_planes;

static obs_planes planes_of(const variant *v, uint8_t *out)
{
    const size_t n = (size_t)v->g.n_cells, m = (size_t)v->p.modulus;
    obs_planes o;
    o.tile = out;
    o.value = o.tile + n;
    o.placed = o.value + m * n;
    o.last = o.placed + n;
    o.seat0 = o.last + n;
    o.held = o.seat0 + n;
    o.held2 = o.held + m * n;
    o.bag = o.held2 + m * n;
    return o;
}

void modlinseq_uniform_planes(const variant *v, const board_hdr *b, int viewer, uint64_t *want)
{
    const int m = v->p.modulus;
    const uint8_t *hand = modlinseq_hand_c(v, b, viewer);
    int in_bag = modlinseq_bag_size(v) - modlinseq_of_c(v, b)->bag_pos;
    want[0] = (uint64_t)(b->seat == 0);
    want[1] = 0;
    for (int k = 0; k < m; k++) {
        if (hand[k] >= 1)
            bits_set(want, 1 + k);
        if (hand[k] >= 2)
            bits_set(want, 1 + m + k);
    }
    for (int k = 0; k < MODLINSEQ_BAG_BITS; k++)
        if (in_bag >> k & 1)
            bits_set(want, 1 + 2 * m + k);
}

/* Rewrite the planes that hold one value (seat0 and the ones after it) where
 * they differ from what `shown` says out holds. */
static void write_uniform_planes(const variant *v, const board_hdr *b, int viewer,
                                 const uint64_t *shown, obs_planes o)
{
    uint64_t want[MODLINSEQ_UNIFORM_WORDS];
    modlinseq_uniform_planes(v, b, viewer, want);
    for (int w = 0; w < MODLINSEQ_UNIFORM_WORDS; w++)
        for (uint64_t d = want[w] ^ shown[w]; d; d &= d - 1) {
            int k = w * 64 + __builtin_ctzll(d);
            memset(o.seat0 + (size_t)k * (size_t)v->g.n_cells, (int)(want[w] >> (k & 63) & 1),
                   (size_t)v->g.n_cells);
        }
}

void modlinseq_write_obs(const variant *v, const board_hdr *b, int viewer, uint8_t *out)
{
    const int n = v->g.n_cells;
    const uint8_t *values = modlinseq_values_c(v, b);
    obs_planes o = planes_of(v, out);
    for (int c = 0; c < n; c++)
        if (values[c]) {
            o.tile[c] = 1;
            o.value[(size_t)(values[c] - 1) * n + c] = 1;
        }
    bits_to_bytes(modlinseq_placed_c(v, b), n, o.placed);
    if (b->last_move >= 0)
        o.last[b->last_move] = 1;
    static const uint64_t zeros[MODLINSEQ_UNIFORM_WORDS];
    write_uniform_planes(v, b, viewer, zeros, o);
}

void modlinseq_update_obs(const variant *v, const board_hdr *b, const uint64_t *shown, int action,
                          int prev_last, uint8_t *out)
{
    const int n = v->g.n_cells, m = v->p.modulus;
    obs_planes o = planes_of(v, out);
    if (action < n * m) { /* a tile: its cell, and the hand's value */
        int c = action / m;
        o.tile[c] = 1;
        o.value[(size_t)(action % m) * n + c] = 1;
        o.placed[c] = 1;
        if (prev_last >= 0)
            o.last[prev_last] = 0;
        o.last[c] = 1;
    } else { /* END_TURN or PASS: the turn's tiles are no longer this turn's */
        memset(o.placed, 0, (size_t)n);
    }
    write_uniform_planes(v, b, b->seat, shown, o);
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
    uint64_t where[BITS_WORDS(GEOM_MAX_CELLS)] = {0};
    tile_cells(v, b, where);
    if (!bits_get(where, c))
        return ms->turn_tiles ? "a turn's tiles extend one unbroken segment along one line"
                              : "the turn's first tile must touch a tile on the board";
    return "the value breaks a progression through this cell (or the cell is blocked)";
}
