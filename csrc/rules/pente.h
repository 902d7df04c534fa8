/* Pente (SPEC section 10; Gary Gabrel, 1977, as Pente.org plays it): five in
 * a row or ten captured stones win. A stone captures, along each direction
 * separately and all at once, exactly L opponent stones it flanks with
 * another of its own, for each L in `capture_lengths` ("2": X O O X);
 * captured stones leave the board. Tournament opening: the first stone on
 * the centre, the first player's second stone at least 3 cells from it.
 * Keryo-Pente: capture_lengths "2,3", capture_win 15. */
#ifndef FIVEROW_PENTE_H
#define FIVEROW_PENTE_H

#include <stdint.h>

#include "game/rule_family.h"

/* The family's own parameters, in rule_family_pente.params order. */
enum { PENTE_CAPTURE_LENGTHS = 0, PENTE_CAPTURE_WIN = 1, PENTE_OPENING = 2 };
enum { PENTE_OPENING_TOURNAMENT = 0, PENTE_OPENING_FREE = 1 };

/* Per-board state at variant.off_rule_own. */
typedef struct pente_state {
    int32_t captures[2]; /* stones captured by each colour */
} pente_state;

#endif
