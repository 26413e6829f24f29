/*
 * A run's OpenSHMEM measurements (isochron/shmem.h): which ones, from the names a user gives, and whether
 * every point can be measured before anything is, so that a run never stops halfway on a size or a heap it
 * could have refused at the start (paper 002 sec. 4 measures each routine over a list of sizes). A name is
 * a measurement, a family (rma, nbi, ...), "default" (every measurement of the first release), "added" (the
 * ones marked ISOCHRON_SHMEM_EXTRA since) or "all".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <shmem.h>
#include "isochron.h"
#include "core/util.h"
#include "shmem/shmem_impl.h"

static const char *const families[] = {"rma", "nbi", "atomic", "lock", "order", "memory", "coll", "bcast_method", "loop", "tput", "strided", "ctx", "active"};
#define NFAM ((int)(sizeof families / sizeof families[0]))

/* Does selector t (a family, default, added or all) take op? -1: t is no selector. */
static int selects(const char *t, const isochron_shmem_op_t *op)
{
    int in_default = !(op->flags & ISOCHRON_SHMEM_EXTRA);
    if (!strcmp(t, "default")) return in_default;
    if (!strcmp(t, "added")) return !in_default;
    if (!strcmp(t, "all")) return 1;
    for (int f = 0; f < NFAM; f++)
        if (!strcmp(t, families[f])) return !strcmp(op->family, families[f]);
    return -1;
}

static int add(const isochron_shmem_op_t **list, int max, int *n, const isochron_shmem_op_t *op)
{
    if (*n >= max) return isochron_set_error(ISOCHRON_EINVAL, "more than %d measurements", max);
    list[(*n)++] = op;
    return ISOCHRON_OK;
}

/* One element of the list: a selector's measurements in registry order, or one by name. */
static int select_one(const char *t, const isochron_shmem_op_t **list, int max, int *n)
{
    const isochron_shmem_op_t *op;
    int rc = ISOCHRON_OK;
    if (selects(t, isochron_shmem_op_get(0)) >= 0) {
        for (int i = 0; i < isochron_shmem_op_count() && !rc; i++)
            if (selects(t, isochron_shmem_op_get(i))) rc = add(list, max, n, isochron_shmem_op_get(i));
        return rc;
    }
    if (!isochron_shmem_op_find(t, &op)) return add(list, max, n, op);
    char why[8192], fams[256];
    snprintf(why, sizeof why, "%s", isochron_last_error());
    isochron_names_join(families, NFAM, isochron_name_at_string, fams, sizeof fams);
    return isochron_set_error(ISOCHRON_ENAME, "%s (or a family: %s; default, added, all)", why, fams);
}

int isochron_shmem_select(const char *names, const isochron_shmem_op_t **list, int max, int *n)
{
    char err[512];
    *n = 0;
    if (isochron_list_ok(names, err, sizeof err)) return isochron_set_error(ISOCHRON_EPARSE, "%s", err);
    char *copy = strdup(names), *save = NULL;
    if (!copy) return isochron_set_error(ISOCHRON_ENOMEM, "out of memory");
    int rc = ISOCHRON_OK;
    for (char *t = strtok_r(copy, ",", &save); t && !rc; t = strtok_r(NULL, ",", &save)) rc = select_one(t, list, max, n);
    free(copy);
    return rc;
}

int isochron_shmem_check_sizes(const isochron_shmem_op_t *const *list, int n, const size_t *sizes, int nsizes)
{
    for (int i = 0; i < n; i++)
        if (list[i]->flags & ISOCHRON_SHMEM_ELEM8)
            for (int s = 0; s < nsizes; s++)
                if (sizes[s] % 8)
                    return isochron_set_error(ISOCHRON_EINVAL, "%s moves 64-bit elements: size %zu B is not a multiple of 8", list[i]->name, sizes[s]);
    return ISOCHRON_OK;
}

int isochron_shmem_check_points(const isochron_shmem_op_t *const *list, int n, const size_t *sizes, int nsizes, int window)
{
    int npes = shmem_n_pes(), worst = -1, wsize = 0, ok;
    size_t need = 0;
    for (int i = 0; i < n; i++)
        if ((list[i]->flags & ISOCHRON_SHMEM_MIN2) && npes < 2)
            return isochron_set_error(ISOCHRON_EINVAL, "%s needs at least 2 PEs (running on %d)", list[i]->name, npes);
    for (int i = 0; i < n; i++)
        for (int s = 0; s < ((list[i]->flags & ISOCHRON_SHMEM_SIZED) ? nsizes : 1); s++) {
            size_t b = isochron_shmem_heap_needed(list[i], sizes[s], npes, window);
            if (b > need) { need = b; worst = i; wsize = s; }
        }
    /* one block of the largest need (+ 64 KiB for the allocator's headers), freed at once */
    void *probe = need < SIZE_MAX - 65536 ? shmem_malloc(need + 65536) : NULL;
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    ok = probe != NULL || need == 0;
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm);
    MPI_Comm_free(&comm);
    shmem_barrier_all();
    if (probe) shmem_free(probe);
    if (ok) return ISOCHRON_OK;
    return isochron_set_error(ISOCHRON_EINVAL, "%s at %zu B needs %.4g MiB of symmetric heap per PE, more than shmem_malloc could allocate; use smaller --sizes%s",
                              list[worst]->name, sizes[wsize], (double)need / 1048576.0,
#ifdef OSHMEM_MAJOR_VERSION
                              " or a larger heap (SHMEM_SYMMETRIC_HEAP_SIZE, e.g. 2G)"
#else
                              " or a larger heap (SHMEM_SYMMETRIC_SIZE)"
#endif
    );
}
