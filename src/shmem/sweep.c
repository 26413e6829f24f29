/*
 * The sweep of an OpenSHMEM run as a library call (isochron/shmem.h, isochron_shmem_sweep_run), so that a
 * program using the library measures what isochron-shmem does: every measurement x size in order (one
 * without a size once), each point measured by isochron_shmem_measure and handed over as soon as it is
 * done (paper 002 sec. 4). Between points the tracker keeps the clock true, never inside one. A point whose
 * times are differences of global timestamps (paper 002 Alg. 2 and 3: bcast_sync, bcast_rounds) carries the
 * clock's error at its time, both bounds and which one is stated, as isochron-bench's points do; elsewhere
 * times are local durations on one PE. Wrong data from the library (EVALIDATE) makes a point without a
 * time and the sweep goes on; any other failure ends it.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "isochron.h"
#include "shmem/shmem_impl.h"

/* the timing method recorded with a point */
static const char *method_of(const isochron_shmem_op_t *op, int loop)
{
    if (op->flags & ISOCHRON_SHMEM_LOOPED) return isochron_shmem_loop_name(loop);
    if (!strcmp(op->family, "loop")) return op->name + 5;
    if (!strcmp(op->name, "bcast_sync") || !strcmp(op->name, "bcast_rounds")) return "global";
    if (!strcmp(op->name, "bcast_ack")) return "ack";
    if (strstr(op->name, "post")) return "inside";
    return "outside";
}

/* The clock's error of a point timed on the global clock (per operation: bcast_rounds' span covers loop_k broadcasts). */
static void clock_error(isochron_track_t *track, isochron_point_t *pt)
{
    isochron_track_errors_t te;
    if (!isochron_track_errors(track, &te)) {
        pt->clock_bound = te.bound;
        pt->clock_true = te.true_err;
        pt->clock_bound_stat = te.bound_stat;
        pt->clock_bound_hard = te.bound_hard;
        pt->clock_bound_is_hard = te.hard;
    }
    if (isfinite(pt->clock_bound)) { pt->clock_used = pt->clock_bound / (pt->loop_k > 0 ? pt->loop_k : 1); pt->resolution += pt->clock_used; }
}

/* One point: measured, completed, handed over. ISOCHRON_OK (a defect included) or the failure. */
static int one_point(const isochron_shmem_sweep_t *sw, const isochron_shmem_sweep_cb_t *cb, int i, int s, isochron_shmem_step_t *st)
{
    const isochron_shmem_op_t *op = sw->ops[i];
    isochron_point_t pt;
    isochron_shmem_defect_t defect;
    char what[96]; /* the point's name in messages: sized measurements with their size */
    if (op->flags & ISOCHRON_SHMEM_SIZED) snprintf(what, sizeof what, "%s at %zu B", op->name, sw->sizes[s]);
    else snprintf(what, sizeof what, "%s", op->name);
    if (sw->track) {
        int refreshed;
        isochron_track_poll(sw->track, &refreshed);
    }
    if (cb->begin) cb->begin(cb->arg, what);
    int rc = isochron_shmem_measure(op, sw->opts, sw->sizes[s], sw->global, &pt, &defect);
    if (cb->end) cb->end(cb->arg);
    if (!rc && sw->track && (!strcmp(op->name, "bcast_sync") || !strcmp(op->name, "bcast_rounds"))) clock_error(sw->track, &pt);
    /* the loop timing is the user's where it was given and applies; else the measurement's own */
    pt.timing_user = sw->loop_given && (op->flags & ISOCHRON_SHMEM_LOOPED);
    if (rc && rc != ISOCHRON_EVALIDATE) {
        if (cb->failed) cb->failed(cb->arg, what, isochron_last_error());
        return rc;
    }
    st->op = op;
    st->point = &pt;
    st->method = method_of(op, sw->opts->loop);
    st->defect = rc ? &defect : NULL;
    st->what = what;
    if (cb->point) cb->point(cb->arg, st);
    st->index++;
    return ISOCHRON_OK;
}

int isochron_shmem_sweep_run(const isochron_shmem_sweep_t *sw, const isochron_shmem_sweep_cb_t *cb, int *done, int *defects)
{
    isochron_shmem_step_t st;
    memset(&st, 0, sizeof st);
    for (int i = 0; i < sw->nops; i++) st.total += (sw->ops[i]->flags & ISOCHRON_SHMEM_SIZED) ? sw->nsizes : 1;
    int rc = ISOCHRON_OK;
    *defects = 0;
    for (int i = 0; i < sw->nops && !rc; i++)
        for (int s = 0; s < ((sw->ops[i]->flags & ISOCHRON_SHMEM_SIZED) ? sw->nsizes : 1) && !rc; s++) {
            rc = one_point(sw, cb, i, s, &st);
            if (!rc && st.defect) ++*defects;
        }
    *done = st.index;
    return rc;
}
