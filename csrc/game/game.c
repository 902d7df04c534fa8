#include "game/game.h"

#include <string.h>

#include "base/rng.h"
#include "geometry/lines.h"
#include "openings/opening.h"
#include "rules/gomorpion.h"
#include "rules/modlinseq.h"
#include "rules/renju.h"

/* ---- the legal set ---- */

/* Legal cells from scratch: empty cells, less what the protocol and the rule
 * forbid the colour to place. */
void game_refresh_legal(const variant *v, board_hdr *b)
{
    const uint8_t *cells = board_cells(v, b);
    uint64_t *legal = board_legal(v, b);
    memset(legal, 0, sizeof(uint64_t) * (size_t)v->legal_words);
    if (b->phase != PHASE_PLAY) {
        protocol_legal(v, b, legal);
        b->n_legal = (uint16_t)bits_count(legal, v->legal_words);
        return;
    }
    if (v->p.protocol == PROTO_CENTER && b->n_stones == 0) {
        bits_set(legal, v->g.centre);
        b->n_legal = 1;
        return;
    }
    if (v->p.rule == RULE_MODLINSEQ) {
        b->n_legal = (uint16_t)modlinseq_legal(v, b, legal);
        return;
    }
    if (v->p.rule == RULE_GOMORPION) {
        gomorpion_legal(v, b, b->colour, legal);
    } else if (v->p.rule == RULE_RENJU) {
        /* renju keeps the empty cells as bits: legal is a few word operations */
        const uint64_t *empty = renju_empty_c(v, b), *forbidden = renju_forbidden_c(v, b);
        int mask = v->p.forbidden == FORBIDDEN_MASK && b->colour == COLOUR_BLACK;
        for (int w = 0; w < BITS_WORDS(v->g.n_cells); w++)
            legal[w] = empty[w] & (mask ? ~forbidden[w] : ~0ULL);
    } else {
        for (int c = 0; c < v->g.n_cells; c++)
            if (cells[c] == CELL_EMPTY)
                bits_set(legal, c);
    }
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
    if (v->off_protocol)
        protocol_of(v, b)->opening = -1;
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
    if (v->off_protocol) {
        memset(protocol_of(v, b), 0, protocol_state_bytes(v));
        protocol_of(v, b)->opening = -1;
    }
    if (v->p.rule == RULE_RENJU)
        renju_derive(v, b);
    if (v->p.rule == RULE_GOMORPION)
        gomorpion_derive(v, b);
    if (v->p.rule == RULE_MODLINSEQ)
        modlinseq_derive(v, b);
    game_refresh_legal(v, b);
}

void game_forget_caches(const variant *v, board_hdr *b)
{
    if (v->p.rule == RULE_RENJU)
        renju_forget_cache(v, b);
}

/* ---- legality ---- */

static const char *renju_kind_name(int status)
{
    switch (status) {
    case RENJU_OVERLINE:
        return "forbidden for black (overline)";
    case RENJU_DOUBLE_FOUR:
        return "forbidden for black (double-four)";
    default:
        return "forbidden for black (double-three)";
    }
}

const char *game_illegal_reason(const variant *v, const board_hdr *b, int action)
{
    if (action < 0 || action >= v->n_actions)
        return "out of range";
    if (game_is_legal(v, b, action))
        return NULL;
    if (b->status != STATUS_ONGOING)
        return "the episode is over";
    if (b->phase != PHASE_PLAY)
        return protocol_illegal_reason(v, b, action);
    if (v->p.rule == RULE_MODLINSEQ)
        return modlinseq_illegal_reason(v, b, action);
    const uint8_t *cells = board_cells_c(v, b);
    if (action < v->g.n_cells) {
        if (cells[action] == CELL_OFF)
            return "off the board";
        if (cells[action] != CELL_EMPTY)
            return "occupied";
        if (v->p.protocol == PROTO_CENTER && b->n_stones == 0)
            return "the first stone must go to the centre";
        if (v->p.rule == RULE_GOMORPION)
            return "inside a solid siege of the opponent";
        if (v->p.rule == RULE_RENJU && b->colour == COLOUR_BLACK &&
            bits_get(renju_forbidden_c(v, b), action)) {
            uint8_t scratch[GEOM_MAX_CELLS + 1];
            memcpy(scratch, cells, (size_t)v->g.n_cells + 1);
            return renju_kind_name(renju_status(v, scratch, action));
        }
    } else {
        return "a special action of the opening protocol, which is over";
    }
    return "not legal now";
}

/* ---- moves ---- */

/* The seat holding a colour. */
static inline int holder(const board_hdr *b, int colour)
{
    return colour == COLOUR_BLACK ? b->black_seat : b->black_seat ^ 1;
}

