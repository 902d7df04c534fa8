/* Renju forbidden moves (SPEC section 4). See renju.h for the bookkeeping.
 *
 * A window is the ten cells within five of a point along one axis. The eight
 * within four are empty / black / white-or-edge, read as base-3 digits
 * (offsets -4..-1 are digits 0..3, +1..+4 digits 4..7); the two at distance
 * five are only ever asked "black or not" (an overline, or the cell past an
 * exact five), so they add one bit each: 3^8 * 4 windows. One table, built
 * once, says
 * what a black stone at the centre makes along that axis: a five, an
 * overline, one or two fours (distinct four-stone sets, so X.XpX.X is two),
 * or a three together with the points q that would turn it into a straight
 * four. Whether each q really makes a three (not forbidden itself, not a
 * five at the same time) is the recursive part, done on the board. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "base/bits.h"
#include "geometry/lines.h"
#include "rules/renju.h"

#define WINDOW 5
#define INNER 6561            /* 3^8 */
#define N_WINDOWS (INNER * 4) /* 26,244 */

/* Pattern codes of one axis. A line with a four, five or overline is that,
 * not also a three (one pattern per line, as in Rapfi). */
enum { CODE_NONE = 0, CODE_THREE = 1, CODE_FOUR = 2, CODE_FOUR2 = 3, CODE_FIVE = 4, CODE_OVER = 5 };

/* table[window] = code | q mask << 3, bit (offset + 5) of the mask for each
 * point q that makes the straight four */
static uint16_t table[N_WINDOWS];

/* Boards store each axis's code as a nibble laid out so that a cell's status
 * comes from its four nibbles with masks and popcounts, without branches:
 * bit 0 three, bit 1 one four, bit 2 two fours, bit 3 five (with bit 0 also
 * set: overline). */
enum { NIB_THREE = 1, NIB_FOUR = 2, NIB_FOUR2 = 4, NIB_FIVE = 8, NIB_OVER = 9 };
static const uint8_t nibble_of[6] = {0, NIB_THREE, NIB_FOUR, NIB_FOUR2, NIB_FIVE, NIB_OVER};
/* The nibbles again, two per byte, for the per-stone updates: 13 KB, which
 * stays in the L1 cache where table (52 KB) would not. */
static uint8_t nib_table[(N_WINDOWS + 1) / 2];

static inline unsigned nib_of_window(unsigned idx)
{
    return (nib_table[idx >> 1] >> (4 * (idx & 1))) & 15u;
}
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

/* ---- the table ---- */

enum { T_EMPTY = 0, T_BLACK = 1, T_WALL = 2 };

/* Cell at offset -5..5 of a window (offset 0 is the black centre). */
static int at(const int *w, int off)
{
    return w[off + WINDOW];
}

static int run_through_centre(const int *w)
{
    int run = 1;
    for (int o = 1; o <= WINDOW && at(w, o) == T_BLACK; o++)
        run++;
    for (int o = -1; o >= -WINDOW && at(w, o) == T_BLACK; o--)
        run++;
    return run;
}

/* Distinct four-stone sets containing the centre, each completed to an exact
 * five by one empty point. */
static int count_fours(const int *w)
{
    unsigned sets[5];
    int n = 0;
    for (int s = -4; s <= 0; s++) {
        int black = 0, empty = 0;
        unsigned set = 0;
        for (int o = s; o < s + 5; o++) {
            black += at(w, o) == T_BLACK;
            empty += at(w, o) == T_EMPTY;
            if (at(w, o) == T_BLACK)
                set |= 1u << (o + WINDOW);
        }
        if (black != 4 || empty != 1 || at(w, s - 1) == T_BLACK || at(w, s + 5) == T_BLACK)
            continue;
        int seen = 0;
        for (int k = 0; k < n; k++)
            seen |= sets[k] == set;
        if (!seen)
            sets[n++] = set;
    }
    return n;
}

/* Does the window hold a straight four through the centre and q: four black
 * in a row exactly, both ends empty, each end completing an exact five? */
