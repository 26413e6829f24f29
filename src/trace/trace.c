/*
 * libisochron-trace.so: MPI_Init / MPI_Finalize and the recording buffer.
 *
 * Paper 000 §V-C (Fig. 10): an MPI trace whose timestamps are on a global
 * clock lets one collective's instances be compared across ranks. At MPI_Init
 * the clocks are synchronized (isochron_sync_run, ISOCHRON_TRACE_SYNC, default
 * hierarchical) on top of this rank's trace timer, the accuracy check (Alg. 6,
 * isochron_sync_check_xport at wait 0) measures the result, and a tracker
 * (isochron_track_*) keeps the clock true. A wrapper only reads the local
 * timer twice and appends 32 bytes to a buffer; the global time is computed at
 * MPI_Finalize from the clock model that was valid at each event's time: the
 * model is snapshotted after the sync and after every tracker refresh (the
 * tracker is polled, collectively, on every ISOCHRON_TRACE_POLL-th blocking
 * collective on MPI_COMM_WORLD, which all ranks call in the same order).
 * While the tracer itself communicates (sync, tracker, gather) itr_on is 0,
 * so its own MPI calls pass straight to PMPI.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "isochron/clock.h"
#include "isochron/sync.h"
#include "isochron.h"
#include "trace/trace_internal.h"

const itr_call_info_t itr_calls[ITR_NCALLS] = {ITR_CALL_TABLE};
int itr_on;
unsigned char itr_mask[ITR_NCALLS];
isochron_timer_t *itr_timer;
int itr_fast_mono;

#define MAX_COMMS 256
#define MAX_SEGS 4096
#define NMETA 24

static struct {
    itr_event_t *ev;
    long n, cap, dropped;
    MPI_Comm comms[MAX_COMMS];
    int comm_size[MAX_COMMS], ncomms, last_comm;
    isochron_clock_t *base, *global;
    isochron_track_t *track;
    MPI_Comm poll_comm;
    int poll_every, ncoll_world;
    /* clock model segments: from local time seg_t[i] on, global = lm_apply(seg_m[i], local) */
    double seg_t[MAX_SEGS];
    isochron_lm_t seg_m[MAX_SEGS];
    int nseg, refreshes;
    int rank, size, json, otf2;
    char dir[1024], name[256], spec[256], timer_name[64], skew[256];
    double sync_duration, check_meas, check_true, init_bound;
    int has_truth, tracking;
    long nclamp;
    double max_clamp;
} S;

static void die(const char *fmt, const char *a, const char *b)
{
    int rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        fprintf(stderr, "isochron-trace: ");
        fprintf(stderr, fmt, a, b);
        fprintf(stderr, "\n");
    }
    fflush(stderr);
    PMPI_Barrier(MPI_COMM_WORLD);
    /* the settings are the same on every rank, so every rank is here: end cleanly (MPICH's hydra
     * dropped the message now and then when the job was aborted right after it) */
    PMPI_Finalize();
    exit(2);
}

/* an error that may hit one rank only (memory, timer): say so from that rank and abort the job */
static void die_here(const char *fmt, const char *a, const char *b)
{
    int rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fprintf(stderr, "isochron-trace: rank %d: ", rank);
    fprintf(stderr, fmt, a, b);
    fprintf(stderr, "\n");
    fflush(stderr);
    PMPI_Abort(MPI_COMM_WORLD, 2);
}

static const char *env(const char *k, const char *dflt)
{
    const char *v = getenv(k);
    return v && *v ? v : dflt;
}

int64_t itr_bytes(int count, MPI_Datatype t)
{
    int sz = 0;
    if (t == MPI_DATATYPE_NULL || PMPI_Type_size(t, &sz) != MPI_SUCCESS) return -1;
    return (int64_t)count * sz;
}

static int comm_index(MPI_Comm c)
{
    if (c == MPI_COMM_NULL) return -1;
    if (S.ncomms && S.comms[S.last_comm] == c) return S.last_comm;
    for (int i = 0; i < S.ncomms; i++)
        if (S.comms[i] == c) return S.last_comm = i;
    if (S.ncomms == MAX_COMMS) return -1;
    /* handles can be reused after MPI_Comm_free; the table keeps the first size seen (documented limit) */
    int i = S.ncomms++;
    S.comms[i] = c;
    S.comm_size[i] = 0;
    PMPI_Comm_size(c, &S.comm_size[i]);
    return S.last_comm = i;
}

