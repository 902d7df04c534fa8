/* The net player (PLAYER_NET): a network file evaluated in C (net.h).
 *
 * simulations = 0: the policy alone. The network reads the board's
 * observation (game_write_obs, of the kind it was exported for); the move is
 * the legal action with the highest logit, or with temperature T > 0 one
 * drawn with probability softmax(logits / T) over the legal actions.
 *
 * simulations = N > 0: a PUCT search of N simulations on this board alone
 * (net_search.c), the network at every leaf: its policy over the legal
 * actions is the children's priors, its value the leaf's. A move that wins
 * at once is always taken. The move is the most visited child, or with
 * T > 0 one drawn with probability visits^(1/T).
 *
 * Why one board at a time: the player interface decides per board inside
 * the callers' OpenMP loop over boards (act, opponents in the step,
 * self-play), so every thread runs its own boards' searches end to end with
 * its own scratch, no thread waits for a batch, and a board's move depends
 * on the board and the decision key alone (any thread count gives the same
 * games). A single-board forward pass of a small network on a 15x15 board
 * runs at 60-70 GFLOP/s on one core here (benchmarks/c/net_conv.c); batching leaves
 * across boards (fiverow.search.MCTS does, for torch) would buy little more
 * on a CPU. */
#ifndef FIVEROW_NET_PLAYER_H
#define FIVEROW_NET_PLAYER_H

#include "players/net.h"
#include "players/player.h"

typedef struct net_node net_node;
typedef struct net_edge net_edge;

typedef struct net_scratch {
    const net_model *model; /* the network the memory is sized for (not held) */
    net_work *work;
    uint8_t *obs;  /* [planes * cells] */
    float *logits; /* [n_actions] */
    float *prob;   /* [n_actions] */
    /* the search's tree (net_search.c), reused from move to move */
    net_node *nodes;
    net_edge *edges;
    int n_nodes, cap_nodes, n_edges, cap_edges;
} net_scratch;

/* The scratch of s for network m (made, or remade for another network);
 * NULL when out of memory. */
net_scratch *net_scratch_of(policy_scratch *s, const net_model *m, const variant *v);
void net_scratch_free(net_scratch *ns);

/* The network on board b (ongoing): its policy, softmax of the logits over
 * the legal actions, into prob[n_actions] (0 elsewhere), and its value for
 * the seat to act. The logits stay in ns->logits. */
void net_evaluate(const net_model *m, net_scratch *ns, const variant *v, const board_hdr *b,
                  float *prob, float *value);

/* An index below n drawn with probability weight[i] / sum (weights >= 0,
 * one of them > 0), from (key, *ctr). */
int net_draw(const float *weight, int n, uint64_t key, uint32_t *ctr);

/* The search's move (simulations > 0). */
int net_search_move(const player_spec *ps, const variant *v, const board_hdr *b, policy_scratch *s,
                    net_scratch *ns, uint64_t key, float *policy);

#endif
