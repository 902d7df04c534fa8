/* The pvs player's opening-protocol decisions, by simple rules:
 *
 * - a colour to choose (soosorv's swaps, swap2's choices): the position is
 *   searched as normal play for the colour that moves next, and the player
 *   takes the colour the value prefers (the mover's on a tie); it never
 *   asks for two more stones (PLACE_TWO);
 * - stones the protocol has it place for the other side to judge (the
 *   opener's, swap2's fourth and fifth): the legal cell after which the
 *   static evaluation is closest to even, nearest the centre on ties;
 * - soosorv's fourth stone is a move of white's and searched as one; the
 *   declaration is the most offers allowed; black's offers are its best
 *   cells by the move ordering; white picks the offer whose search is best
 *   for white. */
#include <stdlib.h>

#include "game/game.h"
#include "openings/opening.h"
#include "players/pvs.h"
#include "players/pvs_engine.h"

/* The empty cells of the engine's board, as bits (normal play's moves). */
static void empty_cells(const pvs_engine *e, uint64_t *out)
{
    const pvs_board *pb = &e->board;
    for (int w = 0; w < PVS_WORDS; w++)
        out[w] = 0;
    for (int c = 0; c < pb->x->n_cells; c++)
        if (pb->cells[c] == CELL_EMPTY)
            out[c / 64] |= 1ULL << (c % 64);
}

/* The colour the search prefers in the loaded position (its side to move
 * next in normal play). */
static int preferred_colour(pvs_engine *e, const player_spec *ps, uint64_t key)
{
    uint64_t moves[PVS_WORDS];
    empty_cells(e, moves);
    int value;
    int side = e->board.side;
    pvs_decide(e, ps, moves, key, &value);
    return value >= 0 ? side : side ^ 1;
}

static int centre_distance(const geometry *g, int c)
{
    int r = c / g->width - g->centre / g->width, k = c % g->width - g->centre % g->width;
    return abs(r) + abs(k);
}

/* The legal cell (near the stones when any are) after which the static
 * evaluation is closest to even. */
static int balanced_stone(pvs_engine *e, const variant *v, const uint64_t *legal)
{
    pvs_board *pb = &e->board;
    int best = -1, best_gap = 0, best_dist = 0;
    for (int pass = 0; pass < 2 && best < 0; pass++)
        for (int c = 0; c < v->g.n_cells; c++) {
            if (!bits_get(legal, c) || pb->cells[c] != CELL_EMPTY ||
                (!pass && !((pb->cand[c / 64] >> (c % 64)) & 1)))
                continue;
            pvs_board_play(pb, c);
            int gap = abs(pvs_evaluate(pb));
            pvs_board_undo(pb);
            int dist = centre_distance(&v->g, c);
            if (best < 0 || gap < best_gap || (gap == best_gap && dist < best_dist)) {
                best = c;
                best_gap = gap;
                best_dist = dist;
            }
        }
    return best;
}

/* Black's best legal cell by the move ordering (an offer). */
static int best_offer(pvs_engine *e, const variant *v, const uint64_t *legal)
{
    const pvs_board *pb = &e->board;
    int best = -1, best_score = 0;
    for (int pass = 0; pass < 2 && best < 0; pass++)
        for (int c = 0; c < v->g.n_cells; c++) {
            if (!bits_get(legal, c) || pb->cells[c] != CELL_EMPTY ||
                (!pass && !((pb->cand[c / 64] >> (c % 64)) & 1)))
                continue;
            int s = pvs_move_score(pb, c);
            if (best < 0 || s > best_score) {
                best = c;
                best_score = s;
            }
        }
    return best;
}

/* White's pick: the offer (black's fifth stone) after which white's search
 * does best, each within an equal share of the budget. */
static int pick_offer(pvs_engine *e, const player_spec *ps, const variant *v,
                      const uint64_t *offers, uint64_t key)
{
    int n = 0;
    for (int c = 0; c < v->g.n_cells; c++)
        n += bits_get(offers, c);
    const int64_t limit = e->max_nodes, share = n ? limit / n : limit;
    int best = -1, best_value = 0;
    for (int c = 0; c < v->g.n_cells; c++) {
        if (!bits_get(offers, c))
            continue;
        e->max_nodes = e->nodes + share < limit ? e->nodes + share : limit;
        e->stopped = 0;
        pvs_board_play(&e->board, c);
        uint64_t moves[PVS_WORDS];
        empty_cells(e, moves);
        int value;
        pvs_decide(e, ps, moves, key, &value);
        pvs_board_undo(&e->board);
        if (best < 0 || value > best_value) {
            best = c;
            best_value = value;
        }
    }
    e->max_nodes = limit;
    return best;
}

int pvs_protocol_move(pvs_engine *e, const player_spec *ps, const variant *v, const board_hdr *b,
                      uint64_t key)
{
    const int n = v->g.n_cells;
    const uint64_t *legal = board_legal_c(v, b);
    const int actor_colour = b->seat == b->black_seat ? COLOUR_BLACK : COLOUR_WHITE;
    int value;
    switch (b->phase) {
    case SOOSORV_SWAP1:
    case SOOSORV_SWAP2:
        return n + (preferred_colour(e, ps, key) != actor_colour ? SOOSORV_SWAP : SOOSORV_NO_SWAP);
    case SWAP2_CHOICE:
    case SWAP2_CHOICE2:
        return n +
               (preferred_colour(e, ps, key) == COLOUR_BLACK ? SWAP2_TAKE_BLACK : SWAP2_TAKE_WHITE);
    case SOOSORV_DECLARE:
        return n + SOOSORV_DECLARE_1 + v->p.max_offers - 1;
    case SOOSORV_FOURTH:
        return pvs_decide(e, ps, legal, key, &value);
    case SOOSORV_OFFER:
        return best_offer(e, v, legal);
    case SOOSORV_PICK:
        return pick_offer(e, ps, v, legal, key);
    default: /* the opener's stones, swap2's fourth and fifth */
        return balanced_stone(e, v, legal);
    }
}
