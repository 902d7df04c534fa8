/* Gomorpion as a rule family (SPEC section 6): casts, captures and sieges
 * (gomorpion.c); points decide the game. Its ten planes show the stones'
 * statuses, the sieges, the safe stones and the legal cells. */
#include <string.h>

#include "game/game.h"
#include "rules/families.h"
#include "rules/gomorpion.h"

static int prepare(variant *v, char *err, size_t errlen)
{
    for (int c = 0; c < 2; c++) { /* a run of connect or more ends a cast */
        v->win[c].connect = v->p.connect;
        v->win[c].overline = 1;
        v->win[c].ends = WIN_ENDS_ANY;
    }
    return gomorpion_prepare(v, err, errlen);
}

static void actions(const variant *v, rule_actions *out)
{
    out->action_cells = v->g.n_cells;
}

static int planes(const variant *v, const char **absolute, const char **mover)
{
    (void)v;
    static const char *const by_colour[10] = {"black_recapturable",
                                              "black_captured",
                                              "white_recapturable",
                                              "white_captured",
                                              "black_siege_solid",
                                              "black_siege_breakable",
                                              "white_siege_solid",
                                              "white_siege_breakable",
                                              "safe",
                                              "legal"};
    static const char *const by_side[10] = {"own_recapturable",
                                            "own_captured",
                                            "opponent_recapturable",
                                            "opponent_captured",
                                            "own_siege_solid",
                                            "own_siege_breakable",
                                            "opponent_siege_solid",
                                            "opponent_siege_breakable",
                                            "safe",
                                            "legal"};
    for (int k = 0; k < 10; k++) {
        absolute[k] = by_colour[k];
        mover[k] = by_side[k];
    }
    return 10;
}

static void legal(const variant *v, const board_hdr *b, uint64_t *out)
{
    gomorpion_legal(v, b, b->colour, out);
}

static unsigned apply(const variant *v, board_hdr *b, int a)
{
    return gomorpion_apply(v, b, a); /* sets CHANGE_MASK_WIDE: the legal set is rebuilt */
}

static const char *illegal_reason(const variant *v, const board_hdr *b, int action)
{
    (void)v;
    (void)b;
    (void)action;
    return "inside a solid siege of the opponent";
}

static void inert_stones(const variant *v, const board_hdr *b, uint64_t *out)
{
    const uint8_t *status = gomorpion_status_c(v, b);
    for (int c = 0; c < v->g.n_cells; c++)
        if ((status[c] & STONE_STATUS) == STONE_CAPTURED)
            bits_set(out, c);
}

/* Statuses and sieges by colour (absolute) or by side (mover: the viewer's
 * first), safe stones, the legal cells. */
static void write_planes(const variant *v, const board_hdr *b, int kind, int viewer, uint8_t *out)
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

/* In place, only the legal plane follows a stone (a cast end rewrites all). */
static void snapshot(const variant *v, const board_hdr *b, rule_snapshot *s)
{
    memcpy(s->words, board_legal_c(v, b), sizeof(uint64_t) * BITS_WORDS(v->g.n_cells));
}

static void update_planes(const variant *v, const board_hdr *b, const rule_snapshot *s, int action,
                          int prev_last, uint8_t *out)
{
    (void)action;
    (void)prev_last;
    const int n = v->g.n_cells;
    bits_to_bytes_changed(s->words, board_legal_c(v, b), BITS_WORDS(n),
                          out + (size_t)(v->plane_rule + 9) * (size_t)n);
}

static int32_t *step_points(const variant *v, board_hdr *b)
{
    return gomorpion_of(v, b)->step_points;
}

static void figures(const variant *v, const board_hdr *b, rule_figures *out)
{
    const gomorpion_state *gs = gomorpion_of_c(v, b);
    for (int s = 0; s < 2; s++) {
        out->scores[s] = gs->score[s];
        out->cast_points[s] = gs->cast_points[s];
    }
    out->casts = gs->casts;
}

static void details(const variant *v, const board_hdr *b, rule_details *out)
{
    const uint64_t *solid = gomorpion_bits_c(v, b, GBITS_SOLID);
    memcpy(out->stone_status, gomorpion_status_c(v, b), (size_t)v->g.n_cells);
    for (int c = 0; c < v->g.n_cells; c++)
        for (int x = 0; x < 2; x++)
            if (bits_get(gomorpion_bits_c(v, b, GBITS_SIEGED + x), c))
                out->siege[c] = (uint8_t)(1 + x + 2 * bits_get(solid, c));
}

/* Statuses as given; captured stones are points for the seats given, else
 * for the colour that did not lose them. */
static const char *load_status(const variant *v, board_hdr *b, const uint8_t *cells,
                               const uint8_t *status, const int32_t *scores)
{
    int captured = 0;
    for (int c = 0; status && c < v->g.n_cells; c++) {
        if (status[c] && (status[c] > STONE_CAPTURED || cells[c] == CELL_EMPTY))
            return "a status on an empty cell, or an unknown status";
        captured += status[c] == STONE_CAPTURED;
    }
    if (scores && (scores[0] < 0 || scores[1] < 0 || scores[0] + scores[1] != captured))
        return "scores must be given for gomorpion only, and add up to the captured stones";
    if (!b)
        return NULL;
    gomorpion_state *gs = gomorpion_of(v, b);
    for (int c = 0; c < v->g.n_cells; c++) {
        gomorpion_status(v, b)[c] = status ? status[c] : STONE_LIVE;
        if (!scores && status && status[c] == STONE_CAPTURED)
            gs->score[2 - cells[c]]++;
    }
    if (scores) {
        gs->score[0] = scores[0];
        gs->score[1] = scores[1];
    }
    return NULL;
}

const rule_family rule_family_gomorpion = {
    .name = "gomorpion",
    .traits = RULE_TRAIT_SCORING | RULE_TRAIT_STATUSES,
    .prepare = prepare,
    .actions = actions,
    .own_bytes = gomorpion_state_bytes,
    .planes = planes,
    .derive = gomorpion_derive,
    .legal = legal,
    .apply = apply,
    .illegal_reason = illegal_reason,
    .inert_stones = inert_stones,
    .write_planes = write_planes,
    .snapshot = snapshot,
    .update_planes = update_planes,
    .step_points = step_points,
    .figures = figures,
    .details = details,
    .check = gomorpion_check,
    .load_status = load_status,
};
