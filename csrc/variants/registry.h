/* The registry of rule families: every value of the `rule` parameter with its
 * family's row (game/rule_family.h). A new family is one line here. */
#ifndef FIVEROW_REGISTRY_H
#define FIVEROW_REGISTRY_H

#include "game/rule_family.h"

typedef struct rule_entry {
    const char *name; /* the value of the `rule` parameter */
    const rule_family *family;
    int flavour; /* which of the family's rules (variant.rule_flavour) */
} rule_entry;

/* The values of `rule`, in order. */
int registry_rule_count(void);
const rule_entry *registry_rule(int i);
/* Their names, NULL-terminated (the choices of the `rule` parameter). */
const char *const *registry_rule_names(void);
/* The families in order of first appearance, and where each one's own
 * parameters start among variant_params.family. */
int registry_family_count(void);
const rule_family *registry_family(int i);
int registry_param_base(const rule_family *f);

#endif
