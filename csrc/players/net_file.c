/* The network file (net.h): read, check and repack for the forward pass.
 *
 * Everything is checked before anything is allocated from the file's
 * numbers: the magic, the version, each shape against its limits, the size
 * the shapes imply against the file's, each tensor's count against the
 * header, every weight finite, the CRC-32 at the end. A bad file gives one
 * line that names it and says what is wrong. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "players/net_model.h"

/* ---- bytes ---- */

/* CRC-32 (IEEE, as zlib.crc32 computes it), bit by bit: a file is checked
 * once, when it is read, and a table would be shared state between threads. */
static uint32_t crc32_of(const uint8_t *p, size_t n)
{
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
    }
    return c ^ 0xffffffffu;
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

typedef struct reader {
    const uint8_t *p;
    size_t len, at;
    const char *name;
    char *err;
    size_t errlen;
} reader;

static int truncated(reader *r, const char *what)
{
    snprintf(r->err, r->errlen, "%s: truncated: %s ends past the end of the file (%zu bytes)",
             r->name, what, r->len);
    return -1;
}

static int read_u32(reader *r, const char *what, uint32_t *out)
{
    if (r->len - r->at < 4)
        return truncated(r, what);
    *out = le32(r->p + r->at);
    r->at += 4;
    return 0;
}

/* A tensor of `count` floats: its count in the file must agree. */
static int read_tensor(reader *r, const char *what, size_t count, float *out)
{
    uint32_t n;
    if (read_u32(r, what, &n))
        return -1;
    if (n != count) {
        snprintf(r->err, r->errlen, "%s: corrupt: tensor %s holds %u floats, its shape %zu",
                 r->name, what, n, count);
        return -1;
    }
    if ((r->len - r->at) / 4 < count)
        return truncated(r, what);
    for (size_t k = 0; k < count; k++) {
        uint32_t bits = le32(r->p + r->at + 4 * k);
        memcpy(&out[k], &bits, sizeof(float));
        if (!isfinite(out[k])) {
            snprintf(r->err, r->errlen, "%s: corrupt: tensor %s has a value that is not finite",
                     r->name, what);
            return -1;
        }
    }
    r->at += 4 * count;
    return 0;
}

/* ---- the model ---- */

/* Floats of a bump allocation, each piece on its own 64 bytes. */
static size_t piece(size_t n)
{
    return (n + 15) & ~(size_t)15;
}

static float *take(float **cursor, size_t n)
{
    float *p = *cursor;
    *cursor += piece(n);
    return p;
}

static void model_free(net_model *m)
{
    if (!m)
        return;
    if (m->plane_names)
        for (int i = 0; i < m->s.planes; i++)
            free(m->plane_names[i]);
    free(m->plane_names);
    free(m->convs);
    free(m->text);
    free(m->name);
    free(m->storage);
    free(m);
}

static void layout_planes(net_planes *pl, int height, int width)
{
    pl->height = height;
    pl->width = width;
    pl->wp = width + 2;
    pl->base = pl->wp + 1;
    int last = (height - 1) * pl->wp + width; /* from the first cell to the last */
    pl->span = (last + NET_JB - 1) / NET_JB * NET_JB;
    pl->stride = (pl->base + pl->span + pl->wp + 1 + 15) / 16 * 16;
}

/* Floats the repacked model needs (mask, convolutions, heads). */
static size_t storage_floats(const net_shape *s, const net_planes *pl, int channels_pad)
{
    const size_t cells = (size_t)s->height * (size_t)s->width, c = (size_t)s->channels;
    size_t n = piece((size_t)pl->stride);
    n += piece((size_t)channels_pad * (size_t)s->planes * 9) + piece((size_t)channels_pad);
    n +=
        2 * (size_t)s->blocks * (piece((size_t)channels_pad * c * 9) + piece((size_t)channels_pad));
    n += piece((size_t)s->policy_channels * c) + piece((size_t)s->policy_channels);
    n += piece((size_t)s->policy_channels * cells * (size_t)s->n_actions) +
         piece((size_t)s->n_actions);
    n += piece(c) + piece(cells * (size_t)s->value_hidden) + 2 * piece((size_t)s->value_hidden);
    return n;
}

