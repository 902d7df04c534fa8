/* The pvs player: pattern evaluation and principal variation search.
 *
 * A decision, in normal play:
 * 1. a five of its own, or the stop of the other side's five;
 * 2. an open four of its own (a win);
 * 3. VCF of its own (pvs_threats.h): the line's first move;
 * 4. the other side's VCF were it to pass: if it has one, only the root
 *    moves after which it has none are searched (when some are found);
 * 5. iterative deepening PVS (pvs_search.h) over the root moves.
 *
 * The budget is `nodes` moves played by all of it together (deterministic:
 * the same board, seed and budget give the same move on any thread),
 * `depth` iterations at most, and with `time_ms` > 0 a clock as well (the
 * only mode whose moves depend on the machine). Root moves that tie are
 * tried in an order drawn from the decision key, so the seed changes games
 * without changing the player's strength. Opening-protocol decisions follow
 * the simple rules of pvs_protocol.c. */
#ifndef FIVEROW_PVS_H
#define FIVEROW_PVS_H

#include <stdint.h>

#include "game/variant.h"
#include "players/player.h"

struct pvs_engine;

/* The default budget: moves played per decision (see docs/players.md for
 * what it costs and how strong it is). */
#define PVS_DEFAULT_NODES 5000

/* NULL when pvs plays the variant, else why not (naming player and rule). */
const char *pvs_refusal(const variant *v);

/* The move of the seat to act on b (ongoing, pvs_refusal(v) NULL). */
int pvs_move(const player_spec *ps, const variant *v, const board_hdr *b, policy_scratch *s,
             uint64_t key, float *policy);

/* Normal play from the engine's loaded position: the move of its side to
 * move among `legal` (cells as bits), searched within the engine's budget;
 * *value receives the search's value for that side. -1 when no legal cell. */
int pvs_decide(struct pvs_engine *e, const player_spec *ps, const uint64_t *legal, uint64_t key,
               int *value);

/* Opening-protocol phases (pvs_protocol.c). */
int pvs_protocol_move(struct pvs_engine *e, const player_spec *ps, const variant *v,
                      const board_hdr *b, uint64_t key);

/* The table size for a budget: entries, a power of two. */
uint64_t pvs_tt_entries(const player_spec *ps);

#endif
