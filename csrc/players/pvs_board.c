/* The pvs player's incremental board: see pvs_board.h. */
#include "players/pvs_board.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "game/rule_family.h"
#include "players/pvs_eval.h"

/* ---- the context ---- */

/* Walk the window of cell c along axis a into out[2H]: the forward cells,
 * then the backward ones, GEOM_NONE past the line's end. A line that comes
 * back over its own cells at a bounce edge ends where it would repeat one,
 * as the rule's own count of a run ends there (lines.h): the window then
 * reads it as an edge. (Wrapping lines shorter than a window are refused:
 * whether a cell is reached forward or backward depends on the stones.) */
static void walk_window(const geometry *g, int c, int a, int h, int16_t *out)
{
    int16_t seen[2 * PVS_MAX_HALF + 1];
    int n_seen = 0;
    seen[n_seen++] = (int16_t)c;
    for (int s = 0; s < 2; s++) {
        int od = 2 * a + s, cur = c;
        for (int d = 0; d < h; d++) {
            cur = cur == GEOM_NONE ? GEOM_NONE : geom_step(g, cur, &od);
            for (int j = 0; j < n_seen && cur != GEOM_NONE; j++)
                if (seen[j] == cur)
                    cur = GEOM_NONE;
            if (cur != GEOM_NONE)
                seen[n_seen++] = (int16_t)cur;
            out[s * h + d] = (int16_t)cur;
        }
    }
}

static int half_of(const variant *v)
{
    int h0 = pvs_half_of(&v->win[0]), h1 = pvs_half_of(&v->win[1]);
    return h0 > h1 ? h0 : h1;
}

const char *pvs_ctx_refusal(const variant *v)
{
    static _Thread_local char why[256];
    /* one stone a turn, no stone ever taken off, a line the only goal */
    if (!rule_has(v, RULE_TRAIT_LINES) ||
        rule_has(v, RULE_TRAIT_MULTI_STONE_TURNS | RULE_TRAIT_CAPTURES)) {
        snprintf(why, sizeof(why),
                 "player 'pvs' does not play rule '%s': it plays the line rules (freestyle, "
                 "standard, caro, renju), whose only goal is a winning line",
                 v->rules->name);
        return why;
    }
    int h = half_of(v);
    if (h < 1 || h > PVS_MAX_HALF) {
        snprintf(why, sizeof(why),
                 "player 'pvs' plays connect 2..%d (%d with an overline winning), not connect=%d",
                 PVS_MAX_HALF, PVS_MAX_HALF + 1, v->p.connect);
        return why;
    }
    const geometry *g = &v->g;
    for (int c = 0; g->cycle && c < g->n_cells; c++)
        for (int a = 0; g->on_board[c] && a < g->n_axes; a++) {
            int cycle = g->cycle[c * g->n_axes + a];
            if (cycle && cycle < 2 * h + 1) {
                snprintf(why, sizeof(why),
                         "player 'pvs' needs every wrapping line to hold %d cells or more "
                         "(%d on each side of a cell, connect=%d); this %s board has one of %d",
                         2 * h + 1, h, v->p.connect, variant_geometry_name(g->kind), cycle);
                return why;
            }
        }
    return NULL;
}

