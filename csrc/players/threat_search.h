/* Alpha-beta search for the threat player: negamax over the heuristic's
 * best candidates, a five taken and a five blocked at once (forced moves do
 * not cost depth), VCF at the leaves for the side to move, and otherwise a
 * count of both sides' open line windows.
 *
 * Every move is played by the engine on a stack of board copies, so fives,
 * fouls and legal moves are the rule's own. Deterministic: the same board
 * and root moves give the same choice. */
#ifndef FIVEROW_THREAT_SEARCH_H
#define FIVEROW_THREAT_SEARCH_H

#include <stdint.h>

#include "game/variant.h"

#define THREAT_SEARCH_MAX_PLIES 12
#define THREAT_SEARCH_MAX_WIDTH 64

struct solver;
typedef struct threat_search threat_search;

threat_search *threat_search_new(const variant *v);
void threat_search_free(threat_search *ts);

/* The best of root[0..n) for the seat to act on b, searched `plies` deep
 * (iterative deepening from 1, stopped when max_nodes run out: the deepest
 * finished iteration decides, earlier moves winning ties) with the
 * heuristic's best `width` moves per node (ps: its scratch). Returns an
 * index into root. */
struct policy_scratch;
int threat_search_best(threat_search *ts, struct solver *sv, struct policy_scratch *ps,
                       const board_hdr *b, const int32_t *root, int n, int plies, int width,
                       int64_t max_nodes);

#endif
