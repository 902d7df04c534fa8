/* The parameter table (SPEC section 8): the parameters every variant has,
 * then those each rule family declares (rule_family.params), with the values
 * of `rule` each applies to; text forms both ways, checked with messages that
 * name the parameter and what is allowed. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "game/rule_family.h"
#include "game/variant.h"
#include "variants/registry.h"

typedef struct param_def {
    const char *name;
    size_t offset;              /* into variant_params */
    const char *const *choices; /* NULL-terminated names for enum parameters */
    int lo, hi;                 /* range for integer parameters (or a set's values) */
    int is_set;                 /* a set of integers lo..hi, kept as bits, written "2,3" */
    const char *applies;        /* the values of `rule` it applies to; NULL: all */
    int def;                    /* default */
} param_def;

static const char *const geometry_names[] = {"plane", "strip", "torus", "hex", "tess", NULL};
static const char *const edge_names[] = {"wall", "wrap", "bounce", NULL};
static const char *const reward_mode_names[] = {"outcome", "points", NULL};
static const char *const forbidden_names[] = {"mask", "lose", NULL};
static const char *const caro_end_names[] = {"open", "not_both_blocked", "gomocup", "gomocup6",
                                             NULL};
static const char *const protocol_names[] = {"free", "center", "soosorv", "swap2", NULL};

#define P(field) offsetof(variant_params, field)
static const param_def common[] = {
    {"geometry", P(geometry), geometry_names, 0, 0, 0, NULL, GEOM_PLANE},
    {"height", P(height), NULL, 3, GEOM_MAX_SIDE, 0, NULL, 15},
    {"width", P(width), NULL, 3, GEOM_MAX_SIDE, 0, NULL, 15},
    {"order", P(order), NULL, 2, 15, 0, NULL, 7},
    {"edge", P(edge), edge_names, 0, 0, 0, NULL, EDGE_WALL},
    {"rule", P(rule), NULL, 0, 0, 0, NULL, 0}, /* choices: the registry; 0 is freestyle */
    {"connect", P(connect), NULL, 2, 16, 0, NULL, 5},
    {"caro_ends", P(caro_ends), caro_end_names, 0, 0, 0, "caro", CARO_OPEN},
    {"forbidden", P(forbidden), forbidden_names, 0, 0, 0, "renju", FORBIDDEN_MASK},
    {"protocol", P(protocol), protocol_names, 0, 0, 0, NULL, PROTO_FREE},
    {"max_offers", P(max_offers), NULL, 1, 8, 0, NULL, 8},
    {"max_steps", P(max_steps), NULL, 0, 65535, 0, NULL, 0}, /* 0: enough to fill the board */
    {"neighbourhood", P(neighbourhood), NULL, 4, 8, 0, "gomorpion", 8},
    {"capture_threshold", P(capture_threshold), NULL, 1, 8, 0, "gomorpion", 4},
    {"reward_mode", P(reward_mode), reward_mode_names, 0, 0, 0, "gomorpion,modlinseq",
     REWARD_OUTCOME},
    {"modulus", P(modulus), NULL, 2, 36, 0, "modlinseq", 18},
    {"copies", P(copies), NULL, 1, 8, 0, "modlinseq", 4},
    {"hand_size", P(hand_size), NULL, 1, 12, 0, "modlinseq", 6},
};
#undef P
#define N_COMMON ((int)(sizeof(common) / sizeof(common[0])))
#define MAX_PARAMS (N_COMMON + VARIANT_FAMILY_PARAMS)

