/*
 * Clock offset estimators (paper 000, sec. III-A, Appendix A), the building
 * blocks of every synchronization algorithm.
 *  - SKaMPI-Offset (Alg. 7): the client sends its time, the reference answers
 *    with its own; each exchange bounds the offset from both sides and the
 *    tightest bounds over all exchanges win, so only the luckiest
 *    (minimum-delay) exchanges matter. The half-width of the final interval is
 *    returned as the fit point's uncertainty.
 *  - Mean-RTT-Offset (Alg. 8, Jones & Koenig): the RTT is measured once per
 *    pair (mean of the exchanges), then each exchange gives
 *    offset = t_ref + RTT/2 - t_client, and the median exchange is returned.
 * Offsets are reference minus client; both sides read their own clock (the
 * reference may read a global clock already, as in HCA3).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "core/util.h"
#include "sync/sync_impl.h"

int isochron_offset_skampi(MPI_Comm comm, isochron_clock_t *clk, int ref, int client, int n,
                           isochron_offset_t *out)
{
    int me;
    MPI_Comm_rank(comm, &me);
    double tmin = -INFINITY, tmax = INFINITY, s_now = 0, t_last = 0;
    if (me == ref) {
        for (int i = 0; i < n; i++) {
            double dummy;
            if (MPI_Recv(&dummy, 1, MPI_DOUBLE, client, TAG_PING, comm, MPI_STATUS_IGNORE) != MPI_SUCCESS) goto mpierr;
            t_last = isochron_clock_now(clk);
            if (MPI_Send(&t_last, 1, MPI_DOUBLE, client, TAG_PONG, comm) != MPI_SUCCESS) goto mpierr;
        }
    } else if (me == client) {
        for (int i = 0; i < n; i++) {
            double s_last = isochron_clock_now(clk);
            if (MPI_Send(&s_last, 1, MPI_DOUBLE, ref, TAG_PING, comm) != MPI_SUCCESS) goto mpierr;
            if (MPI_Recv(&t_last, 1, MPI_DOUBLE, ref, TAG_PONG, comm, MPI_STATUS_IGNORE) != MPI_SUCCESS) goto mpierr;
            s_now = isochron_clock_now(clk);
            if (t_last - s_now > tmin) tmin = t_last - s_now;
            if (t_last - s_last < tmax) tmax = t_last - s_last;
        }
        out->offset = 0.5 * (tmin + tmax);
        out->timestamp = s_now;
        out->uncertainty = 0.5 * (tmax - tmin);
    }
    return ISOCHRON_OK;
mpierr:
    return isochron_set_error(ISOCHRON_EMPI, "SKaMPI-Offset: MPI point-to-point failed between ranks %d and %d", ref, client);
}

static int skampi_measure(MPI_Comm comm, isochron_clock_t *clk, int ref, int client, int n,
                          isochron_estimator_state_t *st, isochron_offset_t *out)
{
    (void)st;
    return isochron_offset_skampi(comm, clk, ref, client, n, out);
}

static int meanrtt_measure(MPI_Comm comm, isochron_clock_t *clk, int ref, int client, int n,
                           isochron_estimator_state_t *st, isochron_offset_t *out)
{
    int me;
    MPI_Comm_rank(comm, &me);
    double dummy = 0, t;
    if (st->rtt == 0) { /* measure_rtt: mean over n round trips, once per pair */
        double sum = 0;
        for (int i = 0; i < n; i++) {
            if (me == ref) {
                if (MPI_Recv(&dummy, 1, MPI_DOUBLE, client, TAG_PING, comm, MPI_STATUS_IGNORE) != MPI_SUCCESS ||
                    MPI_Send(&dummy, 1, MPI_DOUBLE, client, TAG_PONG, comm) != MPI_SUCCESS) goto mpierr;
            } else {
                double t0 = isochron_clock_now(clk);
                if (MPI_Send(&dummy, 1, MPI_DOUBLE, ref, TAG_PING, comm) != MPI_SUCCESS ||
                    MPI_Recv(&dummy, 1, MPI_DOUBLE, ref, TAG_PONG, comm, MPI_STATUS_IGNORE) != MPI_SUCCESS) goto mpierr;
                sum += isochron_clock_now(clk) - t0;
            }
        }
        st->rtt = me == ref ? 1.0 : sum / n; /* the reference only needs to know it is measured */
    }
    if (me == ref) {
        for (int i = 0; i < n; i++) {
            if (MPI_Recv(&dummy, 1, MPI_DOUBLE, client, TAG_PING, comm, MPI_STATUS_IGNORE) != MPI_SUCCESS) goto mpierr;
            t = isochron_clock_now(clk);
            if (MPI_Ssend(&t, 1, MPI_DOUBLE, client, TAG_PONG, comm) != MPI_SUCCESS) goto mpierr;
        }
        return ISOCHRON_OK;
    }
    double *var = malloc(sizeof(double) * (size_t)n * 3);
    if (!var) return isochron_set_error(ISOCHRON_ENOMEM, "Mean-RTT-Offset: out of memory");
    double *loc = var + n, *tmp = var + 2 * n;
    for (int i = 0; i < n; i++) {
        double ref_time;
        if (MPI_Ssend(&dummy, 1, MPI_DOUBLE, ref, TAG_PING, comm) != MPI_SUCCESS ||
            MPI_Recv(&ref_time, 1, MPI_DOUBLE, ref, TAG_PONG, comm, MPI_STATUS_IGNORE) != MPI_SUCCESS) { free(var); goto mpierr; }
        loc[i] = isochron_clock_now(clk);
        var[i] = ref_time + 0.5 * st->rtt - loc[i];
    }
    memcpy(tmp, var, sizeof(double) * (size_t)n);
    double med = isochron_median(tmp, n);
    int mi = 0;
    for (int i = 0; i < n; i++) if (fabs(var[i] - med) < fabs(var[mi] - med)) mi = i;
    for (int i = 0; i < n; i++) tmp[i] = fabs(var[i] - med);
    out->offset = var[mi];
    out->timestamp = loc[mi];
    out->uncertainty = fmax(1.4826 * isochron_median(tmp, n), 1e-9);
    free(var);
    return ISOCHRON_OK;
