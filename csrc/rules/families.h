/* The rule families, one row each (game/rule_family.h): what the registry
 * (variants/) picks from. A new family adds its row here and one line there. */
#ifndef FIVEROW_FAMILIES_H
#define FIVEROW_FAMILIES_H

#include "game/rule_family.h"

extern const rule_family rule_family_lines; /* freestyle, standard, caro */
extern const rule_family rule_family_renju;
extern const rule_family rule_family_gomorpion;
extern const rule_family rule_family_modlinseq;
extern const rule_family rule_family_connect6;
extern const rule_family rule_family_pente;

#endif
