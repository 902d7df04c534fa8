/* The batch: groups of boards (one variant per group) stepped together in one
 * OpenMP region, writing straight into caller-owned output arrays. Shared
 * semantics live here and only here: illegal actions, rewards by seat,
 * truncation, the terminal mask and the three autoreset modes. */
#ifndef FIVEROW_BATCH_H
#define FIVEROW_BATCH_H

#include <stddef.h>
#include <stdint.h>

#include "base/cpu_dispatch.h"
#include "env/opponent.h"
#include "game/variant.h"

enum autoreset_mode { AUTORESET_NEXT_STEP = 0, AUTORESET_SAME_STEP = 1, AUTORESET_DISABLED = 2 };
enum illegal_mode { ILLEGAL_RAISE = 0, ILLEGAL_LOSE = 1, ILLEGAL_RANDOM = 2 };

/* Output arrays of one group, owned by the caller (NumPy arrays in Python),
 * n boards each. Every pointer of a group's `out` must be set before
 * stepping; `fin` (same-step mode only) holds the info of the games that
 * ended in the last step: obs, mask, rewards, to_play, winner,
 * episode_length, illegal, agent_seat and the protocol / score outputs. */
typedef struct group_outputs {
    uint8_t *obs;            /* [n][planes][cells] */
    uint8_t *mask;           /* [n][n_actions]; all ones on a finished board */
    float *reward;           /* [n] reward of the seat that just acted (the agent's) */
    float *rewards;          /* [n][2] rewards by seat */
    uint8_t *terminated;     /* [n] */
    uint8_t *truncated;      /* [n] */
    int8_t *to_play;         /* [n] seat to act next */
    int8_t *winner;          /* [n] winning seat, -1 for none */
    int32_t *episode_length; /* [n] steps (plies of both seats) in the episode shown */
    uint8_t *illegal;        /* [n] 1 where the action was illegal (lose / random modes) */
    uint8_t *has_final;      /* [n] same-step: a game ended in this step (its info in fin) */
    int64_t *sampled;        /* [n] sample_legal() output */
    int8_t *black_seat;      /* [n] seat holding black */
    int8_t *phase;           /* [n] opening-protocol phase (0: normal play) */
    int8_t *opening;         /* [n] canonical renju opening 0..25, -1 unknown */
    int32_t *scores;         /* [n][2] running points by seat (scoring games) */
    int32_t *cast_points;    /* [n][2] points of the last cast (gomorpion) */
    int32_t *casts;          /* [n] casts ended (gomorpion) */
    int32_t *captures;       /* [n][2] stones captured by each seat (pente) */
    int8_t *agent_seat;      /* [n] the agent's seat this episode (with an opponent) */
    uint8_t *waiting;        /* [n] an external opponent is to act */
} group_outputs;

typedef struct group {
    variant v;
    int n;
    int index;
    uint8_t *states;  /* n * v.state_size bytes, 64-byte aligned */
    uint8_t *scratch; /* [n] validation codes */
    group_outputs out;
    group_outputs fin; /* same-step: the finished games' outputs */
} group;

typedef struct batch {
    int n_groups;
    group *groups;
    int n_total;
    int num_threads;
    int autoreset;
    int illegal;
    int obs_kind;
    uint64_t seed;
    opponent opp;
} batch;

typedef struct batch_error {
    int group, index;
    int64_t action;
    const char *reason;
} batch_error;

typedef struct rollout_stats {
    int64_t steps, episodes, wins[2], draws, truncations, length_sum;
} rollout_stats;

/* Create a batch of groups; params[g] with counts[g] boards. Returns NULL with
 * a message in err on bad input. */
batch *batch_create(const variant_params *params, const int *counts, int n_groups, int num_threads,
                    int autoreset, int illegal, int obs_kind, char *err, size_t errlen);
void batch_destroy(batch *b);

static inline board_hdr *group_board(const group *g, int i)
{
    return (board_hdr *)(g->states + (size_t)i * g->v.state_size);
}