mpierr:
    return isochron_set_error(ISOCHRON_EMPI, "Mean-RTT-Offset: MPI point-to-point failed between ranks %d and %d", ref, client);
}

static const isochron_estimator_t estimators[] = {
    {"skampi", "skampi-offset|skampi_offset", "SKaMPI-Offset (Alg. 7): tightest bounds over min-RTT exchanges", 1, skampi_measure},
    {"mean-rtt", "mean-rtt-offset|meanrtt|mean_rtt|jk", "Mean-RTT-Offset (Alg. 8, Jones-Koenig): mean RTT, median offset", 0, meanrtt_measure},
};
#define NEST ((int)(sizeof estimators / sizeof estimators[0]))

int isochron_estimator_count(void) { return NEST; }
const isochron_estimator_t *isochron_estimator_get(int i) { return (i >= 0 && i < NEST) ? &estimators[i] : NULL; }

int isochron_estimator_find(const char *name, const isochron_estimator_t **out)
{
    *out = NULL;
    for (int i = 0; i < NEST; i++) {
        if (isochron_streq_ci(name, estimators[i].name)) { *out = &estimators[i]; return ISOCHRON_OK; }
        char al[128];
        strncpy(al, estimators[i].aliases, sizeof al - 1);
        al[sizeof al - 1] = 0;
        char *save = NULL;
        for (char *a = strtok_r(al, "|", &save); a; a = strtok_r(NULL, "|", &save))
            if (isochron_streq_ci(name, a)) { *out = &estimators[i]; return ISOCHRON_OK; }
    }
    return isochron_set_error(ISOCHRON_ENAME, "unknown offset estimator '%s'; valid: skampi (SKaMPI-Offset), mean-rtt (Mean-RTT-Offset)", name);
}