int game_put_stone(const variant *v, board_hdr *b, int a, int colour)
{
    uint8_t *cells = board_cells(v, b);
    uint8_t stone = (uint8_t)(colour + 1);
    /* renju: black wins with exactly five, white with five or more; with
     * forbidden="lose" a black foul that is not a five loses at once */
    int foul =
        v->p.rule == RULE_RENJU && colour == COLOUR_BLACK && bits_get(renju_forbidden_c(v, b), a);
    cells[a] = stone;
    int wins = lines_place(v, b, a, stone);
    b->n_stones++;
    b->last_move = (int16_t)a;
    int wide = 0;
    if (v->p.rule == RULE_RENJU) {
        /* black's legal set is not simply the empty cells when a foul stood
         * before or stands after this stone (forbidden="mask") */
        const uint64_t *forbidden = renju_forbidden_c(v, b);
        int words = BITS_WORDS(v->g.n_cells), any = 0;
        for (int w = 0; w < words; w++)
            any |= forbidden[w] != 0;
        renju_after_stone(v, b, a);
        for (int w = 0; w < words; w++)
            any |= forbidden[w] != 0;
        wide = any && v->p.forbidden == FORBIDDEN_MASK;
    }
    if (wins || foul) {
        b->status = STATUS_TERMINATED;
        b->winner = (int8_t)(wins ? holder(b, colour) : holder(b, colour ^ 1));
    }
    return wide;
}

/* Normal play: a stone of the colour to place, then the other seat's turn. */
static unsigned place_stone(const variant *v, board_hdr *b, int a)
{
    unsigned changes = game_put_stone(v, b, a, b->colour) ? CHANGE_MASK_WIDE : 0;
    b->colour ^= 1;
    b->seat ^= 1;
    if (changes & CHANGE_MASK_WIDE || (v->p.protocol == PROTO_CENTER && b->n_stones == 1)) {
        game_refresh_legal(v, b);
        changes |= CHANGE_MASK_WIDE;
    } else {
        bits_clear(board_legal(v, b), a);
        b->n_legal--;
    }
    return changes;
}

