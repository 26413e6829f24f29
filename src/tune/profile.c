/*
 * The tuning layer's profile (isochron/tune.h states the format): read once at MPI_Init, checked
 * against the run it is applied to, and looked up on every redirectable call. A profile measured on
 * another library, process count or host set says nothing about this run (the guidelines hold or
 * fail per machine and library, key traff-guidelines), so any difference refuses it whole. A bad
 * line refuses it too, naming the line: a half-read profile would silently redirect less than asked.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "tune/tune_internal.h"

static const char *const func_names[TUNE_NFUNC] = { "MPI_Allreduce", "MPI_Allgather", "MPI_Bcast", "MPI_Scan",
                                                   "MPI_Reduce_scatter_block" };

int tune_func_find(const char *name)
{
    for (int i = 0; i < TUNE_NFUNC; i++)
        if (name && !strcmp(name, func_names[i])) return i;
    return -1;
}

static void trim(char *s)
{
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1])) s[--n] = 0;
}

int tune_profile_load(const char *path, tune_profile_t *p, char *why, size_t n)
{
    memset(p, 0, sizeof *p);
    if (!path || !*path) {
        snprintf(why, n, "no profile (set ISOCHRON_TUNE_PROFILE to a file written by isochron tune --profile)");
        return -1;
    }
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(why, n, "cannot read the profile %s", path);
        return -1;
    }
    char line[2048];
    int lineno = 0, version = 0, rc = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash) *hash = 0;
        trim(line);
        char *s = line;
        while (isspace((unsigned char)*s)) s++;
        if (!*s) continue;
        char key[64] = "";
        int used = 0;
        if (sscanf(s, "%63s %n", key, &used) < 1) continue;
        char *val = s + used;
        if (!strcmp(key, "isochron_tune_profile")) version = atoi(val);
        else if (!strcmp(key, "mpi_library")) snprintf(p->library, sizeof p->library, "%s", val);
        else if (!strcmp(key, "nprocs")) p->nprocs = atoi(val);
        else if (!strcmp(key, "hosts")) snprintf(p->hosts, sizeof p->hosts, "%s", val);
        else if (!strcmp(key, "redirect")) {
            char fn[64];
            tune_rule_t r;
            if (sscanf(val, "%63s %d %lld %lld", fn, &r.comm_size, &r.lo, &r.hi) != 4 ||
                (r.func = tune_func_find(fn)) < 0 || r.comm_size < 1 || r.lo < 0 || r.hi < r.lo) {
                snprintf(why, n, "%s:%d: bad redirect line (want: redirect MPI_Allreduce|MPI_Allgather|MPI_Bcast|MPI_Scan|"
                         "MPI_Reduce_scatter_block"
                         " COMM_SIZE MIN_BYTES MAX_BYTES)", path, lineno);
                rc = -1;
                break;
            }
            if (p->nrules == TUNE_MAX_RULES) {
                snprintf(why, n, "%s:%d: more than %d redirect lines", path, lineno, TUNE_MAX_RULES);
                rc = -1;
                break;
            }
            p->rules[p->nrules++] = r;
        } else {
            snprintf(why, n, "%s:%d: unknown setting '%s' (valid: isochron_tune_profile, mpi_library, nprocs,"
                     " hosts, redirect)", path, lineno, key);
            rc = -1;
            break;
        }
    }
    fclose(f);
    if (rc == 0 && version != 1) {
        snprintf(why, n, "%s is not an isochron tune profile (no line 'isochron_tune_profile 1')", path);
        rc = -1;
    }
    if (rc == 0 && (!p->library[0] || p->nprocs < 1 || !p->hosts[0])) {
        snprintf(why, n, "%s: the profile must state mpi_library, nprocs and hosts", path);
        rc = -1;
    }
    return rc;
}

static int cmp_str(const void *a, const void *b) { return strcmp((const char *)a, (const char *)b); }

int tune_profile_check(const tune_profile_t *p, char *why, size_t n)
{
    /* collective: every rank takes part even when its own profile was refused */
    int size = 0, len = 0;
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    char lib[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    PMPI_Get_library_version(lib, &len);
    lib[strcspn(lib, ",\n")] = 0; /* Open MPI: "Open MPI v4.1.4, package: ..."; MPICH: "MPICH Version:\t4.0.2\n..." */
    for (char *t = lib; *t; t++)
        if (*t == '\t') *t = ' ';
    trim(lib);
    char name[MPI_MAX_PROCESSOR_NAME] = "";
    PMPI_Get_processor_name(name, &len);
    char *all = calloc((size_t)size, MPI_MAX_PROCESSOR_NAME);
    if (!all) {
        snprintf(why, n, "out of memory comparing the host set");
        return -1;
    }
    PMPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, MPI_COMM_WORLD);
    qsort(all, (size_t)size, MPI_MAX_PROCESSOR_NAME, cmp_str);
    char hosts[1024] = "";
    size_t used = 0;
    for (int i = 0; i < size; i++) {
        const char *h = all + (size_t)i * MPI_MAX_PROCESSOR_NAME;
        if (i && !strcmp(h, all + (size_t)(i - 1) * MPI_MAX_PROCESSOR_NAME)) continue;
        int k = snprintf(hosts + used, sizeof hosts - used, "%s%s", used ? "," : "", h);
        if (k < 0 || (size_t)k >= sizeof hosts - used) break;
        used += (size_t)k;
    }
    free(all);
    if (strcmp(lib, p->library)) {
        snprintf(why, n, "the profile was measured with %s, this run uses %s", p->library, lib);
        return -1;
    }
    if (size != p->nprocs) {
        snprintf(why, n, "the profile was measured at %d processes, this run has %d", p->nprocs, size);
        return -1;
    }
    if (strcmp(hosts, p->hosts)) {
        snprintf(why, n, "the profile was measured on hosts %s, this run is on %s", p->hosts, hosts);
        return -1;
    }
    return 0;
}

int tune_profile_match(const tune_profile_t *p, int func, int comm_size, long long bytes)
{
    for (int i = 0; i < p->nrules; i++) {
        const tune_rule_t *r = &p->rules[i];
        if (r->func == func && r->comm_size == comm_size && bytes >= r->lo && bytes <= r->hi) return 1;
    }
    return 0;
}
