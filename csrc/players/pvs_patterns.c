/* Line patterns and threat classes of the pvs player: see pvs_patterns.h. */
#include "players/pvs_patterns.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* A window's cells as the colour whose pattern is read sees them. */
enum { R_EMPTY = 0, R_SELF = 1, R_OPP = 2, R_WALL = 3 };

#define LINE_MAX (2 * PVS_MAX_HALF + 1)
#define UNSET 0xff

int pvs_half_of(const win_rule *w)
{
    /* any run of k or more: k - 1 cells each side hold every five through
     * the cell; otherwise the cells past a run of k must be seen too */
    return win_rule_shape(w) == WIN_SHAPE_AT_LEAST ? w->connect - 1 : w->connect;
}

typedef struct builder {
    const win_rule *w;
    int h, n_half;
    int32_t *index_of; /* [4^H] canonical relative side code -> index (-1: not canonical) */
    uint32_t *side;    /* [index] its canonical relative code */
    uint8_t *pattern;  /* the table being filled, UNSET where not yet known */
} builder;

/* Cells past a side's first opposing stone or edge cannot matter: they read
 * as opposing stones. rel[d] is the cell d + 1 away from the centre. */
static uint32_t canonical(const uint8_t *rel, int h)
{
    uint32_t code = 0;
    int blocked = 0;
    for (int d = 0; d < h; d++) {
        int x = blocked ? R_OPP : rel[d];
        blocked |= x == R_OPP || x == R_WALL;
        code |= (uint32_t)x << (2 * d);
    }
    return code;
}

static void decode(uint32_t code, int h, uint8_t *rel)
{
    for (int d = 0; d < h && d < PVS_MAX_HALF; d++)
        rel[d] = (uint8_t)((code >> (2 * d)) & 3);
}

/* Does a run of len stones with end cells e0, e1 win? An end past the
 * window reads as an opposing stone (a cautious guess; with H cells per
 * side it never decides a five). */
static int run_wins(const win_rule *w, int len, int e0, int e1)
{
    const int k = w->connect;
    if (len < k)
        return 0;
    if (len > k)
        return w->overline;
    switch (w->ends) {
    case WIN_ENDS_ANY:
        return 1;
    case WIN_ENDS_BOTH_EMPTY:
        return e0 == R_EMPTY && e1 == R_EMPTY;
    case WIN_ENDS_NOT_BOTH_BLOCKED:
        return !((e0 == R_OPP || e0 == R_WALL) && (e1 == R_OPP || e1 == R_WALL));
    default: /* WIN_ENDS_NOT_BOTH_OPPONENT: the edge never blocks */
        return !(e0 == R_OPP && e1 == R_OPP);
    }
}

static int classify(builder *bd, int fwd, int bwd);

/* The pattern of a line of 2H + 1 cells whose centre holds the colour's stone. */
static int classify_line(builder *bd, const uint8_t *line)
{
    const int h = bd->h < PVS_MAX_HALF ? bd->h : PVS_MAX_HALF;
    uint8_t f[PVS_MAX_HALF], b[PVS_MAX_HALF];
    for (int d = 1; d <= h; d++) {
        f[d - 1] = line[h + d];
        b[d - 1] = line[h - d];
    }
    return classify(bd, bd->index_of[canonical(f, h)], bd->index_of[canonical(b, h)]);
}

/* What one more stone on each empty cell of the line makes decides the
 * pattern (a dynamic program down to fives and dead lines). */