/* Reset boards: all of them (masks NULL) or where masks[g][i] is set. With
 * has_seed, boards are re-keyed from seed; otherwise each starts its next
 * episode. Writes every output of the reset boards. */
void batch_reset(batch *b, int has_seed, uint64_t seed, uint8_t *const *masks);

/* One step of every board with actions[g][i]. Returns the number of errors
 * (written to errs, at most max_errs); when it is not 0 no board changed.
 * With an opponent the action is the agent's, and a built-in opponent's
 * moves follow in the same pass until the agent is to act again or the game
 * ends; reward and rewards add up every ply of the step. */
FIVEROW_HOT int batch_step(batch *b, const int64_t *const *actions, batch_error *errs,
                           int max_errs);

/* Seat one opponent on every board: kind OPPONENT_NONE, OPPONENT_BUILTIN
 * (player) or OPPONENT_EXTERNAL, agent_seat 0, 1 or AGENT_SEAT_RANDOM. NULL,
 * or why it was refused (then the batch has no opponent). Reset every board
 * afterwards: boards in play are not settled. */
const char *batch_set_opponent(batch *b, int kind, const player_spec *player, int agent_seat);

/* External opponent: one decision, actions[g][i], on every board that waits
 * for it (out.waiting); other boards and their actions are left alone. Its
 * rewards add to the step's; a game it ends is handled as in batch_step.
 * Errors (an illegal action on a waiting board) as batch_step's. */
int batch_opponent_step(batch *b, const int64_t *const *actions, batch_error *errs, int max_errs);

/* Start episode number `episode` of board i (its random streams derive from
 * the board's key and that number; outputs are not written: for players
 * that drive the boards themselves). */
void batch_start_episode(batch *b, int g, int i, uint32_t episode);
/* Re-key every board from seed (outputs not written). */
void batch_rekey(batch *b, uint64_t seed);

/* Uniformly random legal actions into out.sampled (0 where the board is done). */
FIVEROW_HOT void batch_sample(batch *b);

/* Every board plays `steps` random legal moves on its own, resetting at once
 * when an episode ends; outputs are rewritten at the end. */
FIVEROW_HOT void batch_rollout(batch *b, int steps, rollout_stats *stats);

/* Threads a parallel region over this batch may use (1 in a forked child). */
int batch_team_size(const batch *b);

/* Call in a child process after fork(): from then on batches run serially
 * (libgomp cannot start a team in a forked child). */
void batch_after_fork_in_child(void);

/* Rewrite every output of one board from its state. */
void batch_refresh_board(batch *b, int g, int i);

/* Check a state block before it is installed; NULL if it is sound, else why. */
const char *batch_check_state(const group *g, const uint8_t *state, size_t len);

/* Check a state block and install it on board i of group g (its outputs
 * rewritten); NULL, or why it was refused (then nothing changed). */
const char *batch_install_state(batch *b, int g, int i, const uint8_t *state, size_t len);

/* MODLINSEQ: install tiles (value + 1 per cell, 0 empty) and, if hands is
 * not NULL, the two hands' counts per value ([2][modulus]); the bag holds the
 * rest, shuffled. NULL, or why the position was refused (nothing changed). */
const char *batch_load_tiles(batch *b, int g, int i, const uint8_t *values, const uint8_t *hands);

/* Install a position given as cells (CELL_* values, n_cells of them) with
 * `colour` to move: stones counted as steps, nothing ended. Gomorpion may
 * also take stone statuses (STONE_*, or NULL: all live) and scores by seat
 * (or NULL); its sieges are computed as at a cast end. Returns NULL or the
 * reason the position was refused. A position that is already won (a five,
 * or a run that would have ended a gomorpion cast) is refused: when `five`
 * is not NULL (room for n_cells), the stones of its runs go there and their
 * count into *five_len (0 for any other refusal). */
const char *batch_load_position(batch *b, int g, int i, const uint8_t *cells, int colour,
                                const uint8_t *status, const int32_t *scores, int32_t *five,
                                int *five_len);

#endif