/* The whole table: the common rows, then every family's, built once. */
static param_def table[MAX_PARAMS];
static char applies_of[VARIANT_FAMILY_PARAMS][256];
static char all_names[1024];
static int n_params;
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void build_table(void)
{
    memcpy(table, common, sizeof(common));
    table[5].choices = registry_rule_names();
    n_params = N_COMMON;
    int slot = 0;
    for (int f = 0; f < registry_family_count(); f++) {
        const rule_family *fam = registry_family(f);
        /* the rules the family serves */
        char applies[256] = "";
        for (int r = 0; r < registry_rule_count(); r++)
            if (registry_rule(r)->family == fam) {
                if (applies[0])
                    strncat(applies, ",", sizeof(applies) - strlen(applies) - 1);
                strncat(applies, registry_rule(r)->name, sizeof(applies) - strlen(applies) - 1);
            }
        for (int k = 0; k < fam->n_params && slot < VARIANT_FAMILY_PARAMS; k++, slot++) {
            const rule_param *rp = &fam->params[k];
            param_def *d = &table[n_params++];
            strcpy(applies_of[slot], applies);
            *d = (param_def){
                rp->name,         offsetof(variant_params, family) + sizeof(int) * (size_t)slot,
                rp->choices,      rp->lo,
                rp->hi,           rp->is_set,
                applies_of[slot], rp->def};
        }
    }
    strcpy(all_names, "geometry, size");
    for (int i = 0; i < n_params; i++)
        if (i != 0) {
            strncat(all_names, ", ", sizeof(all_names) - strlen(all_names) - 1);
            strncat(all_names, table[i].name, sizeof(all_names) - strlen(all_names) - 1);
        }
}

static const param_def *params(int *n)
{
    pthread_once(&table_once, build_table);
    *n = n_params;
    return table;
}

int variant_param_count(void)
{
    int n;
    params(&n);
    return n;
}

int variant_param_info(int i, const char **name, const char *const **choices, int *lo, int *hi,
                       int *is_set, const char **applies)
{
    int n;
    const param_def *t = params(&n);
    if (i < 0 || i >= n)
        return -1;
    *name = t[i].name;
    *choices = t[i].choices;
    *lo = t[i].lo;
    *hi = t[i].hi;
    *is_set = t[i].is_set;
    *applies = t[i].applies;
    return 0;
}

const char *variant_geometry_name(int kind)
{
    return geometry_names[kind];
}

const char *variant_param_names(void)
{
    int n;
    params(&n);
    return all_names;
}

static int *field_of(variant_params *p, const param_def *d)
{
    return (int *)((char *)p + d->offset);
}

void variant_params_default(variant_params *p)
{
    int n;
    const param_def *t = params(&n);
    memset(p, 0, sizeof(*p));
    for (int i = 0; i < n; i++)
        *field_of(p, &t[i]) = t[i].def;
}

static void join_choices(const char *const *choices, char *buf, size_t len)
{
    buf[0] = '\0';
    for (int i = 0; choices[i]; i++) {
        if (i)
            strncat(buf, ", ", len - strlen(buf) - 1);
        strncat(buf, choices[i], len - strlen(buf) - 1);
    }
}

/* One integer of a value's text; 0, or -1 with a message. */
static int parse_int(const param_def *d, const char *text, long *x, char *err, size_t errlen)
{
    char *end;
    errno = 0;
    *x = strtol(text, &end, 10);
    if (errno || end == text || *end != '\0') {
        snprintf(err, errlen, "parameter '%s' must be %s, got '%s'", d->name,
                 d->is_set ? "integers separated by commas" : "an integer", text);
        return -1;
    }
    if (*x < d->lo || *x > d->hi) {
        snprintf(err, errlen, "parameter '%s' = %ld is out of range %d..%d", d->name, *x, d->lo,
                 d->hi);
        return -1;
    }
    return 0;
}

static int set_one(variant_params *p, const param_def *d, const char *value, char *err,
                   size_t errlen)
{
    int *field = field_of(p, d);
    if (d->choices) {
        for (int i = 0; d->choices[i]; i++)
            if (strcmp(d->choices[i], value) == 0) {
                *field = i;
                return 0;
            }
        char allowed[256];
        join_choices(d->choices, allowed, sizeof(allowed));
        snprintf(err, errlen, "parameter '%s' has bad value '%s'; allowed: %s", d->name, value,
                 allowed);
        return -1;
    }
    long x;
    if (!d->is_set) {
        if (parse_int(d, value, &x, err, errlen))
            return -1;
        *field = (int)x;
        return 0;
    }
    char item[32];
    int bits = 0;
    for (const char *at = value;;) {
        const char *comma = strchr(at, ',');
        size_t len = comma ? (size_t)(comma - at) : strlen(at);
        while (len && *at == ' ')
            at++, len--;
        if (len == 0 || len >= sizeof(item)) {
            snprintf(err, errlen, "parameter '%s' must be integers separated by commas, got '%s'",
                     d->name, value);
            return -1;
        }
        memcpy(item, at, len);
        item[len] = '\0';
        if (parse_int(d, item, &x, err, errlen))
            return -1;
        bits |= 1 << x;
        if (!comma)
            break;
        at = comma + 1;
    }
    if (!bits) {
        snprintf(err, errlen, "parameter '%s' needs at least one value, got '%s'", d->name, value);
        return -1;
    }
    *field = bits;
    return 0;
}

