/* libisochron-trace.so: its settings (ISOCHRON_TRACE_*, docs/layers.md), checked at MPI_Init before the
 * tracer records anything -- the tracer of paper 000 (V-C, Fig. 10) configured, its sync spec parsed
 * as the drivers' --sync is (isochron_sync_spec_parse) and its duration bounded as the drivers'
 * --sync-limit bounds it (isochron_sync_estimate).
 *
 * Design. Every variable is checked without MPI (only the sync limit's round trip needs it), each
 * refusal is one line naming the variable, the value and the valid choices, and the results go into
 * an itr_settings_t (trace_internal.h) that trace.c's setup() applies: this file writes nothing of the
 * tracer's state, so it can be read and changed without trace.c. A misspelt ISOCHRON_TRACE_* is
 * refused (itr_known, checked against docs/layers.md by tests/cc/check_layers_doc.py); the output
 * directory is created and tried on rank 0, where the trace is written, not found unwritable at
 * MPI_Finalize.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include "isochron/sync.h"
#include "isochron.h"
#include "trace/trace_internal.h"
#include "core/settings.h"

static const char *const category_names[] = {ISOCHRON_PMPI_CATEGORY_NAMES};

/* the functions that can be traced: every wrapped one but MPI_Init, MPI_Init_thread, MPI_Finalize */
int itr_traceable(const itr_call_info_t *calls, int i) { return calls[i].name && calls[i].category != ISOCHRON_PMPI_INIT; }

/* ISOCHRON_TRACE_CALLS into mask (by call id); -1 with the message in err */
static int parse_calls(const char *v, const itr_call_info_t *calls, unsigned char *mask, char *err, size_t len)
{
    memset(mask, 0, ISOCHRON_PMPI_NIDS);
    if (!strcmp(v, "all")) {
        for (int i = 0; i < ISOCHRON_PMPI_NIDS; i++) mask[i] = (unsigned char)itr_traceable(calls, i);
        return 0;
    }
    if (isochron_setting_list("ISOCHRON_TRACE_CALLS", v, err, len)) return -1;
    char *copy = strdup(v), *save = NULL;
    if (!copy) return snprintf(err, len, "ISOCHRON_TRACE_CALLS: out of memory"), -1;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int found = 0;
        for (int i = 0; i < ISOCHRON_PMPI_NIDS; i++)
            if (itr_traceable(calls, i) && (!strcasecmp(tok, calls[i].name) || !strcmp(tok, calls[i].kind)))
                mask[i] = 1, found = 1;
        if (!found) {
            size_t o = (size_t)snprintf(err, len, "ISOCHRON_TRACE_CALLS=%s: unknown '%s'; valid: all, a kind (", v, tok);
            for (int c = 0, k = 0; c < ISOCHRON_PMPI_NCATEGORIES; c++)
                if (c != ISOCHRON_PMPI_INIT && o < len)
                    o += (size_t)snprintf(err + o, len - o, "%s%s", k++ ? ", " : "", category_names[c]);
            if (o < len) o += (size_t)snprintf(err + o, len - o, "), or:");
            for (int i = 0, k = 0; i < ISOCHRON_PMPI_NIDS && o < len; i++)
                if (itr_traceable(calls, i)) o += (size_t)snprintf(err + o, len - o, "%s %s", k++ ? "," : "", calls[i].name);
            free(copy);
            return -1;
        }
    }
    free(copy);
    return 0;
}

/* The variables of this layer (docs/layers.md): any other ISOCHRON_TRACE_* is refused as misspelt. */
static const char *const itr_known[] = {
    "ISOCHRON_TRACE_DIR", "ISOCHRON_TRACE_NAME", "ISOCHRON_TRACE_FORMATS", "ISOCHRON_TRACE_SYNC",
    "ISOCHRON_TRACE_SYNC_LIMIT", "ISOCHRON_TRACE_TRACK", "ISOCHRON_TRACE_MIN_INTERVAL", "ISOCHRON_TRACE_POLL",
    "ISOCHRON_TRACE_CALLS", "ISOCHRON_TRACE_TIMER", "ISOCHRON_TRACE_SKEW", "ISOCHRON_TRACE_MAX_EVENTS",
    "ISOCHRON_TRACE_LIST",
};

