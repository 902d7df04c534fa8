/* Training batches rebuilt from recorded games: the positions a loader drew
 * (game, ply, symmetry) are replayed from each game's keys and moves, many
 * games at once across threads, and written with their symmetry applied
 * straight into the caller's batch arrays. Each game is replayed once per
 * call, up to the last position drawn from it. */
#ifndef FIVEROW_TRAINING_BATCHES_H
#define FIVEROW_TRAINING_BATCHES_H

#include <stddef.h>
#include <stdint.h>

#include "env/batch.h"
#include "geometry/plane_map.h"

/* The games a loader holds in its shuffle buffer. Game i is played on
 * variant group[i] of the batch, keyed by (seed, key_group, board, episode)
 * as the dataset stores them; its moves are actions[start[i] ..
 * start[i] + length[i]) and its recorded policies (float16 bits, n_actions
 * per step) the same rows of policy. */
typedef struct batches_games {
    int64_t n;
    const int32_t *group;
    const uint64_t *seed;
    const int32_t *key_group, *board;
    const uint32_t *episode;
    const int64_t *start;
    const int32_t *length;
    const int8_t *winner; /* seat, -1 for none */
    const int16_t *actions;
    int64_t n_steps; /* rows of actions (and policy) */
    const uint16_t *policy;
} batches_games;

/* The symmetries of each variant group of a batch, as cell permutations:
 * symmetry k of group g maps cell c to perms[(first[g] + k) * n_cells + c];
 * count[g] symmetries per group. */
typedef struct batches_symmetries {
    int64_t n_perms;
    int32_t *perms;
    int32_t *inverse; /* the inverse of each row */
    int64_t *first;
    int32_t *count;
    uint8_t *identity; /* [n_perms] 1 where the permutation is the identity */
    plane_map *maps;   /* [n_perms] how each moves a plane */
} batches_symmetries;

/* A batch's variants (all of one observation shape and action count in
 * the observation kind asked) with their symmetries: what every fill of a
 * loader shares. */
typedef struct batches_farm {
    const batch *b;
    int kind;
    size_t obs_bytes;
    int n_actions, n_cells, height, width;
    batches_symmetries sym;
} batches_farm;

/* The positions to write: position j (output row j) is ply ply[j] of game
 * game[j] under symmetry symmetry[j] of its group. */
typedef struct batches_positions {
    int64_t n;
    const int64_t *game;
    const int32_t *ply, *symmetry;
} batches_positions;

/* Output rows, one per position. policy may be NULL (not written). */
typedef struct batches_out {
    uint8_t *obs;    /* [n][planes][cells] in the observation kind asked */
    uint8_t *mask;   /* [n][n_actions] 0/1 */
    int64_t *action; /* [n] */
    float *policy;   /* [n][n_actions] */
    float *value;    /* [n] final outcome from the mover's seat: +1 / 0 / -1 */
} batches_out;

/* Where a fill failed: the game (index into batches_games) and why. */
typedef struct batches_error {
    int64_t game;
    char message[256];
} batches_error;

/* Set up a farm over b's groups: perms are copied; NULL with err set when
 * the groups differ in shape, a count or first is out of range, or a row is
 * not a permutation of the cells. */
batches_farm *batches_farm_new(const batch *b, int kind, const int32_t *perms, int64_t n_perms,
                               const int64_t *first, const int32_t *count, char *err,
                               size_t errlen);
void batches_farm_free(batches_farm *f);

/* Check a fill's inputs (every index in range); NULL if they are sound,
 * else why. */
const char *batches_check(const batches_farm *f, const batches_games *g,
                          const batches_positions *p);

/* Write every position (inputs checked by batches_check) on the batch's
 * threads (the output does not depend on their number). Returns 0, or -1
 * with err set when a recorded action is illegal or comes after the game
 * ended (the error of the lowest such game, whatever the threads); -2 when
 * out of memory. */
int batches_fill(const batches_farm *f, const batches_games *g, const batches_positions *p,
                 batches_out *out, batches_error *err);

#endif
