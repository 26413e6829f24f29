/*
 * Perfetto / Chrome Trace Event JSON writer of libisochron-trace.so (rank 0,
 * at MPI_Finalize). One process ("isochron MPI trace"), one track (tid) per
 * rank named "rank R"; each call is a complete event (ph "X") whose ts/dur
 * are global-clock microseconds from the trace's origin; collectives are
 * named "MPI_Allreduce (world, 4 ranks)"; args keep the local timestamps
 * beside the global ones, the bytes, the peer (dest/source/target rank as
 * passed, -1: none) and root (-1: none), and the call's instance number on
 * that rank; "cat" is the function's category in src/pmpi/mpi.tbl. The
 * top-level "isochron" object carries the clock metadata (which correction
 * was applied, the accuracy check's figure).
 *
 * Strings and numbers go through the JSON writer of the report module
 * (src/report/json.c, isochron/report.h), so the trace escapes a string and
 * spells a number as every record does: the shortest decimal that reads
 * back as the same double (every bit kept, as %.17g did before, in 1 %
 * fewer bytes), NaN and infinities null. The layout (one event a line,
 * ", " and ": " between members) is the trace's own, written here around
 * values the writer puts at its top level, where it adds no punctuation.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "isochron/report.h"
#include "trace/trace_internal.h"

void itr_comm_label(const itr_out_t *e, char *buf, size_t len)
{
    if (e->comm_id < 0) snprintf(buf, len, "-");
    else if (e->comm_id == 0) snprintf(buf, len, "world");
    else snprintf(buf, len, "comm%d", e->comm_id);
}

/* The trace's layout around the writer's values: ", " between members (none before an object's first),
 * ": " after a key. */
static void key(isochron_json_t *j, const char *k, int first)
{
    if (!first) fputs(", ", j->f);
    isochron_json_string(j, k);
    fputs(": ", j->f);
}
static void kstr(isochron_json_t *j, const char *k, const char *v) { key(j, k, 0); isochron_json_string(j, v); }
static void knum(isochron_json_t *j, const char *k, double v) { key(j, k, 0); isochron_json_number(j, v); }
static void kint(isochron_json_t *j, const char *k, long long v) { key(j, k, 0); isochron_json_int(j, v); }

static void write_event(isochron_json_t *j, const itr_trace_t *t, int r, const itr_out_t *e)
{
    const itr_call_info_t *c = &t->calls[e->call];
    char comm[32], name[128];
    itr_comm_label(e, comm, sizeof comm);
    if (e->comm_id >= 0 && (c->category == ISOCHRON_PMPI_COLL || c->category == ISOCHRON_PMPI_ICOLL))
        snprintf(name, sizeof name, "%s (%s, %d ranks)", c->name, comm, e->comm_size);
    else
        snprintf(name, sizeof name, "%s", c->name);
    fputs(",\n{", j->f);
    key(j, "ph", 1);
    isochron_json_string(j, "X");
    kint(j, "pid", 0);
    kint(j, "tid", r);
    kstr(j, "name", name);
    kstr(j, "cat", c->kind);
    knum(j, "ts", (e->g0 - t->gmin) * 1e6);
    knum(j, "dur", (e->g1 - e->g0) * 1e6);
    key(j, "args", 0);
    fputc('{', j->f);
    key(j, "call", 1);
    isochron_json_string(j, c->name);
    kint(j, "instance", e->instance);
    kstr(j, "comm", comm);
    kint(j, "comm_size", e->comm_size);
    kint(j, "bytes", e->bytes);
    kint(j, "peer", e->peer);
    kint(j, "root", e->root);
    knum(j, "global_start_s", e->g0);
    knum(j, "global_end_s", e->g1);
    knum(j, "local_start_s", e->l0);
    knum(j, "local_end_s", e->l1);
    fputs("}}", j->f);
}

int itr_write_json(const char *path, const itr_trace_t *t)
{
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    isochron_json_t j; /* values only, at the writer's top level: the punctuation is the trace's */
    isochron_json_init(&j, f);
    fputs("{\"displayTimeUnit\": \"ns\",\n\"isochron\": {\"format\": \"isochron-trace-1\"", f);
    for (int i = 0; i < t->nmeta; i++) kstr(&j, t->meta_keys[i], t->meta_vals[i]);
    fputs("},\n\"traceEvents\": [\n", f);
    fputs("{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 0, \"args\": {\"name\": \"isochron MPI trace\"}}", f);
    for (int r = 0; r < t->nranks; r++) {
        fprintf(f, ",\n{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 0, \"tid\": %d, \"args\": {\"name\": \"rank %d\"}}", r, r);
        fprintf(f, ",\n{\"ph\": \"M\", \"name\": \"thread_sort_index\", \"pid\": 0, \"tid\": %d, \"args\": {\"sort_index\": %d}}", r, r);
    }
    const itr_out_t *e = t->ev;
    for (int r = 0; r < t->nranks; r++)
        for (int64_t i = 0; i < t->counts[r]; i++, e++) write_event(&j, t, r, e);
    fputs("\n]}\n", f);
    /* a write that failed (a full disk) is an error, with its errno */
    int bad = fflush(f) != 0 || ferror(f), err = errno;
    if (fclose(f) != 0 && !bad) bad = 1, err = errno;
    if (bad) errno = err ? err : EIO;
    return bad ? -1 : 0;
}
