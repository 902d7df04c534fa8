/* Threat-space solver (see solver.h): an AND-OR search over the attacker's
 * fours (VCF) and threes (VCT), every move played through the engine on a
 * stack of board copies, one per ply.
 *
 * A transposition table keeps the depths at which positions were shown to
 * have no win (a position's stones and the colour to move fix its step count
 * too, since every position descends from the root), and the move that won,
 * tried first when the position comes back. It is emptied at each solve
 * (a generation counter), so answers never depend on earlier searches. */
#include "players/solver.h"

#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "game/game.h"
#include "geometry/lines.h"
#include "openings/opening.h"
#include "players/threats.h"

#define MAX_PLY (2 * SOLVE_MAX_DEPTH + 6)
#define LINE_CAP (2 * SOLVE_MAX_DEPTH + 4)
#define TT_BITS 16
#define CELL_WORDS BITS_WORDS(GEOM_MAX_CELLS)

typedef struct tt_entry {
    uint64_t key;
    uint32_t generation;
    int8_t fail_depth[2]; /* per kind: the deepest search that found no win, -1 none */
    int16_t best;         /* a move that won here, -1 none */
} tt_entry;

struct solver {
    const variant *v;
    threat_tables t;
    size_t state; /* bytes per board on the stack */
    uint8_t *stack;
    int16_t *moves;    /* [MAX_PLY][n_cells]: candidate lists by ply */
    int16_t *aux;      /* [MAX_PLY][n_cells]: five points, counter-fours by ply */
    int16_t *line_tmp; /* [MAX_PLY][LINE_CAP]: a child's line */
    float *potential;  /* [n_cells] */
    uint64_t *zobrist; /* [n_cells][2], then the colour to move */
    tt_entry *tt;
    uint32_t generation;
    int64_t nodes, max_nodes;
    int attacker_seat;
    uint64_t hint[CELL_WORDS]; /* cells tried first at VCF nodes */
};

static board_hdr *at(solver *s, int ply)
{
    return (board_hdr *)(s->stack + (size_t)ply * s->state);
}

static int16_t *moves_at(solver *s, int ply)
{
    return s->moves + (size_t)ply * (size_t)s->v->g.n_cells;
}

static int16_t *aux_at(solver *s, int ply)
{
    return s->aux + (size_t)ply * (size_t)s->v->g.n_cells;
}

static int16_t *line_at(solver *s, int ply)
{
    return s->line_tmp + (size_t)ply * LINE_CAP;
}

solver *solver_new(const variant *v)
{
    solver *s = calloc(1, sizeof(*s));
    if (!s)
        return NULL;
    s->v = v;
    s->state = (v->state_size + 63) & ~(size_t)63;
    const size_t cells = (size_t)v->g.n_cells;
    s->stack = aligned_alloc(64, s->state * MAX_PLY);
    s->moves = malloc(sizeof(int16_t) * cells * MAX_PLY);
    s->aux = malloc(sizeof(int16_t) * cells * MAX_PLY);
    s->line_tmp = malloc(sizeof(int16_t) * LINE_CAP * MAX_PLY);
    s->potential = malloc(sizeof(float) * cells);
    s->zobrist = malloc(sizeof(uint64_t) * (2 * cells + 1));
    s->tt = calloc((size_t)1 << TT_BITS, sizeof(tt_entry));
    if (!s->stack || !s->moves || !s->aux || !s->line_tmp || !s->potential || !s->zobrist ||
        !s->tt || threat_tables_init(&s->t, v)) {
        solver_free(s);
        return NULL;
    }
    for (size_t i = 0; i < 2 * cells + 1; i++)
        s->zobrist[i] = rng_mix64(0x7a3b9c1d5e2f4a68ULL + i * 0x9e3779b97f4a7c15ULL);
    return s;
}

