#include "game/variant.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "game/game.h"
#include "openings/opening.h"
#include "rules/gomorpion.h"
#include "rules/modlinseq.h"
#include "rules/renju.h"

/* ---- the parameter table: one row per parameter name of SPEC section 8 ---- */

typedef struct param_def {
    const char *name;
    size_t offset;              /* into variant_params */
    const char *const *choices; /* NULL-terminated names for enum parameters */
    int lo, hi;                 /* range for integer parameters */
} param_def;

static const char *const geometry_names[] = {"plane", "strip", "torus", "hex", "tess", NULL};
static const char *const edge_names[] = {"wall", "wrap", "bounce", NULL};
static const char *const rule_names[] = {"freestyle", "standard",  "caro", "renju",
                                         "gomorpion", "modlinseq", NULL};
static const char *const reward_mode_names[] = {"outcome", "points", NULL};
static const char *const forbidden_names[] = {"mask", "lose", NULL};
static const char *const caro_end_names[] = {"open", "not_both_blocked", "gomocup", "gomocup6",
                                             NULL};
static const char *const protocol_names[] = {"free", "center", "soosorv", "swap2", NULL};

#define P(field) offsetof(variant_params, field)
static const param_def params[] = {
    {"geometry", P(geometry), geometry_names, 0, 0},
    {"height", P(height), NULL, 3, GEOM_MAX_SIDE},
    {"width", P(width), NULL, 3, GEOM_MAX_SIDE},
    {"order", P(order), NULL, 2, 15},
    {"edge", P(edge), edge_names, 0, 0},
    {"rule", P(rule), rule_names, 0, 0},
    {"connect", P(connect), NULL, 2, 16},
    {"caro_ends", P(caro_ends), caro_end_names, 0, 0},
    {"forbidden", P(forbidden), forbidden_names, 0, 0},
    {"protocol", P(protocol), protocol_names, 0, 0},
    {"max_offers", P(max_offers), NULL, 1, 8},
    {"max_steps", P(max_steps), NULL, 0, 65535},
    {"neighbourhood", P(neighbourhood), NULL, 4, 8},
    {"capture_threshold", P(capture_threshold), NULL, 1, 8},
    {"reward_mode", P(reward_mode), reward_mode_names, 0, 0},
    {"modulus", P(modulus), NULL, 2, 36},
    {"copies", P(copies), NULL, 1, 8},
    {"hand_size", P(hand_size), NULL, 1, 12},
};
#undef P
#define N_PARAMS ((int)(sizeof(params) / sizeof(params[0])))

int variant_param_count(void)
{
    return N_PARAMS;
}

int variant_param_info(int i, const char **name, const char *const **choices, int *lo, int *hi)
{
    if (i < 0 || i >= N_PARAMS)
        return -1;
    *name = params[i].name;
    *choices = params[i].choices;
    *lo = params[i].lo;
    *hi = params[i].hi;
    return 0;
}

const char *variant_geometry_name(int kind)
{
    return geometry_names[kind];
}

const char *variant_param_names(void)
{
    return "geometry, size, height, width, order, edge, rule, connect, caro_ends, forbidden, "
           "protocol, "
           "max_offers, max_steps, neighbourhood, capture_threshold, reward_mode, modulus, "
           "copies, hand_size";
}

void variant_params_default(variant_params *p)
{
    memset(p, 0, sizeof(*p));
    p->geometry = GEOM_PLANE;
    p->height = 15;
    p->width = 15;
    p->order = 7;
    p->edge = EDGE_WALL;
    p->rule = RULE_FREESTYLE;
    p->connect = 5;
    p->caro_ends = CARO_OPEN;
    p->forbidden = FORBIDDEN_MASK;
    p->protocol = PROTO_FREE;
    p->max_offers = 8;
    p->neighbourhood = 8;
    p->capture_threshold = 4;
    p->reward_mode = REWARD_OUTCOME;
    p->modulus = 18;
    p->copies = 4;
    p->hand_size = 6;
    p->max_steps = 0; /* 0: enough to fill the board */
}

