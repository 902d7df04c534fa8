#include "game/game.h"

#include <string.h>

#include "base/rng.h"
#include "game/opening_row.h"
#include "game/rule_family.h"
#include "geometry/lines.h"

/* ---- the legal set ---- */

/* Legal cells from scratch: empty cells, less what the protocol and the rule
 * forbid the colour to place. */
void game_refresh_legal(const variant *v, board_hdr *b)
{
    uint64_t *legal = board_legal(v, b);
    memset(legal, 0, sizeof(uint64_t) * (size_t)v->legal_words);
    if (b->phase != PHASE_PLAY)
        v->opening->legal(v, b, legal);
    else if (v->first_stone_centre && b->n_stones == 0)
        bits_set(legal, v->g.centre);
    else
        v->rules->legal(v, b, legal);
    b->n_legal = (uint16_t)bits_count(legal, v->legal_words);
}

void game_build_initial(const variant *v, board_hdr *b)
{
    memset(b, 0, v->state_size);
    uint8_t *cells = board_cells(v, b);
    for (int c = 0; c < v->g.n_cells; c++)
        cells[c] = v->g.on_board[c] ? CELL_EMPTY : CELL_OFF;
    cells[v->g.n_cells] = CELL_OFF; /* the edge sentinel */
    b->fingerprint = v->fingerprint;
    b->last_move = -1;
    b->colour = COLOUR_BLACK;
    b->status = STATUS_ONGOING;
    b->winner = -1;
    game_derive(v, b);
    b->phase = (uint8_t)v->first_phase;
    game_refresh_legal(v, b);
}

void game_derive(const variant *v, board_hdr *b)
{
    const uint8_t *cells = board_cells(v, b);
    int stones = 0;
    for (int colour = 0; colour < 2; colour++) {
        uint32_t *bits = board_line_bits(v, b, colour);
        if (bits)
            memset(bits, 0, sizeof(uint32_t) * (size_t)v->n_line_words);
    }
    for (int c = 0; c < v->g.n_cells; c++)
        if (cells[c] == CELL_BLACK || cells[c] == CELL_WHITE) {
            uint32_t *bits = board_line_bits(v, b, cells[c] - 1);
            if (bits)
                line_bits_add(&v->g, bits, c);
            stones++;
        }
    b->n_stones = (uint16_t)stones;
    b->phase = PHASE_PLAY;
    if (v->off_protocol)
        v->opening->clear(v, b);
    v->rules->derive(v, b);
    game_refresh_legal(v, b);
}

void game_forget_caches(const variant *v, board_hdr *b)
{
    if (v->rules->forget_caches)
        v->rules->forget_caches(v, b);
}

/* ---- legality ---- */

const char *game_illegal_reason(const variant *v, const board_hdr *b, int action)
{
    if (action < 0 || action >= v->n_actions)
        return "out of range";
    if (game_is_legal(v, b, action))
        return NULL;
    if (b->status != STATUS_ONGOING)
        return "the episode is over";
    if (b->phase != PHASE_PLAY)
        return v->opening->illegal_reason(v, b, action);
    const char *why = NULL;
    if (rule_has(v, RULE_TRAIT_OWN_ACTIONS)) /* not one per cell: the family's own */
        why = v->rules->illegal_reason(v, b, action);
    else if (action >= v->g.n_cells)
        why = "a special action of the opening protocol, which is over";
    else if (board_cells_c(v, b)[action] == CELL_OFF)
        why = "off the board";
    else if (board_cells_c(v, b)[action] != CELL_EMPTY)
        why = "occupied";
    else if (v->first_stone_centre && b->n_stones == 0)
        why = "the first stone must go to the centre";
    else if (v->rules->illegal_reason)
        why = v->rules->illegal_reason(v, b, action);
    return why ? why : "not legal now";
}

/* ---- moves ---- */

int game_put_stone(const variant *v, board_hdr *b, int a, int colour)
{
    return v->rules->put_stone(v, b, a, colour);
}