static void snapshot_model(void)
{
    if (S.nseg == MAX_SEGS) return;
    S.seg_t[S.nseg] = isochron_timer_now(itr_timer);
    S.seg_m[S.nseg] = S.global ? isochron_clock_model(S.global) : isochron_lm_identity();
    S.nseg++;
}

static void poll_tracker(void)
{
    /* as isochron_track_poll (rank 0 decides for all), but with a plain blocking allreduce on the
     * tracer's own communicator: isochron_track_poll's polite (sleeping) allreduce cost 0.3-0.8 ms per
     * poll here, 16-50 us per traced collective at ISOCHRON_TRACE_POLL=16 */
    int due = S.rank == 0 && isochron_track_due(S.track), all = 0;
    itr_on = 0;
    PMPI_Allreduce(&due, &all, 1, MPI_INT, MPI_MAX, S.poll_comm);
    if (all && isochron_track_refresh(S.track) == ISOCHRON_OK) {
        S.refreshes++;
        snapshot_model();
    }
    itr_on = 1;
}

void itr_record(int id, double t0, double t1, MPI_Comm comm, int64_t bytes, int coll)
{
    if (S.n == S.cap) {
        S.dropped++;
    } else {
        itr_event_t *e = &S.ev[S.n++];
        e->t0 = t0;
        e->t1 = t1;
        e->bytes = bytes;
        e->call = id;
        e->comm = comm_index(comm);
    }
    if (coll && S.track && comm == MPI_COMM_WORLD && ++S.ncoll_world % S.poll_every == 0) poll_tracker();
}

int isochron_trace_set_active(int on)
{
    int was = itr_on;
    itr_on = on ? 1 : 0;
    return was;
}

long isochron_trace_event_count(void) { return S.n; }

static void parse_calls(const char *v)
{
    memset(itr_mask, 0, sizeof itr_mask);
    if (!strcmp(v, "all")) { memset(itr_mask, 1, sizeof itr_mask); return; }
    char *copy = strdup(v), *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int found = 0;
        for (int i = 0; i < ITR_NCALLS; i++)
            if (!strcasecmp(tok, itr_calls[i].name) || !strcmp(tok, itr_calls[i].kind)) itr_mask[i] = 1, found = 1;
        if (!found) {
            static char names[4096];
            size_t o = 0;
            for (int i = 0; i < ITR_NCALLS && o < sizeof names - 40; i++)
                o += (size_t)snprintf(names + o, sizeof names - o, "%s%s", i ? ", " : "", itr_calls[i].name);
            die("ISOCHRON_TRACE_CALLS: unknown '%s'; valid: all, a kind (coll, icoll, p2p, wait, comm, rma), or: %s", tok, names);
        }
    }
    free(copy);
}

