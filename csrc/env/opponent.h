/* An opponent in the loop: one seat of every board of a batch is played by a
 * built-in player (in C, inside the step's parallel region) or by a caller
 * outside C (a Python agent, fed the boards that wait on it), so that the
 * seat left, the agent's, sees a single-agent environment.
 *
 * The agent's seat is fixed, or drawn per episode from the board's own key
 * (counter-based: a pure function of board key and episode, stored nowhere,
 * so a board's state bytes still say everything and any thread count gives
 * the same seats). */
#ifndef FIVEROW_OPPONENT_H
#define FIVEROW_OPPONENT_H

#include "game/variant.h"
#include "players/player.h"

enum opponent_kind { OPPONENT_NONE = 0, OPPONENT_BUILTIN = 1, OPPONENT_EXTERNAL = 2 };
enum { AGENT_SEAT_RANDOM = 2 };

typedef struct opponent {
    int kind;
    int agent_seat;     /* 0, 1 or AGENT_SEAT_RANDOM */
    player_spec player; /* OPPONENT_BUILTIN, holding its network */
    int n_threads, n_groups;
    policy_scratch **scratch; /* [thread][group], OPPONENT_BUILTIN */
    char why[1024];           /* a refusal that names the variant's observation */
} opponent;

/* Why this opponent cannot play this variant (NULL if it can): the opponent's
 * opening plies, before the agent's first action, must not be able to end a
 * game (a reset cannot return a finished game). */
const char *opponent_check_variant(const variant *v);

/* Set up op (any previous setup freed first): scratch memory for n_threads
 * threads on every group's variant. NULL, or why it was refused (then op is
 * OPPONENT_NONE). */
const char *opponent_setup(opponent *op, int kind, const player_spec *player, int agent_seat,
                           const variant *const *variants, int n_groups, int n_threads);
void opponent_free(opponent *op);

/* The agent's seat in board b's current episode; without an opponent, the
 * seat to act (every seat is the agent's). */
int opponent_agent_seat(const opponent *op, const board_hdr *b);

/* Is board b, ongoing, waiting for an opponent's decision? */
static inline int opponent_waits(const opponent *op, const board_hdr *b, int agent_seat)
{
    return op->kind != OPPONENT_NONE && b->status == STATUS_ONGOING && b->seat != agent_seat;
}

/* The built-in opponent's action on board b of group gi, with the scratch of
 * thread `thread` (its decision key from the board, so any thread gives the
 * same action). */
int opponent_move(const opponent *op, const variant *v, int gi, const board_hdr *b, int thread);

#endif