static int straight_four_with(const int *w, int q)
{
    for (int a = -3; a <= 0; a++) {
        if (q < a || q > a + 3)
            continue;
        int ok = 1;
        for (int o = a; o <= a + 3; o++)
            ok &= at(w, o) == T_BLACK;
        ok &= at(w, a - 1) == T_EMPTY && at(w, a + 4) == T_EMPTY;
        ok &= at(w, a - 2) != T_BLACK && at(w, a + 5) != T_BLACK;
        if (ok)
            return 1;
    }
    return 0;
}

static uint16_t classify(int *w)
{
    int run = run_through_centre(w);
    if (run >= 6)
        return CODE_OVER;
    if (run == 5)
        return CODE_FIVE;
    int fours = count_fours(w);
    if (fours)
        return fours >= 2 ? CODE_FOUR2 : CODE_FOUR;
    unsigned qs = 0;
    for (int q = -3; q <= 3; q++) {
        if (q == 0 || at(w, q) != T_EMPTY)
            continue;
        w[q + WINDOW] = T_BLACK;
        if (straight_four_with(w, q))
            qs |= 1u << (q + WINDOW);
        w[q + WINDOW] = T_EMPTY;
    }
    return (uint16_t)(qs ? CODE_THREE | (qs << 3) : CODE_NONE);
}

static void build_table(void)
{
    int w[2 * WINDOW + 1];
    for (int idx = 0; idx < N_WINDOWS; idx++) {
        int x = idx;
        for (int d = 0; d < 8; d++) {
            int off = d < 4 ? d - 4 : d - 3;
            w[off + WINDOW] = x % 3;
            x /= 3;
        }
        w[0] = (x & 1) ? T_BLACK : T_EMPTY;          /* offset -5 */
        w[2 * WINDOW] = (x & 2) ? T_BLACK : T_EMPTY; /* offset +5 */
        w[WINDOW] = T_BLACK;
        table[idx] = classify(w);
        nib_table[idx >> 1] |= (uint8_t)(nibble_of[table[idx] & 7] << (4 * (idx & 1)));
    }
}

/* ---- windows on a board ---- */

static const uint16_t pow3[8] = {1, 3, 9, 27, 81, 243, 729, 2187};
/* cell value -> window digit: empty 0, black 1, white and off-board 2 */
static const uint8_t digit_value[4] = {T_EMPTY, T_BLACK, T_WALL, T_WALL};

static inline const int16_t *ray(const geometry *g, int p, int od)
{
    return g->rays + ((size_t)p * g->n_od + od) * (size_t)g->ray_len;
}

static inline unsigned window_index(const geometry *g, const uint8_t *cells, int p, int axis)
{
    const int16_t *fw = ray(g, p, 2 * axis), *bw = ray(g, p, 2 * axis + 1);
    unsigned idx = 0;
    for (int i = 0; i < 4; i++) {
        idx += digit_value[cells[bw[i]]] * pow3[3 - i];
        idx += digit_value[cells[fw[i]]] * pow3[4 + i];
    }
    idx += INNER * ((cells[bw[4]] == CELL_BLACK) | 2u * (cells[fw[4]] == CELL_BLACK));
    return idx;
}

/* The cell at offset off (-5..5, not 0) of p's window along axis. */
static inline int offset_cell(const geometry *g, int p, int axis, int off)
{
    return off < 0 ? ray(g, p, 2 * axis + 1)[-off - 1] : ray(g, p, 2 * axis)[off - 1];
}

/* T4[x]: the four bits of x as base-3 digits 0/1. */
static const uint8_t T4[16] = {0, 1, 3, 4, 9, 10, 12, 13, 27, 28, 30, 31, 36, 37, 39, 40};

/* The window of position u of an open line from its two words (cells past
 * either end read as white). */