void solver_free(solver *s)
{
    if (!s)
        return;
    free(s->stack);
    free(s->moves);
    free(s->aux);
    free(s->line_tmp);
    free(s->potential);
    free(s->zobrist);
    free(s->tt);
    threat_tables_free(&s->t);
    free(s);
}

int64_t solver_nodes(const solver *s)
{
    return s->nodes;
}

/* ---- positions ---- */

static uint64_t stone_key(const solver *s, int cell, uint8_t stone)
{
    return s->zobrist[2 * cell + (stone - 1)];
}

static uint64_t position_key(const solver *s, const board_hdr *b)
{
    const uint8_t *cells = board_cells_c(s->v, b);
    uint64_t h = b->colour == COLOUR_WHITE ? s->zobrist[2 * s->v->g.n_cells] : 0;
    for (int c = 0; c < s->v->g.n_cells; c++)
        if (cells[c] == CELL_BLACK || cells[c] == CELL_WHITE)
            h ^= stone_key(s, c, cells[c]);
    return h;
}

static tt_entry *tt_slot(solver *s, uint64_t key)
{
    return &s->tt[key & (((uint64_t)1 << TT_BITS) - 1)];
}

/* The entry of key in this search, or NULL. */
static tt_entry *tt_find(solver *s, uint64_t key)
{
    tt_entry *e = tt_slot(s, key);
    return e->generation == s->generation && e->key == key ? e : NULL;
}

static tt_entry *tt_claim(solver *s, uint64_t key)
{
    tt_entry *e = tt_slot(s, key);
    if (e->generation != s->generation || e->key != key) {
        e->key = key;
        e->generation = s->generation;
        e->fail_depth[0] = e->fail_depth[1] = -1;
        e->best = -1;
    }
    return e;
}

static void tt_fail(solver *s, uint64_t key, int kind, int depth)
{
    tt_entry *e = tt_claim(s, key);
    if (depth > e->fail_depth[kind])
        e->fail_depth[kind] = (int8_t)depth;
}

/* Play move on the board at ply `from` into ply `to`; -1 when the node
 * budget is spent. */
static int play(solver *s, int from, int to, int move)
{
    memcpy(at(s, to), at(s, from), s->v->state_size);
    game_step(s->v, at(s, to), move);
    return ++s->nodes > s->max_nodes ? -1 : 0;
}

/* The seat to act passes (a hypothetical: the step count stays). */
static void pass(const variant *v, board_hdr *b)
{
    b->colour ^= 1;
    b->seat ^= 1;
    game_refresh_legal(v, b);
}

/* Outcome for the attacker of a board whose game ended. */
static int ended(const solver *s, const board_hdr *b)
{
    return b->status == STATUS_TERMINATED && b->winner == s->attacker_seat ? SOLVE_WIN : SOLVE_NONE;
}

static int fives_of(solver *s, const board_hdr *b, uint8_t stone, int16_t *out, int max)
{
    uint64_t allowed[CELL_WORDS];
    threat_allowed(s->v, b, stone, allowed);
    return threat_fives(s->v, b, stone, allowed, out, max);
}

/* ---- the search ---- */

static int or_node(solver *s, int kind, int p, uint64_t h, int depth, int16_t *out, int *len);

/* Move `first` to the front of list[0..n), if it is there. */
static void to_front(int16_t *list, int n, int first)
{
    for (int j = 0; j < n; j++)
        if (list[j] == first) {
            memmove(list + 1, list, sizeof(int16_t) * (size_t)j);
            list[0] = (int16_t)first;
            return;
        }
}

/* Sort list[from..n) by potential, highest first (stable: cell order on ties). */
static void by_potential(solver *s, int16_t *list, int from, int n)
{
    for (int i = from + 1; i < n; i++) {
        int16_t x = list[i];
        int j = i;
        while (j > from && s->potential[list[j - 1]] < s->potential[x]) {
            list[j] = list[j - 1];
            j--;
        }
        list[j] = x;
    }
}