static void join_choices(const char *const *choices, char *buf, size_t len)
{
    buf[0] = '\0';
    for (int i = 0; choices[i]; i++) {
        if (i)
            strncat(buf, ", ", len - strlen(buf) - 1);
        strncat(buf, choices[i], len - strlen(buf) - 1);
    }
}

static int set_one(variant_params *p, const param_def *d, const char *value, char *err,
                   size_t errlen)
{
    int *field = (int *)((char *)p + d->offset);
    if (d->choices) {
        for (int i = 0; d->choices[i]; i++)
            if (strcmp(d->choices[i], value) == 0) {
                *field = i;
                return 0;
            }
        char allowed[256];
        join_choices(d->choices, allowed, sizeof(allowed));
        snprintf(err, errlen, "parameter '%s' has bad value '%s'; allowed: %s", d->name, value,
                 allowed);
        return -1;
    }
    char *end;
    errno = 0;
    long x = strtol(value, &end, 10);
    if (errno || end == value || *end != '\0') {
        snprintf(err, errlen, "parameter '%s' must be an integer, got '%s'", d->name, value);
        return -1;
    }
    if (x < d->lo || x > d->hi) {
        snprintf(err, errlen, "parameter '%s' = %ld is out of range %d..%d", d->name, x, d->lo,
                 d->hi);
        return -1;
    }
    *field = (int)x;
    return 0;
}

int variant_params_set(variant_params *p, const char *key, const char *value, char *err,
                       size_t errlen)
{
    if (strcmp(key, "size") == 0) {
        variant_params q = *p;
        if (set_one(&q, &params[1], value, err, errlen)) {
            /* report the error under the name the user gave */
            snprintf(err, errlen, "parameter 'size' must be an integer in %d..%d, got '%s'", 3,
                     GEOM_MAX_SIDE, value);
            return -1;
        }
        p->height = p->width = q.height;
        return 0;
    }
    for (int i = 0; i < N_PARAMS; i++)
        if (strcmp(params[i].name, key) == 0)
            return set_one(p, &params[i], value, err, errlen);
    snprintf(err, errlen, "unknown parameter '%s'; allowed: %s", key, variant_param_names());
    return -1;
}

int variant_params_describe(const variant_params *p, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < N_PARAMS; i++) {
        const param_def *d = &params[i];
        int x = *(const int *)((const char *)p + d->offset);
        int n = d->choices ? snprintf(buf + used, len - used, "%s=%s\n", d->name, d->choices[x])
                           : snprintf(buf + used, len - used, "%s=%d\n", d->name, x);
        if (n < 0 || (size_t)n >= len - used)
            return -1;
        used += (size_t)n;
    }
    return 0;
}

/* ---- resolution ---- */

static uint32_t params_fingerprint(const variant_params *p)
{
    uint64_t h = 0x66697665726f77ULL; /* "fiverow" */
    const int *x = (const int *)p;
    for (size_t i = 0; i < sizeof(*p) / sizeof(int); i++)
        h = rng_mix64(h ^ (uint64_t)(uint32_t)x[i]);
    return (uint32_t)(h >> 32) | 1u; /* never 0: a zeroed block is not a state */
}

/* MODLINSEQ's planes, the same for both observation kinds (the hand shown is
 * always the mover's): tile, value_0.., placed_this_turn, last_move,
 * seat_0_to_act, hand_v (holds one), hand2_v (holds two), bag_1.. (the bag's
 * size in binary), then on_board. */
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

static int modlinseq_planes(const variant *v, const char **names)
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