static inline unsigned window_from_words(uint32_t black, uint32_t white, unsigned len, unsigned u)
{
    /* position u's window (offsets -5..+5) is bits u..u+10 of these */
    uint64_t xb = (uint64_t)black << WINDOW;
    uint64_t xw = (((uint64_t)white | (~0ULL << len)) << WINDOW) | ((1u << WINDOW) - 1);
    unsigned wb = (unsigned)(xb >> u) & 0x7ffu, ww = (unsigned)(xw >> u) & 0x7ffu;
    return T4[(wb >> 1) & 15] + 2u * T4[(ww >> 1) & 15] +
           81u * (T4[(wb >> 6) & 15] + 2u * T4[(ww >> 6) & 15]) +
           INNER * ((wb & 1u) | ((wb >> 9) & 2u));
}

/* A position seen by the status check: its cells, and its line bit sets when
 * the board keeps them (NULL otherwise). Hypothetical black stones go into
 * both while the check looks ahead. */
typedef struct view {
    uint8_t *cells;
    uint32_t *black;
    const uint32_t *white;
} view;

static inline unsigned window_at(const geometry *g, const view *w, int p, int axis)
{
    if (w->black) {
        unsigned lp = g->line_of[p * g->n_axes + axis], line = lp / LINE_BITS;
        if (!g->line_cycle[line])
            return window_from_words(w->black[line], w->white[line], g->line_len[line],
                                     lp % LINE_BITS);
    }
    return window_index(g, w->cells, p, axis);
}

static inline void put_black(const geometry *g, const view *w, int p)
{
    w->cells[p] = CELL_BLACK;
    if (w->black)
        line_bits_add(g, w->black, p);
}

static inline void take_back(const geometry *g, const view *w, int p)
{
    w->cells[p] = CELL_EMPTY;
    if (w->black)
        line_bits_remove(g, w->black, p);
}

/* ---- status ---- */

/* Status of p; deps (if not NULL) gathers every cell the answer rests on. */
static int status_in(const variant *v, const view *w, int p, uint64_t *deps)
{
    const geometry *g = &v->g;
    uint16_t entry[4];
    if (deps) {
        const uint64_t *star = (const uint64_t *)v->rule_data + (size_t)p * BITS_WORDS(g->n_cells);
        for (int k = 0; k < BITS_WORDS(g->n_cells); k++)
            deps[k] |= star[k];
    }
    int five = 0, over = 0, fours = 0, three_axes = 0;
    for (int a = 0; a < 4; a++) {
        entry[a] = table[window_at(g, w, p, a)];
        int code = entry[a] & 7;
        five |= code == CODE_FIVE;
        over |= code == CODE_OVER;
        fours += (code == CODE_FOUR) + 2 * (code == CODE_FOUR2);
        three_axes += code == CODE_THREE;
    }
    if (five)
        return RENJU_FIVE;
    if (over)
        return RENJU_OVERLINE;
    if (fours >= 2)
        return RENJU_DOUBLE_FOUR;
    if (three_axes < 2)
        return RENJU_LEGAL;
    /* A three counts if some q makes a straight four there, q being legal for
     * black with p on the board and not a five at the same time. */
    int threes = 0;
    put_black(g, w, p);
    for (int a = 0; a < 4 && threes < 2 && threes + three_axes >= 2; a++) {
        if ((entry[a] & 7) != CODE_THREE)
            continue;
        three_axes--;
        for (unsigned qs = entry[a] >> 3; qs; qs &= qs - 1) {
            int q = offset_cell(g, p, a, __builtin_ctz(qs) - WINDOW);
            if (status_in(v, w, q, deps) == RENJU_LEGAL) {
                threes++;
                break;
            }
        }
    }
    take_back(g, w, p);
    return threes >= 2 ? RENJU_DOUBLE_THREE : RENJU_LEGAL;
}

int renju_status(const variant *v, uint8_t *cells, int p)
{
    view w = {cells, NULL, NULL};
    return status_in(v, &w, p, NULL);
}

/* ---- per-board bookkeeping ---- */

/* Layout after off_rule_derived: forbidden bits, empty bits, recursion bits, codes;
 * then, at off_cache, the cache of recursive checks. */