/* The plane names from the text's "planes=" line. */
static int read_plane_names(reader *r, net_model *m)
{
    const char *line = m->text;
    while (line && strncmp(line, "planes=", 7) != 0) {
        line = strchr(line, '\n');
        line = line ? line + 1 : NULL;
    }
    m->plane_names = calloc((size_t)m->s.planes, sizeof(char *));
    if (!m->plane_names) {
        snprintf(r->err, r->errlen, "%s: out of memory", r->name);
        return -1;
    }
    if (!line) {
        snprintf(r->err, r->errlen, "%s: corrupt: the text block has no planes= line", r->name);
        return -1;
    }
    const char *p = line + 7;
    for (int i = 0; i < m->s.planes; i++) {
        size_t n = strcspn(p, ",\n");
        if (n == 0 || (i < m->s.planes - 1 && p[n] != ',') ||
            (i == m->s.planes - 1 && p[n] == ',')) {
            snprintf(r->err, r->errlen, "%s: corrupt: the planes= line does not name %d planes",
                     r->name, m->s.planes);
            return -1;
        }
        m->plane_names[i] = malloc(n + 1);
        if (!m->plane_names[i]) {
            snprintf(r->err, r->errlen, "%s: out of memory", r->name);
            return -1;
        }
        memcpy(m->plane_names[i], p, n);
        m->plane_names[i][n] = 0;
        p += n + 1;
    }
    return 0;
}

/* The header's numbers, each within its limits. */
static int read_header(reader *r, net_shape *s)
{
    static const struct {
        const char *name;
        uint32_t lo, hi;
    } limits[9] = {
        {"observation kind", 0, 1},
        {"planes", 1, VARIANT_MAX_PLANES},
        {"height", 1, GEOM_MAX_SIDE},
        {"width", 1, GEOM_MAX_SIDE},
        {"actions", 1, VARIANT_MAX_ACTIONS},
        {"channels", 1, 1024},
        {"blocks", 0, 64},
        {"policy channels", 1, 64},
        {"value hidden units", 1, 4096},
    };
    int *fields[9] = {&s->obs_kind, &s->planes, &s->height,          &s->width,       &s->n_actions,
                      &s->channels, &s->blocks, &s->policy_channels, &s->value_hidden};
    for (int k = 0; k < 9; k++) {
        uint32_t x;
        if (read_u32(r, "the header", &x))
            return -1;
        if (x < limits[k].lo || x > limits[k].hi) {
            snprintf(r->err, r->errlen, "%s: corrupt: %s is %u (allowed: %u..%u)", r->name,
                     limits[k].name, x, limits[k].lo, limits[k].hi);
            return -1;
        }
        *fields[k] = (int)x;
    }
    return 0;
}

/* A 3x3 convolution's weights [cout][cin][3][3] and bias, repacked. */
static int read_conv(reader *r, const char *what, net_conv *c, float **cursor, float *tmp)
{
    char name[96];
    const size_t n = (size_t)c->cout * (size_t)c->cin * 9;
    snprintf(name, sizeof(name), "%s.weight", what);
    if (read_tensor(r, name, n, tmp))
        return -1;
    c->w = take(cursor, (size_t)c->cout_pad * (size_t)c->cin * 9);
    c->b = take(cursor, (size_t)c->cout_pad);
    memset(c->w, 0, sizeof(float) * (size_t)c->cout_pad * (size_t)c->cin * 9);
    memset(c->b, 0, sizeof(float) * (size_t)c->cout_pad);
    for (int co = 0; co < c->cout; co++)
        for (int ci = 0; ci < c->cin; ci++)
            for (int k = 0; k < 9; k++)
                c->w[(((size_t)(co / NET_CB) * (size_t)c->cin + (size_t)ci) * 9 + (size_t)k) *
                         NET_CB +
                     (size_t)(co % NET_CB)] =
                    tmp[((size_t)co * (size_t)c->cin + (size_t)ci) * 9 + (size_t)k];
    snprintf(name, sizeof(name), "%s.bias", what);
    return read_tensor(r, name, (size_t)c->cout, c->b);
}

