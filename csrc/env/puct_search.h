/* Batched PUCT search: one tree per board of a batch, in C, with the
 * network's evaluations done by the caller on large batches of leaves.
 *
 * A move's search runs in rounds. search_select() descends every tree up to
 * leaves_per_round times (virtual loss spreads the descents), scores the
 * leaves that end a game by the rules at once, and writes the observation
 * and legal mask of every other leaf into the caller's buffers;
 * search_expand() takes the caller's priors and values for those leaves,
 * expands them and backs the values up. A tree is done after `simulations`
 * evaluations (rule-scored leaves count). The root's visit counts are the
 * policy; search_advance() keeps the subtree of the move played. */
#ifndef FIVEROW_PUCT_SEARCH_H
#define FIVEROW_PUCT_SEARCH_H

#include <stddef.h>
#include <stdint.h>

#include "env/batch.h"

typedef struct search_params {
    int simulations;          /* evaluations per tree and move */
    float c_puct;             /* exploration constant of PUCT */
    float dirichlet_alpha;    /* root noise; 0 for none */
    float dirichlet_fraction; /* weight of the noise in the root priors */
    int leaves_per_round;     /* descents per tree and round */
    int reuse_tree;           /* keep the played move's subtree */
    uint64_t seed;
} search_params;

typedef struct search search;

/* A search over every board of b (all groups); NULL with a message. */
search *search_new(batch *b, const search_params *p, char *err, size_t errlen);
void search_free(search *s);

/* Leaves of a round: slot k is (group, board) with its observation written
 * at obs[group] + k_in_group * obs_bytes and mask at masks[group] + ... The
 * caller owns the buffers: per group, capacity boards * leaves_per_round. */
typedef struct search_leaves {
    uint8_t **obs;    /* [groups] -> [capacity][planes * cells] */
    uint8_t **masks;  /* [groups] -> [capacity][n_actions] */
    int8_t **to_play; /* [groups] -> [capacity] seat to act at the leaf */
    int32_t **board;  /* [groups] -> [capacity] board of each leaf */
    int *count;       /* [groups] leaves written this round */
} search_leaves;

/* Start a move's search on every ongoing board (a tree whose root is not the
 * board's position is rebuilt; a round left open is undone first). */
void search_begin(search *s);
/* One round of descents; returns the leaves to evaluate (0: every tree is
 * done). A round still open (selected, never expanded) is undone first. */
int search_select(search *s, search_leaves *out);
/* Undo the open round, if any: its leaves become unvisited again and their
 * virtual losses are taken back (after the evaluator failed). */
void search_abort(search *s);
/* Priors ([count][n_actions] per group, any non-negative weights; illegal
 * actions ignored) and values ([count] per group, in [-1, 1], for the seat
 * to act at the leaf) of the last round's leaves. Returns NULL, or why the
 * input was refused (then nothing changed). */
const char *search_expand(search *s, const float *const *priors, const float *const *values);

/* Root visit counts ([boards][n_actions] per group) and root values (mean
 * value for the seat to act, [boards] per group); zeros where a board's
 * episode is over. */
void search_results(const search *s, float *const *visits, float *const *root_value);
/* Actions from the visit counts with temperature (0: the most visited),
 * drawn from each tree's own stream; 0 where a board's episode is over. */
void search_actions(const search *s, float temperature, int64_t *const *actions);
/* After the boards were stepped with actions: a tree keeps the subtree of its
 * action when that is the board's position now, else restarts. */
void search_advance(search *s, const int64_t *const *actions);

/* A whole move's search with uniform priors and zero values, in C: the
 * search's own speed (simulations per second without a network). */
void search_run_uniform(search *s);

/* Nodes in use over all trees (memory and reuse checks). */
size_t search_nodes(const search *s);
int search_leaves_per_round(const search *s);

#endif