/* The defender's replies to a four that could stop it: its five points and,
 * for caro, the cells just past the runs they complete (a stone there can
 * spoil the five's ends). Into out (distinct), returns the count. */
static int four_replies(solver *s, const board_hdr *b, uint8_t stone, const int16_t *q, int nq,
                        int16_t *out)
{
    const variant *v = s->v;
    uint64_t seen[CELL_WORDS] = {0};
    int n = 0;
    for (int j = 0; j < nq; j++) {
        if (!bits_get(seen, q[j])) {
            bits_set(seen, q[j]);
            out[n++] = q[j];
        }
        if (v->win[stone - 1].ends == WIN_ENDS_ANY)
            continue;
        const uint8_t *cells = board_cells_c(v, b);
        line_bits bits = board_line_bits_c(v, b, stone - 1);
        for (int a = 0; a < v->g.n_axes; a++) {
            int ends[2];
            int run = line_run(&v->g, cells, bits, q[j], a, stone, v->p.connect + 1, ends);
            if (run < v->p.connect)
                continue;
            for (int e = 0; e < 2; e++)
                if (ends[e] != GEOM_NONE && !bits_get(seen, ends[e])) {
                    bits_set(seen, ends[e]);
                    out[n++] = (int16_t)ends[e];
                }
        }
    }
    return n;
}

/* No reply to the four at ply p + 1 stops every five: the line goes on with
 * the first legal reply (of `prefer`, then any) that does not end the game (a
 * renju foul under forbidden="lose" would), then a five. */
static int any_reply_loses(solver *s, int p, uint8_t me, const int16_t *prefer, int n_prefer,
                           int16_t *out, int *len)
{
    const variant *v = s->v;
    const uint64_t *legal = board_legal_c(v, at(s, p + 1));
    int r = -1;
    for (int j = 0; j < n_prefer && r < 0; j++) {
        if (!bits_get(legal, prefer[j]))
            continue;
        if (play(s, p + 1, p + 2, prefer[j]))
            return SOLVE_UNKNOWN;
        if (at(s, p + 2)->status == STATUS_ONGOING)
            r = prefer[j];
    }
    for (int w = 0; w < v->legal_words && r < 0; w++)
        for (uint64_t x = legal[w]; x && r < 0; x &= x - 1) {
            int a = w * 64 + __builtin_ctzll(x);
            if (play(s, p + 1, p + 2, a))
                return SOLVE_UNKNOWN;
            if (at(s, p + 2)->status == STATUS_ONGOING)
                r = a;
        }
    if (r < 0) { /* every reply ends the game: replay the first */
        r = bits_select(legal, v->legal_words, 0);
        if (r < 0 || play(s, p + 1, p + 2, r))
            return r < 0 ? SOLVE_NONE : SOLVE_UNKNOWN;
    }
    board_hdr *gb = at(s, p + 2);
    int16_t five;
    out[0] = (int16_t)r;
    *len = 1;
    if (gb->status != STATUS_ONGOING)
        return ended(s, gb);
    if (fives_of(s, gb, me, &five, 1) == 0)
        return SOLVE_NONE;
    out[1] = five;
    *len = 2;
    return SOLVE_WIN;
}

/* The attacker's move c from ply p into p + 1: GOES_ON, or the result when
 * the game ended there (or the budget did). */
#define GOES_ON 2
static int attack(solver *s, int p, int c, int *len)
{
    if (play(s, p, p + 1, c))
        return SOLVE_UNKNOWN;
    const board_hdr *cb = at(s, p + 1);
    if (cb->status == STATUS_ONGOING)
        return GOES_ON;
    *len = 0;
    return ended(s, cb);
}

/* A reply r proved lost with line sub: the caller's line follows the reply
 * that holds out longest. */