/* A linear layer's weight [outputs][inputs], stored transposed. */
static int read_linear_t(reader *r, const char *what, int outputs, int inputs, float *dst,
                         float *tmp)
{
    if (read_tensor(r, what, (size_t)outputs * (size_t)inputs, tmp))
        return -1;
    for (int o = 0; o < outputs; o++)
        for (int i = 0; i < inputs; i++)
            dst[(size_t)i * (size_t)outputs + (size_t)o] =
                tmp[(size_t)o * (size_t)inputs + (size_t)i];
    return 0;
}

static int read_tensors(reader *r, net_model *m, float *tmp)
{
    const net_shape *s = &m->s;
    const int cells = s->height * s->width, C = s->channels, pc = s->policy_channels;
    float *cursor = m->storage;
    m->pl.mask = take(&cursor, (size_t)m->pl.stride);
    memset(m->pl.mask, 0, sizeof(float) * (size_t)m->pl.stride);
    for (int y = 0; y < s->height; y++)
        for (int x = 0; x < s->width; x++)
            m->pl.mask[net_pos(&m->pl, y, x)] = 1.0f;
    for (int k = 0; k < 1 + 2 * s->blocks; k++) {
        net_conv *c = &m->convs[k];
        c->cin = k == 0 ? s->planes : C;
        c->cout = C;
        c->cout_pad = m->channels_pad;
        char what[64];
        if (k == 0)
            snprintf(what, sizeof(what), "stem");
        else
            snprintf(what, sizeof(what), "tower.%d.conv%d", (k - 1) / 2, 1 + (k - 1) % 2);
        if (read_conv(r, what, c, &cursor, tmp))
            return -1;
    }
    m->policy_conv_w = take(&cursor, (size_t)pc * (size_t)C);
    m->policy_conv_b = take(&cursor, (size_t)pc);
    m->policy_fc_t = take(&cursor, (size_t)pc * (size_t)cells * (size_t)s->n_actions);
    m->policy_fc_b = take(&cursor, (size_t)s->n_actions);
    m->value_conv_w = take(&cursor, (size_t)C);
    m->value_fc1_t = take(&cursor, (size_t)cells * (size_t)s->value_hidden);
    m->value_fc1_b = take(&cursor, (size_t)s->value_hidden);
    m->value_fc2_w = take(&cursor, (size_t)s->value_hidden);
    return read_tensor(r, "policy.conv.weight", (size_t)pc * (size_t)C, m->policy_conv_w) ||
           read_tensor(r, "policy.conv.bias", (size_t)pc, m->policy_conv_b) ||
           read_linear_t(r, "policy.linear.weight", s->n_actions, pc * cells, m->policy_fc_t,
                         tmp) ||
           read_tensor(r, "policy.linear.bias", (size_t)s->n_actions, m->policy_fc_b) ||
           read_tensor(r, "value.conv.weight", (size_t)C, m->value_conv_w) ||
           read_tensor(r, "value.conv.bias", 1, &m->value_conv_b) ||
           read_linear_t(r, "value.linear1.weight", s->value_hidden, cells, m->value_fc1_t, tmp) ||
           read_tensor(r, "value.linear1.bias", (size_t)s->value_hidden, m->value_fc1_b) ||
           read_tensor(r, "value.linear2.weight", (size_t)s->value_hidden, m->value_fc2_w) ||
           read_tensor(r, "value.linear2.bias", 1, &m->value_fc2_b);
}