static inline uint64_t *recursion_bits(const variant *v, board_hdr *b)
{
    return renju_empty(v, b) + BITS_WORDS(v->g.n_cells);
}

static inline uint16_t *codes_of(const variant *v, board_hdr *b)
{
    return (uint16_t *)(recursion_bits(v, b) + BITS_WORDS(v->g.n_cells));
}

size_t renju_state_bytes(const variant *v)
{
    size_t bytes =
        3 * sizeof(uint64_t) * BITS_WORDS(v->g.n_cells) + sizeof(uint16_t) * (size_t)v->g.n_cells;
    return (bytes + 7) & ~(size_t)7;
}

/* The cache of recursive checks: the status of a few cells, each with the set
 * of cells it rests on; valid while none of those cells changes. Cells that
 * need the recursive check are rare (under one per board on average in
 * random play) but each check costs as much as the rest of a step, and most
 * stones fall outside what it read. */
#define CACHE_SLOTS 8

typedef struct cache_slot {
    uint16_t cell_plus_one; /* 0: free */
    uint8_t status;
    uint8_t pad[5];
} cache_slot;

size_t renju_cache_bytes(const variant *v)
{
    return CACHE_SLOTS * (sizeof(cache_slot) + sizeof(uint64_t) * BITS_WORDS(v->g.n_cells));
}

static inline cache_slot *cache_of(const variant *v, board_hdr *b)
{
    return (cache_slot *)((uint8_t *)b + v->off_cache);
}

static inline uint64_t *cache_deps(const variant *v, board_hdr *b, int slot)
{
    return (uint64_t *)(cache_of(v, b) + CACHE_SLOTS) + (size_t)slot * BITS_WORDS(v->g.n_cells);
}

void renju_forget_cache(const variant *v, board_hdr *b)
{
    memset(cache_of(v, b), 0, renju_cache_bytes(v));
}

int renju_prepare(variant *v, char *err, size_t errlen)
{
    const geometry *g = &v->g;
    pthread_once(&table_once, build_table);
    if (v->p.connect != 5) {
        snprintf(err, errlen, "rule 'renju' is defined for connect=5, got connect=%d",
                 v->p.connect);
        return -1;
    }
    if ((g->kind != GEOM_PLANE && g->kind != GEOM_TORUS) || g->n_axes != 4 || g->next_od) {
        snprintf(err, errlen,
                 "parameter 'geometry' = '%s': rule 'renju' needs a square board whose lines do "
                 "not turn (geometry plane / torus)",
                 variant_geometry_name(g->kind));
        return -1;
    }
    if (g->height != g->width) {
        snprintf(err, errlen,
                 "parameters 'height' = %d and 'width' = %d: rule 'renju' needs a square board "
                 "(height = width, or set 'size')",
                 g->height, g->width);
        return -1;
    }
    for (int i = 0; i < g->n_cells * g->n_axes; i++)
        if (g->cycle[i] && g->cycle[i] < 2 * WINDOW + 1) {
            snprintf(err, errlen,
                     "rule 'renju' needs every wrapping line to hold at least %d cells "
                     "(this board has lines of %d)",
                     2 * WINDOW + 1, g->cycle[i]);
            return -1;
        }
    /* star[x]: the cells within five of x along its lines, x included */
    int words = BITS_WORDS(g->n_cells);
    uint64_t *stars = calloc((size_t)g->n_cells * (size_t)words, sizeof(uint64_t));
    v->rule_data = stars;
    if (!stars) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (int x = 0; x < g->n_cells; x++) {
        uint64_t *star = stars + (size_t)x * (size_t)words;
        bits_set(star, x);
        for (int od = 0; od < g->n_od; od++)
            for (int i = 0; i < WINDOW; i++)
                if (ray(g, x, od)[i] != g->n_cells)
                    bits_set(star, ray(g, x, od)[i]);
    }
    return 0;
}

