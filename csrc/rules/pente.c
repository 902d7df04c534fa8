/* Pente as a rule family: the line machinery (game/lines_win.c) with
 * captures, a capture count that wins, and the tournament opening. See
 * pente.h. */
#include "rules/pente.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game/game.h"
#include "geometry/lines.h"
#include "rules/families.h"
#include "rules/lines_rule.h"

/* Cells at least this far from the centre take the first player's second
 * stone under the tournament rule. */
#define TOURNAMENT_DISTANCE 3

static inline pente_state *state_of(const variant *v, board_hdr *b)
{
    return (pente_state *)((uint8_t *)b + v->off_rule_own);
}

static inline const pente_state *state_of_c(const variant *v, const board_hdr *b)
{
    return (const pente_state *)((const uint8_t *)b + v->off_rule_own);
}

/* rule_data: each cell's distance from the centre in steps along the lines
 * (king moves on a square board: the Chebyshev distance), so that every
 * geometry has the tournament rule. */
static int prepare(variant *v, char *err, size_t errlen)
{
    if (v->p.protocol != PROTO_FREE && v->p.protocol != PROTO_CENTER) {
        snprintf(err, errlen, "rule 'pente' takes protocol 'free' or 'center'");
        return -1;
    }
    for (int c = 0; c < 2; c++) { /* connect or more of one colour */
        v->win[c].connect = v->p.connect;
        v->win[c].overline = 1;
        v->win[c].ends = WIN_ENDS_ANY;
    }
    const geometry *g = &v->g;
    uint8_t *dist = malloc((size_t)g->n_cells);
    int16_t *queue = malloc(sizeof(int16_t) * (size_t)g->n_cells);
    if (!dist || !queue) {
        free(dist);
        free(queue);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    memset(dist, 255, (size_t)g->n_cells);
    int head = 0, tail = 0;
    dist[g->centre] = 0;
    queue[tail++] = (int16_t)g->centre;
    while (head < tail) {
        int c = queue[head++];
        for (int od = 0; od < g->n_od; od++) {
            int d = od, x = geom_step(g, c, &d);
            if (x != GEOM_NONE && g->on_board[x] && dist[x] == 255) {
                dist[x] = (uint8_t)(dist[c] + 1 < 254 ? dist[c] + 1 : 254);
                queue[tail++] = (int16_t)x;
            }
        }
    }
    free(queue);
    v->rule_data = dist;
    return 0;
}

static void release(variant *v)
{
    free(v->rule_data);
    v->rule_data = NULL;
}

static void actions(const variant *v, rule_actions *out)
{
    out->action_cells = v->g.n_cells;
    out->extra_steps = v->g.n_on_board; /* captured cells are played again */
}

static size_t own_bytes(const variant *v)
{
    (void)v;
    return sizeof(pente_state);
}

static int planes(const variant *v, const char **absolute, const char **mover)
{
    (void)v;
    absolute[0] = "black_captures";
    absolute[1] = "white_captures";
    mover[0] = "own_captures";
    mover[1] = "opponent_captures";
    return 2;
}

static void derive(const variant *v, board_hdr *b)
{
    (void)v;
    (void)b;
}

static int tournament(const variant *v)
{
    return variant_family_param(v, PENTE_OPENING) == PENTE_OPENING_TOURNAMENT;
}

/* Is this the first player's second stone under the tournament rule? (No
 * capture can come before it: the board holds exactly two stones.) */
static int second_black_stone(const variant *v, const board_hdr *b)
{
    return tournament(v) && b->n_stones == 2 && b->colour == COLOUR_BLACK;
}

static void legal(const variant *v, const board_hdr *b, uint64_t *out)
{
    if (tournament(v) && b->n_stones == 0) {
        bits_set(out, v->g.centre);
        return;
    }
    lines_legal_empty(v, b, out);
    if (second_black_stone(v, b)) {
        const uint8_t *dist = (const uint8_t *)v->rule_data;
        for (int c = 0; c < v->g.n_cells; c++)
            if (dist[c] < TOURNAMENT_DISTANCE)
                bits_clear(out, c);
    }
}

/* The stones a stone of `stone` on a captures, into out; returns how many. */
static int find_captures(const variant *v, const board_hdr *b, int a, uint8_t stone, int16_t *out)
{
    const geometry *g = &v->g;
    const uint8_t *cells = board_cells_c(v, b);
    const int lengths = variant_family_param(v, PENTE_CAPTURE_LENGTHS);
    int n = 0;
    for (int od = 0; od < g->n_od; od++) {
        int16_t run[LINE_MAX_CAP];
        int len = 0, d = od, x = a;
        /* the opponent's stones from a on, then what ends them */
        for (;;) {
            x = geom_step(g, x, &d);
            if (x == GEOM_NONE || x == a || len == LINE_MAX_CAP || cells[x] != (uint8_t)(stone ^ 3))
                break;
            run[len++] = (int16_t)x;
        }
        if (x == GEOM_NONE || x == a || cells[x] != stone || !(lengths >> len & 1))
            continue;
        for (int k = 0; k < len; k++)
            out[n++] = run[k];
    }
    return n;
}

static unsigned apply(const variant *v, board_hdr *b, int a)
{
    const int mover = b->colour, opening = tournament(v) && b->n_stones <= 2;
    const uint8_t stone = (uint8_t)(mover + 1);
    lines_put_stone(v, b, a, mover);
    int16_t taken[GEOM_MAX_CELLS];
    int n = find_captures(v, b, a, stone, taken);
    uint8_t *cells = board_cells(v, b);
    uint32_t *bits = board_line_bits(v, b, mover ^ 1);
    for (int k = 0; k < n; k++) {
        cells[taken[k]] = CELL_EMPTY;
        if (bits)
            line_bits_remove(&v->g, bits, taken[k]);
    }
    b->n_stones = (uint16_t)(b->n_stones - n);
    pente_state *s = state_of(v, b);
    s->captures[mover] += n;
    if (b->status == STATUS_ONGOING &&
        s->captures[mover] >= variant_family_param(v, PENTE_CAPTURE_WIN))
        game_end(b, game_holder(b, mover));
    /* the captured cells are free again; the opening's restriction moves */
    unsigned changes = lines_pass_turn(v, b, a, n > 0 || opening);
    return n ? changes | CHANGE_OBS_WIDE : changes;
}

static const char *illegal_reason(const variant *v, const board_hdr *b, int action)
{
    if (tournament(v) && b->n_stones == 0)
        return "the first stone goes to the centre (tournament rule)";
    if (second_black_stone(v, b) && ((const uint8_t *)v->rule_data)[action] < TOURNAMENT_DISTANCE)
        return "the first player's second stone goes at least 3 cells from the centre "
               "(tournament rule)";
    return NULL;
}

static void write_planes(const variant *v, const board_hdr *b, int kind, int viewer, uint8_t *out)
{
    const pente_state *s = state_of_c(v, b);
    /* absolute: black's then white's; mover: the viewer's colour first */
    int first = kind == OBS_ABSOLUTE ? COLOUR_BLACK : (viewer == b->black_seat ? 0 : 1);
    for (int k = 0; k < 2; k++) {
        int count = s->captures[first ^ k];
        memset(out + (size_t)k * (size_t)v->g.n_cells, count < 255 ? count : 255,
               (size_t)v->g.n_cells);
    }
}

static void figures(const variant *v, const board_hdr *b, rule_figures *out)
{
    const pente_state *s = state_of_c(v, b);
    for (int colour = 0; colour < 2; colour++)
        out->captures[game_holder(b, colour)] = s->captures[colour];
}

static const char *check(const variant *v, const board_hdr *b)
{
    const pente_state *s = state_of_c(v, b);
    for (int c = 0; c < 2; c++)
        if (s->captures[c] < 0 || s->captures[c] > v->max_steps)
            return "pente: a capture count out of range";
    return NULL;
}

static const char *const opening_names[] = {"tournament", "free", NULL};

static const rule_param params[] = {
    [PENTE_CAPTURE_LENGTHS] = {"capture_lengths", 1 << 2, NULL, 1, 8, 1},
    [PENTE_CAPTURE_WIN] = {"capture_win", 10, NULL, 1, 255, 0},
    [PENTE_OPENING] = {"pente_opening", PENTE_OPENING_TOURNAMENT, opening_names, 0, 0, 0},
};

const rule_family rule_family_pente = {
    .name = "pente",
    .traits = RULE_TRAIT_LINES | RULE_TRAIT_CAPTURES,
    .plane_max = 255, /* capture counts (clamped) */
    .params = params,
    .n_params = 3,
    .prepare = prepare,
    .release = release,
    .actions = actions,
    .own_bytes = own_bytes,
    .planes = planes,
    .derive = derive,
    .legal = legal,
    .apply = apply,
    .illegal_reason = illegal_reason,
    .write_planes = write_planes,
    .figures = figures,
    .check = check,
};