unsigned game_apply(const variant *v, board_hdr *b, int action)
{
    unsigned changes;
    if (b->phase != PHASE_PLAY) {
        v->opening->apply(v, b, action);
        changes = CHANGE_MASK_WIDE | CHANGE_OBS_WIDE; /* the phase planes change */
    } else {
        changes = v->rules->apply(v, b, action);
        if (v->first_stone_centre && b->n_stones == 1)
            changes |= CHANGE_MASK_WIDE; /* every empty cell opens after the centre */
    }
    if (changes & CHANGE_MASK_WIDE)
        game_refresh_legal(v, b);
    if (b->status == STATUS_ONGOING && b->n_legal == 0) {
        b->status = STATUS_TERMINATED; /* nothing left to play: draw */
        b->winner = -1;
    }
    return changes;
}

void game_new_episode(const variant *v, board_hdr *b, uint32_t episode)
{
    b->episode = episode;
    b->sample_key = rng_key(b->board_key, 0, episode, RNG_STREAM_SAMPLE);
    b->env_ctr = b->sample_ctr = 0;
    game_reset(v, b);
    game_start_episode(v, b);
}

void game_step(const variant *v, board_hdr *b, int action)
{
    game_begin_step(v, b);
    game_apply(v, b, action);
    b->steps++;
    if (b->status == STATUS_ONGOING && b->steps >= v->max_steps)
        b->status = STATUS_TRUNCATED;
}

int game_random_legal(const variant *v, const board_hdr *b, uint64_t key, uint32_t *ctr)
{
    const uint64_t *legal = board_legal_c(v, b);
    if (b->n_legal == 0)
        return -1;
    /* One rejection draw first: it hits while most actions are legal (the
     * common case) and costs a load; otherwise an exact select over the bit
     * set. Each branch is uniform over the legal actions, so the mixture is. */
    int a = (int)rng_below(rng_at(key, (*ctr)++), (uint32_t)v->n_actions);
    if (bits_get(legal, a))
        return a;
    int k = (int)rng_below(rng_at(key, (*ctr)++), b->n_legal);
    return bits_select(legal, v->legal_words, k);
}

/* ---- observations ---- */

static void fill_plane(uint8_t *plane, int n, uint8_t value)
{
    memset(plane, value, (size_t)n);
}

static uint8_t *plane(const variant *v, uint8_t *out, int k)
{
    return out + (size_t)k * (size_t)v->g.n_cells;
}

/* The turn plane a kind lacks (see variant.h). */
static uint8_t turn_value(const board_hdr *b, int kind)
{
    return kind == OBS_ABSOLUTE ? b->seat == b->black_seat : b->colour == COLOUR_BLACK;
}

/* Planes of the protocol and the rule, rewritten whole (out is zeroed). */
static void write_extra_planes(const variant *v, const board_hdr *b, int kind, int viewer,
                               uint8_t *out)
{
    const int n = v->g.n_cells;
    if (v->plane_phase >= 0) {
        for (int k = 0; k < v->n_phases; k++)
            if (v->phases[k] == b->phase)
                fill_plane(plane(v, out, v->plane_phase + k), n, 1);
        fill_plane(plane(v, out, v->plane_turn), n, turn_value(b, kind));
    }
    if (v->plane_declared >= 0)
        v->opening->write_planes(v, b, plane(v, out, v->plane_declared),
                                 plane(v, out, v->plane_offered));
    if (v->plane_rule >= 0)
        v->rules->write_planes(v, b, kind, viewer, plane(v, out, v->plane_rule));
}

void game_write_obs(const variant *v, const board_hdr *b, int kind, uint8_t *out)
{
    game_write_obs_for(v, b, kind, b->seat, out);
}