static void set_planes(variant *v)
{
    int extra_board = v->g.n_on_board < v->g.n_cells;
    const char **a = v->plane_names[OBS_ABSOLUTE], **m = v->plane_names[OBS_MOVER];
    int na = 0, nm = 0;
    v->plane_forbidden = v->plane_on_board = -1;
    v->plane_phase = v->plane_turn = v->plane_declared = v->plane_offered = -1;
    v->plane_gomorpion = -1;
    if (v->p.rule == RULE_MODLINSEQ) {
        na = nm = modlinseq_planes(v, a);
        modlinseq_planes(v, m);
        if (extra_board) {
            v->plane_on_board = na;
            a[na++] = m[nm++] = "on_board";
        }
        v->n_planes[OBS_ABSOLUTE] = na;
        v->n_planes[OBS_MOVER] = nm;
        return;
    }
    a[na++] = "black";
    a[na++] = "white";
    a[na++] = "black_to_move";
    a[na++] = "last_move";
    m[nm++] = "own";
    m[nm++] = "opponent";
    m[nm++] = "mover_is_black";
    m[nm++] = "last_move";
    /* optional planes sit at the same index in both kinds */
    v->plane_forbidden = v->plane_on_board = -1;
    v->plane_phase = v->plane_turn = v->plane_declared = v->plane_offered = -1;
    v->plane_gomorpion = -1;
    if (v->p.rule == RULE_GOMORPION) {
        static const char *const absolute[10] = {"black_recapturable",
                                                 "black_captured",
                                                 "white_recapturable",
                                                 "white_captured",
                                                 "black_siege_solid",
                                                 "black_siege_breakable",
                                                 "white_siege_solid",
                                                 "white_siege_breakable",
                                                 "safe",
                                                 "legal"};
        static const char *const mover[10] = {"own_recapturable",
                                              "own_captured",
                                              "opponent_recapturable",
                                              "opponent_captured",
                                              "own_siege_solid",
                                              "own_siege_breakable",
                                              "opponent_siege_solid",
                                              "opponent_siege_breakable",
                                              "safe",
                                              "legal"};
        v->plane_gomorpion = na;
        for (int k = 0; k < 10; k++) {
            a[na++] = absolute[k];
            m[nm++] = mover[k];
        }
    }
    if (v->n_phases > 1) {
        static const char *const phase_planes[N_PHASES] = {
            "phase_play",          "phase_first",  "phase_second",  "phase_third",
            "phase_swap",          "phase_fourth", "phase_declare", "phase_second_swap",
            "phase_offer",         "phase_pick",   "phase_first",   "phase_second",
            "phase_third",         "phase_choice", "phase_fourth",  "phase_fifth",
            "phase_second_choice",
        };
        v->plane_phase = na;
        for (int k = 0; k < v->n_phases; k++) {
            a[na++] = phase_planes[v->phases[k]];
            m[nm++] = phase_planes[v->phases[k]];
        }
        v->plane_turn = na;
        a[na++] = "mover_is_black";
        m[nm++] = "black_to_move";
    }
    if (v->p.protocol == PROTO_SOOSORV) {
        static const char *const declared[4] = {"declared_1", "declared_2", "declared_4",
                                                "declared_8"};
        v->plane_declared = na;
        for (int k = 0; k < 4; k++) {
            a[na++] = declared[k];
            m[nm++] = declared[k];
        }
        v->plane_offered = na;
        a[na++] = "offered";
        m[nm++] = "offered";
    }
    if (v->p.rule == RULE_RENJU) {
        v->plane_forbidden = na;
        a[na++] = "forbidden";
        m[nm++] = "forbidden";
    }
    if (extra_board) {
        v->plane_on_board = na;
        a[na++] = "on_board";
        m[nm++] = "on_board";
    }
    v->n_planes[OBS_ABSOLUTE] = na;
    v->n_planes[OBS_MOVER] = nm;
}

