#include "game/rule_family.h"

const char *const rule_trait_names[RULE_TRAITS] = {
    "lines",    "scoring", "chance",      "no_colours", "own_planes", "multi_stone_turns",
    "captures", "fouls",   "own_actions", "statuses",   "tiles"};
