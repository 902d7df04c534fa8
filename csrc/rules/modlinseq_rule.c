/* MODLINSEQ as a rule family (SPEC section 7): number tiles from a shuffled
 * bag, actions cell x value plus END_TURN and PASS, a whole observation of
 * its own (modlinseq.c), points decide the game. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "base/rng.h"
#include "game/game.h"
#include "rules/families.h"
#include "rules/modlinseq.h"

static int prepare(variant *v, char *err, size_t errlen)
{
    for (int c = 0; c < 2; c++) /* no line wins */
        v->win[c] = (win_rule){0, 0, WIN_ENDS_ANY};
    return modlinseq_prepare(v, err, errlen);
}

static void release(variant *v)
{
    mls_free((mls_lines *)v->rule_data);
    v->rule_data = NULL;
}

static void actions(const variant *v, rule_actions *out)
{
    out->action_cells = v->g.n_cells * v->p.modulus; /* cell * modulus + value */
    out->n_special = MODLINSEQ_SPECIALS;
    out->special_names[MODLINSEQ_END_TURN] = "END_TURN";
    out->special_names[MODLINSEQ_PASS] = "PASS";
    /* every tile, a turn end for each, passes: more than any game takes */
    out->extra_steps = 3 * v->p.modulus * v->p.copies + 8 - v->g.n_on_board;
}

static size_t own_bytes(const variant *v)
{
    return (modlinseq_state_bytes(v) + 7) & ~(size_t)7;
}

/* The planes, the same for both observation kinds (the hand shown is always
 * the mover's): tile, value_0.., placed_this_turn, last_move, seat_0_to_act,
 * hand_v (holds one), hand2_v (holds two), bag_1.. (the bag's size in
 * binary). */
static char value_names[3][36][24];
static pthread_once_t value_names_once = PTHREAD_ONCE_INIT;

static void make_value_names(void)
{
    for (int k = 0; k < 36; k++) {
        snprintf(value_names[0][k], sizeof(value_names[0][k]), "value_%d", k);
        snprintf(value_names[1][k], sizeof(value_names[1][k]), "hand_%d", k);
        snprintf(value_names[2][k], sizeof(value_names[2][k]), "hand2_%d", k);
    }
}

static int plane_names(const variant *v, const char **names)
{
    static const char *const bag_bits[MODLINSEQ_BAG_BITS] = {
        "bag_1", "bag_2", "bag_4", "bag_8", "bag_16", "bag_32", "bag_64", "bag_128", "bag_256"};
    pthread_once(&value_names_once, make_value_names);
    int n = 0, m = v->p.modulus;
    names[n++] = "tile";
    for (int k = 0; k < m; k++)
        names[n++] = value_names[0][k];
    names[n++] = "placed_this_turn";
    names[n++] = "last_move";
    names[n++] = "seat_0_to_act";
    for (int k = 0; k < m; k++)
        names[n++] = value_names[1][k];
    for (int k = 0; k < m; k++)
        names[n++] = value_names[2][k];
    for (int k = 0; k < MODLINSEQ_BAG_BITS; k++)
        names[n++] = bag_bits[k];
    return n;
}

static int planes(const variant *v, const char **absolute, const char **mover)
{
    plane_names(v, mover);
    return plane_names(v, absolute);
}

static void start_episode(const variant *v, board_hdr *b)
{
    modlinseq_start(v, b, board_env_key(b), &b->env_ctr);
}

static void legal(const variant *v, const board_hdr *b, uint64_t *out)
{
    modlinseq_legal(v, b, out);
}

static unsigned apply(const variant *v, board_hdr *b, int action)
{
    modlinseq_apply(v, b, action);
    return CHANGE_MASK_WIDE; /* modlinseq_update_obs brings the planes up to date */
}

static void write_planes(const variant *v, const board_hdr *b, int kind, int viewer, uint8_t *out)
{
    (void)kind;
    modlinseq_write_obs(v, b, viewer, out);
}

static void snapshot(const variant *v, const board_hdr *b, rule_snapshot *s)
{
    modlinseq_uniform_planes(v, b, b->seat, s->words);
}

static void update_planes(const variant *v, const board_hdr *b, const rule_snapshot *s, int action,
                          int prev_last, uint8_t *out)
{
    modlinseq_update_obs(v, b, s->words, action, prev_last, out);
}

/* Greedily: each tile scored by the points END_TURN would make after it;
 * END_TURN by the points it makes now; PASS only when alone. */
static void greedy_scores(const variant *v, const board_hdr *b, uint8_t *scratch,
                          const int32_t *cand, float *score, int n)
{
    const int tiles = v->g.n_cells * v->p.modulus;
    for (int j = 0; j < n; j++) {
        int a = cand[j];
        if (a < tiles) {
            memcpy(scratch, b, v->state_size);
            modlinseq_apply(v, (board_hdr *)scratch, a);
            score[j] = (float)modlinseq_turn_points(v, (const board_hdr *)scratch);
        } else if (a - tiles == MODLINSEQ_END_TURN) {
            /* a tile that adds nothing is kept for later: END_TURN wins ties */
            score[j] = (float)modlinseq_turn_points(v, b) + 0.5f;
        } else {
            score[j] = -1.0f; /* PASS */
        }
    }
}

static int32_t *step_points(const variant *v, board_hdr *b)
{
    return modlinseq_of(v, b)->step_points;
}

static void figures(const variant *v, const board_hdr *b, rule_figures *out)
{
    const modlinseq_state *ms = modlinseq_of_c(v, b);
    out->scores[0] = ms->score[0];
    out->scores[1] = ms->score[1];
}

static void details(const variant *v, const board_hdr *b, rule_details *out)
{
    const modlinseq_state *ms = modlinseq_of_c(v, b);
    memcpy(out->tiles, modlinseq_values_c(v, b), (size_t)v->g.n_cells);
    out->n_hands = 2 * v->p.modulus;
    memcpy(out->hands, modlinseq_hand_c(v, b, 0), (size_t)out->n_hands);
    out->bag_left = modlinseq_bag_size(v) - ms->bag_pos;
    out->turn_tiles = ms->turn_tiles;
}

static const char *load_tiles(const variant *v, board_hdr *b, const uint8_t *values,
                              const uint8_t *hands)
{
    return modlinseq_load(v, b, values, hands, board_env_key(b), &b->env_ctr);
}

const rule_family rule_family_modlinseq = {
    .name = "modlinseq",
    .traits = RULE_TRAIT_SCORING | RULE_TRAIT_CHANCE | RULE_TRAIT_NO_COLOURS |
              RULE_TRAIT_OWN_PLANES | RULE_TRAIT_OWN_ACTIONS | RULE_TRAIT_TILES,
    .prepare = prepare,
    .release = release,
    .actions = actions,
    .derived_bytes = modlinseq_derived_bytes,
    .own_bytes = own_bytes,
    .planes = planes,
    .derive = modlinseq_derive,
    .start_episode = start_episode,
    .legal = legal,
    .apply = apply,
    .illegal_reason = modlinseq_illegal_reason,
    .write_planes = write_planes,
    .snapshot = snapshot,
    .update_planes = update_planes,
    .step_points = step_points,
    .figures = figures,
    .details = details,
    .segments = modlinseq_segments,
    .check = modlinseq_check,
    .load_tiles = load_tiles,
    .greedy_scores = greedy_scores,
};