static void keep_longest(int r, const int16_t *sub, int sub_len, int16_t *out, int *best_len)
{
    if (sub_len <= *best_len)
        return;
    *best_len = sub_len;
    out[0] = (int16_t)r;
    memcpy(out + 1, sub, sizeof(int16_t) * (size_t)sub_len);
}

/* The attacker played a four at ply p into p + 1: prove a win over every
 * reply that stops the five. */
static int and_four(solver *s, int kind, int p, uint64_t h, int c, int depth, int16_t *out,
                    int *len)
{
    const variant *v = s->v;
    int res = attack(s, p, c, len);
    if (res != GOES_ON)
        return res;
    board_hdr *cb = at(s, p + 1);
    const uint8_t them = (uint8_t)(cb->colour + 1), me = (uint8_t)(3 - them);
    int16_t *replies = moves_at(s, p + 1), *q = aux_at(s, p + 1), five;
    int nq = fives_of(s, cb, me, q, v->g.n_cells);
    if (nq == 0 || fives_of(s, cb, them, &five, 1) > 0)
        return SOLVE_NONE; /* not a four, or the defender wins first */
    int nr = four_replies(s, cb, me, q, nq, replies), n_saving = 0;
    memcpy(q, replies, sizeof(int16_t) * (size_t)nr); /* kept for any_reply_loses */
    const uint64_t *legal = board_legal_c(v, cb);
    for (int j = 0; j < nr; j++) {
        int r = replies[j];
        if (!bits_get(legal, r))
            continue;
        if (play(s, p + 1, p + 2, r))
            return SOLVE_UNKNOWN;
        board_hdr *gb = at(s, p + 2);
        if (gb->status != STATUS_ONGOING) {
            if (ended(s, gb) == SOLVE_WIN)
                continue; /* a foul that loses (renju, forbidden="lose") */
            return SOLVE_NONE;
        }
        if (fives_of(s, gb, me, &five, 1) == 0)
            replies[n_saving++] = (int16_t)r;
    }
    if (n_saving == 0)
        return any_reply_loses(s, p, me, q, nr, out, len);
    /* every saving reply must lose; the line follows the one that lasts longest */
    int best_len = -1;
    int16_t *sub = line_at(s, p + 1);
    for (int j = 0; j < n_saving; j++) {
        int r = replies[j], sub_len = 0;
        if (play(s, p + 1, p + 2, r))
            return SOLVE_UNKNOWN;
        uint64_t h2 = h ^ stone_key(s, c, me) ^ stone_key(s, r, them);
        res = or_node(s, kind, p + 2, h2, depth - 1, sub, &sub_len);
        if (res != SOLVE_WIN)
            return res;
        keep_longest(r, sub, sub_len, out, &best_len);
    }
    *len = best_len + 1;
    return SOLVE_WIN;
}

/* After a reply that missed the threat (c2 and its five points): does the
 * attacker still win at once, or by c2 and then one of two fives? Where a
 * stone past a five cannot spoil it (every rule but caro), two five points
 * cannot both be stopped, so no search is needed. Returns the line's length
 * (into line), 0 when a search must decide. */
static int threat_stands(solver *s, board_hdr *b, const int16_t threat[3], int16_t *line)
{
    const variant *v = s->v;
    const uint8_t me = (uint8_t)(b->colour + 1), them = (uint8_t)(3 - me);
    uint64_t allowed[CELL_WORDS];
    int16_t five[2];
    threat_allowed(v, b, me, allowed);
    if (threat_fives(v, b, me, allowed, five, 1)) {
        line[0] = five[0];
        return 1;
    }
    /* caro: a stone past a five's end spoils it; renju: a black defender's
     * block may be a foul, and then the line would need another reply */
    if (v->win[me - 1].ends != WIN_ENDS_ANY || game_forbidden(v, b, them - 1) ||
        b->steps + 2 >= v->max_steps)
        return 0;
    uint64_t theirs[CELL_WORDS];
    threat_allowed(v, b, them, theirs);
    if (threat_fives(v, b, them, theirs, five, 1))
        return 0;
    const int c2 = threat[0];
    if (!bits_get(allowed, c2))
        return 0;
    uint8_t *cells = board_cells(v, b);
    uint32_t *bits = board_line_bits(v, b, me - 1);
    cells[c2] = me;
    if (bits)
        line_bits_add(&v->g, bits, c2);
    bits_clear(allowed, c2);
    int n = threat_fives(v, b, me, allowed, five, 2);
    if (bits)
        line_bits_remove(&v->g, bits, c2);
    cells[c2] = CELL_EMPTY;
    if (n < 2)
        return 0;
    line[0] = (int16_t)c2;
    line[1] = five[0];
    line[2] = five[1];
    return 3;
}

