/*
 * Shared parts of isochron's drivers: one option table drives parsing and
 * --help; a context block (hosts, MPI library, ranks, command line) opens
 * every JSON Lines file so that a result states where and how it was made.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "core/util.h"
#include "common.h"

void app_help(FILE *f, const char *prog, const char *synopsis, const app_option_t *opts, int nopts)
{
    fprintf(f, "usage: %s %s\n\noptions:\n", prog, synopsis);
    for (int i = 0; i < nopts; i++) {
        char left[64];
        snprintf(left, sizeof left, "--%s%s%s", opts[i].name, opts[i].arg ? " " : "", opts[i].arg ? opts[i].arg : "");
        fprintf(f, "  %-26s %s", left, opts[i].help);
        if (opts[i].def) fprintf(f, " (default: %s)", opts[i].def);
        fputc('\n', f);
    }
}

int app_parse(int argc, char **argv, const app_option_t *opts, int nopts, const char **values, int rank)
{
    for (int i = 0; i < nopts; i++) values[i] = NULL;
    for (int a = 1; a < argc; a++) {
        const char *s = argv[a];
        if (strncmp(s, "--", 2) != 0) {
            if (rank == 0) fprintf(stderr, "error: unexpected argument '%s' (options start with --; see --help)\n", s);
            return 2;
        }
        s += 2;
        const char *eq = strchr(s, '=');
        size_t len = eq ? (size_t)(eq - s) : strlen(s);
        int found = -1;
        for (int i = 0; i < nopts; i++)
            if (strlen(opts[i].name) == len && !strncmp(opts[i].name, s, len)) found = i;
        if (found < 0) {
            if (rank == 0) {
                fprintf(stderr, "error: unknown option '%s'; valid options:", argv[a]);
                for (int i = 0; i < nopts; i++) fprintf(stderr, " --%s", opts[i].name);
                fprintf(stderr, " (see --help)\n");
            }
            return 2;
        }
        if (!opts[found].arg) {
            if (eq) { if (rank == 0) fprintf(stderr, "error: option --%s takes no value\n", opts[found].name); return 2; }
            values[found] = "1";
        } else if (eq) values[found] = eq + 1;
        else if (a + 1 < argc) values[found] = argv[++a];
        else { if (rank == 0) fprintf(stderr, "error: option --%s needs a value %s\n", opts[found].name, opts[found].arg); return 2; }
    }
    return 0;
}

void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c == '\n') fputs("\\n", f);
        else if (c == '\t') fputs("\\t", f);
        else if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

void json_num(FILE *f, double v)
{
    if (isfinite(v)) fprintf(f, "%.10g", v);
    else fputs("null", f);
}

void app_context_fields(FILE *f, MPI_Comm comm, int argc, char **argv)
{
    int rank, size, len;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    char name[MPI_MAX_PROCESSOR_NAME] = "";
    MPI_Get_processor_name(name, &len);
    char *all = rank == 0 ? calloc((size_t)size, MPI_MAX_PROCESSOR_NAME) : NULL;
    MPI_Gather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, comm);
    if (rank != 0) return;
    char lib[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    MPI_Get_library_version(lib, &len);
    for (int i = 0; i < len; i++) if (lib[i] == '\n') { lib[i] = 0; break; }
    int ver, sub;
    MPI_Get_version(&ver, &sub);
    fprintf(f, "\"isochron\":\"%s\",\"host\":", ISOCHRON_VERSION_STRING);
    json_str(f, name);
    fputs(",\"hosts\":[", f);
    int nh = 0;
    for (int i = 0; i < size; i++) {
        int dup = 0;
        for (int j = 0; j < i; j++) if (!strcmp(all + (size_t)i * MPI_MAX_PROCESSOR_NAME, all + (size_t)j * MPI_MAX_PROCESSOR_NAME)) dup = 1;
        if (dup) continue;
        if (nh++) fputc(',', f);
        json_str(f, all + (size_t)i * MPI_MAX_PROCESSOR_NAME);
    }
    fprintf(f, "],\"mpi_library\":");
    json_str(f, lib);
    fprintf(f, ",\"mpi_version\":\"%d.%d\",\"ranks\":%d,\"command\":", ver, sub, size);
    char cmd[2048] = "";
    size_t used = 0;
    for (int i = 0; i < argc && used < sizeof cmd - 2; i++)
        used += (size_t)snprintf(cmd + used, sizeof cmd - used, "%s%s", i ? " " : "", argv[i]);
    json_str(f, cmd);
    free(all);
}

int app_parse_list(const char *s, double *out, int max, int *n)
{
    *n = 0;
    char *copy = strdup(s), *save = NULL;
    if (!copy) return -1;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (*n >= max || isochron_parse_duration(t, &out[*n]) != 0) { free(copy); return -1; }
        (*n)++;
    }
    free(copy);
    return *n > 0 ? 0 : -1;
}

int app_make_timer(const char *prog, const char *name, const isochron_skew_spec_t *skew, MPI_Comm comm,
                   isochron_timer_t **out, isochron_skew_t *my_skew)
{
    int rank, rc, all;
    MPI_Comm_rank(comm, &rank);
    memset(my_skew, 0, sizeof *my_skew);
    *out = NULL;
    isochron_timer_t *t = NULL;
    rc = isochron_timer_create(name, &t);
    if (!rc && isochron_skew_spec_active(skew)) {
        isochron_timer_t *sk;
        isochron_skew_for_rank(skew, rank, my_skew);
        if ((rc = isochron_timer_skew(t, my_skew, &sk))) isochron_timer_destroy(t), t = NULL;
        else t = sk;
    }
    MPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MIN, comm);
    if (all) {
        if (rank == 0) fprintf(stderr, "%s: --timer/--skew: %s\n", prog, rc ? isochron_last_error() : "refused on another rank");
        isochron_timer_destroy(t);
        return 2;
    }
    *out = t;
    return 0;
}