int variant_init(variant *v, const variant_params *p, char *err, size_t errlen)
{
    memset(v, 0, sizeof(*v));
    v->p = *p;
    if (p->geometry == GEOM_TESS) /* tess boards wrap by construction: no edge option */
        v->p.edge = EDGE_WALL;
    if (geometry_init(&v->g, p->geometry, p->height, p->width, p->order, p->edge, err, errlen))
        return -1;
    if (geometry_windows(&v->g, p->connect, NULL, 0) == 0) {
        snprintf(err, errlen, "no line of connect=%d distinct cells fits on this %dx%d %s board",
                 p->connect, p->height, p->width, geometry_names[p->geometry]);
        variant_free(v);
        return -1;
    }
    /* rays long enough for an exact-length check on either side, and for the
     * renju windows of five cells on either side */
    if (geometry_build_rays(&v->g, p->connect > 5 ? p->connect : 5)) {
        snprintf(err, errlen, "out of memory building the geometry");
        variant_free(v);
        return -1;
    }
    lines_win_rules(&v->p, v->win);
    for (int c = 0; c < 2; c++)
        v->win_shape[c] = win_rule_shape(&v->win[c]);
    if ((p->rule == RULE_RENJU && renju_prepare(v, err, errlen)) ||
        (p->rule == RULE_GOMORPION && gomorpion_prepare(v, err, errlen)) ||
        (p->rule == RULE_MODLINSEQ && modlinseq_prepare(v, err, errlen))) {
        variant_free(v);
        return -1;
    }
    protocol_info proto;
    if (protocol_prepare(v, &proto, err, errlen)) {
        variant_free(v);
        return -1;
    }
    v->n_special = proto.n_special;
    for (int k = 0; k < proto.n_special; k++)
        v->special_names[k] = proto.special_names[k];
    int action_cells = v->g.n_cells;
    if (p->rule == RULE_MODLINSEQ) { /* tile actions: cell * modulus + value */
        v->n_special = MODLINSEQ_SPECIALS;
        v->special_names[MODLINSEQ_END_TURN] = "END_TURN";
        v->special_names[MODLINSEQ_PASS] = "PASS";
        action_cells = v->g.n_cells * p->modulus;
        /* every tile, a turn end for each, passes: more than any game takes */
        proto.extra_steps = 3 * p->modulus * p->copies + 8 - v->g.n_on_board;
    }
    v->n_phases = proto.n_phases;
    memcpy(v->phases, proto.phases, sizeof(proto.phases));
    v->first_phase = proto.first_phase;
    v->n_actions = action_cells + v->n_special;
    v->max_steps = p->max_steps ? p->max_steps : v->g.n_on_board + proto.extra_steps;
    v->legal_words = BITS_WORDS(v->n_actions);
    v->off_cells = sizeof(board_hdr);
    /* cells, then the CELL_OFF sentinel that geometry.hop leads off the edge to */
    v->off_legal = (v->off_cells + (size_t)v->g.n_cells + 1 + 7) & ~(size_t)7;
    v->off_lines = v->off_legal + sizeof(uint64_t) * (size_t)v->legal_words;
    /* MODLINSEQ's tiles have no colour: no line bit sets */
    v->n_line_words = p->rule == RULE_MODLINSEQ ? 0 : v->g.n_lines;
    size_t end = (v->off_lines + sizeof(uint32_t) * 2 * (size_t)v->n_line_words + 7) & ~(size_t)7;
    if (p->rule == RULE_RENJU) {
        v->off_renju = end;
        end += renju_state_bytes(v);
    }
    if (p->rule == RULE_MODLINSEQ) {
        v->off_mls_fit = end;
        end += modlinseq_derived_bytes(v);
    }
    v->derived_end = end;
    if (protocol_state_bytes(v)) {
        v->off_protocol = end;
        end += protocol_state_bytes(v);
    }
    if (p->rule == RULE_GOMORPION) {
        v->off_gomorpion = end;
        end += gomorpion_state_bytes(v);
    }
    if (p->rule == RULE_MODLINSEQ) {
        v->off_modlinseq = end;
        end += (modlinseq_state_bytes(v) + 7) & ~(size_t)7;
    }
    v->off_cache = end;
    if (p->rule == RULE_RENJU)
        end += renju_cache_bytes(v);
    v->state_size = end;
    v->fingerprint = params_fingerprint(&v->p);
    set_planes(v);
    v->initial = calloc(1, v->state_size);
    if (!v->initial) {
        snprintf(err, errlen, "out of memory");
        variant_free(v);
        return -1;
    }
    game_build_initial(v, (board_hdr *)v->initial);
    return 0;
}

void variant_free(variant *v)
{
    geometry_free(&v->g);
    free(v->initial);
    free(v->renju_star);
    mls_free(v->mls);
    v->initial = NULL;
    v->renju_star = NULL;
    v->mls = NULL;
}