/* The attacker played a quiet move (VCT) at ply p into p + 1: it must be a
 * threat, and the attacker must win after every legal reply. */
static int and_three(solver *s, int p, uint64_t h, int c, int depth, int16_t *out, int *len)
{
    const variant *v = s->v;
    int res = attack(s, p, c, len);
    if (res != GOES_ON)
        return res;
    board_hdr *cb = at(s, p + 1);
    const uint8_t them = (uint8_t)(cb->colour + 1), me = (uint8_t)(3 - them);
    int16_t tmp[2];
    if (fives_of(s, cb, them, tmp, 1) > 0)
        return SOLVE_NONE;
    int16_t *threat = line_at(s, p + 1);
    int sub_len = 0;
    uint64_t hc = h ^ stone_key(s, c, me);
    /* a threat: a move that would then make two five points (open four,
     * double four), were the defender to pass */
    uint64_t allowed_me[CELL_WORDS];
    threat_allowed(v, cb, me, allowed_me);
    if (!threat_open_four_move(v, &s->t, cb, me, allowed_me, c, threat))
        return SOLVE_NONE;
    /* replies: the threat's cells first (the likeliest defences), the
     * defender's own fours next, then every other legal move */
    int16_t *replies = moves_at(s, p + 1);
    uint64_t listed[CELL_WORDS] = {0}, saved_hint[CELL_WORDS];
    const uint64_t *legal = board_legal_c(v, cb);
    int n = 0;
    for (int j = 0; j < 3; j++)
        if (bits_get(legal, threat[j]) && !bits_get(listed, threat[j])) {
            bits_set(listed, threat[j]);
            replies[n++] = threat[j];
        }
    uint64_t allowed[CELL_WORDS];
    threat_allowed(v, cb, them, allowed);
    int16_t *counter = aux_at(s, p + 1);
    int n_counter = threat_fours(v, &s->t, cb, them, allowed, counter, v->g.n_cells);
    for (int j = 0; j < n_counter; j++)
        if (bits_get(legal, counter[j]) && !bits_get(listed, counter[j])) {
            bits_set(listed, counter[j]);
            replies[n++] = counter[j];
        }
    int first_rest = n;
    for (int w = 0; w < v->legal_words; w++)
        for (uint64_t x = legal[w] & ~listed[w]; x; x &= x - 1)
            replies[n++] = (int16_t)(w * 64 + __builtin_ctzll(x));
    threat_potential(v, &s->t, cb, me, s->potential);
    by_potential(s, replies, first_rest, n);
    /* the threat's own moves guide the VCFs below */
    memcpy(saved_hint, s->hint, sizeof(saved_hint));
    bits_set(s->hint, threat[0]);
    int best_len = -1;
    res = SOLVE_WIN;
    int16_t *line = line_at(s, p + 2);
    for (int j = 0; j < n && res == SOLVE_WIN; j++) {
        int r = replies[j];
        if (play(s, p + 1, p + 2, r)) {
            res = SOLVE_UNKNOWN;
            break;
        }
        board_hdr *gb = at(s, p + 2);
        if (gb->status != STATUS_ONGOING) {
            res = ended(s, gb);
            sub_len = 0;
        } else if ((sub_len = threat_stands(s, gb, threat, line)) > 0) {
            res = SOLVE_WIN;
        } else {
            res =
                or_node(s, SOLVE_VCT, p + 2, hc ^ stone_key(s, r, them), depth - 1, line, &sub_len);
        }
        if (res == SOLVE_WIN)
            keep_longest(r, line, sub_len, out, &best_len);
    }
    memcpy(s->hint, saved_hint, sizeof(saved_hint));
    if (res != SOLVE_WIN)
        return res;
    *len = best_len + 1;
    return SOLVE_WIN;
}

