/* A variant is geometry x rule x protocol x parameters (SPEC section 8),
 * resolved once from key=value parameters and validated with messages that
 * name the parameter and what is allowed. It also fixes the layout of one
 * board's state: a plain byte block that copy/restore move with memcpy. */
#ifndef FIVEROW_VARIANT_H
#define FIVEROW_VARIANT_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/bits.h"
#include "base/rng.h"
#include "game/win_rule.h"
#include "geometry/geometry.h"

enum reward_mode { REWARD_OUTCOME = 0, REWARD_POINTS = 1 };
enum forbidden_mode { FORBIDDEN_MASK = 0, FORBIDDEN_LOSE = 1 };
enum caro_ends { CARO_OPEN = 0, CARO_NOT_BOTH_BLOCKED = 1, CARO_GOMOCUP = 2, CARO_GOMOCUP6 = 3 };
enum protocol_kind { PROTO_FREE = 0, PROTO_CENTER = 1, PROTO_SOOSORV = 2, PROTO_SWAP2 = 3 };
enum obs_kind { OBS_ABSOLUTE = 0, OBS_MOVER = 1 };

/* Cell contents. */
enum { CELL_EMPTY = 0, CELL_BLACK = 1, CELL_WHITE = 2, CELL_OFF = 3 };
enum { COLOUR_BLACK = 0, COLOUR_WHITE = 1 };
enum { STATUS_ONGOING = 0, STATUS_TERMINATED = 1, STATUS_TRUNCATED = 2 };

/* Slots for the parameters rule families declare themselves (rule_family.h:
 * params), numbered across every family by the registry (variants/). */
#define VARIANT_FAMILY_PARAMS 16

typedef struct variant_params {
    int geometry, height, width, order, edge;
    int rule, connect, caro_ends, forbidden, protocol, max_offers, max_steps;
    int neighbourhood, capture_threshold, reward_mode;
    int modulus, copies, hand_size;
    int family[VARIANT_FAMILY_PARAMS];
} variant_params;

#define VARIANT_MAX_PLANES 128
#define VARIANT_MAX_SPECIALS 16
/* MODLINSEQ's cell x value actions on the largest raster */
#define VARIANT_MAX_ACTIONS (GEOM_MAX_CELLS * 36 + VARIANT_MAX_SPECIALS)

struct rule_family;
struct opening_row;

typedef struct variant {
    variant_params p;
    geometry g;
    const struct rule_family *rules; /* the rule family's row (rule_family.h) */
    int rule_flavour; /* which of the family\'s rules `rule` names (variants/registry.c) */
    void *rule_data;  /* what the family's prepare built (tables), or NULL */
    const struct opening_row *opening; /* the protocol's phases (opening_row.h), or NULL */
    int n_actions;                     /* cells of the raster, then special actions */
    int n_special;
    int max_steps;
    int first_stone_centre; /* the protocol puts the first stone on the centre */
    int n_planes[2];        /* per obs_kind */
    int plane_on_board;     /* index of the on_board plane, -1 if absent */
    int plane_rule;         /* the family's first plane (rule_family.planes), -1 if none */
    int n_rule_planes;
    /* protocol planes (-1 if absent): one-hot phases; the turn plane the kind
     * lacks (absolute: the seat to act holds black; mover: black places next);
     * the declared number as 4 binary planes; the offered cells */
    int plane_phase, plane_turn, plane_declared, plane_offered;
    int n_phases;
    int phases[12];
    int first_phase;
    const char *special_names[VARIANT_MAX_SPECIALS];
    const char *plane_names[2][VARIANT_MAX_PLANES];
    int legal_words;
    size_t state_size; /* bytes of one board, a multiple of 8 */
    size_t off_cells, off_legal;
    size_t off_lines;        /* line bit sets, [2][n_line_words] words */
    int n_line_words;        /* g.n_lines where the rule runs on line bit sets, else 0 */
    size_t off_rule_derived; /* the family's data derived from the cells */
    size_t derived_end;      /* [off_lines, derived_end) follows from the cells alone */
    size_t off_protocol;     /* soosorv / swap2: see opening.h; 0 for others */
    size_t off_rule_own;     /* the family's own state (not derived); 0 if none */
    size_t off_cache;        /* caches that are not derived from the cells; state_size if none */
    uint8_t *initial;        /* the state of a fresh game (keys zero) */
    uint32_t fingerprint;    /* identifies the variant inside saved states */
    win_rule win[2];         /* what wins along a line, by colour (win_rule.h) */
    int win_shape[2];        /* win_rule_shape of each */
    int family_param_base;   /* the slot of the family's first own parameter */
} variant;