/* Every ISOCHRON_TRACE_* setting, checked without MPI (the output directory on rank 0 only, where the
 * trace is written). -1 with the message in err. */
int itr_check_settings(itr_settings_t *o, int rank, const itr_call_info_t *calls, unsigned char *mask, char *err, size_t len)
{
    static const char *const on_off[] = { "off", "on" }, *const zero_one[] = { "0", "1" };
    long n;
    if (isochron_settings_known("ISOCHRON_TRACE_", itr_known, (int)(sizeof itr_known / sizeof *itr_known), err, len))
        return -1;
    const char *dir = isochron_setting_get("ISOCHRON_TRACE_DIR", "."), *name = isochron_setting_get("ISOCHRON_TRACE_NAME", "isochron-trace");
    if (isochron_setting_text("ISOCHRON_TRACE_DIR", dir, ITR_DIR_MAX, err, len) ||
        isochron_setting_file_name("ISOCHRON_TRACE_NAME", name, ITR_NAME_MAX, err, len))
        return -1;
    snprintf(o->dir, sizeof o->dir, "%s", dir);
    snprintf(o->name, sizeof o->name, "%s", name);

    const char *fmts = isochron_setting_get("ISOCHRON_TRACE_FORMATS", "json,otf2");
    if (isochron_setting_list("ISOCHRON_TRACE_FORMATS", fmts, err, len)) return -1;
    char copy[256], *save = NULL;
    if (isochron_setting_text("ISOCHRON_TRACE_FORMATS", fmts, sizeof copy - 1, err, len)) return -1;
    snprintf(copy, sizeof copy, "%s", fmts);
    int none = 0, ntok = 0;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save), ntok++) {
        if (!strcmp(tok, "json")) o->json = 1;
        else if (!strcmp(tok, "otf2")) o->otf2 = 1;
        else if (!strcmp(tok, "none")) none = 1;
        else {
            snprintf(err, len, "ISOCHRON_TRACE_FORMATS=%s: unknown format '%s'; valid: json, otf2 (comma-separated), or none "
                     "(record, write nothing)", fmts, tok);
            return -1;
        }
    }
    if (none && ntok > 1) {
        snprintf(err, len, "ISOCHRON_TRACE_FORMATS=%s: none (write nothing) cannot be combined with a format; valid: json, otf2 "
                 "(comma-separated), or none", fmts);
        return -1;
    }
    if (parse_calls(isochron_setting_get("ISOCHRON_TRACE_CALLS", "all"), calls, mask, err, len) ||
        isochron_setting_choice("ISOCHRON_TRACE_LIST", isochron_setting_get("ISOCHRON_TRACE_LIST", "0"), zero_one, 2, "switch",
                                &o->list, err, len) ||
        isochron_setting_integer("ISOCHRON_TRACE_POLL", isochron_setting_get("ISOCHRON_TRACE_POLL", "16"), 1, 1000000, &n, err, len))
        return -1;
    o->poll_every = (int)n;
    if (isochron_setting_integer("ISOCHRON_TRACE_MAX_EVENTS", isochron_setting_get("ISOCHRON_TRACE_MAX_EVENTS", "1000000"), 1,
                                 1000000000L, &o->max_events, err, len) ||
        isochron_setting_choice("ISOCHRON_TRACE_TRACK", isochron_setting_get("ISOCHRON_TRACE_TRACK", "on"), on_off, 2, "switch",
                                &o->track, err, len) ||
        isochron_setting_number("ISOCHRON_TRACE_MIN_INTERVAL", isochron_setting_get("ISOCHRON_TRACE_MIN_INTERVAL", "0.1"), 0.001, 10,
                                0, "seconds", &o->min_interval, err, len) ||
        isochron_setting_number("ISOCHRON_TRACE_SYNC_LIMIT", isochron_setting_get("ISOCHRON_TRACE_SYNC_LIMIT", "600"), 1, 1e7, 1,
                                "seconds", &o->sync_limit, err, len))
        return -1;

    const char *tn = isochron_setting_get("ISOCHRON_TRACE_TIMER", "monotonic");
    if (isochron_setting_text("ISOCHRON_TRACE_TIMER", tn, sizeof o->timer_name - 1, err, len)) return -1;
    snprintf(o->timer_name, sizeof o->timer_name, "%s", tn);
    const char *sk = isochron_setting_get("ISOCHRON_TRACE_SKEW", "none");
    if (isochron_setting_text("ISOCHRON_TRACE_SKEW", sk, sizeof o->skew_text - 1, err, len)) return -1;
    snprintf(o->skew_text, sizeof o->skew_text, "%s", sk);
    if (isochron_skew_spec_parse(o->skew_text, &o->skew)) {
        snprintf(err, len, "ISOCHRON_TRACE_SKEW=%s: %s", o->skew_text, isochron_last_error());
        return -1;
    }
    o->sync = isochron_setting_get("ISOCHRON_TRACE_SYNC", ISOCHRON_TRACE_DEFAULT_SYNC);
    if (strcmp(o->sync, "none") && isochron_sync_spec_parse(o->sync, &o->spec)) {
        snprintf(err, len, "ISOCHRON_TRACE_SYNC=%s: %s (or none: no correction)", o->sync, isochron_last_error());
        return -1;
    }

    /* the output: created and tried now, on the rank that writes it, not found unwritable at MPI_Finalize */
    if (rank == 0 && (o->json || o->otf2)) {
        char p[ITR_DIR_MAX + ITR_NAME_MAX + 16];
        struct stat st;
        if (isochron_setting_dir("ISOCHRON_TRACE_DIR", o->dir, ITR_DIR_MAX, ISOCHRON_DIR_CREATE | ISOCHRON_DIR_WRITE, err, len))
            return -1;
        snprintf(p, sizeof p, "%s/%s.json", o->dir, o->name);
        if (o->json && stat(p, &st) == 0 && !S_ISREG(st.st_mode)) {
            snprintf(err, len, "ISOCHRON_TRACE_NAME=%s: %s exists and is not a regular file: the JSON trace cannot be written there",
                     o->name, p);
            return -1;
        }
        snprintf(p, sizeof p, "%s/%s", o->dir, o->name);
        if (o->otf2 && stat(p, &st) == 0 && !S_ISDIR(st.st_mode)) {
            snprintf(err, len, "ISOCHRON_TRACE_NAME=%s: %s exists and is not a directory: the OTF2 archive cannot be written there",
                     o->name, p);
            return -1;
        }
    }
    return 0;
}

