#include "env/replay.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game/game.h"

int replay_episode(const variant *v, uint64_t seed, int group, int board, uint32_t episode,
                   const int16_t *actions, int n, int kind, uint8_t *obs, uint8_t *masks,
                   float *rewards, char *err, size_t errlen)
{
    board_hdr *h = aligned_alloc(64, (v->state_size + 63) & ~(size_t)63);
    if (!h) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    memset(h, 0, v->state_size);
    h->board_key = board_key_of(seed, group, board);
    game_new_episode(v, h, episode);
    const size_t obs_bytes = (size_t)v->n_planes[kind] * (size_t)v->g.n_cells;
    int rc = 0;
    for (int t = 0; t < n; t++) {
        if (h->status != STATUS_ONGOING) {
            snprintf(err, errlen, "the episode ended after %d of its %d recorded actions", t, n);
            rc = -1;
            break;
        }
        game_write_obs(v, h, kind, obs + (size_t)t * obs_bytes);
        bits_to_bytes(board_legal_c(v, h), v->n_actions, masks + (size_t)t * v->n_actions);
        const char *why = game_illegal_reason(v, h, actions[t]);
        if (why) {
            snprintf(err, errlen, "step %d: action %d is not legal (%s)", t, actions[t], why);
            rc = -1;
            break;
        }
        game_step(v, h, actions[t]);
        game_rewards(v, h, rewards + 2 * (size_t)t);
    }
    if (!rc && h->status == STATUS_ONGOING) {
        snprintf(err, errlen, "the episode goes on after its %d recorded actions", n);
        rc = -1;
    }
    if (!rc) {
        game_write_obs(v, h, kind, obs + (size_t)n * obs_bytes);
        memset(masks + (size_t)n * v->n_actions, 0, (size_t)v->n_actions);
    }
    free(h);
    return rc;
}