int pvs_ctx_init(pvs_ctx *x, const variant *v)
{
    memset(x, 0, sizeof(*x));
    const geometry *g = &v->g;
    const int n = g->n_cells, na = g->n_axes, h = half_of(v), w2 = 2 * h;
    x->v = v;
    x->n_cells = n;
    x->n_axes = na;
    x->half = h;
    x->renju =
        rule_has(v, RULE_TRAIT_FOULS); /* black's fouls, checked where the patterns allow one */
    x->codes = pvs_codes_get();
    for (int colour = 0; colour < 2; colour++)
        if (pvs_line_table_init(&x->table[colour], &v->win[colour], colour,
                                pvs_half_of(&v->win[colour])))
            goto fail;
    x->window = malloc(sizeof(int16_t) * (size_t)n * (size_t)na * (size_t)w2);
    x->key0 = calloc((size_t)n * (size_t)na, sizeof(uint32_t));
    x->rev_first = calloc((size_t)n + 1, sizeof(int32_t));
    x->near_first = calloc((size_t)n + 1, sizeof(int32_t));
    if (!x->window || !x->key0 || !x->rev_first || !x->near_first)
        goto fail;
    for (int c = 0; c < n; c++)
        for (int a = 0; a < na; a++) {
            int16_t *win = x->window + ((size_t)c * na + a) * w2;
            if (!g->on_board[c]) {
                for (int i = 0; i < w2; i++)
                    win[i] = GEOM_NONE;
                continue;
            }
            walk_window(g, c, a, h, win);
            uint32_t key = 0;
            for (int s = 0; s < 2; s++)
                for (int d = 0; d < h; d++) {
                    int cell = win[s * h + d];
                    if (cell == GEOM_NONE)
                        key |= 3u << (16 * s + 2 * d);
                    else
                        x->rev_first[cell + 1]++;
                }
            x->key0[c * na + a] = key;
        }
    for (int c = 0; c < n; c++)
        x->rev_first[c + 1] += x->rev_first[c];
    x->rev = malloc(sizeof(uint32_t) * (size_t)(x->rev_first[n] > 0 ? x->rev_first[n] : 1));
    int32_t *fill = malloc(sizeof(int32_t) * (size_t)n);
    if (!x->rev || !fill) {
        free(fill);
        goto fail;
    }
    memcpy(fill, x->rev_first, sizeof(int32_t) * (size_t)n);
    for (int c = 0; c < n; c++)
        for (int a = 0; a < na && g->on_board[c]; a++) {
            const int16_t *win = x->window + ((size_t)c * na + a) * w2;
            for (int s = 0; s < 2; s++)
                for (int d = 0; d < h; d++) {
                    int cell = win[s * h + d];
                    if (cell != GEOM_NONE)
                        x->rev[fill[cell]++] =
                            (uint32_t)c << 8 | (uint32_t)a << 5 | (uint32_t)(16 * s + 2 * d);
                }
        }
    /* neighbours: cells within 2 along a line (distinct) */
    const int reach = h < 2 ? h : 2;
    int16_t *tmp = malloc(sizeof(int16_t) * (size_t)n * (size_t)(na * 2 * reach + 1));
    if (!tmp) {
        free(fill);
        goto fail;
    }
    int total = 0;
    for (int c = 0; c < n; c++) {
        int m = 0;
        for (int a = 0; a < na && g->on_board[c]; a++) {
            const int16_t *win = x->window + ((size_t)c * na + a) * w2;
            for (int s = 0; s < 2; s++)
                for (int d = 0; d < reach; d++) {
                    int cell = win[s * h + d], seen = cell == GEOM_NONE;
                    for (int j = 0; j < m && !seen; j++)
                        seen = tmp[total + j] == cell;
                    if (!seen)
                        tmp[total + m++] = (int16_t)cell;
                }
        }
        x->near_first[c + 1] = x->near_first[c] + m;
        total += m;
    }
    x->near = malloc(sizeof(int16_t) * (size_t)(total > 0 ? total : 1));
    if (!x->near) {
        free(tmp);
        free(fill);
        goto fail;
    }
    memcpy(x->near, tmp, sizeof(int16_t) * (size_t)total);
    free(tmp);
    free(fill);
    for (int colour = 0; colour < 2; colour++)
        for (int c = 0; c < GEOM_MAX_CELLS; c++)
            x->zobrist[colour][c] = rng_at(0x70765f7a6f627269ULL, (uint64_t)(2 * c + colour));
    pvs_eval_fill_values(x);
    return 0;
fail:
    pvs_ctx_free(x);
    return -1;
}

void pvs_ctx_free(pvs_ctx *x)
{
    pvs_line_table_free(&x->table[0]);
    pvs_line_table_free(&x->table[1]);
    free(x->window);
    free(x->key0);
    free(x->rev_first);
    free(x->rev);
    free(x->near_first);
    free(x->near);
    memset(x, 0, sizeof(*x));
}

/* ---- the board ---- */

static const uint8_t set_of_class[CLS_NB] = {
    [CLS_NONE] = SET_NB,  [CLS_FORBID] = SET_NB,    [CLS_O2] = SET_NB,
    [CLS_C3] = SET_NB,    [CLS_O2X2] = SET_NB,      [CLS_C3PLUS] = SET_NB,
    [CLS_O3] = SET_THREE, [CLS_O3PLUS] = SET_THREE, [CLS_O3X2] = SET_THREE,
    [CLS_C4] = SET_FOUR,  [CLS_C4PLUS] = SET_FOUR,  [CLS_C4O3] = SET_FOUR,
    [CLS_O4] = SET_O4,    [CLS_FIVE] = SET_FIVE,
};

