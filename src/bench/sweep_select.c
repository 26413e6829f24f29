/*
 * What a sweep measures, from the text a user gives (isochron/bench.h, isochron_sweep_select): the operation
 * list of isochron-bench --ops, so that a program using the library reads the same names the driver does.
 * A name is an operation of the registry (isochron/ops.h), "collectives" every blocking collective (a
 * family's own operation, not its non-blocking, point-to-point, one-sided or user variants: paper 000
 * sec. V measures these), or one of the pairwise experiments measured before the points, "allpairs"
 * (paper 001 sec. 4) and "p2t". The thread level MPI must be started with follows from the list (a
 * threaded operation needs MPI_THREAD_MULTIPLE; asking for it otherwise would tax every call with locks).
 */
#include <string.h>
#include <stdlib.h>
#include "isochron.h"
#include "isochron/bench.h"
#include "core/util.h"

void isochron_sweep_opts_default(isochron_sweep_opts_t *so)
{
    memset(so, 0, sizeof *so);
    so->ctx.dtype = MPI_DATATYPE_NULL; /* each operation's own (isochron_op_dtype_find) */
    so->ctx.op = MPI_SUM;
    so->passes = 1;
    so->p2p_mode = ISOCHRON_P2P_PARALLEL;
}

static int is_blocking_collective(const isochron_op_t *op)
{
    return !(op->flags & (ISOCHRON_OP_NONBLOCKING | ISOCHRON_OP_P2P | ISOCHRON_OP_RMA | ISOCHRON_OP_USER)) && op->family &&
           !strcmp(op->family, op->name);
}

static int add(const isochron_op_t **list, int max, int *n, const isochron_op_t *op)
{
    if (*n >= max) return isochron_set_error(ISOCHRON_EINVAL, "more than %d operations", max);
    list[(*n)++] = op;
    return ISOCHRON_OK;
}

int isochron_sweep_select(const isochron_ops_t *ops, const char *names, const isochron_op_t **list, int max, isochron_sweep_opts_t *so)
{
    char err[512];
    so->ops = list;
    so->nops = 0;
    so->allpairs = so->p2t = 0;
    if (isochron_list_ok(names, err, sizeof err)) return isochron_set_error(ISOCHRON_EPARSE, "%s", err);
    char *copy = strdup(names), *save = NULL;
    if (!copy) return isochron_set_error(ISOCHRON_ENOMEM, "sweep: out of memory");
    int rc = ISOCHRON_OK;
    for (char *t = strtok_r(copy, ",", &save); t && !rc; t = strtok_r(NULL, ",", &save)) {
        const isochron_op_t *op;
        if (!strcmp(t, "collectives"))
            for (int i = 0; i < isochron_ops_count(ops) && !rc; i++) {
                if (is_blocking_collective(isochron_ops_get(ops, i))) rc = add(list, max, &so->nops, isochron_ops_get(ops, i));
            }
        else if (!strcmp(t, "allpairs")) so->allpairs = 1;
        else if (!strcmp(t, "p2t")) so->p2t = 1;
        else if (!(rc = isochron_ops_find(ops, t, &op))) rc = add(list, max, &so->nops, op);
    }
    free(copy);
    return rc;
}

int isochron_sweep_thread_level(const char *names)
{
    isochron_ops_t *ops = NULL;
    const isochron_op_t *list[512];
    isochron_sweep_opts_t so;
    int level = MPI_THREAD_SINGLE;
    so.nops = 0;
    if (names && !isochron_ops_create(&ops)) isochron_sweep_select(ops, names, list, 512, &so); /* a bad list: said by the caller's own select */
    for (int i = 0; i < so.nops; i++)
        if (list[i]->flags & ISOCHRON_OP_THREADED) level = MPI_THREAD_MULTIPLE;
    isochron_ops_destroy(ops);
    return level;
}
