/* Threats under a line rule: five points, fours, three candidates. See
 * threats.h. */
#include "players/threats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game/game.h"
#include "game/rule_family.h"
#include "geometry/lines.h"

const char *threat_refusal(const variant *v)
{
    if (rule_has(v, RULE_TRAIT_LINES))
        return NULL;
    static _Thread_local char why[200];
    snprintf(why, sizeof(why),
             "rule '%s' has no forced wins by threats: %s, so VCF and VCT are not defined for it",
             v->rules->name,
             rule_has(v, RULE_TRAIT_NO_COLOURS) ? "it scores arithmetic progressions of tiles"
                                                : "a five ends a cast and points decide the game");
    return why;
}

int threat_tables_init(threat_tables *t, const variant *v)
{
    memset(t, 0, sizeof(*t));
    t->k = v->p.connect;
    t->n_windows = geometry_windows(&v->g, t->k, NULL, 0);
    t->cells =
        malloc(sizeof(int16_t) * (size_t)(t->n_windows > 0 ? t->n_windows : 1) * (size_t)t->k);
    if (!t->cells)
        return -1;
    geometry_windows(&v->g, t->k, t->cells, t->n_windows);
    const int n = v->g.n_cells;
    t->first = calloc((size_t)n + 1, sizeof(int32_t));
    t->by_cell =
        malloc(sizeof(int32_t) * (size_t)(t->n_windows > 0 ? t->n_windows : 1) * (size_t)t->k);
    if (!t->first || !t->by_cell)
        return -1;
    for (int w = 0; w < t->n_windows * t->k; w++)
        t->first[t->cells[w] + 1]++;
    for (int c = 0; c < n; c++)
        t->first[c + 1] += t->first[c];
    int32_t *fill = malloc(sizeof(int32_t) * (size_t)n);
    if (!fill)
        return -1;
    memcpy(fill, t->first, sizeof(int32_t) * (size_t)n);
    for (int w = 0; w < t->n_windows; w++)
        for (int j = 0; j < t->k; j++)
            t->by_cell[fill[t->cells[w * t->k + j]]++] = w;
    free(fill);
    return 0;
}

void threat_tables_free(threat_tables *t)
{
    free(t->cells);
    free(t->by_cell);
    free(t->first);
    memset(t, 0, sizeof(*t));
}

void threat_allowed(const variant *v, const board_hdr *b, uint8_t stone, uint64_t *out)
{
    const int words = BITS_WORDS(v->g.n_cells);
    if (rule_has(v, RULE_TRAIT_FOULS)) {
        /* either colour's cells, whoever is to act: the empty ones (the legal
         * set, with the fouls it leaves out for the colour to act), less the
         * fouls of the colour asked about */
        const uint64_t *legal = board_legal_c(v, b);
        const uint64_t *to_act =
            v->p.forbidden == FORBIDDEN_MASK ? game_forbidden(v, b, b->colour) : NULL;
        const uint64_t *asked = game_forbidden(v, b, stone - 1);
        for (int w = 0; w < words; w++)
            out[w] = (legal[w] | (to_act ? to_act[w] : 0)) & ~(asked ? asked[w] : 0);
        if (v->first_stone_centre && b->n_stones == 0) { /* the first stone */
            memset(out, 0, sizeof(uint64_t) * (size_t)words);
            bits_set(out, v->g.centre);
        }
    } else {
        /* the other line rules let either colour play any empty cell: the
         * legal set of the seat to act in normal play */
        memcpy(out, board_legal_c(v, b), sizeof(uint64_t) * (size_t)words);
    }
}

int threat_fives(const variant *v, const board_hdr *b, uint8_t stone, const uint64_t *allowed,
                 int16_t *out, int max)
{
    int32_t found[GEOM_MAX_CELLS];
    int n = lines_winning_cells(v, b, stone, allowed, found,
                                max < GEOM_MAX_CELLS ? max : GEOM_MAX_CELLS);
    for (int j = 0; j < n; j++)
        out[j] = (int16_t)found[j];
    return n;
}

/* Stones of `stone` and empty cells in window w; *other: any other cell. */
static inline void window_counts(const threat_tables *t, const uint8_t *cells, int w, uint8_t stone,
                                 int *mine, int *empty)
{
    const int16_t *wc = t->cells + (size_t)w * (size_t)t->k;
    int m = 0, e = 0;
    for (int j = 0; j < t->k; j++) {
        uint8_t x = cells[wc[j]];
        m += x == stone;
        e += x == CELL_EMPTY;
    }
    *mine = m;
    *empty = e;
}

static int emit_bits(const variant *v, const uint64_t *bits, int16_t *out, int max)
{
    int n = 0;
    for (int w = 0; w < BITS_WORDS(v->g.n_cells) && n < max; w++)
        for (uint64_t x = bits[w]; x && n < max; x &= x - 1)
            out[n++] = (int16_t)(w * 64 + __builtin_ctzll(x));
    return n;
}

/* Would `stone` at c give it a five at q? (c and q empty.) */
static int makes_five_at(const variant *v, board_hdr *b, uint8_t stone, int c, int q)
{
    uint8_t *cells = board_cells(v, b);
    uint32_t *bits = board_line_bits(v, b, stone - 1);
    cells[c] = stone;
    if (bits)
        line_bits_add(&v->g, bits, c);
    int wins = lines_wins(v, b, q, stone);
    if (bits)
        line_bits_remove(&v->g, bits, c);
    cells[c] = CELL_EMPTY;
    return wins;
}

