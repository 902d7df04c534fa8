/* The rule-independent face of a game: reset, legality, apply, observations.
 * Each entry point dispatches on the rule family once; the batch layer
 * (batch.c) handles everything shared: illegal actions, rewards, truncation,
 * autoreset, output buffers. */
#ifndef FIVEROW_GAME_H
#define FIVEROW_GAME_H

#include <stdint.h>
#include <string.h>

#include "game/rule_family.h"
#include "game/variant.h"

/* What an applied action changed, so outputs can be updated in place. */
enum {
    CHANGE_MASK_WIDE = 1, /* legal set changed beyond the played cell: rewrite the mask */
    CHANGE_OBS_WIDE = 2   /* more than one stone changed: rewrite the observation */
};

/* Write a fresh game into b (done once per variant into variant.initial). */
void game_build_initial(const variant *v, board_hdr *b);

/* Key of board i of group g under a seed: every episode's streams derive
 * from it, so (seed, group, board, episode) rebuilds any episode. */
static inline uint64_t board_key_of(uint64_t seed, int group, int board)
{
    return rng_key(seed, (uint64_t)group, (uint64_t)board, 0);
}

/* Episode `episode` of the board keyed in b->board_key: its streams, a fresh
 * game, the rule's own randomness (MODLINSEQ's bag). */
void game_new_episode(const variant *v, board_hdr *b, uint32_t episode);

/* Initial position (board keys untouched): a copy of variant.initial. */
static inline void game_reset(const variant *v, board_hdr *b)
{
    memcpy((uint8_t *)b + BOARD_GAME_OFFSET, v->initial + BOARD_GAME_OFFSET,
           v->state_size - BOARD_GAME_OFFSET);
}

/* Recompute the legal set from the position, colour to place and phase. */
void game_refresh_legal(const variant *v, board_hdr *b);

/* Recompute what follows from the cells (legal set, line bit sets, stone
 * count) after cells were written directly; protocol phase is normal play. */
void game_derive(const variant *v, board_hdr *b);

static inline int game_is_legal(const variant *v, const board_hdr *b, int action)
{
    return action >= 0 && action < v->n_actions && bits_get(board_legal_c(v, b), action);
}

/* Drop caches that are not derived from the cells (after a state is
 * installed from outside). */
void game_forget_caches(const variant *v, board_hdr *b);

/* Why an action is illegal, in words (NULL when it is legal). */
const char *game_illegal_reason(const variant *v, const board_hdr *b, int action);

/* Put a stone of colour on empty cell a (cells, line bit sets, the rule's
 * bookkeeping) and end the game if it wins, or fouls under renju with
 * forbidden="lose"; the winner is the seat holding the colour that made the
 * five. Does not pass the turn. Returns 1 if the legal set may have changed
 * beyond cell a (renju fouls). */
int game_put_stone(const variant *v, board_hdr *b, int a, int colour);

/* Apply a legal action for the seat to act: sets colour, seat, status and
 * winner. Returns CHANGE_* flags. Does not count the step (batch.c does). */
unsigned game_apply(const variant *v, board_hdr *b, int action);

/* One decision of the seat to act, as the batch takes it outside its Python
 * step: the action (legal), the step count, truncation at max_steps. */
void game_step(const variant *v, board_hdr *b, int action);

/* A uniformly random legal action, drawing from (key, *ctr); -1 if none. */
int game_random_legal(const variant *v, const board_hdr *b, uint64_t key, uint32_t *ctr);

/* Whole observation of one board, n_planes[kind] planes of n_cells bytes. */
void game_write_obs(const variant *v, const board_hdr *b, int kind, uint8_t *out);
/* The same as seat `viewer` sees it: "mover" planes (own / opponent, the
 * viewer's colour) and MODLINSEQ's hand planes are the viewer's, whoever is
 * to act (game_write_obs is the seat to act's view). */
void game_write_obs_for(const variant *v, const board_hdr *b, int kind, int viewer, uint8_t *out);
/* What the observation showed of the rule's planes, before a step. */
void game_obs_snapshot(const variant *v, const board_hdr *b, rule_snapshot *s);
/* In-place update of an observation of kind `kind` after `action` (the last
 * move before it was prev_last; changes: what game_apply returned; snapped:
 * s holds game_obs_snapshot from before the step). Returns 0 when the
 * observation must be rewritten whole (game_write_obs). */
int game_update_obs(const variant *v, const board_hdr *b, int kind, int action, int prev_last,
                    unsigned changes, int snapped, const rule_snapshot *s, uint8_t *out);
/* The cells where a stone of `colour` would be a foul (renju's black), as
 * bits, or NULL when there are none to fear. */
const uint64_t *game_forbidden(const variant *v, const board_hdr *b, int colour);
/* The family's running figures (scores, casts, captures; zeros if none). */
void game_figures(const variant *v, const board_hdr *b, rule_figures *out);

/* Does a stone of `stone` (CELL_BLACK / CELL_WHITE) at p, already on the
 * board, win under the line rule? (Renju: black needs exactly five, white
 * five or more.) */
int lines_wins(const variant *v, const board_hdr *b, int p, uint8_t stone);
/* The moves that win at once for the side to act under a line rule (normal
 * play; none for Gomorpion and MODLINSEQ, whose fives end casts or do not
 * count), at most max of them, into out. */
int lines_winning_moves(const variant *v, const board_hdr *b, int32_t *out, int max);
/* The cells of `allowed` (empty cells, as bits) where a stone of `stone`
 * would win at once under the line rule, in cell order, at most max. */
int lines_winning_cells(const variant *v, const board_hdr *b, uint8_t stone,
                        const uint64_t *allowed, int32_t *out, int max);
/* The stones of `stone` (CELL_BLACK / CELL_WHITE) that stand in a winning run
 * already on the board (every cell of every such run), at most max, into
 * out; 0 for MODLINSEQ. Gomorpion's captured stones never count. */
int lines_five_stones(const variant *v, const board_hdr *b, uint8_t stone, int32_t *out, int max);
/* The stone of `stone` now in cells[p] joins the line bit sets; does it win? */
int lines_place(const variant *v, board_hdr *b, int p, uint8_t stone);
/* A stone of colour on empty cell a: cells, line bit sets, stone count, last
 * move, and the end of the game if it wins (for the seat holding colour).
 * Does not pass the turn. Returns whether it won. */
int lines_put_stone(const variant *v, board_hdr *b, int a, int colour);

/* The game ends, won by seat `winner` (-1: drawn). */
void game_end(board_hdr *b, int winner);
/* The seat holding a colour. */
int game_holder(const board_hdr *b, int colour);

/* Called after game_reset at the start of each episode: the rule's own
 * randomness (MODLINSEQ's bag), drawn from the episode's stream. */
void game_start_episode(const variant *v, board_hdr *b);
/* Called before each step: clears what a step reports (points scored). */
void game_begin_step(const variant *v, board_hdr *b);
/* Rewards of both seats for the step that led to b: +1 / -1 at a win, or
 * (reward_mode="points") the points each seat scored in it. */
void game_rewards(const variant *v, const board_hdr *b, float r[2]);
/* Running scores, the points of the last cast and the casts so far (zeros for
 * games without scoring). */
void game_scores(const variant *v, const board_hdr *b, int32_t scores[2], int32_t cast[2],
                 int32_t *casts);

#endif