static void setup(void)
{
    PMPI_Comm_rank(MPI_COMM_WORLD, &S.rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &S.size);
    snprintf(S.dir, sizeof S.dir, "%s", env("ISOCHRON_TRACE_DIR", "."));
    snprintf(S.name, sizeof S.name, "%s", env("ISOCHRON_TRACE_NAME", "isochron-trace"));
    const char *fmts = env("ISOCHRON_TRACE_FORMATS", "json,otf2");
    {
        char *copy = strdup(fmts), *save = NULL;
        for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
            if (!strcmp(tok, "json")) S.json = 1;
            else if (!strcmp(tok, "otf2")) S.otf2 = 1;
            else if (!strcmp(tok, "none")) continue;
            else die("ISOCHRON_TRACE_FORMATS: unknown format '%s'%s; valid: json, otf2 (comma-separated), or none (record, write nothing)", tok, "");
        }
        free(copy);
    }
    parse_calls(env("ISOCHRON_TRACE_CALLS", "all"));
    if (getenv("ISOCHRON_TRACE_LIST") && S.rank == 0)
        for (int i = 0; i < ITR_NCALLS; i++) printf("%-26s %s\n", itr_calls[i].name, itr_calls[i].kind);
    char *end;
    const char *pe = env("ISOCHRON_TRACE_POLL", "16");
    S.poll_every = (int)strtol(pe, &end, 10);
    if (*end || S.poll_every < 1 || S.poll_every > 1000000) die("ISOCHRON_TRACE_POLL: '%s' is not an integer in 1..1000000%s", pe, "");
    const char *me = env("ISOCHRON_TRACE_MAX_EVENTS", "1000000");
    S.cap = strtol(me, &end, 10);
    if (*end || S.cap < 1 || S.cap > 1000000000L) die("ISOCHRON_TRACE_MAX_EVENTS: '%s' is not an integer in 1..1000000000%s", me, "");
    S.ev = malloc((size_t)S.cap * sizeof *S.ev);
    if (!S.ev) die_here("ISOCHRON_TRACE_MAX_EVENTS=%s: out of memory for the buffer%s", me, "");
    memset(S.ev, 0, (size_t)S.cap * sizeof *S.ev); /* fault the pages in now, not inside traced calls */
    const char *tr = env("ISOCHRON_TRACE_TRACK", "on");
    if (strcmp(tr, "on") && strcmp(tr, "off")) die("ISOCHRON_TRACE_TRACK: '%s'; valid: on, off%s", tr, "");

    /* the timer, with skew injected if asked */
    snprintf(S.timer_name, sizeof S.timer_name, "%s", env("ISOCHRON_TRACE_TIMER", "monotonic"));
    snprintf(S.skew, sizeof S.skew, "%s", env("ISOCHRON_TRACE_SKEW", "none"));
    isochron_timer_t *t = NULL;
    if (isochron_timer_create(S.timer_name, &t)) die_here("ISOCHRON_TRACE_TIMER: %s%s", isochron_last_error(), "");
    isochron_skew_spec_t sk;
    if (isochron_skew_spec_parse(S.skew, &sk)) die("ISOCHRON_TRACE_SKEW: %s%s", isochron_last_error(), "");
    if (isochron_skew_spec_active(&sk)) {
        isochron_skew_t mine;
        isochron_timer_t *st;
        isochron_skew_for_rank(&sk, S.rank, &mine);
        if (isochron_timer_skew(t, &mine, &st)) die_here("ISOCHRON_TRACE_SKEW: %s%s", isochron_last_error(), "");
        t = st;
    }
    itr_timer = t;
    itr_fast_mono = !strcmp(S.timer_name, "monotonic") && !isochron_timer_is_skewed(t);
    isochron_clock_create(itr_timer, &S.base);

    /* synchronization */
    const char *sync = env("ISOCHRON_TRACE_SYNC", ISOCHRON_TRACE_DEFAULT_SYNC);
    S.tracking = !strcmp(tr, "on");
    if (!strcmp(sync, "none")) {
        snprintf(S.spec, sizeof S.spec, "none");
        S.tracking = 0;
        isochron_clock_copy(S.base, &S.global);
    } else {
        isochron_sync_spec_t spec;
        if (isochron_sync_spec_parse(sync, &spec)) die("ISOCHRON_TRACE_SYNC: %s (or 'none': no correction)%s", isochron_last_error(), "");
        isochron_sync_spec_format(&spec, S.spec, sizeof S.spec);
        isochron_sync_report_t rep;
        if (isochron_sync_run(&spec, MPI_COMM_WORLD, S.base, &S.global, &rep))
            die("clock synchronization (%s) failed: %s", S.spec, isochron_last_error());
        S.sync_duration = rep.duration;
        if (S.tracking) {
            isochron_track_opts_t to;
            isochron_track_opts_default(&to);
            to.follow = rep.follows;
            /* a refresh pass costs about a millisecond inside the application's run: at most every
             * ISOCHRON_TRACE_MIN_INTERVAL seconds (default 0.1; the tracker's own default is 0.01) */
            const char *mi = env("ISOCHRON_TRACE_MIN_INTERVAL", "0.1");
            to.min_interval = strtod(mi, &end);
            if (*end || !(to.min_interval >= 0.001 && to.min_interval <= 10))
                die("ISOCHRON_TRACE_MIN_INTERVAL: '%s' is not a number of seconds in 0.001..10%s", mi, "");
            if (to.max_interval < to.min_interval) to.max_interval = to.min_interval;
            if (isochron_track_create(MPI_COMM_WORLD, S.global, &to, &S.track))
                die("clock tracking failed: %s%s", isochron_last_error(), "");
            S.init_bound = isochron_track_bound(S.track);
            PMPI_Comm_dup(MPI_COMM_WORLD, &S.poll_comm);
        }
        /* the accuracy check (Alg. 6) right after sync: its figure goes into the trace */
        double waits[1] = {0};
        isochron_accuracy_t *acc = S.rank == 0 ? calloc((size_t)S.size, sizeof *acc) : NULL;
        if (isochron_sync_check_xport(MPI_COMM_WORLD, S.global, NULL, NULL, waits, 1, 30, acc, &S.has_truth))
            die("clock check failed: %s%s", isochron_last_error(), "");
        for (int i = 0; S.rank == 0 && i < S.size; i++) {
            if (fabs(acc[i].measured_offset) > S.check_meas) S.check_meas = fabs(acc[i].measured_offset);
            if (S.has_truth && fabs(acc[i].true_offset) > S.check_true) S.check_true = fabs(acc[i].true_offset);
        }
        free(acc);
    }
    snapshot_model();
}