/* Count cell c (empty) into the colour's sums, or (sign -1) out of them. */
static inline void account(pvs_board *pb, int colour, int c, int sign)
{
    int cls = pb->cls[colour][c], code = pb->code[colour][c];
    for (int role = 0; role < PVS_ROLES; role++)
        pb->value[colour][role] += sign * pb->x->value[role][code];
    pb->count[colour][cls] = (int16_t)(pb->count[colour][cls] + sign);
    int set = set_of_class[cls];
    if (set != SET_NB) {
        uint64_t bit = 1ULL << (c % 64);
        if (sign > 0)
            pb->set[colour][set][c / 64] |= bit;
        else
            pb->set[colour][set][c / 64] &= ~bit;
    }
}

/* The code and class of empty cell c for a colour from its patterns. */
static inline void classify_cell(pvs_board *pb, int colour, int c)
{
    const pvs_ctx *x = pb->x;
    const uint8_t *p = pb->pat[colour] + (size_t)c * (size_t)x->n_axes;
    const pvs_codes *t = x->codes;
    int code = x->n_axes == 4 ? pvs_code(t, p[0], p[1], p[2], p[3])
                              : pvs_code(t, p[0], p[1], p[2], PAT_DEAD);
    int cls = t->cls[code];
    if (colour == COLOUR_BLACK && x->renju && t->maybe_foul[code]) {
        if (x->v->rules->is_foul(x->v, pb->cells, c, COLOUR_BLACK))
            cls = CLS_FORBID;
        else if (cls == CLS_O3X2)
            cls = CLS_O3PLUS; /* one of the threes is no real three: its four would be a foul */
    }
    pb->code[colour][c] = (uint16_t)code;
    pb->cls[colour][c] = (uint8_t)cls;
}

static inline void read_patterns(pvs_board *pb, int c, int a)
{
    const pvs_ctx *x = pb->x;
    size_t i = (size_t)c * (size_t)x->n_axes + (size_t)a;
    pb->pat[0][i] = (uint8_t)pvs_line_pattern(&x->table[0], pb->key[i]);
    pb->pat[1][i] = (uint8_t)pvs_line_pattern(&x->table[1], pb->key[i]);
}

void pvs_board_load(pvs_board *pb, const pvs_ctx *x, const uint8_t *cells, int side)
{
    const int n = x->n_cells, na = x->n_axes;
    pb->x = x;
    pb->side = side;
    pb->n_moves = 0;
    pb->n_stones = 0;
    pb->hash = 0;
    memset(pb->value, 0, sizeof(pb->value));
    memset(pb->count, 0, sizeof(pb->count));
    memset(pb->set, 0, sizeof(pb->set));
    memset(pb->cand, 0, sizeof(pb->cand));
    memcpy(pb->cells, cells, (size_t)n + 1);
    memset(pb->near_count, 0, (size_t)n);
    memcpy(pb->key, x->key0, sizeof(uint32_t) * (size_t)n * (size_t)na);
    for (int c = 0; c < n; c++) {
        uint8_t s = cells[c];
        if (s != CELL_BLACK && s != CELL_WHITE)
            continue;
        pb->n_stones++;
        pb->hash ^= x->zobrist[s - 1][c];
        for (int r = x->rev_first[c]; r < x->rev_first[c + 1]; r++) {
            uint32_t e = x->rev[r];
            pb->key[(e >> 8) * (uint32_t)na + ((e >> 5) & 7)] |= (uint32_t)s << (e & 31);
        }
        for (int j = x->near_first[c]; j < x->near_first[c + 1]; j++)
            pb->near_count[x->near[j]]++;
    }
    for (int c = 0; c < n; c++) {
        if (cells[c] != CELL_EMPTY)
            continue;
        for (int a = 0; a < na; a++)
            read_patterns(pb, c, a);
        for (int colour = 0; colour < 2; colour++) {
            classify_cell(pb, colour, c);
            account(pb, colour, c, +1);
        }
        if (pb->near_count[c])
            pb->cand[c / 64] |= 1ULL << (c % 64);
    }
    if (side)
        pb->hash ^= 0x9e3779b97f4a7c15ULL;
}

