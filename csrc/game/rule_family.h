/* A rule family as one row of operations and traits (issue 28): freestyle,
 * standard and caro (the line rules), renju, Gomorpion, MODLINSEQ, Connect6,
 * Pente. The row is picked once, when the variant is built (variants/), and
 * kept in variant.rules; the game's entry points (game.h), the batch, the
 * players, the writer and the binding ask the row or a trait it declares.
 * Only the rules' own room (rules/) knows which family a row is.
 *
 * A board's state is laid out by the row's sizes: after the cells, the legal
 * set and the line bit sets come the family's derived data (what follows from
 * the cells alone: checked against a recomputation), then the opening
 * protocol's state, then the family's own state (statuses, scores, hands,
 * captures: kept, not derived), then its caches (dropped when a state is
 * installed from outside). */
#ifndef FIVEROW_RULE_FAMILY_H
#define FIVEROW_RULE_FAMILY_H

#include <stddef.h>
#include <stdint.h>

#include "game/variant.h"

/* Traits: what the rest of the engine may assume about a family. */
enum rule_trait {
    /* five (connect) in a row ends the game: the players' patterns, the
     * solver's threats and the heuristic's windows apply */
    RULE_TRAIT_LINES = 1u << 0,
    /* points decide the game (scores, reward_mode="points") */
    RULE_TRAIT_SCORING = 1u << 1,
    /* the rule draws its own randomness at the start of an episode */
    RULE_TRAIT_CHANCE = 1u << 2,
    /* stones are not coloured: the line bit sets are not kept */
    RULE_TRAIT_NO_COLOURS = 1u << 3,
    /* the observation is the family's own (not the stone planes) */
    RULE_TRAIT_OWN_PLANES = 1u << 4,
    /* a turn may hold more than one decision of the same seat */
    RULE_TRAIT_MULTI_STONE_TURNS = 1u << 5,
    /* stones can leave the board (captures) */
    RULE_TRAIT_CAPTURES = 1u << 6,
    /* a colour may have forbidden points (renju's black) */
    RULE_TRAIT_FOULS = 1u << 7,
    /* actions are the family's own, not one per cell (MODLINSEQ's tiles) */
    RULE_TRAIT_OWN_ACTIONS = 1u << 8,
    /* stones carry statuses (Gomorpion's recapturable, captured, sieges) */
    RULE_TRAIT_STATUSES = 1u << 9,
    /* number tiles instead of coloured stones (MODLINSEQ) */
    RULE_TRAIT_TILES = 1u << 10,
};
#define RULE_TRAITS 11

/* The traits' names, as the binding gives them to Python (bit k: name k). */
extern const char *const rule_trait_names[RULE_TRAITS];

/* A parameter a family declares (SPEC section 10: connect6's stones per turn,
 * Pente's captures): its name, default and allowed values. Its value is read
 * with variant_family_param(v, k), k its index in the family's list. */
typedef struct rule_param {
    const char *name;
    int def;                    /* default (a set: the bits of its values) */
    const char *const *choices; /* NULL-terminated names, or NULL for an integer */
    int lo, hi;                 /* range of an integer, or of a set's values */
    int is_set;                 /* a set of integers in lo..hi, written "2,3" */
} rule_param;

/* What a family adds to the action space and the move limit. */
typedef struct rule_actions {
    int action_cells; /* actions that name cells (MODLINSEQ: cells x values) */
    int n_special;    /* special actions after them */
    const char *special_names[4];
    int extra_steps; /* decisions beyond one per cell that a game may take */
} rule_actions;

/* The family's own running figures, for info and the writer (zeros where a
 * family keeps none). */
typedef struct rule_figures {
    int32_t scores[2];      /* points by seat (scoring games) */
    int32_t cast_points[2]; /* points of the last cast (Gomorpion) */
    int32_t casts;          /* casts ended (Gomorpion) */
    int32_t captures[2];    /* stones captured by each seat (Pente) */
} rule_figures;

/* What a family shows of one board beyond the cells, for the binding's
 * board() (zeros where a family keeps none). */
typedef struct rule_details {
    uint8_t stone_status[GEOM_MAX_CELLS]; /* Gomorpion: STONE_* with flags */
    uint8_t siege[GEOM_MAX_CELLS];        /* 1/2 breakable by black/white, 3/4 solid */
    uint8_t tiles[GEOM_MAX_CELLS];        /* MODLINSEQ: value + 1, 0 empty */
    uint8_t hands[72];                    /* both hands' counts per value */
    int n_hands;                          /* bytes of hands used */
    int bag_left, turn_tiles;
} rule_details;

/* Before a step, what the observation showed of the family's planes, so that
 * only what changes is rewritten after it. */
#define RULE_SNAPSHOT_WORDS 64
typedef struct rule_snapshot {
    uint64_t words[RULE_SNAPSHOT_WORDS];
} rule_snapshot;