/* Tensors in a file: the stem's two, four per block, four of the policy
 * head and six of the value head. */
static int n_tensors(const net_shape *s)
{
    return 12 + 4 * s->blocks;
}

/* Bytes of the tensors the header's shapes imply (their counts included). */
static double tensor_bytes(const net_shape *s)
{
    const double cells = (double)s->height * s->width, C = s->channels;
    double floats = C * s->planes * 9 + C + 2.0 * s->blocks * (C * C * 9 + C);
    floats +=
        s->policy_channels * (C + 1) + s->policy_channels * cells * s->n_actions + s->n_actions;
    floats += C + 1 + cells * s->value_hidden + 2.0 * s->value_hidden + 1;
    return 4 * floats + 4.0 * n_tensors(s);
}

net_model *net_parse(const uint8_t *data, size_t len, const char *name, char *err, size_t errlen)
{
    reader r = {data, len, 0, name, err, errlen};
    if (len < 8 || memcmp(data, NET_MAGIC, 8) != 0) {
        snprintf(err, errlen, "%s: not a fiverow network file (it does not start with %s)", name,
                 NET_MAGIC);
        return NULL;
    }
    r.at = 8;
    uint32_t version, text_bytes;
    if (read_u32(&r, "the format version", &version))
        return NULL;
    if (version != NET_VERSION) {
        snprintf(err, errlen,
                 "%s: network format version %u; this fiverow reads version %d (export the "
                 "network again with this fiverow)",
                 name, version, NET_VERSION);
        return NULL;
    }
    net_shape s;
    if (read_header(&r, &s) || read_u32(&r, "the text block's length", &text_bytes))
        return NULL;
    if (text_bytes > 65536) {
        snprintf(err, errlen, "%s: corrupt: a text block of %u bytes (at most 65536)", name,
                 text_bytes);
        return NULL;
    }
    double need = (double)r.at + text_bytes + tensor_bytes(&s) + 4;
    if (need > (double)len) {
        snprintf(err, errlen, "%s: truncated: its header describes %.0f bytes, the file has %zu",
                 name, need, len);
        return NULL;
    }
    if (need < (double)len) {
        snprintf(err, errlen, "%s: corrupt: %.0f bytes after the end of the network", name,
                 (double)len - need);
        return NULL;
    }
    if (crc32_of(data, len - 4) != le32(data + len - 4)) {
        snprintf(err, errlen, "%s: corrupt: the checksum does not match its contents", name);
        return NULL;
    }
    net_model *m = calloc(1, sizeof(*m));
    if (!m) {
        snprintf(err, errlen, "%s: out of memory", name);
        return NULL;
    }
    atomic_init(&m->refs, 1);
    m->s = s;
    m->channels_pad = (s.channels + NET_CB - 1) / NET_CB * NET_CB;
    layout_planes(&m->pl, s.height, s.width);
    m->name = malloc(strlen(name) + 1);
    if (m->name)
        memcpy(m->name, name, strlen(name) + 1);
    m->text = malloc((size_t)text_bytes + 1);
    m->convs = calloc((size_t)(1 + 2 * s.blocks), sizeof(net_conv));
    size_t cells = (size_t)s.height * (size_t)s.width;
    size_t biggest =
        (size_t)s.channels * (size_t)(s.channels > s.planes ? s.channels : s.planes) * 9;
    size_t fc = (size_t)s.policy_channels * cells * (size_t)s.n_actions;
    biggest = fc > biggest ? fc : biggest;
    biggest = cells * (size_t)s.value_hidden > biggest ? cells * (size_t)s.value_hidden : biggest;
    float *tmp = malloc(sizeof(float) * biggest);
    size_t floats = storage_floats(&s, &m->pl, m->channels_pad);
    m->storage = aligned_alloc(64, sizeof(float) * floats);
    if (!m->name || !m->text || !m->convs || !tmp || !m->storage) {
        snprintf(err, errlen, "%s: out of memory", name);
        free(tmp);
        model_free(m);
        return NULL;
    }
    memcpy(m->text, data + r.at, text_bytes);
    m->text[text_bytes] = 0;
    r.at += text_bytes;
    int rc = strlen(m->text) != text_bytes ? -1 : 0;
    if (rc)
        snprintf(err, errlen, "%s: corrupt: the text block holds a NUL byte", name);
    rc = rc || read_plane_names(&r, m) || read_tensors(&r, m, tmp);
    free(tmp);
    if (rc) {
        model_free(m);
        return NULL;
    }
    m->n_params = (size_t)((tensor_bytes(&s) - 4.0 * n_tensors(&s)) / 4);
    return m;
}

