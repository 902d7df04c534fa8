/* The resolution of a variant from its parameters (SPEC section 8): it picks
 * the rule family's row (registry.c) and the opening protocol's, and lays
 * out a board's state by their sizes. The parameters themselves: params.c. */
#include "game/variant.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "game/game.h"
#include "game/rule_family.h"
#include "openings/opening.h"
#include "variants/registry.h"

/* ---- resolution ---- */

/* The observation planes: the family's own whole observation, or the four
 * stone planes, then the protocol's (phases, turn; soosorv's declared number
 * and offers), the family's, and on_board where the raster has cells off
 * the board. */
static void set_planes(variant *v)
{
    int extra_board = v->g.n_on_board < v->g.n_cells;
    const char **a = v->plane_names[OBS_ABSOLUTE], **m = v->plane_names[OBS_MOVER];
    int na = 0, nm = 0;
    v->plane_on_board = v->plane_rule = -1;
    v->n_rule_planes = 0;
    v->plane_phase = v->plane_turn = v->plane_declared = v->plane_offered = -1;
    if (rule_has(v, RULE_TRAIT_OWN_PLANES)) {
        na = nm = v->rules->planes(v, a, m);
    } else {
        a[na++] = "black";
        a[na++] = "white";
        a[na++] = "black_to_move";
        a[na++] = "last_move";
        m[nm++] = "own";
        m[nm++] = "opponent";
        m[nm++] = "mover_is_black";
        m[nm++] = "last_move";
        /* optional planes sit at the same index in both kinds */
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
        if (v->opening && v->opening->offer_planes) {
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
        if (v->rules->planes) {
            v->plane_rule = na;
            v->n_rule_planes = v->rules->planes(v, a + na, m + nm);
            na += v->n_rule_planes;
            nm += v->n_rule_planes;
        }
    }
    if (extra_board) {
        v->plane_on_board = na;
        a[na++] = "on_board";
        m[nm++] = "on_board";
    }
    v->n_planes[OBS_ABSOLUTE] = na;
    v->n_planes[OBS_MOVER] = nm;
}

static size_t size_of(size_t (*bytes)(const variant *), const variant *v)
{
    return bytes ? (bytes(v) + 7) & ~(size_t)7 : 0;
}

int variant_init(variant *v, const variant_params *p, char *err, size_t errlen)
{
    memset(v, 0, sizeof(*v));
    v->p = *p;
    const rule_entry *entry = registry_rule(p->rule);
    if (!entry) {
        snprintf(err, errlen, "parameter 'rule' = %d names no rule family", p->rule);
        return -1;
    }
    v->rules = entry->family;
    v->rule_flavour = entry->flavour;
    v->family_param_base = registry_param_base(v->rules);
    if (p->geometry == GEOM_TESS) /* tess boards wrap by construction: no edge option */
        v->p.edge = EDGE_WALL;
    if (geometry_init(&v->g, p->geometry, p->height, p->width, p->order, p->edge, err, errlen))
        return -1;
    if (geometry_windows(&v->g, p->connect, NULL, 0) == 0) {
        snprintf(err, errlen, "no line of connect=%d distinct cells fits on this %dx%d %s board",
                 p->connect, p->height, p->width, variant_geometry_name(p->geometry));
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
    if (v->rules->prepare(v, err, errlen)) {
        variant_free(v);
        return -1;
    }
    for (int c = 0; c < 2; c++)
        v->win_shape[c] = win_rule_shape(&v->win[c]);
    protocol_info proto;
    if (protocol_prepare(v, &proto, err, errlen)) {
        variant_free(v);
        return -1;
    }
    rule_actions acts = {v->g.n_cells, 0, {NULL}, 0};
    v->rules->actions(v, &acts);
    v->n_special = proto.n_special + acts.n_special;
    for (int k = 0; k < proto.n_special; k++)
        v->special_names[k] = proto.special_names[k];
    for (int k = 0; k < acts.n_special; k++)
        v->special_names[proto.n_special + k] = acts.special_names[k];
    v->n_phases = proto.n_phases;
    memcpy(v->phases, proto.phases, sizeof(proto.phases));
    v->first_phase = proto.first_phase;
    v->n_actions = acts.action_cells + v->n_special;
    v->max_steps =
        p->max_steps ? p->max_steps : v->g.n_on_board + proto.extra_steps + acts.extra_steps;
    v->legal_words = BITS_WORDS(v->n_actions);
    v->off_cells = sizeof(board_hdr);
    /* cells, then the CELL_OFF sentinel that geometry.hop leads off the edge to */
    v->off_legal = (v->off_cells + (size_t)v->g.n_cells + 1 + 7) & ~(size_t)7;
    v->off_lines = v->off_legal + sizeof(uint64_t) * (size_t)v->legal_words;
    /* uncoloured stones (MODLINSEQ's tiles): no line bit sets */
    v->n_line_words = rule_has(v, RULE_TRAIT_NO_COLOURS) ? 0 : v->g.n_lines;
    size_t end = (v->off_lines + sizeof(uint32_t) * 2 * (size_t)v->n_line_words + 7) & ~(size_t)7;
    v->off_rule_derived = end;
    end += size_of(v->rules->derived_bytes, v);
    v->derived_end = end;
    if (protocol_state_bytes(v)) {
        v->off_protocol = end;
        end += protocol_state_bytes(v);
    }
    if (v->rules->own_bytes) {
        v->off_rule_own = end;
        end += size_of(v->rules->own_bytes, v);
    }
    v->off_cache = end;
    end += size_of(v->rules->cache_bytes, v);
    v->state_size = end;
    v->fingerprint = variant_params_fingerprint(&v->p);
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
    v->initial = NULL;
    if (v->rules && v->rules->release)
        v->rules->release(v);
}