/* Status of p from its four codes; -1 when the recursive check must decide. */
static inline int status_from_codes(unsigned codes)
{
    unsigned flagged = codes & 0x8888u;     /* five or overline */
    unsigned over = codes & (flagged >> 3); /* bit 0 of the overlines */
    int fives = __builtin_popcount(flagged) - __builtin_popcount(over);
    int threes = __builtin_popcount((codes & 0x1111u) ^ over);
    int fours = __builtin_popcount(codes & 0x2222u) + 2 * __builtin_popcount(codes & 0x4444u);
    return fives         ? RENJU_FIVE
           : over        ? RENJU_OVERLINE
           : fours >= 2  ? RENJU_DOUBLE_FOUR
           : threes >= 2 ? -1
                         : RENJU_LEGAL;
}

/* Set p's forbidden and recursion bits from its codes (both 0 unless live). */
static inline void settle(const variant *v, board_hdr *b, int p, unsigned codes, unsigned live)
{
    int s = status_from_codes(codes);
    uint64_t *forbidden = renju_forbidden(v, b), *recursion = recursion_bits(v, b);
    uint64_t bit = 1ULL << (p & 63);
    uint64_t rec = (uint64_t)(live & (s < 0)), forb = (uint64_t)(live & (s >= RENJU_OVERLINE));
    recursion[p >> 6] = (recursion[p >> 6] & ~bit) | (bit & -rec);
    forbidden[p >> 6] = (forbidden[p >> 6] & ~bit) | (bit & -forb);
}

/* Cells needing the recursive check are decided from the board as it is,
 * from the cache where the stone just played (m, or -1 for none known) is
 * outside what an answer rests on. */
static void decide_recursive(const variant *v, board_hdr *b, int m)
{
    const int words = BITS_WORDS(v->g.n_cells);
    view w = {board_cells(v, b), board_line_bits(v, b, COLOUR_BLACK),
              board_line_bits_c(v, b, COLOUR_WHITE)};
    uint64_t *forbidden = renju_forbidden(v, b);
    const uint64_t *recursion = recursion_bits(v, b);
    cache_slot *cache = cache_of(v, b);
    for (int s = 0; s < CACHE_SLOTS; s++) {
        int cell = cache[s].cell_plus_one - 1;
        if (cell >= 0 && (m < 0 || bits_get(cache_deps(v, b, s), m) || !bits_get(recursion, cell)))
            cache[s].cell_plus_one = 0;
    }
    for (int k = 0; k < words; k++)
        for (uint64_t x = recursion[k]; x; x &= x - 1) {
            int p = k * 64 + __builtin_ctzll(x), slot = -1, free_slot = p % CACHE_SLOTS;
            for (int s = CACHE_SLOTS - 1; s >= 0; s--) {
                if (cache[s].cell_plus_one == p + 1)
                    slot = s;
                else if (!cache[s].cell_plus_one)
                    free_slot = s;
            }
            int status;
            if (slot >= 0) {
                status = cache[slot].status;
            } else {
                uint64_t *deps = cache_deps(v, b, free_slot);
                memset(deps, 0, sizeof(uint64_t) * (size_t)words);
                status = status_in(v, &w, p, deps);
                cache[free_slot].cell_plus_one = (uint16_t)(p + 1);
                cache[free_slot].status = (uint8_t)status;
            }
            if (status >= RENJU_OVERLINE)
                bits_set(forbidden, p);
            else
                bits_clear(forbidden, p);
        }
}

void renju_derive(const variant *v, board_hdr *b)
{
    pthread_once(&table_once, build_table);
    const geometry *g = &v->g;
    const uint8_t *cells = board_cells(v, b);
    uint16_t *codes = codes_of(v, b);
    memset(renju_forbidden(v, b), 0, renju_state_bytes(v));
    for (int p = 0; p < g->n_cells; p++) {
        if (cells[p] != CELL_EMPTY)
            continue;
        bits_set(renju_empty(v, b), p);
        unsigned c = 0;
        for (int a = 0; a < 4; a++)
            c |= nib_of_window(window_index(g, cells, p, a)) << (4 * a);
        codes[p] = (uint16_t)c;
        settle(v, b, p, c, 1);
    }
    renju_forget_cache(v, b);
    decide_recursive(v, b, -1);
}