/* The fixed head of every board's state. */
typedef struct board_hdr {
    /* random-number keys: kept across resets */
    uint64_t board_key;  /* from (seed, group, board): keys of each episode */
    uint64_t sample_key; /* sample_legal() stream of this episode */
    uint32_t env_ctr, sample_ctr;
    uint32_t episode;
    /* the game: a reset copies everything from here on from variant.initial */
    uint32_t fingerprint;
    uint16_t steps;    /* decisions taken this episode */
    uint16_t n_legal;  /* legal actions for the seat to act */
    uint16_t n_stones; /* stones on the board */
    int16_t last_move; /* last cell played, -1 before the first */
    uint8_t colour;    /* colour to place next */
    uint8_t seat;      /* seat to act next */
    uint8_t black_seat;
    uint8_t status;
    int8_t winner; /* seat, -1 for none / draw */
    uint8_t phase; /* opening-protocol phase, 0 = normal play */
    uint8_t pad[2];
} board_hdr;

void variant_params_default(variant_params *p);
/* Set one parameter from its text form; -1 with a message naming what was
 * wrong and what is allowed. */
int variant_params_set(variant_params *p, const char *key, const char *value, char *err,
                       size_t errlen);
/* Identifies a variant's parameters inside saved states (never 0). */
uint32_t variant_params_fingerprint(const variant_params *p);
/* Text form of every parameter that applies, "key=value\n" lines, into buf. */
int variant_params_describe(const variant_params *p, char *buf, size_t len);
/* The parameter table: name, choices (NULL-terminated, or NULL for an integer
 * in lo..hi, or, with is_set, a set of integers in lo..hi written "2,3"),
 * and the values of `rule` it applies to (comma-separated; NULL: every
 * rule). "size" is not in it: it sets height and width. */
int variant_param_count(void);
int variant_param_info(int i, const char **name, const char *const **choices, int *lo, int *hi,
                       int *is_set, const char **applies);
/* Comma-separated parameter names. */
const char *variant_param_names(void);
/* The name of a geometry kind ("plane", "strip", ...). */
const char *variant_geometry_name(int kind);

int variant_init(variant *v, const variant_params *p, char *err, size_t errlen);
void variant_free(variant *v);

/* The value of the family's own parameter k (its rule_family.params[k]). */
static inline int variant_family_param(const variant *v, int k)
{
    return v->p.family[v->family_param_base + k];
}

static inline uint8_t *board_cells(const variant *v, board_hdr *b)
{
    return (uint8_t *)b + v->off_cells;
}
static inline const uint8_t *board_cells_c(const variant *v, const board_hdr *b)
{
    return (const uint8_t *)b + v->off_cells;
}
#define BOARD_GAME_OFFSET offsetof(board_hdr, fingerprint)

/* Key of this episode's stream of rule randomness (illegal="random" and the
 * like: rare enough to derive on use rather than store). */
static inline uint64_t board_env_key(const board_hdr *b)
{
    return rng_key(b->board_key, 0, b->episode, RNG_STREAM_ENV);
}

/* A colour's line bit sets (see lines.h), or NULL when the geometry has none. */
static inline uint32_t *board_line_bits(const variant *v, board_hdr *b, int colour)
{
    if (!v->n_line_words)
        return NULL;
    return (uint32_t *)((uint8_t *)b + v->off_lines) + (size_t)colour * (size_t)v->n_line_words;
}
static inline const uint32_t *board_line_bits_c(const variant *v, const board_hdr *b, int colour)
{
    return board_line_bits(v, (board_hdr *)b, colour);
}

static inline uint64_t *board_legal(const variant *v, board_hdr *b)
{
    return (uint64_t *)((uint8_t *)b + v->off_legal);
}
static inline const uint64_t *board_legal_c(const variant *v, const board_hdr *b)
{
    return (const uint64_t *)((const uint8_t *)b + v->off_legal);
}

#endif