unsigned game_apply(const variant *v, board_hdr *b, int action)
{
    unsigned changes;
    if (b->phase != PHASE_PLAY) {
        protocol_apply(v, b, action);
        game_refresh_legal(v, b);
        changes = CHANGE_MASK_WIDE | CHANGE_OBS_WIDE; /* the phase planes change */
    } else if (v->p.rule == RULE_GOMORPION) {
        changes = gomorpion_apply(v, b, action);
        game_refresh_legal(v, b);
    } else if (v->p.rule == RULE_MODLINSEQ) {
        modlinseq_apply(v, b, action);
        game_refresh_legal(v, b);
        changes = CHANGE_MASK_WIDE; /* modlinseq_update_obs brings the planes up to date */
    } else {
        changes = place_stone(v, b, action);
    }
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

/* Points scored by the step just taken, by seat (scoring games), or NULL. */
static int32_t *step_points(const variant *v, board_hdr *b)
{
    if (v->off_gomorpion)
        return gomorpion_of(v, b)->step_points;
    if (v->off_modlinseq)
        return modlinseq_of(v, b)->step_points;
    return NULL;
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

/* Gomorpion's ten planes (variant.c names them): statuses and sieges by
 * colour (absolute) or by side (mover: the viewer's first), safe stones, the
 * legal cells. */
static void write_gomorpion_planes(const variant *v, const board_hdr *b, int kind, int viewer,
                                   uint8_t *out)
{
    const int n = v->g.n_cells;
    const uint8_t *cells = board_cells_c(v, b), *status = gomorpion_status_c(v, b);
    int first = kind == OBS_ABSOLUTE ? COLOUR_BLACK : (viewer == b->black_seat ? 0 : 1);
    const uint64_t *solid = gomorpion_bits_c(v, b, GBITS_SOLID);
    for (int side = 0; side < 2; side++) {
        int colour = first ^ side;
        const uint64_t *sieged = gomorpion_bits_c(v, b, GBITS_SIEGED + colour);
        uint8_t *recap = out + (size_t)(2 * side) * n, *captured = recap + n;
        uint8_t *siege_solid = out + (size_t)(4 + 2 * side) * n, *siege_breakable = siege_solid + n;
        for (int c = 0; c < n; c++) {
            int mine = cells[c] == colour + 1, st = status[c] & STONE_STATUS;
            recap[c] = (uint8_t)(mine && st == STONE_RECAPTURABLE);
            captured[c] = (uint8_t)(mine && st == STONE_CAPTURED);
            int s = bits_get(sieged, c), hard = bits_get(solid, c);
            siege_solid[c] = (uint8_t)(s && hard);
            siege_breakable[c] = (uint8_t)(s && !hard);
        }
    }
    uint8_t *safe = out + (size_t)8 * n;
    for (int c = 0; c < n; c++)
        safe[c] = (uint8_t)((status[c] & STONE_SAFE) != 0);
    bits_to_bytes(board_legal_c(v, b), n, out + (size_t)9 * n);
}

/* Planes of the rule and the protocol, rewritten whole (out is zeroed). */
static void write_extra_planes(const variant *v, const board_hdr *b, int kind, int viewer,
                               uint8_t *out)
{
    const int n = v->g.n_cells;
    if (v->plane_forbidden >= 0)
        bits_to_bytes(renju_forbidden_c(v, b), n, plane(v, out, v->plane_forbidden));
    if (v->plane_phase >= 0) {
        for (int k = 0; k < v->n_phases; k++)
            if (v->phases[k] == b->phase)
                fill_plane(plane(v, out, v->plane_phase + k), n, 1);
        fill_plane(plane(v, out, v->plane_turn), n, turn_value(b, kind));
    }
    if (v->plane_declared >= 0) {
        const protocol_state *ps = protocol_of_c(v, b);
        for (int k = 0; k < 4; k++)
            fill_plane(plane(v, out, v->plane_declared + k), n, (ps->declared >> k) & 1u);
        bits_to_bytes(protocol_offered_c(v, b), n, plane(v, out, v->plane_offered));
    }
    if (v->plane_gomorpion >= 0)
        write_gomorpion_planes(v, b, kind, viewer, plane(v, out, v->plane_gomorpion));
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
    if (v->p.rule == RULE_MODLINSEQ) {
        modlinseq_write_obs(v, b, viewer, out);
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

void game_rule_bits(const variant *v, const board_hdr *b, uint64_t *out)
{
    if (v->plane_forbidden >= 0)
        memcpy(out, renju_forbidden_c(v, b), sizeof(uint64_t) * BITS_WORDS(v->g.n_cells));
    else if (v->plane_gomorpion >= 0) /* the legal plane */
        memcpy(out, board_legal_c(v, b), sizeof(uint64_t) * BITS_WORDS(v->g.n_cells));
}

void game_update_obs_absolute(const variant *v, const board_hdr *b, int cell, int prev_last,
                              const uint64_t *rule_before, uint8_t *out)
{
    const int n = v->g.n_cells;
    const uint8_t *cells = board_cells_c(v, b);
    out[(cells[cell] == CELL_BLACK ? 0 : n) + cell] = 1;
    fill_plane(out + 2 * n, n, b->colour == COLOUR_BLACK);
    if (prev_last >= 0)
        out[3 * n + prev_last] = 0;
    out[3 * n + cell] = 1;
    if (v->plane_forbidden >= 0)
        bits_to_bytes_changed(rule_before, renju_forbidden_c(v, b), BITS_WORDS(n),
                              out + (size_t)v->plane_forbidden * n);
    if (v->plane_turn >= 0)
        fill_plane(plane(v, out, v->plane_turn), n, turn_value(b, OBS_ABSOLUTE));
    if (v->plane_gomorpion >= 0)
        bits_to_bytes_changed(rule_before, board_legal_c(v, b), BITS_WORDS(n),
                              plane(v, out, v->plane_gomorpion + 9));
}

void game_begin_step(const variant *v, board_hdr *b)
{
    int32_t *points = step_points(v, b);
    if (points)
        points[0] = points[1] = 0;
}

void game_start_episode(const variant *v, board_hdr *b)
{
    if (v->off_modlinseq) {
        modlinseq_start(v, b, board_env_key(b), &b->env_ctr);
        game_refresh_legal(v, b); /* the hands are dealt now */
    }
}

void game_rewards(const variant *v, const board_hdr *b, float r[2])
{
    r[0] = r[1] = 0.0f;
    const int32_t *points = step_points(v, (board_hdr *)b);
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

void game_scores(const variant *v, const board_hdr *b, int32_t scores[2], int32_t cast[2],
                 int32_t *casts)
{
    scores[0] = scores[1] = cast[0] = cast[1] = 0;
    *casts = 0;
    if (v->off_modlinseq) {
        const modlinseq_state *ms = modlinseq_of_c(v, b);
        scores[0] = ms->score[0];
        scores[1] = ms->score[1];
    }
    if (v->off_gomorpion) {
        const gomorpion_state *gs = gomorpion_of_c(v, b);
        for (int s = 0; s < 2; s++) {
            scores[s] = gs->score[s];
            cast[s] = gs->cast_points[s];
        }
        *casts = gs->casts;
    }
}
