/* Private interface of the tuning layer (src/tune): the profile a run is checked against and the
 * ranges it redirects (profile.c), used by the hooks and compositions of tune.c. */
#ifndef ISOCHRON_TUNE_INTERNAL_H
#define ISOCHRON_TUNE_INTERNAL_H

#include <stddef.h>

/* The functions the layer can redirect. */
enum { TUNE_ALLREDUCE, TUNE_ALLGATHER, TUNE_BCAST, TUNE_SCAN, TUNE_REDUCE_SCATTER_BLOCK, TUNE_NFUNC };
/* Bcast's pieces live on the stack: larger communicators pass through. */
#define TUNE_MAX_PROCS 1024
#define TUNE_MAX_RULES 64

typedef struct {
    int func, comm_size;
    long long lo, hi; /* message sizes in bytes, inclusive */
} tune_rule_t;

typedef struct {
    char library[256]; /* MPI_Get_library_version up to its first comma */
    int nprocs;
    char hosts[1024];  /* sorted, comma-separated */
    tune_rule_t rules[TUNE_MAX_RULES];
    int nrules;
} tune_profile_t;

/* "MPI_Allreduce" ... -> TUNE_*, else -1. */
int tune_func_find(const char *name);
/* Read PATH into *p; 0, or -1 with one sentence in why (no path, unreadable, a bad line). No MPI. */
int tune_profile_load(const char *path, tune_profile_t *p, char *why, size_t n);
/* Compare the profile with this run (library, MPI_COMM_WORLD's size, host set; collective over
 * MPI_COMM_WORLD, PMPI only); 0, or -1 with the first difference in why. */
int tune_profile_check(const tune_profile_t *p, char *why, size_t n);
/* 1 when a rule covers FUNC on a communicator of COMM_SIZE at BYTES. */
int tune_profile_match(const tune_profile_t *p, int func, int comm_size, long long bytes);

#endif
