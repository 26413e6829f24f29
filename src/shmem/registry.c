/*
 * The registry of the OpenSHMEM measurements: every family's table (rma.c,
 * atomics.c, coll.c, tput.c, ...) in one list, found by name. Above the
 * operation files, which call engine.c's helpers below them, so that no file
 * of src/shmem calls back into one that calls it (tests/layering, test
 * layering_cycles): registry -> families -> engine.
 */
#include "isochron.h"
#include "core/util.h"
#include "shmem/shmem_impl.h"

int isochron_shmem_op_count(void)
{
    return isochron_shmem_rma_nops + isochron_shmem_amo_nops + isochron_shmem_coll_nops + isochron_shmem_tput_nops + isochron_shmem_extra_nops;
}

const isochron_shmem_op_t *isochron_shmem_op_get(int i)
{
    if (i < 0) return NULL;
    if (i < isochron_shmem_rma_nops) return &isochron_shmem_rma_ops[i];
    i -= isochron_shmem_rma_nops;
    if (i < isochron_shmem_amo_nops) return &isochron_shmem_amo_ops[i];
    i -= isochron_shmem_amo_nops;
    if (i < isochron_shmem_coll_nops) return &isochron_shmem_coll_ops[i];
    i -= isochron_shmem_coll_nops;
    if (i < isochron_shmem_tput_nops) return &isochron_shmem_tput_ops[i];
    i -= isochron_shmem_tput_nops;
    if (i < isochron_shmem_extra_nops) return &isochron_shmem_extra_ops[i];
    return NULL;
}

static const char *op_at(const void *reg, int i) { (void)reg; return isochron_shmem_op_get(i)->name; }

int isochron_shmem_op_find(const char *name, const isochron_shmem_op_t **out)
{
    *out = NULL;
    int n = isochron_shmem_op_count(), i = isochron_names_find(NULL, n, op_at, name);
    if (i >= 0) { *out = isochron_shmem_op_get(i); return ISOCHRON_OK; }
    char list[8192];
    isochron_names_join(NULL, n, op_at, list, sizeof list);
    return isochron_set_error(ISOCHRON_ENAME, "unknown OpenSHMEM measurement '%s'; valid: %s", name, list);
}