/* Empty cell c's code or class for a colour may have changed: count it out
 * of the sums as it was and in as it is. */
static inline void reclassify(pvs_board *pb, int colour, int c)
{
    account(pb, colour, c, -1);
    classify_cell(pb, colour, c);
    account(pb, colour, c, +1);
}

/* Stone s (CELL_BLACK / CELL_WHITE, or 0 to take one away) on c: rewrite
 * the keys that hold c, and read again the lines of the empty cells whose
 * pattern changed (most far cells keep theirs). Renju: a black cell that
 * may be a foul is read again whenever its windows change, since whether it
 * is one depends on more than its patterns. */
static void rewrite(pvs_board *pb, int c, uint32_t s)
{
    const pvs_ctx *x = pb->x;
    const int na = x->n_axes;
    for (int r = x->rev_first[c]; r < x->rev_first[c + 1]; r++) {
        const uint32_t e = x->rev[r];
        const int cell = (int)(e >> 8), a = (int)((e >> 5) & 7);
        const uint32_t shift = e & 31;
        const size_t i = (size_t)cell * (size_t)na + (size_t)a;
        uint32_t key = (pb->key[i] & ~(3u << shift)) | (s << shift);
        pb->key[i] = key;
        if (pb->cells[cell] != CELL_EMPTY)
            continue;
        for (int colour = 0; colour < 2; colour++) {
            const uint8_t p = (uint8_t)pvs_line_pattern(&x->table[colour], key);
            if (p != pb->pat[colour][i]) {
                pb->pat[colour][i] = p;
                reclassify(pb, colour, cell);
            } else if (colour == COLOUR_BLACK && x->renju &&
                       x->codes->maybe_foul[pb->code[colour][cell]]) {
                reclassify(pb, colour, cell);
            }
        }
    }
}

void pvs_board_play(pvs_board *pb, int c)
{
    const pvs_ctx *x = pb->x;
    const int colour = pb->side;
    account(pb, 0, c, -1);
    account(pb, 1, c, -1);
    pb->cand[c / 64] &= ~(1ULL << (c % 64));
    pb->cells[c] = (uint8_t)(colour + 1);
    rewrite(pb, c, (uint32_t)(colour + 1));
    for (int j = x->near_first[c]; j < x->near_first[c + 1]; j++) {
        int nb = x->near[j];
        if (pb->near_count[nb]++ == 0 && pb->cells[nb] == CELL_EMPTY)
            pb->cand[nb / 64] |= 1ULL << (nb % 64);
    }
    pb->hash ^= x->zobrist[colour][c] ^ 0x9e3779b97f4a7c15ULL;
    pb->moves[pb->n_moves++] = (int16_t)c;
    pb->n_stones++;
    pb->side ^= 1;
}

void pvs_board_undo(pvs_board *pb)
{
    const pvs_ctx *x = pb->x;
    const int c = pb->moves[--pb->n_moves];
    pb->side ^= 1;
    const int colour = pb->side;
    pb->n_stones--;
    pb->hash ^= x->zobrist[colour][c] ^ 0x9e3779b97f4a7c15ULL;
    for (int j = x->near_first[c]; j < x->near_first[c + 1]; j++) {
        int nb = x->near[j];
        if (--pb->near_count[nb] == 0)
            pb->cand[nb / 64] &= ~(1ULL << (nb % 64));
    }
    pb->cells[c] = CELL_EMPTY;
    rewrite(pb, c, 0);
    /* c's own patterns are those it had when the stone went on: its
     * windows never hold c, and every later stone is gone again */
    if (x->renju)
        classify_cell(pb, COLOUR_BLACK, c);
    account(pb, 0, c, +1);
    account(pb, 1, c, +1);
    if (pb->near_count[c])
        pb->cand[c / 64] |= 1ULL << (c % 64);
}

int pvs_set_cells(const pvs_board *pb, int colour, int set, int16_t *out, int max)
{
    int n = 0;
    const uint64_t *s = pb->set[colour][set];
    for (int w = 0; w < BITS_WORDS(pb->x->n_cells) && n < max; w++)
        for (uint64_t b = s[w]; b && n < max; b &= b - 1)
            out[n++] = (int16_t)(w * 64 + __builtin_ctzll(b));
    return n;
}
