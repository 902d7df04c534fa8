/* Forced answers and VCF of the pvs player: see pvs_threats.h. */
#include "players/pvs_threats.h"

#include <string.h>

/* Salt of the VCF results in the transposition table (not alpha-beta values). */
#define VCF_SALT 0x5643465f76636621ULL

/* Add the threat cells of `set` of colour `who`, and the cells of their
 * windows along the lines where `who` has at least pattern `least`, to the
 * candidates (a bit set). */
static void threat_area(const pvs_board *pb, int who, int set, int least, uint64_t *area)
{
    const pvs_ctx *x = pb->x;
    const int na = x->n_axes, h = x->half;
    for (int w = 0; w < BITS_WORDS(x->n_cells); w++)
        for (uint64_t b = pb->set[who][set][w]; b; b &= b - 1) {
            const int c = w * 64 + __builtin_ctzll(b);
            area[c / 64] |= 1ULL << (c % 64);
            for (int a = 0; a < na; a++) {
                if (pb->pat[who][c * na + a] < least)
                    continue;
                const int16_t *win = x->window + ((size_t)c * na + a) * 2 * h;
                for (int i = 0; i < 2 * h; i++)
                    if (win[i] != GEOM_NONE && pb->cells[win[i]] == CELL_EMPTY)
                        area[win[i] / 64] |= 1ULL << (win[i] % 64);
            }
        }
}

/* Would a stone of the side to move on empty cell m leave `who` with no
 * cell of class `least` or above (CLS_FIVE, or CLS_O4: open fours and
 * fives)? Read from the patterns: only the cells whose windows hold m
 * change, each along one line. -1 when a cell sees m along two lines (a
 * line that turns back): then the move must be played to know. */
static int stops_all(const pvs_board *pb, int m, int who, int least)
{
    const pvs_ctx *x = pb->x;
    const int na = x->n_axes, me = pb->side;
    int threats = pb->count[who][CLS_FIVE] + (least == CLS_O4 ? pb->count[who][CLS_O4] : 0);
    int stopped = pb->cls[who][m] >= least;
    int16_t seen[4 * PVS_MAX_HALF * 2 + 1];
    int n_seen = 0;
    for (int r = x->rev_first[m]; r < x->rev_first[m + 1]; r++) {
        const uint32_t e = x->rev[r];
        const int cell = (int)(e >> 8), a = (int)((e >> 5) & 7), shift = (int)(e & 31);
        if (pb->cells[cell] != CELL_EMPTY || pb->cls[who][cell] < least ||
            pb->cls[who][cell] == CLS_FORBID)
            continue;
        for (int j = 0; j < n_seen; j++)
            if (seen[j] == cell)
                return -1;
        seen[n_seen++] = (int16_t)cell;
        const size_t i = (size_t)cell * (size_t)na;
        uint32_t key = (pb->key[i + a] & ~(3u << shift)) | ((uint32_t)(me + 1) << shift);
        uint8_t p[4] = {PAT_DEAD, PAT_DEAD, PAT_DEAD, PAT_DEAD};
        for (int b = 0; b < na; b++)
            p[b] = pb->pat[who][i + b];
        p[a] = (uint8_t)pvs_line_pattern(&x->table[who], key);
        int cls = x->codes->cls[pvs_code(x->codes, p[0], p[1], p[2], p[3])];
        stopped += cls < least;
    }
    return stopped >= threats;
}

/* The cells of `area` the side to move may play after which `who` has no
 * cell in the sets up to `upto` (SET_FIVE, or SET_FIVE and SET_O4). */
static int keep_defences(pvs_engine *e, const uint64_t *area, int upto, int16_t *out)
{
    pvs_board *pb = &e->board;
    const int me = pb->side, you = me ^ 1, least = upto == SET_FIVE ? CLS_FIVE : CLS_O4;
    int n = 0;
    for (int w = 0; w < BITS_WORDS(pb->x->n_cells); w++)
        for (uint64_t b = area[w]; b; b &= b - 1) {
            const int c = w * 64 + __builtin_ctzll(b);
            if (!pvs_playable(pb, me, c))
                continue;
            int gone = stops_all(pb, c, you, least);
            if (gone < 0) {
                pvs_play(e, c);
                gone = pb->count[you][CLS_FIVE] == 0 &&
                       (upto == SET_FIVE || pb->count[you][CLS_O4] == 0);
                pvs_undo(e);
            }
            if (gone)
                out[n++] = (int16_t)c;
        }
    return n;
}