/* Order the attacker's candidates: the table's winning move, then hinted
 * cells, then (VCT) by potential. */
static void order(solver *s, int16_t *list, int n, int best, int by_pot)
{
    int front = 0;
    for (int j = 0; j < n; j++)
        if (bits_get(s->hint, list[j])) {
            int16_t x = list[j];
            memmove(list + front + 1, list + front, sizeof(int16_t) * (size_t)(j - front));
            list[front++] = x;
        }
    if (by_pot)
        by_potential(s, list, front, n);
    if (best >= 0)
        to_front(list, n, best);
}

/* The end of an OR node's search at move c (SOLVE_WIN or SOLVE_UNKNOWN). */
static int won(solver *s, uint64_t h, int c, int res, int sub_len, int16_t *out, int *len)
{
    if (res != SOLVE_WIN)
        return res;
    out[0] = (int16_t)c;
    *len = sub_len + 1;
    tt_claim(s, h)->best = (int16_t)c;
    return SOLVE_WIN;
}

static int or_node(solver *s, int kind, int p, uint64_t h, int depth, int16_t *out, int *len)
{
    const variant *v = s->v;
    board_hdr *b = at(s, p);
    const uint8_t me = (uint8_t)(b->colour + 1), them = (uint8_t)(3 - me);
    int16_t d[2];
    if (fives_of(s, b, me, d, 1) > 0) {
        out[0] = d[0];
        *len = 1;
        return SOLVE_WIN;
    }
    if (depth <= 1)
        return SOLVE_NONE;
    const tt_entry *e = tt_find(s, h);
    if (e && e->fail_depth[kind] >= depth)
        return SOLVE_NONE;
    const int best = e ? e->best : -1;
    int nd = fives_of(s, b, them, d, 2);
    if (nd >= 2) {
        tt_fail(s, h, kind, SOLVE_MAX_DEPTH);
        return SOLVE_NONE;
    }
    int res;
    if (kind == SOLVE_VCT) {
        res = or_node(s, SOLVE_VCF, p, h, depth, out, len);
        if (res != SOLVE_NONE)
            return res;
    }
    uint64_t allowed[CELL_WORDS];
    threat_allowed(v, b, me, allowed);
    if (nd == 1) { /* the defender's four must be stopped */
        int forced = bits_get(allowed, d[0]);
        memset(allowed, 0, sizeof(allowed));
        if (forced)
            bits_set(allowed, d[0]);
    }
    /* VCF: the table's move and the hinted cells first, before any four is
     * generated: where a position differs little from one already solved
     * (the replies to a three), the old line usually still wins */
    uint64_t tried[CELL_WORDS] = {0};
    if (kind == SOLVE_VCF) {
        int16_t first[64];
        int n_first = 0;
        if (best >= 0 && bits_get(allowed, best))
            first[n_first++] = (int16_t)best;
        for (int w = 0; w < BITS_WORDS(v->g.n_cells); w++)
            for (uint64_t x = s->hint[w] & allowed[w]; x && n_first < 64; x &= x - 1)
                first[n_first++] = (int16_t)(w * 64 + __builtin_ctzll(x));
        for (int j = 0; j < n_first; j++) {
            int c = first[j], sub_len = 0;
            if (bits_get(tried, c))
                continue;
            bits_set(tried, c);
            if (!threat_is_four(v, b, me, allowed, c))
                continue;
            res = and_four(s, kind, p, h, c, depth, out + 1, &sub_len);
            if (res != SOLVE_NONE)
                return won(s, h, c, res, sub_len, out, len);
        }
    }
    int16_t *list = moves_at(s, p);
    int n_fours = threat_fours(v, &s->t, b, me, allowed, list, v->g.n_cells), n = 0;
    for (int j = 0; j < n_fours; j++)
        if (!bits_get(tried, list[j]))
            list[n++] = list[j];
    n_fours = n;
    if (kind == SOLVE_VCT) {
        threat_potential(v, &s->t, b, me, s->potential);
        if (depth >= 3) {
            int16_t *threes = list + n_fours;
            int m = threat_threes(v, &s->t, b, me, allowed, threes, v->g.n_cells - n_fours);
            for (int j = 0; j < m; j++) {
                int dup = 0;
                for (int i = 0; i < n_fours && !dup; i++)
                    dup = list[i] == threes[j];
                if (!dup)
                    list[n++] = threes[j];
            }
        }
    }
    order(s, list, n_fours, best, kind == SOLVE_VCT);
    if (kind == SOLVE_VCT) {
        by_potential(s, list, n_fours, n);
        to_front(list + n_fours, n - n_fours, best);
    }
    for (int j = 0; j < n; j++) {
        int c = list[j], sub_len = 0;
        res = j < n_fours ? and_four(s, kind, p, h, c, depth, out + 1, &sub_len)
                          : and_three(s, p, h, c, depth, out + 1, &sub_len);
        if (res != SOLVE_NONE)
            return won(s, h, c, res, sub_len, out, len);
    }
    tt_fail(s, h, kind, depth);
    return SOLVE_NONE;
}

