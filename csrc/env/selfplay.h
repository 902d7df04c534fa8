/* Self-play over a batch: every board plays whole episodes between two
 * players, in parallel, recording each step (action, seat, colour, and
 * optionally the observation and the mover's policy) into a per-board
 * episode buffer. Match results and the HDF5 writer both read the buffers.
 *
 * Game k of a run is episode k / N of the board at position k % N of a fixed
 * order of the N boards (the groups interleaved by size, so that any prefix
 * of a round shares the boards among the variants by weight). A game's
 * keys thus depend on the seed, k and the boards per variant only: the
 * same whatever the threads, the rounds, or which process plays which
 * range of games (fiverow.distributed cuts runs into shards that way). */
#ifndef FIVEROW_SELFPLAY_H
#define FIVEROW_SELFPLAY_H

#include <stdatomic.h>
#include <stdint.h>

#include "env/batch.h"
#include "env/opening_book.h"
#include "players/player.h"

typedef struct episode_buf {
    int32_t n, cap;
    int16_t *action;
    int8_t *seat, *colour;
    uint8_t *obs;     /* [cap][obs_bytes], when observations are recorded */
    uint16_t *policy; /* float16 [cap][n_actions], when policies are recorded */
    /* the game, once played */
    int played; /* 1: a complete episode this round */
    int32_t group, board;
    uint32_t episode;
    uint64_t seed;    /* the batch seed the board was keyed from */
    int64_t game;     /* game number of the run */
    int8_t player[2]; /* player (0 or 1) in each seat */
    int8_t winner;    /* seat, -1 for none */
    int8_t truncated;
    int8_t opening, black_seat; /* at the end */
    int8_t book;                /* the first `book` steps were an opening's stones */
    int32_t scores[2];
} episode_buf;

typedef struct selfplay {
    batch *b;
    player_spec players[2];
    int record_obs, record_policy;
    int alternate; /* seats alternate with the game number (else player 0 sits in seat 0) */
    int n_threads;
    int *order;               /* [n_total] the boards (batch order) by position in a round */
    policy_scratch **scratch; /* [n_threads * n_groups] */
    opening_book *books;      /* [n_groups]: the games' openings (n 0: none) */
    float **policy_tmp;       /* [n_threads * n_groups] */
    atomic_int stop;          /* set from another thread: abandon the games in play */
    atomic_llong games_done;  /* progress, read from another thread */
    atomic_llong steps_done;
} selfplay;

/* A self-play driver over b (whose boards it re-keys from seed). */
selfplay *selfplay_new(batch *b, const player_spec players[2], uint64_t seed, int alternate,
                       int record_obs, int record_policy, char *err, size_t errlen);
void selfplay_free(selfplay *sp);

/* Start group gi's games from an opening book (opening_book.h; n 0: none).
 * 0, or -1 with a message (the book is checked against the variant). */
int selfplay_set_book(selfplay *sp, int gi, const int32_t *xy, const int32_t *first, int n,
                      char *err, size_t errlen);

/* Buffers for every board of the batch (one set per round in flight). */
episode_buf *selfplay_buffers_new(const selfplay *sp);
void selfplay_buffers_free(const selfplay *sp, episode_buf *bufs);

/* Play games first_game .. first_game + n - 1, one per board, into bufs
 * (indexed by board in batch order), on at most `threads` threads (the
 * games do not depend on it). The range must lie in one round: it may not
 * cross a multiple of the boards (selfplay_round_room). Returns the games
 * completed; fewer when stopped, -1 when out of memory or out of range. */
int selfplay_round(selfplay *sp, int64_t first_game, int n, episode_buf *bufs, int threads);
/* Games a round starting at first_game can hold (to the round's end). */
int selfplay_round_room(const selfplay *sp, int64_t first_game);

#endif