static void init_common(void)
{
    itr_on = 0;
    setup();
    PMPI_Barrier(MPI_COMM_WORLD);
    itr_on = 1;
}

int MPI_Init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS) init_common();
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS) init_common();
    return rc;
}

static double to_global(double l, int *seg)
{
    while (*seg + 1 < S.nseg && S.seg_t[*seg + 1] <= l) (*seg)++;
    return isochron_lm_apply(S.seg_m[*seg], l);
}

static int mkdirs(const char *p)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", p);
    for (char *s = buf + 1; *s; s++)
        if (*s == '/') { *s = 0; mkdir(buf, 0777); *s = '/'; }
    mkdir(buf, 0777);
    struct stat st;
    return stat(buf, &st) == 0 && S_ISDIR(st.st_mode) ? 0 : -1;
}

static void finish(void)
{
    itr_on = 0;
    double end_bound = NAN, end_true = NAN;
    if (S.track) {
        if (isochron_track_refresh(S.track) == ISOCHRON_OK) S.refreshes++, snapshot_model();
        isochron_track_error(S.track, &end_bound, &end_true);
    } else {
        isochron_sync_true_error(MPI_COMM_WORLD, S.global, &end_true); /* NaN unless all ranks share a host */
    }
    /* convert to the global clock */
    itr_out_t *out = malloc((size_t)(S.n ? S.n : 1) * sizeof *out);
    int inst[ITR_NCALLS] = {0}, seg = 0;
    for (long i = 0; i < S.n; i++) {
        const itr_event_t *e = &S.ev[i];
        itr_out_t *o = &out[i];
        o->l0 = e->t0;
        o->l1 = e->t1;
        o->g0 = to_global(e->t0, &seg);
        o->g1 = isochron_lm_apply(S.seg_m[seg], e->t1); /* one model per event: its duration is a local difference */
        o->bytes = e->bytes;
        o->call = e->call;
        o->comm_size = e->comm >= 0 ? S.comm_size[e->comm] : 0;
        o->comm_id = e->comm < 0 ? -1 : S.comms[e->comm] == MPI_COMM_WORLD ? 0 : e->comm + 1;
        o->instance = inst[e->call]++;
        /* a tracker refresh between two events can move the clock back by its correction (tens of ns):
         * keep the rank's events ordered, and say how often and how far that was needed */
        if (i > 0 && o->g0 < out[i - 1].g1) {
            double d = out[i - 1].g1 - o->g0;
            if (d > S.max_clamp) S.max_clamp = d;
            S.nclamp++;
            o->g1 += d;
            o->g0 += d;
        }
    }
    /* gather on rank 0 */
    int64_t n = S.n, *counts = S.rank == 0 ? malloc((size_t)S.size * sizeof *counts) : NULL;
    PMPI_Gather(&n, 1, MPI_INT64_T, counts, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
    int *rc = NULL, *displ = NULL;
    itr_out_t *all = NULL;
    int too_big = 0;
    if (S.rank == 0) {
        rc = malloc((size_t)S.size * sizeof *rc);
        displ = malloc((size_t)S.size * sizeof *displ);
        int64_t tot = 0;
        for (int r = 0; r < S.size; r++) {
            if (tot * (int64_t)sizeof(itr_out_t) > 2000000000LL) too_big = 1;
            rc[r] = (int)(counts[r] * (int64_t)sizeof(itr_out_t));
            displ[r] = (int)(tot * (int64_t)sizeof(itr_out_t));
            tot += counts[r];
        }
        if (tot * (int64_t)sizeof(itr_out_t) > 2000000000LL) too_big = 1;
        all = too_big ? NULL : malloc((size_t)(tot ? tot : 1) * sizeof *all);
    }
    PMPI_Bcast(&too_big, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (too_big) {
        if (S.rank == 0) fprintf(stderr, "isochron-trace: the trace is over 2 GB; nothing written (lower ISOCHRON_TRACE_MAX_EVENTS or select calls with ISOCHRON_TRACE_CALLS)\n");
    } else {
        PMPI_Gatherv(out, (int)(S.n * (long)sizeof *out), MPI_BYTE, all, rc, displ, MPI_BYTE, 0, MPI_COMM_WORLD);
    }
    isochron_track_info_t ti;
    double tcost = 0, tcost_max = 0;
    if (S.track) isochron_track_info(S.track, &ti), tcost = ti.cost;
    PMPI_Reduce(&tcost, &tcost_max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    long dropped = 0, nclamp = 0;
    double max_clamp = 0;
    PMPI_Reduce(&S.dropped, &dropped, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    PMPI_Reduce(&S.nclamp, &nclamp, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    PMPI_Reduce(&S.max_clamp, &max_clamp, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (S.rank == 0 && !too_big) {
        int64_t tot = 0;
        for (int r = 0; r < S.size; r++) tot += counts[r];
        double gmin = INFINITY, gmax = -INFINITY;
        for (int64_t i = 0; i < tot; i++) {
            if (all[i].g0 < gmin) gmin = all[i].g0;
            if (all[i].g1 > gmax) gmax = all[i].g1;
        }
        if (!tot) gmin = gmax = 0;
        char v[NMETA][256];
        const char *keys[NMETA], *vals[NMETA];
        int k = 0;
#define META(key, ...) (keys[k] = key, snprintf(v[k], sizeof v[k], __VA_ARGS__), vals[k] = v[k], k++)
        META("clock_correction", "%s", !strcmp(S.spec, "none") ? "none (global = local timer)"
                                       : S.tracking ? "sync + tracking" : "sync once (no tracking)");
        META("sync_spec", "%s", S.spec);
        META("sync_duration_s", "%.9g", S.sync_duration);
        META("tracking", "%s", S.tracking ? "on" : "off");
        META("tracker_refreshes", "%d", S.refreshes);
        META("tracker_poll_every", "%d", S.poll_every);
        META("tracker_cost_s", "%.9g", tcost_max);
        META("check_max_abs_measured_offset_s", "%.9g", S.check_meas);
        META("check_max_abs_true_offset_s", "%.9g", S.has_truth ? S.check_true : NAN);
        META("error_bound_at_finalize_s", "%.9g", end_bound);
        META("true_error_at_finalize_s", "%.9g", end_true);
        META("timer", "%s", S.timer_name);
        META("skew", "%s", S.skew);
        META("ranks", "%d", S.size);
        META("dropped_events", "%ld", dropped);
        META("events_shifted_for_order", "%ld", nclamp);
        META("max_order_shift_s", "%.9g", max_clamp);
        META("global_time_origin_s", "%.9f", gmin);
        itr_trace_t tr = {S.size, counts, all, gmin, gmax, k, keys, vals};
        if (mkdirs(S.dir)) {
            fprintf(stderr, "isochron-trace: cannot create ISOCHRON_TRACE_DIR '%s'\n", S.dir);
        } else {
            char path[1400];
            if (S.json) {
                snprintf(path, sizeof path, "%s/%s.json", S.dir, S.name);
                if (itr_write_json(path, &tr)) fprintf(stderr, "isochron-trace: writing %s failed\n", path);
            }
            if (S.otf2) {
                snprintf(path, sizeof path, "%s/%s", S.dir, S.name);
                if (itr_write_otf2(path, S.name, &tr)) fprintf(stderr, "isochron-trace: writing the OTF2 archive %s failed\n", path);
            }
        }
        if (dropped) fprintf(stderr, "isochron-trace: %ld events dropped (buffer full; ISOCHRON_TRACE_MAX_EVENTS)\n", dropped);
    }
    free(all), free(rc), free(displ), free(counts), free(out);
    isochron_track_destroy(S.track);
    if (S.track) PMPI_Comm_free(&S.poll_comm);
    S.track = NULL;
}

int MPI_Finalize(void)
{
    int fin = 0;
    PMPI_Finalized(&fin);
    if (!fin && itr_timer) finish();
    return PMPI_Finalize();
}