static int solve_from_root(solver *s, int kind, int max_depth, int64_t max_nodes, int32_t *line,
                           int *len)
{
    board_hdr *root = at(s, 0);
    *len = 0;
    if (root->status != STATUS_ONGOING || root->phase != PHASE_PLAY || threat_refusal(s->v))
        return SOLVE_NONE;
    if (max_depth > SOLVE_MAX_DEPTH)
        max_depth = SOLVE_MAX_DEPTH;
    s->generation++;
    s->nodes = 0;
    s->max_nodes = max_nodes;
    s->attacker_seat = root->seat;
    memset(s->hint, 0, sizeof(s->hint));
    int16_t out[LINE_CAP];
    int n = 0;
    const uint64_t key = position_key(s, root);
    /* VCT deepens step by step: short wins are found first, and what the
     * shallower searches proved hopeless stays in the table */
    int res = or_node(s, SOLVE_VCF, 0, key, max_depth, out, &n);
    for (int d = 3; kind == SOLVE_VCT && res == SOLVE_NONE && d <= max_depth; d++)
        res = or_node(s, SOLVE_VCT, 0, key, d, out, &n);
    if (res == SOLVE_WIN) {
        for (int j = 0; j < n; j++)
            line[j] = out[j];
        *len = n;
    }
    return res;
}

int solver_solve(solver *s, const board_hdr *b, int kind, int max_depth, int64_t max_nodes,
                 int32_t *line, int *len)
{
    memcpy(at(s, 0), b, s->v->state_size);
    return solve_from_root(s, kind, max_depth, max_nodes, line, len);
}

int solver_solve_opponent(solver *s, const board_hdr *b, int kind, int max_depth, int64_t max_nodes,
                          int32_t *line, int *len)
{
    memcpy(at(s, 0), b, s->v->state_size);
    if (b->status == STATUS_ONGOING && b->phase == PHASE_PLAY)
        pass(s->v, at(s, 0));
    return solve_from_root(s, kind, max_depth, max_nodes, line, len);
}
