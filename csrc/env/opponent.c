/* The opponent's seat, its scratch memory and its moves (opponent.h). */
#include "env/opponent.h"

#include <stdlib.h>

#include "base/rng.h"

/* The longest run of opponent plies before the agent's first action: an
 * opening protocol's opener places three stones. */
#define OPENING_PLIES_MAX 3

const char *opponent_check_variant(const variant *v)
{
    /* (no rule wins with the opener's three stones: protocols need connect >= 4) */
    if (v->max_steps <= OPENING_PLIES_MAX)
        return "an opponent needs max_steps >= 4: its opening plies (up to 3 under an "
               "opening protocol) would end the episode before the agent acts";
    return NULL;
}

void opponent_free(opponent *op)
{
    if (op->scratch)
        for (int k = 0; k < op->n_threads * op->n_groups; k++)
            policy_scratch_free(op->scratch[k]);
    free(op->scratch);
    op->scratch = NULL;
    op->kind = OPPONENT_NONE;
    op->agent_seat = 0;
    op->n_threads = op->n_groups = 0;
}

const char *opponent_setup(opponent *op, int kind, const player_spec *player, int agent_seat,
                           const variant *const *variants, int n_groups, int n_threads)
{
    opponent_free(op);
    if (kind < OPPONENT_NONE || kind > OPPONENT_EXTERNAL)
        return "unknown opponent kind";
    if (agent_seat < 0 || agent_seat > AGENT_SEAT_RANDOM)
        return "agent_seat must be 0, 1 or random";
    if (kind == OPPONENT_NONE)
        return NULL;
    for (int gi = 0; gi < n_groups; gi++) {
        const char *why = opponent_check_variant(variants[gi]);
        if (why)
            return why;
    }
    if (kind == OPPONENT_BUILTIN) {
        const char *why = player_spec_check(player);
        for (int gi = 0; !why && gi < n_groups; gi++)
            why = player_refusal(player, variants[gi]);
        if (why)
            return why;
        op->scratch = calloc((size_t)n_threads * (size_t)n_groups, sizeof(policy_scratch *));
        if (!op->scratch)
            return "out of memory";
        op->n_threads = n_threads;
        op->n_groups = n_groups;
        for (int t = 0; t < n_threads; t++)
            for (int gi = 0; gi < n_groups; gi++) {
                policy_scratch *s = policy_scratch_new(variants[gi]);
                op->scratch[t * n_groups + gi] = s;
                if (!s) {
                    opponent_free(op);
                    return "out of memory";
                }
            }
        op->player = *player;
    }
    op->kind = kind;
    op->agent_seat = agent_seat;
    return NULL;
}

int opponent_agent_seat(const opponent *op, const board_hdr *b)
{
    if (op->kind == OPPONENT_NONE)
        return b->seat;
    if (op->agent_seat != AGENT_SEAT_RANDOM)
        return op->agent_seat;
    return (int)(rng_key(b->board_key, 0, b->episode, RNG_STREAM_SEAT) >> 63);
}

/* noinline: FIVEROW_HOT's `flatten` on batch_step stops here. Inlining a
 * whole player (MCTS, threat search) into every clone of the step loop made
 * the dispatched build's LTO take hours, for no gain: a search move costs far
 * more than the call. */
__attribute__((noinline)) int opponent_move(const opponent *op, const variant *v, int gi,
                                            const board_hdr *b, int thread)
{
    policy_scratch *s = op->scratch[thread * op->n_groups + gi];
    return policy_act(&op->player, v, b, s, policy_decision_key(&op->player, b), NULL);
}