/* The estimated duration of the sync spec against ISOCHRON_TRACE_SYNC_LIMIT, as the drivers' --sync-limit
 * (isochron_sync_budget, src/sync/budget.c; its probe calls MPI_*, which this layer intercepts, so the round
 * trip is measured here with PMPI_*): a round trip between rank 0 and the last rank measured, the estimate
 * (isochron_sync_estimate) compared on rank 0. Collective; "" or the message (rank 0). */
void itr_check_sync_limit(const itr_settings_t *o, int rank, int size, char *err, size_t len)
{
    err[0] = 0;
    if (!strcmp(o->sync, "none") || o->sync_limit == 0) return;
    double rtt = 0;
    int peer = size - 1, buf = 0;
    if (size > 1 && (rank == 0 || rank == peer)) {
        double t0 = PMPI_Wtime();
        for (int i = 0; i < 20; i++) {
            if (rank == 0) {
                PMPI_Send(&buf, 1, MPI_INT, peer, 7001, MPI_COMM_WORLD);
                PMPI_Recv(&buf, 1, MPI_INT, peer, 7002, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                PMPI_Recv(&buf, 1, MPI_INT, 0, 7001, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                PMPI_Send(&buf, 1, MPI_INT, 0, 7002, MPI_COMM_WORLD);
            }
        }
        rtt = (PMPI_Wtime() - t0) / 20;
    }
    if (rank != 0) return;
    double est = isochron_sync_estimate(&o->spec, size, rtt);
    if (est > o->sync_limit)
        snprintf(err, len, "ISOCHRON_TRACE_SYNC=%s: estimated to take %.3g s at %d ranks (round trip %.2g us measured), beyond "
                 "ISOCHRON_TRACE_SYNC_LIMIT=%g s; use fewer fit points or ping-pongs, or raise ISOCHRON_TRACE_SYNC_LIMIT (0: no limit)",
                 o->sync, est, size, rtt * 1e6, o->sync_limit);
}