int pvs_five_defences(pvs_engine *e, int16_t *out)
{
    pvs_board *pb = &e->board;
    const int me = pb->side, you = me ^ 1;
    if (pb->x->v->win[you].ends == WIN_ENDS_ANY) {
        /* a five that any end allows is stopped on its own cell only */
        if (pb->count[you][CLS_FIVE] != 1)
            return 0;
        int f = pvs_set_first(pb, you, SET_FIVE);
        if (!pvs_playable(pb, me, f))
            return 0;
        out[0] = (int16_t)f;
        return 1;
    }
    uint64_t area[PVS_WORDS] = {0};
    threat_area(pb, you, SET_FIVE, PAT_FIVE, area);
    return keep_defences(e, area, SET_FIVE, out);
}

int pvs_four_defences(pvs_engine *e, int16_t *out)
{
    pvs_board *pb = &e->board;
    uint64_t area[PVS_WORDS] = {0};
    threat_area(pb, pb->side ^ 1, SET_O4, PAT_C4, area);
    return keep_defences(e, area, SET_O4, out);
}

/* The side to move's fours, strongest class first, into out. */
static int fours_in_order(const pvs_board *pb, int16_t *out)
{
    const int me = pb->side;
    int n = pvs_set_cells(pb, me, SET_FOUR, out, GEOM_MAX_CELLS);
    /* C4O3 first, then C4PLUS, then C4 (a stable pass per class) */
    int16_t tmp[GEOM_MAX_CELLS];
    int m = 0;
    for (int cls = CLS_C4O3; cls >= CLS_C4; cls--)
        for (int i = 0; i < n; i++)
            if (pb->cls[me][out[i]] == cls)
                tmp[m++] = out[i];
    memcpy(out, tmp, sizeof(int16_t) * (size_t)m);
    return m;
}

static int vcf_search(pvs_engine *e, int depth, int *move)
{
    pvs_board *pb = &e->board;
    const int me = pb->side, you = me ^ 1;
    if (pb->count[me][CLS_FIVE]) {
        *move = pvs_set_first(pb, me, SET_FIVE);
        return 1;
    }
    if (pvs_engine_out_of_budget(e))
        return 0;
    int16_t moves[GEOM_MAX_CELLS];
    int n;
    if (pb->count[you][CLS_FIVE]) {
        /* the attacker must stop the other five first, with a four */
        n = pvs_five_defences(e, moves);
        int m = 0;
        for (int i = 0; i < n; i++)
            if (pb->cls[me][moves[i]] >= CLS_C4 && pb->cls[me][moves[i]] <= CLS_O4)
                moves[m++] = moves[i];
        n = m;
    } else {
        if (pb->count[me][CLS_O4]) {
            *move = pvs_set_first(pb, me, SET_O4);
            return 1;
        }
        if (depth <= 1)
            return 0;
        n = fours_in_order(pb, moves);
    }
    if (n == 0 || depth <= 1)
        return 0;
    const uint64_t key = pb->hash ^ VCF_SALT;
    pvs_tt_entry *t = pvs_tt_probe(e, key);
    if (t && t->bound == TT_UPPER && t->depth >= depth)
        return 0; /* no VCF this deep, found before */
    int16_t replies[GEOM_MAX_CELLS];
    for (int i = 0; i < n; i++) {
        const int m = moves[i];
        pvs_play(e, m);
        /* the defender: a five of its own wins; else every stop of the four */
        int won = 0;
        if (pb->count[you][CLS_FIVE] == 0 && pb->count[me][CLS_FIVE] > 0) {
            int r = pvs_five_defences(e, replies);
            won = 1;
            for (int j = 0; j < r && won; j++) {
                int next;
                pvs_play(e, replies[j]);
                won = vcf_search(e, depth - 1, &next);
                pvs_undo(e);
            }
        }
        pvs_undo(e);
        if (won) {
            *move = m;
            return 1;
        }
        if (e->stopped)
            return 0;
    }
    pvs_tt_store(e, key, 0, -1, depth, TT_UPPER);
    return 0;
}

int pvs_vcf(pvs_engine *e, int depth, int *move)
{
    *move = -1;
    return vcf_search(e, depth, move);
}