static int classify(builder *bd, int fwd, int bwd)
{
    uint8_t *memo = &bd->pattern[(size_t)fwd * (size_t)bd->n_half + (size_t)bwd];
    if (*memo != UNSET)
        return *memo;
    const int h = bd->h < PVS_MAX_HALF ? bd->h : PVS_MAX_HALF, n = 2 * h + 1, k = bd->w->connect;
    uint8_t line[LINE_MAX], rel[PVS_MAX_HALF];
    line[h] = R_SELF;
    decode(bd->side[fwd], h, rel);
    for (int d = 1; d <= h; d++)
        line[h + d] = rel[d - 1];
    decode(bd->side[bwd], h, rel);
    for (int d = 1; d <= h; d++)
        line[h - d] = rel[d - 1];
    /* the run through the centre and its end cells */
    int hi = h, lo = h;
    while (hi + 1 < n && line[hi + 1] == R_SELF)
        hi++;
    while (lo > 0 && line[lo - 1] == R_SELF)
        lo--;
    int e0 = hi + 1 < n ? line[hi + 1] : R_OPP, e1 = lo > 0 ? line[lo - 1] : R_OPP;
    int len = hi - lo + 1, p;
    if (len >= k) {
        p = run_wins(bd->w, len, e0, e1) ? PAT_FIVE : PAT_LONG;
    } else {
        /* the room the colour has: cells up to the first block each side */
        int right = h, left = h;
        while (right + 1 < n && (line[right + 1] == R_SELF || line[right + 1] == R_EMPTY))
            right++;
        while (left > 0 && (line[left - 1] == R_SELF || line[left - 1] == R_EMPTY))
            left--;
        int count[PAT_NB] = {0};
        if (right - left + 1 >= k)
            for (int i = left; i <= right; i++) {
                if (line[i] != R_EMPTY)
                    continue;
                /* the line re-centred on i with a stone there; cells beyond
                 * the window read as opposing stones */
                uint8_t child[LINE_MAX];
                for (int j = 0; j < n; j++) {
                    int src = i - h + j;
                    child[j] = src >= 0 && src < n ? line[src] : R_OPP;
                }
                child[h] = R_SELF;
                count[classify_line(bd, child)]++;
            }
        const int open3 = count[PAT_O3] + count[PAT_O3S];
        if (count[PAT_FIVE] >= 2)
            p = PAT_O4;
        else if (count[PAT_FIVE])
            p = PAT_C4;
        else if (count[PAT_O4] >= 2)
            p = PAT_O3S;
        else if (count[PAT_O4])
            p = PAT_O3;
        else if (count[PAT_C4])
            p = PAT_C3;
        else if (open3 >= 4)
            p = PAT_O2B;
        else if (open3 >= 3)
            p = PAT_O2A;
        else if (open3)
            p = PAT_O2;
        else if (count[PAT_C3])
            p = PAT_C2;
        else if (count[PAT_O2] + count[PAT_O2A] + count[PAT_O2B])
            p = PAT_O1;
        else if (count[PAT_C2])
            p = PAT_C1;
        else
            p = PAT_DEAD;
    }
    /* the recursion may have grown nothing: memo still points into the table */
    *memo = (uint8_t)p;
    return p;
}

int pvs_line_table_init(pvs_line_table *t, const win_rule *w, int colour, int h)
{
    memset(t, 0, sizeof(*t));
    if (h < 1 || h > PVS_MAX_HALF)
        return -1;
    const uint32_t n_codes = 1u << (2 * h);
    builder bd = {w, h, 0, NULL, NULL, NULL};
    bd.index_of = malloc(sizeof(int32_t) * n_codes);
    bd.side = malloc(sizeof(uint32_t) * n_codes);
    t->side_of = malloc(sizeof(uint16_t) * n_codes);
    if (!bd.index_of || !bd.side || !t->side_of)
        goto fail;
    for (uint32_t c = 0; c < n_codes; c++)
        bd.index_of[c] = -1;
    /* every canonical side, numbered; then each board code's side */
    uint8_t rel[PVS_MAX_HALF];
    for (uint32_t c = 0; c < n_codes; c++) {
        decode(c, h, rel);
        uint32_t canon = canonical(rel, h);
        if (bd.index_of[canon] < 0) {
            bd.index_of[canon] = bd.n_half;
            bd.side[bd.n_half++] = canon;
        }
    }
    /* board codes are absolute (1 black, 2 white); the table reads them as
     * the colour sees them */
    const uint8_t self = (uint8_t)(colour + 1);
    for (uint32_t c = 0; c < n_codes; c++) {
        for (int d = 0; d < h; d++) {
            uint8_t x = (uint8_t)((c >> (2 * d)) & 3);
            rel[d] = x == 0 ? R_EMPTY : x == 3 ? R_WALL : x == self ? R_SELF : R_OPP;
        }
        t->side_of[c] = (uint16_t)bd.index_of[canonical(rel, h)];
    }
    size_t cells = (size_t)bd.n_half * (size_t)bd.n_half;
    bd.pattern = malloc(cells);
    if (!bd.pattern)
        goto fail;
    memset(bd.pattern, UNSET, cells);
    for (int f = 0; f < bd.n_half; f++)
        for (int b = 0; b < bd.n_half; b++)
            classify(&bd, f, b);
    t->half = h;
    t->n_half = bd.n_half;
    t->pattern = bd.pattern;
    free(bd.index_of);
    free(bd.side);
    return 0;
fail:
    free(bd.index_of);
    free(bd.side);
    free(bd.pattern);
    pvs_line_table_free(t);
    return -1;
}

