/* Built-in players: random, heuristic, MCTS, threat, net and pvs, for every variant.
 *
 * A player chooses the action of the seat to act on one board, from the
 * board's state alone, with its randomness drawn from a key the caller
 * derives per decision (policy_decision_key): the same board, seed and
 * player give the same move on any thread. Players that search need memory;
 * each thread owns one policy_scratch. */
#ifndef FIVEROW_PLAYER_H
#define FIVEROW_PLAYER_H

#include <stddef.h>
#include <stdint.h>

#include "game/variant.h"

enum player_kind {
    PLAYER_RANDOM = 0,
    PLAYER_HEURISTIC = 1,
    PLAYER_MCTS = 2,
    PLAYER_THREAT = 3,
    PLAYER_NET = 4,
    PLAYER_PVS = 5
};

struct net_model;

typedef struct player_spec {
    int kind;
    /* mcts */
    int simulations; /* playouts per decision */
    int rollout;     /* PLAYER_RANDOM or PLAYER_HEURISTIC: the playout policy */
    int width;       /* children per node: the best heuristic candidates; 0 = every legal action */
    int depth;       /* playout plies before an unfinished playout is scored */
    float c_uct;     /* exploration constant of UCT */
    float epsilon;   /* heuristic playouts: a random candidate with this probability */
    /* threat (and width; simulations > 0: MCTS over its root moves, with the
     * MCTS parameters, instead of alpha-beta) */
    int nodes;     /* moves searched per decision, all searches together (pvs too) */
    int plies;     /* alpha-beta depth */
    int vct_depth; /* attacker moves of its VCT searches (VCF: up to SOLVE_MAX_DEPTH / 2) */
    /* net (and simulations: 0 plays the policy alone, more searches by PUCT
     * with the network at the leaves, net_player.h) */
    const struct net_model *net; /* borrowed: whoever keeps the spec retains it */
    float temperature;           /* 0: the best action; else drawn (net_player.h) */
    float c_puct;                /* exploration constant of its PUCT search */
    /* pvs: nodes (above), depth (iterations at most) and a clock */
    int64_t time_ms; /* milliseconds per decision, 0: none (nodes alone decide) */
    uint64_t seed;   /* mixed into every decision key */
} player_spec;

/* Defaults of each kind's parameters (and checks with messages). */
void player_spec_default(player_spec *ps, int kind);
const char *player_spec_check(const player_spec *ps);
/* Can the player play variant v? NULL, or why not in err, naming the player
 * and the rule (pvs plays line rules only; a network reads only the
 * observation it was exported for). */
const char *player_spec_check_variant(const player_spec *ps, const variant *v, char *err,
                                      size_t errlen);
/* A spec kept beyond the call that was given it (an opponent, a self-play
 * run) holds a reference to its network; release drops it. */
void player_spec_retain(const player_spec *ps);
void player_spec_release(player_spec *ps);

typedef struct policy_scratch policy_scratch;
policy_scratch *policy_scratch_new(const variant *v);
void policy_scratch_free(policy_scratch *s);

/* Key of one decision: board, episode, step and the player's seed. */
uint64_t policy_decision_key(const player_spec *ps, const board_hdr *b);

/* The action the player takes on board b (ongoing). When policy is not NULL
 * it receives the player's distribution over the actions (MCTS: visit
 * counts; heuristic: its best actions, evenly; random: the legal actions,
 * evenly; net: its policy over the legal actions, or its search's visit
 * counts), n_actions floats. A net player's network must read v
 * (player_spec_check_variant). */
int policy_act(const player_spec *ps, const variant *v, const board_hdr *b, policy_scratch *s,
               uint64_t key, float *policy);

/* ---- pieces the players share (policy_heuristic.c) ---- */

/* Heuristic scores of candidate actions: returns the number of candidates
 * written (actions into cand, scores into score, at most max). Where the
 * seat to act can win at once, only the winning actions; else where the
 * opponent could, only the cells that stop it; else legal cells near the
 * stones with their pattern scores. Protocol phases and MODLINSEQ: every
 * legal action, scored 0. */
int heuristic_candidates(const variant *v, const board_hdr *b, policy_scratch *s, int32_t *cand,
                         float *score, int max);
/* heuristic_candidates into s->cand / s->score, the best `best` of them
 * moved to the front, best first (cell order on ties). Returns how many
 * candidates there are (all of them, not only the best). */
int heuristic_ranked(const variant *v, const board_hdr *b, policy_scratch *s, int best);
/* The heuristic player's move (ties broken from key, *ctr); with epsilon, a
 * uniformly random candidate instead with that probability. */
int heuristic_move(const variant *v, const board_hdr *b, policy_scratch *s, uint64_t key,
                   uint32_t *ctr, float epsilon);

/* ---- MCTS (policy_mcts.c) ---- */
int mcts_move(const player_spec *ps, const variant *v, const board_hdr *b, policy_scratch *s,
              uint64_t key, float *policy);
/* The same with the root's children given: moves[0..n_moves), in the order
 * unvisited children are tried (NULL: the heuristic's candidates). */
int mcts_move_among(const player_spec *ps, const variant *v, const board_hdr *b, policy_scratch *s,
                    uint64_t key, float *policy, const int32_t *moves, int n_moves);

/* ---- threat-space search over the heuristic (policy_threat.c) ---- */
int threat_move(const player_spec *ps, const variant *v, const board_hdr *b, policy_scratch *s,
                uint64_t key, float *policy);

/* ---- a network's policy, or its PUCT search (net_player.h) ---- */
int net_move(const player_spec *ps, const variant *v, const board_hdr *b, policy_scratch *s,
             uint64_t key, float *policy);

/* Scratch internals shared by the policy files. */
struct mcts_node;
struct solver;
struct threat_search;
struct net_scratch;
struct pvs_engine;
struct policy_scratch {
    const variant *v;
    uint8_t *board;  /* one board state for search and greedy trials */
    uint8_t *board2; /* a second one */
    int32_t *cand;   /* [n_actions] */
    float *score;    /* [n_actions] */
    uint64_t *near;  /* [cell words] */
    struct mcts_node *nodes;
    size_t n_nodes, cap_nodes;
    int32_t *path;                /* [max_steps + 1] */
    struct solver *solver;        /* the threat player's, made on first use */
    struct threat_search *search; /* the same */
    struct net_scratch *net;      /* the net player's, made on first use */
    struct pvs_engine *pvs;       /* the pvs player's, made on first use */
};

#endif