/* New codes along one open line of at most LINE_BITS cells, read from its bit
 * sets: each window is a shift of the line's words (edges read as white). */
static void recode_line_from_bits(const variant *v, board_hdr *b, int axis, unsigned lp,
                                  int white_stone)
{
    const geometry *g = &v->g;
    unsigned line = lp / LINE_BITS, t = lp % LINE_BITS, len = g->line_len[line];
    const int16_t *line_cells = g->line_cells + line * LINE_BITS;
    const uint32_t black = board_line_bits_c(v, b, COLOUR_BLACK)[line];
    const uint32_t white = board_line_bits_c(v, b, COLOUR_WHITE)[line];
    const uint64_t *empty = renju_empty_c(v, b);
    uint16_t *codes = codes_of(v, b);
    const unsigned shift = 4 * (unsigned)axis;
    unsigned from = t >= WINDOW ? t - WINDOW : 0, to = t + WINDOW < len ? t + WINDOW : len - 1;
    /* No branch on whether a cell is empty (a coin flip mid-game): occupied
     * cells are computed too and written as zero codes. Cells that had no
     * pattern along this axis keep none after a white stone (it only takes
     * patterns away), or when fewer than two black stones lie within four of
     * them (a three needs two within three, a four three within four, a five
     * or overline four within four): most cells, skipped. A white stone five
     * cells away
     * changes nothing (windows only ask "black or not" that far out). */
    const uint64_t xb = (uint64_t)black << WINDOW;
    if (white_stone) {
        from = t >= WINDOW - 1 ? t - (WINDOW - 1) : 0;
        to = t + WINDOW - 1 < len ? t + WINDOW - 1 : len - 1;
    }
    for (unsigned u = from; u <= to; u++) {
        int p = line_cells[u];
        int near = __builtin_popcountll((xb >> u) & 0x3deu); /* offsets -4..-1, 1..4 */
        if ((white_stone || near < 2) && !((codes[p] >> shift) & 15u))
            continue;
        unsigned live = (unsigned)bits_get(empty, p) & (u != t);
        unsigned c = nib_of_window(window_from_words(black, white, len, u));
        unsigned now = ((codes[p] & ~(15u << shift)) | (c << shift)) & -live;
        codes[p] = (uint16_t)now;
        settle(v, b, p, now, live);
    }
}

void renju_after_stone(const variant *v, board_hdr *b, int m)
{
    const geometry *g = &v->g;
    const uint8_t *cells = board_cells(v, b);
    uint16_t *codes = codes_of(v, b);
    codes[m] = 0;
    bits_clear(renju_forbidden(v, b), m);
    bits_clear(renju_empty(v, b), m);
    bits_clear(recursion_bits(v, b), m);
    /* only the windows along m's own lines saw m */
    for (int a = 0; a < 4; a++) {
        if (v->n_line_words) {
            unsigned lp = g->line_of[m * g->n_axes + a];
            if (!g->line_cycle[lp / LINE_BITS]) {
                recode_line_from_bits(v, b, a, lp, cells[m] == CELL_WHITE);
                continue;
            }
        }
        for (int s = 0; s < 2; s++) {
            const int16_t *r = ray(g, m, 2 * a + s);
            for (int i = 0; i < WINDOW && r[i] != g->n_cells; i++) {
                int p = r[i];
                if (cells[p] != CELL_EMPTY)
                    continue;
                unsigned c = nib_of_window(window_index(g, cells, p, a));
                unsigned now = (codes[p] & ~(15u << (4 * a))) | (c << (4 * a));
                codes[p] = (uint16_t)now;
                settle(v, b, p, now, 1);
            }
        }
    }
    decide_recursive(v, b, m);
}