int threat_is_four(const variant *v, board_hdr *b, uint8_t stone, const uint64_t *allowed, int c)
{
    if (!bits_get(allowed, c))
        return 0;
    uint8_t *cells = board_cells(v, b);
    uint32_t *bits = board_line_bits(v, b, stone - 1);
    uint64_t rest[BITS_WORDS(GEOM_MAX_CELLS)];
    memcpy(rest, allowed, sizeof(uint64_t) * (size_t)BITS_WORDS(v->g.n_cells));
    bits_clear(rest, c);
    cells[c] = stone;
    if (bits)
        line_bits_add(&v->g, bits, c);
    int32_t five;
    int four = lines_winning_cells(v, b, stone, rest, &five, 1) > 0;
    if (bits)
        line_bits_remove(&v->g, bits, c);
    cells[c] = CELL_EMPTY;
    return four;
}

int threat_fours(const variant *v, const threat_tables *t, board_hdr *b, uint8_t stone,
                 const uint64_t *allowed, int16_t *out, int max)
{
    const uint8_t *cells = board_cells_c(v, b);
    const int k = t->k;
    uint64_t found[BITS_WORDS(GEOM_MAX_CELLS)] = {0};
    for (int w = 0; w < t->n_windows; w++) {
        int mine, empty;
        window_counts(t, cells, w, stone, &mine, &empty);
        if (mine != k - 2 || empty != 2)
            continue;
        const int16_t *wc = t->cells + (size_t)w * (size_t)k;
        int e[2], n = 0;
        for (int j = 0; j < k; j++)
            if (cells[wc[j]] == CELL_EMPTY)
                e[n++] = wc[j];
        for (int s = 0; s < 2; s++) {
            int c = e[s], q = e[!s];
            if (bits_get(allowed, c) && !bits_get(found, c) && makes_five_at(v, b, stone, c, q))
                bits_set(found, c);
        }
    }
    return emit_bits(v, found, out, max);
}

int threat_open_four_move(const variant *v, const threat_tables *t, board_hdr *b, uint8_t stone,
                          const uint64_t *allowed, int c, int16_t out[3])
{
    uint8_t *cells = board_cells(v, b);
    uint32_t *bits = board_line_bits(v, b, stone - 1);
    uint64_t tried[BITS_WORDS(GEOM_MAX_CELLS)] = {0}, rest[BITS_WORDS(GEOM_MAX_CELLS)];
    memcpy(rest, allowed, sizeof(uint64_t) * (size_t)BITS_WORDS(v->g.n_cells));
    for (int i = t->first[c]; i < t->first[c + 1]; i++) {
        int mine, empty;
        const int w = t->by_cell[i];
        window_counts(t, cells, w, stone, &mine, &empty);
        if (mine != t->k - 2 || empty != 2)
            continue;
        const int16_t *wc = t->cells + (size_t)w * (size_t)t->k;
        for (int j = 0; j < t->k; j++) {
            int c2 = wc[j];
            if (cells[c2] != CELL_EMPTY || !bits_get(allowed, c2) || bits_get(tried, c2))
                continue;
            bits_set(tried, c2);
            bits_clear(rest, c2);
            cells[c2] = stone;
            if (bits)
                line_bits_add(&v->g, bits, c2);
            int32_t five[2];
            int n = lines_winning_cells(v, b, stone, rest, five, 2);
            if (bits)
                line_bits_remove(&v->g, bits, c2);
            cells[c2] = CELL_EMPTY;
            bits_set(rest, c2);
            if (n >= 2) {
                out[0] = (int16_t)c2;
                out[1] = (int16_t)five[0];
                out[2] = (int16_t)five[1];
                return 1;
            }
        }
    }
    return 0;
}

int threat_threes(const variant *v, const threat_tables *t, const board_hdr *b, uint8_t stone,
                  const uint64_t *allowed, int16_t *out, int max)
{
    const uint8_t *cells = board_cells_c(v, b);
    const int k = t->k;
    uint64_t found[BITS_WORDS(GEOM_MAX_CELLS)] = {0};
    if (k < 4)
        return 0;
    for (int w = 0; w < t->n_windows; w++) {
        int mine, empty;
        window_counts(t, cells, w, stone, &mine, &empty);
        if (mine != k - 3 || empty != 3)
            continue;
        const int16_t *wc = t->cells + (size_t)w * (size_t)k;
        for (int j = 0; j < k; j++)
            if (cells[wc[j]] == CELL_EMPTY && bits_get(allowed, wc[j]))
                bits_set(found, wc[j]);
    }
    return emit_bits(v, found, out, max);
}

void threat_potential(const variant *v, const threat_tables *t, const board_hdr *b, uint8_t stone,
                      float *out)
{
    static const float weight[8] = {0, 1, 8, 64, 512, 4096, 4096, 4096};
    const uint8_t *cells = board_cells_c(v, b);
    const int k = t->k;
    memset(out, 0, sizeof(float) * (size_t)v->g.n_cells);
    for (int w = 0; w < t->n_windows; w++) {
        int mine, empty;
        window_counts(t, cells, w, stone, &mine, &empty);
        if (mine + empty != k || mine == 0)
            continue;
        const float add = weight[mine < 7 ? mine : 7];
        const int16_t *wc = t->cells + (size_t)w * (size_t)k;
        for (int j = 0; j < k; j++)
            out[wc[j]] += add;
    }
}