net_model *net_load(const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open the network file", path);
        return NULL;
    }
    uint8_t *data = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len == cap) {
            cap = cap ? 2 * cap : 1 << 16;
            if (cap > ((size_t)1 << 31)) {
                snprintf(err, errlen, "%s: too large for a network file", path);
                break;
            }
            uint8_t *p = realloc(data, cap);
            if (!p) {
                snprintf(err, errlen, "%s: out of memory", path);
                break;
            }
            data = p;
        }
        size_t got = fread(data + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    int failed = ferror(f) || len == cap;
    if (ferror(f))
        snprintf(err, errlen, "%s: read error", path);
    fclose(f);
    net_model *m = failed ? NULL : net_parse(data, len, path, err, errlen);
    free(data);
    return m;
}

void net_retain(const net_model *n)
{
    atomic_fetch_add(&((net_model *)n)->refs, 1);
}

void net_release(const net_model *n)
{
    if (n && atomic_fetch_sub(&((net_model *)n)->refs, 1) == 1)
        model_free((net_model *)n);
}

const net_shape *net_shape_of(const net_model *n)
{
    return &n->s;
}

const char *net_text(const net_model *n)
{
    return n->text;
}

size_t net_parameters(const net_model *n)
{
    return n->n_params;
}

static void describe(char *out, size_t len, int planes, const char *const *names, int height,
                     int width, int n_actions)
{
    int at = snprintf(out, len, "%d planes (", planes);
    for (int i = 0; i < planes && at > 0 && (size_t)at < len; i++)
        at += snprintf(out + at, len - (size_t)at, "%s%s", i ? ", " : "", names[i]);
    if (at > 0 && (size_t)at < len)
        snprintf(out + at, len - (size_t)at, ") of %dx%d and %d actions", height, width, n_actions);
}

int net_check_variant(const net_model *n, const variant *v, char *err, size_t errlen)
{
    const net_shape *s = &n->s;
    const int kind = s->obs_kind;
    int same = v->n_planes[kind] == s->planes && v->g.height == s->height &&
               v->g.width == s->width && v->n_actions == s->n_actions;
    for (int i = 0; same && i < s->planes; i++)
        same = strcmp(v->plane_names[kind][i], n->plane_names[i]) == 0;
    if (same)
        return 0;
    /* the variant it was exported for, from the text block */
    char variant_name[64] = "another variant";
    const char *line = strstr(n->text, "variant=");
    if (line && (line == n->text || line[-1] == '\n'))
        snprintf(variant_name, sizeof(variant_name), "%.*s", (int)strcspn(line + 8, "\n"),
                 line + 8);
    char mine[1024], theirs[1024];
    describe(mine, sizeof(mine), s->planes, (const char *const *)n->plane_names, s->height,
             s->width, s->n_actions);
    describe(theirs, sizeof(theirs), v->n_planes[kind], v->plane_names[kind], v->g.height,
             v->g.width, v->n_actions);
    snprintf(err, errlen,
             "network %s was exported for %s: it reads %s; this variant's observation is %s",
             n->name, variant_name, mine, theirs);
    return -1;
}
