/* Replays of recorded episodes: from the keys a dataset stores (seed, group,
 * board, episode) and the actions, the observations and legal masks each
 * mover saw, rebuilt in C. The rule's own randomness (MODLINSEQ's bag) comes
 * back from the keys. */
#ifndef FIVEROW_REPLAY_H
#define FIVEROW_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "game/variant.h"

/* Replay n actions: obs receives n + 1 observations of kind `kind`
 * (OBS_ABSOLUTE or OBS_MOVER) and masks
 * n + 1 legal masks (uint8 over the actions), one before each action and
 * the final ones (the final mask is all zeros: the episode is over);
 * rewards receives each step's rewards by seat ([n][2]). Returns 0, or -1
 * with a message when an action is illegal or the episode does not end
 * where the actions do (the file does not match the variant or the keys). */
int replay_episode(const variant *v, uint64_t seed, int group, int board, uint32_t episode,
                   const int16_t *actions, int n, int kind, uint8_t *obs, uint8_t *masks,
                   float *rewards, char *err, size_t errlen);

#endif
