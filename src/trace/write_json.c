/*
 * Perfetto / Chrome Trace Event JSON writer of libisochron-trace.so (rank 0,
 * at MPI_Finalize). One process ("isochron MPI trace"), one track (tid) per
 * rank named "rank R"; each call is a complete event (ph "X") whose ts/dur
 * are global-clock microseconds from the trace's origin; collectives are
 * named "MPI_Allreduce (world, 4 ranks)"; args keep the local timestamps
 * beside the global ones, the bytes, the peer (dest/source/target rank as
 * passed, -1: none) and root (-1: none), and the call's instance number on
 * that rank; "cat" is the function's category in src/pmpi/mpi.tbl. The top-level "isochron" object carries the clock metadata (which
 * correction was applied, the accuracy check's figure).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "trace/trace_internal.h"

void itr_comm_label(const itr_out_t *e, char *buf, size_t len)
{
    if (e->comm_id < 0) snprintf(buf, len, "-");
    else if (e->comm_id == 0) snprintf(buf, len, "world");
    else snprintf(buf, len, "comm%d", e->comm_id);
}

static void jstr(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') fputc('\\', f), fputc(*s, f);
        else if ((unsigned char)*s < 0x20) fprintf(f, "\\u%04x", *s);
        else fputc(*s, f);
    }
    fputc('"', f);
}

static void jnum(FILE *f, double v)
{
    if (isfinite(v)) fprintf(f, "%.17g", v);
    else fputs("null", f);
}

int itr_write_json(const char *path, const itr_trace_t *t)
{
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fputs("{\"displayTimeUnit\": \"ns\",\n\"isochron\": {\"format\": \"isochron-trace-1\"", f);
    for (int i = 0; i < t->nmeta; i++) {
        fputs(", ", f);
        jstr(f, t->meta_keys[i]);
        fputs(": ", f);
        jstr(f, t->meta_vals[i]);
    }
    fputs("},\n\"traceEvents\": [\n", f);
    fputs("{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 0, \"args\": {\"name\": \"isochron MPI trace\"}}", f);
    for (int r = 0; r < t->nranks; r++) {
        fprintf(f, ",\n{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 0, \"tid\": %d, \"args\": {\"name\": \"rank %d\"}}", r, r);
        fprintf(f, ",\n{\"ph\": \"M\", \"name\": \"thread_sort_index\", \"pid\": 0, \"tid\": %d, \"args\": {\"sort_index\": %d}}", r, r);
    }
    const itr_out_t *e = t->ev;
    for (int r = 0; r < t->nranks; r++)
        for (int64_t i = 0; i < t->counts[r]; i++, e++) {
            const itr_call_info_t *c = &t->calls[e->call];
            char comm[32], name[128];
            itr_comm_label(e, comm, sizeof comm);
            if (e->comm_id >= 0 && (c->category == ISOCHRON_PMPI_COLL || c->category == ISOCHRON_PMPI_ICOLL))
                snprintf(name, sizeof name, "%s (%s, %d ranks)", c->name, comm, e->comm_size);
            else
                snprintf(name, sizeof name, "%s", c->name);
            fputs(",\n{\"ph\": \"X\", \"pid\": 0, \"tid\": ", f);
            fprintf(f, "%d, \"name\": ", r);
            jstr(f, name);
            fprintf(f, ", \"cat\": \"%s\", \"ts\": ", c->kind);
            jnum(f, (e->g0 - t->gmin) * 1e6);
            fputs(", \"dur\": ", f);
            jnum(f, (e->g1 - e->g0) * 1e6);
            fprintf(f, ", \"args\": {\"call\": \"%s\", \"instance\": %d, \"comm\": \"%s\", \"comm_size\": %d, \"bytes\": %lld, "
                       "\"peer\": %d, \"root\": %d, \"global_start_s\": ",
                    c->name, e->instance, comm, e->comm_size, (long long)e->bytes, e->peer, e->root);
            jnum(f, e->g0);
            fputs(", \"global_end_s\": ", f);
            jnum(f, e->g1);
            fputs(", \"local_start_s\": ", f);
            jnum(f, e->l0);
            fputs(", \"local_end_s\": ", f);
            jnum(f, e->l1);
            fputs("}}", f);
        }
    fputs("\n]}\n", f);
    /* a write that failed (a full disk) is an error, with its errno */
    int bad = fflush(f) != 0 || ferror(f), err = errno;
    if (fclose(f) != 0 && !bad) bad = 1, err = errno;
    if (bad) errno = err ? err : EIO;
    return bad ? -1 : 0;
}