typedef struct rule_family {
    const char *name;
    unsigned traits;          /* RULE_TRAIT_* */
    int prefetch_derived;     /* a step reads the derived data: prefetch it (env/prefetch.h) */
    int plane_max;            /* the largest value its planes hold (counts; 0: they are 0/1) */
    const rule_param *params; /* the family's own parameters (n_params of them) */
    int n_params;

    /* ---- building a variant ---- */
    /* Check the parameters against the family and the geometry (-1 with a
     * message) and build what the variant needs (tables); v->win is set. */
    int (*prepare)(variant *v, char *err, size_t errlen);
    void (*release)(variant *v); /* frees what prepare built (NULL: nothing) */
    void (*actions)(const variant *v, rule_actions *out);
    size_t (*derived_bytes)(const variant *v); /* NULL: none */
    size_t (*own_bytes)(const variant *v);     /* NULL: none */
    size_t (*cache_bytes)(const variant *v);   /* NULL: none */
    /* The family's observation planes: its own whole observation
     * (RULE_TRAIT_OWN_PLANES) or the planes after the four stone planes, both
     * kinds at the same indices; returns how many (NULL: none). */
    int (*planes)(const variant *v, const char **absolute, const char **mover);

    /* ---- a board ---- */
    /* Rebuild the derived data from the cells (and the family's own state). */
    void (*derive)(const variant *v, board_hdr *b);
    void (*forget_caches)(const variant *v, board_hdr *b); /* NULL: none */
    /* A new episode, after the reset: the family's randomness (NULL: none). */
    void (*start_episode)(const variant *v, board_hdr *b);
    /* Normal play's legal actions of the seat to act into legal (zeroed). */
    void (*legal)(const variant *v, const board_hdr *b, uint64_t *legal);
    /* A legal action of normal play: the stone (or tile, or turn end), the
     * seat and colour to act next, the end of the game. Returns CHANGE_*. The
     * legal set is refreshed by the caller when CHANGE_MASK_WIDE is set. */
    unsigned (*apply)(const variant *v, board_hdr *b, int action);
    /* A stone an opening protocol places (the turn is the protocol's):
     * the cells, line bit sets and the family's bookkeeping, the end of the
     * game. Returns 1 if the legal set may have changed beyond the cell. */
    int (*put_stone)(const variant *v, board_hdr *b, int cell, int colour);
    /* Why a normal-play action is illegal, when the generic reasons (out of
     * range, occupied, off the board) do not say (NULL: "not legal now"). */
    const char *(*illegal_reason)(const variant *v, const board_hdr *b, int action);
    /* The cells where a stone of `colour` would be a foul (bits), or NULL. */
    const uint64_t *(*forbidden)(const variant *v, const board_hdr *b, int colour);
    /* Would a stone of `colour` on empty cell `cell` of these cells be a foul
     * (for a player's own board copies: the cells may change during the call
     * and are restored)? NULL: the family has no fouls. */
    int (*is_foul)(const variant *v, uint8_t *cells, int cell, int colour);
    /* The heuristic player's scores of the candidate actions cand[0..n), by
     * the family's own one-ply judgement (scratch: a board to try them on);
     * NULL: the line patterns judge. */
    void (*greedy_scores)(const variant *v, const board_hdr *b, uint8_t *scratch,
                          const int32_t *cand, float *score, int n);
    /* Stones that no longer count toward a line, as bits into out (NULL:
     * every stone counts). */
    void (*inert_stones)(const variant *v, const board_hdr *b, uint64_t *out);

    /* ---- observations ---- */
    /* Write the family's planes (out: its first plane, zeroed) as seat
     * `viewer` sees them. */
    void (*write_planes)(const variant *v, const board_hdr *b, int kind, int viewer, uint8_t *out);
    /* What the planes show before a step (NULL: they are rewritten). */
    void (*snapshot)(const variant *v, const board_hdr *b, rule_snapshot *s);
    /* Bring the planes from the snapshot to the board after `action`
     * (absolute kind; own planes: both kinds). out: the whole observation. */
    void (*update_planes)(const variant *v, const board_hdr *b, const rule_snapshot *s, int action,
                          int prev_last, uint8_t *out);

    /* ---- scores ---- */
    /* Points scored by the step just taken, by seat, or NULL (no scoring). */
    int32_t *(*step_points)(const variant *v, board_hdr *b);
    void (*figures)(const variant *v, const board_hdr *b, rule_figures *out); /* NULL: zeros */
    void (*details)(const variant *v, const board_hdr *b, rule_details *out); /* NULL: zeros */
    /* The segments of tiles (MODLINSEQ), each as the cells met along its walk,
     * one after the other into cells, their lengths into lengths; returns how
     * many (NULL: the family has none). */
    int (*segments)(const variant *v, const board_hdr *b, int16_t *cells, int max_cells,
                    int *lengths, int max);

    /* ---- states from outside ---- */
    /* Why the family's own state is inconsistent, or NULL (NULL: no check). */
    const char *(*check)(const variant *v, const board_hdr *b);
    /* Per-cell statuses and scores given with a position (each may be NULL):
     * checked (b NULL), or installed on b before it is derived; NULL or why
     * they were refused. NULL op: the family has none. */
    const char *(*load_status)(const variant *v, board_hdr *b, const uint8_t *cells,
                               const uint8_t *status, const int32_t *scores);
    /* Install tiles (value + 1 per cell, 0 empty) and, if hands is not NULL,
     * both hands' counts; NULL or why they were refused. NULL op: no tiles. */
    const char *(*load_tiles)(const variant *v, board_hdr *b, const uint8_t *values,
                              const uint8_t *hands);
} rule_family;

static inline int rule_has(const variant *v, unsigned trait)
{
    return (v->rules->traits & trait) != 0;
}

#endif