void pvs_line_table_free(pvs_line_table *t)
{
    free(t->side_of);
    free(t->pattern);
    memset(t, 0, sizeof(*t));
}

/* ---- pattern codes and classes ---- */

static pvs_codes codes;
static pthread_once_t codes_once = PTHREAD_ONCE_INIT;

static int class_of(const int *n)
{
    const int o3 = n[PAT_O3] + n[PAT_O3S], o2 = n[PAT_O2] + n[PAT_O2A] + n[PAT_O2B];
    if (n[PAT_FIVE])
        return CLS_FIVE;
    if (n[PAT_O4] || n[PAT_C4] >= 2)
        return CLS_O4;
    if (n[PAT_C4] && o3)
        return CLS_C4O3;
    if (n[PAT_C4] && (o2 || n[PAT_C3]))
        return CLS_C4PLUS;
    if (n[PAT_C4])
        return CLS_C4;
    if (o3 >= 2)
        return CLS_O3X2;
    if (o3 && (o2 || n[PAT_C3]))
        return CLS_O3PLUS;
    if (o3)
        return CLS_O3;
    if (n[PAT_C3] >= 2 || (n[PAT_C3] && o2))
        return CLS_C3PLUS;
    if (o2 >= 2)
        return CLS_O2X2;
    if (n[PAT_C3])
        return CLS_C3;
    if (o2)
        return CLS_O2;
    return CLS_NONE;
}

/* Renju: an overline, two fours (also two along one line, which the line
 * pattern reads as an open four) or two threes may be a foul. */
static int maybe_foul(const int *n)
{
    if (n[PAT_FIVE])
        return 0; /* a five beats every foul */
    return n[PAT_LONG] || n[PAT_O4] || n[PAT_C4] + n[PAT_O4] >= 2 || n[PAT_O3] + n[PAT_O3S] >= 2;
}

static void build_codes(void)
{
    int next = 0;
    static int16_t sorted_code[PAT_NB][PAT_NB][PAT_NB][PAT_NB];
    for (int a = 0; a < PAT_NB; a++)
        for (int b = a; b < PAT_NB; b++)
            for (int c = b; c < PAT_NB; c++)
                for (int d = c; d < PAT_NB; d++) {
                    int n[PAT_NB] = {0};
                    n[a]++, n[b]++, n[c]++, n[d]++;
                    sorted_code[a][b][c][d] = (int16_t)next;
                    codes.patterns[next][0] = (uint8_t)a;
                    codes.patterns[next][1] = (uint8_t)b;
                    codes.patterns[next][2] = (uint8_t)c;
                    codes.patterns[next][3] = (uint8_t)d;
                    codes.cls[next] = (uint8_t)class_of(n);
                    codes.maybe_foul[next] = (uint8_t)maybe_foul(n);
                    next++;
                }
    for (int i = 0; i < PAT_NB * PAT_NB * PAT_NB * PAT_NB; i++) {
        int p[4] = {i % PAT_NB, i / PAT_NB % PAT_NB, i / (PAT_NB * PAT_NB) % PAT_NB,
                    i / (PAT_NB * PAT_NB * PAT_NB)};
        for (int x = 1; x < 4; x++) /* sort the four */
            for (int y = x; y > 0 && p[y - 1] > p[y]; y--) {
                int tmp = p[y];
                p[y] = p[y - 1];
                p[y - 1] = tmp;
            }
        codes.code_of[i] = (uint16_t)sorted_code[p[0]][p[1]][p[2]][p[3]];
    }
}

const pvs_codes *pvs_codes_get(void)
{
    pthread_once(&codes_once, build_codes);
    return &codes;
}
