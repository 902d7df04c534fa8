#include "variants/registry.h"

#include <pthread.h>
#include <stddef.h>

#include "rules/families.h"
#include "rules/lines_rule.h"

static const rule_entry rules[] = {
    {"freestyle", &rule_family_lines, LINES_FREESTYLE},
    {"standard", &rule_family_lines, LINES_STANDARD},
    {"caro", &rule_family_lines, LINES_CARO},
    {"renju", &rule_family_renju, 0},
    {"gomorpion", &rule_family_gomorpion, 0},
    {"modlinseq", &rule_family_modlinseq, 0},
    {"connect6", &rule_family_connect6, 0},
    {"pente", &rule_family_pente, 0},
};
#define N_RULES ((int)(sizeof(rules) / sizeof(rules[0])))

static const char *names[N_RULES + 1];
static pthread_once_t names_once = PTHREAD_ONCE_INIT;

static void list_names(void)
{
    for (int i = 0; i < N_RULES; i++)
        names[i] = rules[i].name;
}

int registry_rule_count(void)
{
    return N_RULES;
}

const rule_entry *registry_rule(int i)
{
    return i >= 0 && i < N_RULES ? &rules[i] : NULL;
}

const char *const *registry_rule_names(void)
{
    pthread_once(&names_once, list_names);
    return names;
}

/* The distinct families, in the order the rules list them. */
static int family_index(const rule_family *f, const rule_family **seen, int n)
{
    for (int k = 0; k < n; k++)
        if (seen[k] == f)
            return k;
    return -1;
}

static int families(const rule_family **out)
{
    int n = 0;
    for (int i = 0; i < N_RULES; i++)
        if (family_index(rules[i].family, out, n) < 0)
            out[n++] = rules[i].family;
    return n;
}

int registry_family_count(void)
{
    const rule_family *seen[N_RULES];
    return families(seen);
}

const rule_family *registry_family(int i)
{
    const rule_family *seen[N_RULES];
    int n = families(seen);
    return i >= 0 && i < n ? seen[i] : NULL;
}

int registry_param_base(const rule_family *f)
{
    const rule_family *seen[N_RULES];
    int n = families(seen), base = 0;
    for (int k = 0; k < n && seen[k] != f; k++)
        base += seen[k]->n_params;
    return base;
}
