/* Connect6 (SPEC section 10; I-Chen Wu, 2005): black's first turn is
 * `first_turn_stones` stones (1), every later turn `stones_per_turn` (2) of
 * one colour; `connect` (6) or more in a row wins, at the stone that makes
 * it. Each stone is one step: the seat to act stays the same for a turn's
 * later stones, and a plane tells them from the turn's first. */
#ifndef FIVEROW_CONNECT6_H
#define FIVEROW_CONNECT6_H

#include "game/rule_family.h"

/* The family's own parameters, in rule_family_connect6.params order. */
enum { CONNECT6_STONES_PER_TURN = 0, CONNECT6_FIRST_TURN_STONES = 1 };

/* Per-board state at variant.off_rule_own. */
typedef struct connect6_state {
    uint8_t placed; /* stones of the current turn already placed */
    uint8_t pad[7];
} connect6_state;

#endif
