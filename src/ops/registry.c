/*
 * The set of operations a benchmark can name: every built-in descriptor
 * (collectives and their non-blocking forms, point-to-point patterns,
 * one-sided, and the linear/binomial implementations on point-to-point) plus
 * the operations the application registers. This is MPIBlib's open set of
 * operations (paper 001, sec. 4: "the set of communication operations that
 * can be benchmarked by MPIBlib is open for extensions"), kept in a handle
 * rather than a global table so two users of the library in one process, or
 * SimGrid's privatized ranks, never see each other's registrations; lookups
 * are case-insensitive and an unknown name is answered with every valid one,
 * as for every registry of isochron. The datatypes and reduction ops the
 * built-ins know, by name, are in datatypes.c.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "core/util.h"
#include "ops/ops_impl.h"

struct isochron_ops {
    isochron_op_t *ops;
    int n, cap, nbuiltin;
};

static int grow(isochron_ops_t *s, int extra)
{
    if (s->n + extra <= s->cap) return 1;
    int cap = s->cap ? s->cap : 64;
    while (cap < s->n + extra) cap *= 2;
    isochron_op_t *v = realloc(s->ops, (size_t)cap * sizeof *v);
    if (!v) return 0;
    s->ops = v;
    s->cap = cap;
    return 1;
}

int isochron_ops_create(isochron_ops_t **out)
{
    if (!out) return isochron_set_error(ISOCHRON_EINVAL, "isochron_ops_create: no output pointer");
    *out = NULL;
    isochron_ops_t *s = calloc(1, sizeof *s);
    if (!s) return isochron_set_error(ISOCHRON_ENOMEM, "out of memory for the operation registry");
#define TABLE(file) isochron_ops_builtin_##file,
    const isochron_op_t *(*tables[])(int *) = { ISOCHRON_OPS_BUILTINS(TABLE) };
#undef TABLE
    for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++) {
        int n = 0;
        const isochron_op_t *v = tables[t](&n);
        if (!grow(s, n)) {
            isochron_ops_destroy(s);
            return isochron_set_error(ISOCHRON_ENOMEM, "out of memory for the operation registry");
        }
        memcpy(s->ops + s->n, v, (size_t)n * sizeof *v);
        s->n += n;
    }
    s->nbuiltin = s->n;
    *out = s;
    return ISOCHRON_OK;
}

void isochron_ops_destroy(isochron_ops_t *s)
{
    if (!s) return;
    for (int i = s->nbuiltin; i < s->n; i++) { /* registered copies own their strings */
        free((char *)s->ops[i].name);
        free((char *)s->ops[i].family);
        free((char *)s->ops[i].description);
    }
    free(s->ops);
    free(s);
}

static int valid_name(const char *n)
{
    if (!n || !*n || strlen(n) > 63) return 0;
    for (; *n; n++)
        if (!isalnum((unsigned char)*n) && *n != '_' && *n != '-' && *n != '.') return 0;
    return 1;
}

static char *dup_or_null(const char *s)
{
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

static const char *op_at(const void *reg, int i) { return ((const isochron_ops_t *)reg)->ops[i].name; }

int isochron_ops_register(isochron_ops_t *s, const isochron_op_t *op)
{
    if (!s || !op) return isochron_set_error(ISOCHRON_EINVAL, "isochron_ops_register: no registry or operation");
    if (!valid_name(op->name))
        return isochron_set_error(ISOCHRON_EINVAL,
                                  "operation name '%.64s' is not valid: 1 to 63 letters, digits, '_', '-' or '.'",
                                  op->name ? op->name : "(null)");
    int dup = isochron_names_find(s, s->n, op_at, op->name);
    if (dup >= 0) return isochron_set_error(ISOCHRON_ENAME, "an operation named '%s' is already registered", s->ops[dup].name);
    if (!op->run) return isochron_set_error(ISOCHRON_EINVAL, "operation '%s' has no run function", op->name);
    if ((op->flags & ISOCHRON_OP_NONBLOCKING) && (!op->post || !op->wait))
        return isochron_set_error(ISOCHRON_EINVAL, "operation '%s' is non-blocking but lacks post or wait", op->name);
    if (!grow(s, 1)) return isochron_set_error(ISOCHRON_ENOMEM, "out of memory registering '%s'", op->name);
    isochron_op_t c = *op;
    c.name = dup_or_null(op->name);
    c.family = dup_or_null(op->family ? op->family : op->name);
    c.description = dup_or_null(op->description ? op->description : "");
    if (!c.name || !c.family || !c.description) {
        free((char *)c.name);
        free((char *)c.family);
        free((char *)c.description);
        return isochron_set_error(ISOCHRON_ENOMEM, "out of memory registering '%s'", op->name);
    }
    c.flags |= ISOCHRON_OP_USER;
    s->ops[s->n++] = c;
    return ISOCHRON_OK;
}

int isochron_ops_count(const isochron_ops_t *s) { return s ? s->n : 0; }

const isochron_op_t *isochron_ops_get(const isochron_ops_t *s, int i)
{
    return (s && i >= 0 && i < s->n) ? &s->ops[i] : NULL;
}

int isochron_ops_find(const isochron_ops_t *s, const char *name, const isochron_op_t **out)
{
    if (out) *out = NULL;
    if (!s || !name || !out) return isochron_set_error(ISOCHRON_EINVAL, "isochron_ops_find: missing argument");
    int i = isochron_names_find(s, s->n, op_at, name);
    if (i >= 0) {
        *out = &s->ops[i];
        return ISOCHRON_OK;
    }
    /* the sentence lists every valid name (error messages hold 4095 characters: 80 operations need about 1500) */
    size_t len = isochron_names_join(s, s->n, op_at, NULL, 0) + 1;
    char *list = malloc(len);
    if (!list) return isochron_set_error(ISOCHRON_ENAME, "unknown operation '%.64s'", name);
    isochron_names_join(s, s->n, op_at, list, len);
    int rc = isochron_set_error(ISOCHRON_ENAME, "unknown operation '%.64s'; valid: %s", name, list);
    free(list);
    return rc;
}