void game_write_obs_for(const variant *v, const board_hdr *b, int kind, int viewer, uint8_t *out)
{
    const int n = v->g.n_cells;
    const uint8_t *cells = board_cells_c(v, b);
    int np = v->n_planes[kind];
    memset(out, 0, (size_t)np * (size_t)n);
    if (rule_has(v, RULE_TRAIT_OWN_PLANES)) {
        v->rules->write_planes(v, b, kind, viewer, out);
        if (v->plane_on_board >= 0)
            memcpy(out + (size_t)v->plane_on_board * n, v->g.on_board, (size_t)n);
        return;
    }
    /* the colour whose point of view "mover" planes take: the viewer's */
    uint8_t mover = (uint8_t)((viewer == b->black_seat) ? COLOUR_BLACK : COLOUR_WHITE);
    uint8_t first = kind == OBS_ABSOLUTE ? CELL_BLACK : (uint8_t)(mover + 1);
    uint8_t second = (uint8_t)(first ^ 3);
    for (int c = 0; c < n; c++) {
        out[c] = cells[c] == first;
        out[n + c] = cells[c] == second;
    }
    if (kind == OBS_ABSOLUTE)
        fill_plane(out + 2 * n, n, b->colour == COLOUR_BLACK);
    else
        fill_plane(out + 2 * n, n, mover == COLOUR_BLACK);
    if (b->last_move >= 0)
        out[3 * n + b->last_move] = 1;
    write_extra_planes(v, b, kind, viewer, out);
    if (v->plane_on_board >= 0)
        memcpy(out + (size_t)v->plane_on_board * n, v->g.on_board, (size_t)n);
}

void game_obs_snapshot(const variant *v, const board_hdr *b, rule_snapshot *s)
{
    if (v->rules->snapshot)
        v->rules->snapshot(v, b, s);
}

int game_update_obs(const variant *v, const board_hdr *b, int kind, int action, int prev_last,
                    unsigned changes, int snapped, const rule_snapshot *s, uint8_t *out)
{
    if (rule_has(v, RULE_TRAIT_OWN_PLANES)) { /* the same in both kinds */
        v->rules->update_planes(v, b, s, action, prev_last, out);
        return 1;
    }
    if (kind != OBS_ABSOLUTE || !snapped || (changes & CHANGE_OBS_WIDE))
        return 0;
    const int n = v->g.n_cells;
    const uint8_t *cells = board_cells_c(v, b);
    out[(cells[action] == CELL_BLACK ? 0 : n) + action] = 1;
    fill_plane(out + 2 * n, n, b->colour == COLOUR_BLACK);
    if (prev_last >= 0)
        out[3 * n + prev_last] = 0;
    out[3 * n + action] = 1;
    if (v->plane_turn >= 0)
        fill_plane(plane(v, out, v->plane_turn), n, turn_value(b, OBS_ABSOLUTE));
    if (v->plane_rule >= 0 && v->rules->update_planes)
        v->rules->update_planes(v, b, s, action, prev_last, out);
    return 1;
}

void game_begin_step(const variant *v, board_hdr *b)
{
    int32_t *points = v->rules->step_points ? v->rules->step_points(v, b) : NULL;
    if (points)
        points[0] = points[1] = 0;
}

void game_start_episode(const variant *v, board_hdr *b)
{
    if (v->rules->start_episode) {
        v->rules->start_episode(v, b);
        game_refresh_legal(v, b); /* what the family dealt may change it */
    }
}

void game_rewards(const variant *v, const board_hdr *b, float r[2])
{
    r[0] = r[1] = 0.0f;
    const int32_t *points = v->rules->step_points ? v->rules->step_points(v, (board_hdr *)b) : NULL;
    if (v->p.reward_mode == REWARD_POINTS && points) {
        /* points as they are scored, by seat */
        r[0] = (float)points[0];
        r[1] = (float)points[1];
        return;
    }
    if (b->status == STATUS_TERMINATED && b->winner >= 0) {
        r[b->winner] = 1.0f;
        r[b->winner ^ 1] = -1.0f;
    }
}

void game_figures(const variant *v, const board_hdr *b, rule_figures *out)
{
    memset(out, 0, sizeof(*out));
    if (v->rules->figures)
        v->rules->figures(v, b, out);
}

void game_scores(const variant *v, const board_hdr *b, int32_t scores[2], int32_t cast[2],
                 int32_t *casts)
{
    rule_figures f;
    game_figures(v, b, &f);
    for (int s = 0; s < 2; s++) {
        scores[s] = f.scores[s];
        cast[s] = f.cast_points[s];
    }
    *casts = f.casts;
}

const uint64_t *game_forbidden(const variant *v, const board_hdr *b, int colour)
{
    return v->rules->forbidden ? v->rules->forbidden(v, b, colour) : NULL;
}