int variant_params_set(variant_params *p, const char *key, const char *value, char *err,
                       size_t errlen)
{
    int n;
    const param_def *t = params(&n);
    if (strcmp(key, "size") == 0) {
        variant_params q = *p;
        if (set_one(&q, &t[1], value, err, errlen)) {
            /* report the error under the name the user gave */
            snprintf(err, errlen, "parameter 'size' must be an integer in %d..%d, got '%s'", 3,
                     GEOM_MAX_SIDE, value);
            return -1;
        }
        p->height = p->width = q.height;
        return 0;
    }
    for (int i = 0; i < n; i++)
        if (strcmp(t[i].name, key) == 0)
            return set_one(p, &t[i], value, err, errlen);
    snprintf(err, errlen, "unknown parameter '%s'; allowed: %s", key, variant_param_names());
    return -1;
}

/* Does a parameter apply to the rule p names? (a family's own parameters are
 * described only under its rules) */
static int applies_to(const param_def *d, const variant_params *p)
{
    if (!d->applies || d->offset < offsetof(variant_params, family))
        return 1;
    const char *rule = registry_rule(p->rule)->name, *at = d->applies;
    size_t len = strlen(rule);
    while ((at = strstr(at, rule)) != NULL) {
        int starts = at == d->applies || at[-1] == ',', ends = at[len] == ',' || !at[len];
        if (starts && ends)
            return 1;
        at += len;
    }
    return 0;
}

int variant_params_describe(const variant_params *p, char *buf, size_t len)
{
    int count;
    const param_def *t = params(&count);
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < count; i++) {
        const param_def *d = &t[i];
        if (!applies_to(d, p))
            continue;
        int x = *(const int *)((const char *)p + d->offset), n;
        if (d->choices) {
            n = snprintf(buf + used, len - used, "%s=%s\n", d->name, d->choices[x]);
        } else if (d->is_set) {
            char text[128] = "";
            for (int v = d->lo; v <= d->hi; v++)
                if (x >> v & 1)
                    snprintf(text + strlen(text), sizeof(text) - strlen(text), "%s%d",
                             text[0] ? "," : "", v);
            n = snprintf(buf + used, len - used, "%s=%s\n", d->name, text);
        } else {
            n = snprintf(buf + used, len - used, "%s=%d\n", d->name, x);
        }
        if (n < 0 || (size_t)n >= len - used)
            return -1;
        used += (size_t)n;
    }
    return 0;
}

uint32_t variant_params_fingerprint(const variant_params *p)
{
    int n;
    const param_def *t = params(&n);
    uint64_t h = 0x66697665726f77ULL; /* "fiverow" */
    /* the parameters every variant has, as they always were hashed, then a
     * family's own only where they differ from their defaults: the states
     * saved before families declared parameters keep their fingerprints */
    const int *x = (const int *)p;
    for (size_t i = 0; i < offsetof(variant_params, family) / sizeof(int); i++)
        h = rng_mix64(h ^ (uint64_t)(uint32_t)x[i]);
    for (int i = N_COMMON; i < n; i++) {
        int value = *(const int *)((const char *)p + t[i].offset);
        if (value != t[i].def)
            h = rng_mix64(h ^ ((uint64_t)(uint32_t)i << 32) ^ (uint64_t)(uint32_t)value);
    }
    return (uint32_t)(h >> 32) | 1u; /* never 0: a zeroed block is not a state */
}
