/* libisochron-cc.so: the checkpoint protocol's settings (ISOCHRON_CC_*, docs/layers.md), its ticker
 * thread, and its start at MPI_Init and end at MPI_Finalize -- the top of the protocol's rooms
 * (cc_ckpt.h), for paper 003's cc mode and [mana]'s two-phase commit alike.
 *
 * Design. Every ISOCHRON_CC_* variable is checked at MPI_Init on every rank before anything runs, and
 * one bad value stops the job on all ranks with one line naming it and the valid choices
 * (isochron_pmpi_agree_or_stop, core/settings.h): a misspelt name is refused, directories are made
 * ready, a restart directory is read whole (cc_ckpt_file.c). The ticker never calls MPI: every
 * ISOCHRON_CC_POLL_MS it sets the wrappers' attention flag, on rank 0 it requests the
 * ISOCHRON_CC_INTERVAL checkpoints, and it ends a rank stuck inside one blocking call (the watchdog of
 * cc_ckpt.c cannot run there). MPI_Finalize serves checkpoints until every rank has entered it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include "pmpi/pmpi.h"
#include "isochron/cc.h"
#include "cc/cc_internal.h"
#include "cc/cc_ckpt.h"
#include "core/settings.h"

static void on_usr1(int sig)
{
    (void)sig;
    ck->req_flag = 1;
    icc->attn = 1;
}

static void *ticker_main(void *arg)
{
    (void)arg;
    double next = icc_now_s() + ck->interval_s, learned_at = 0;
    int seen_epoch = 0, seen_n = 0;
    struct timespec ts = { (time_t)(ck->poll_ms / 1000), (long)(1e6 * (ck->poll_ms - 1000 * (long)(ck->poll_ms / 1000))) };
    while (!ck->ticker_stop) {
        nanosleep(&ts, NULL);
        __atomic_store_n(&icc->attn, 1, __ATOMIC_RELAXED);
        double t = icc_now_s();
        int n = __atomic_load_n(&ck->nckpt, __ATOMIC_RELAXED);
        if (n != seen_n) { seen_n = n; next = t + ck->interval_s; }   /* the interval runs from the last resume */
        if (ck->interval_s > 0 && icc->rank == 0 && t >= next && !__atomic_load_n(&icc->pending, __ATOMIC_RELAXED)) {
            __atomic_store_n(&ck->req_flag, 1, __ATOMIC_RELAXED);
            next = t + ck->interval_s;
        }
        /* a rank stuck inside a blocking MPI call never reaches the main-thread watchdog */
        int e = __atomic_load_n(&icc->pending, __ATOMIC_RELAXED) ? __atomic_load_n(&ck->epoch, __ATOMIC_RELAXED) : 0;
        if (e != seen_epoch) { seen_epoch = e; learned_at = t; }
        if (e && t - learned_at > 1.5 * ck->timeout_s + 1) {
            fprintf(stderr, "isochron-cc: rank %d: checkpoint %d not reached after %.0f s (ISOCHRON_CC_TIMEOUT=%g); "
                    "stuck inside %s (a call that does not return while the protocol waits)\n",
                    icc->rank, e, t - learned_at, ck->timeout_s, ck->cur_call);
            fflush(stderr);
            _exit(3);
        }
    }
    return NULL;
}


/* The variables of this layer (docs/layers.md): any other ISOCHRON_CC_* is refused as misspelt. */
static const char *const icc_known[] = {
    "ISOCHRON_CC_MODE", "ISOCHRON_CC_DIR", "ISOCHRON_CC_LOG", "ISOCHRON_CC_RESTART", "ISOCHRON_CC_COMMAND",
    "ISOCHRON_CC_INTERVAL", "ISOCHRON_CC_TIMEOUT", "ISOCHRON_CC_POLL_MS", "ISOCHRON_CC_TEST_COLLIDE",
    "ISOCHRON_CC_RESTART_ALLOW", "ISOCHRON_CC_RESTART_FALLBACK",
};
#define ICC_PATH_MAX 3800   /* a directory's bytes: room for /ckpt.N/rank.R.tmp and cc-log.R.jsonl in 4096 */
#define ICC_COMMAND_MAX 4000

/* ISOCHRON_CC_COMMAND: only %r, %n, %d and %% (a % alone or another letter would run a different command) */
static int check_command(const char *cmd, char *err, size_t len)
{
    if (isochron_setting_text("ISOCHRON_CC_COMMAND", cmd, ICC_COMMAND_MAX, err, len)) return -1;
    for (const char *p = cmd; *p; p++) {
        if (*p != '%') continue;
        if (p[1] == 'r' || p[1] == 'n' || p[1] == 'd' || p[1] == '%') { p++; continue; }
        snprintf(err, len, "ISOCHRON_CC_COMMAND=%s: '%%%s' is not an escape; valid: %%r (rank), %%n (checkpoint number), "
                 "%%d (checkpoint directory), %%%% (a percent sign)", cmd, p[1] ? (char[]){p[1], 0} : "");
        return -1;
    }
    return 0;
}

/* ISOCHRON_CC_RESTART_ALLOW: a list of the differences a restart accepts (cc_restart.c) */
static int check_allow(const char *v, char *err, size_t len)
{
    static const char *const names[] = { "program", "binary", "mode", "regions" };
    if (isochron_setting_list("ISOCHRON_CC_RESTART_ALLOW", v, err, len) ||
        isochron_setting_text("ISOCHRON_CC_RESTART_ALLOW", v, 255, err, len))
        return -1;
    char copy[256], *save = NULL;
    snprintf(copy, sizeof copy, "%s", v);
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int k = 0;
        while (k < 4 && strcasecmp(tok, names[k]) != 0) k++;
        if (k == 4) {
            snprintf(err, len, "ISOCHRON_CC_RESTART_ALLOW=%s: unknown '%s'; valid (comma-separated): program (another executable), "
                     "binary (the same path, rebuilt), mode (cc/2pc), regions (registered regions the file lacks, saved "
                     "regions nobody registers)", v, tok);
            return -1;
        }
        ck->allow |= 1 << k;
    }
    return 0;
}

/* Every ISOCHRON_CC_* variable, into err ("" when all are good). Directories are made ready (cc mode only:
 * no other mode writes): ISOCHRON_CC_DIR created and written to, ISOCHRON_CC_LOG created and this rank's
 * log opened, ISOCHRON_CC_RESTART checked (read afterwards: icc_settings). */
static void check_settings(char *err, size_t len)
{
    const char *v;
    int collide = 0;
    static const char *const zero_one[] = { "0", "1" };
    err[0] = 0;
    if (isochron_settings_known("ISOCHRON_CC_", icc_known, (int)(sizeof icc_known / sizeof *icc_known), err, len) ||
        isochron_setting_number("ISOCHRON_CC_TIMEOUT", isochron_setting_get("ISOCHRON_CC_TIMEOUT", "60"), 0.001, 86400, 0,
                                "seconds", &ck->timeout_s, err, len) ||
        isochron_setting_number("ISOCHRON_CC_INTERVAL", isochron_setting_get("ISOCHRON_CC_INTERVAL", "0"), 0.01, 86400, 1,
                                "seconds", &ck->interval_s, err, len) ||
        isochron_setting_number("ISOCHRON_CC_POLL_MS", isochron_setting_get("ISOCHRON_CC_POLL_MS", "10"), 0.01, 1000, 0,
                                "milliseconds", &ck->poll_ms, err, len) ||
        isochron_setting_choice("ISOCHRON_CC_TEST_COLLIDE", isochron_setting_get("ISOCHRON_CC_TEST_COLLIDE", "0"), zero_one, 2,
                                "switch", &collide, err, len) ||
        isochron_setting_choice("ISOCHRON_CC_RESTART_FALLBACK", isochron_setting_get("ISOCHRON_CC_RESTART_FALLBACK", "0"), zero_one,
                                2, "switch", &ck->fallback, err, len))
        return;
    if ((v = isochron_setting_get("ISOCHRON_CC_RESTART_ALLOW", NULL)) && check_allow(v, err, len)) return;
    icc->collide = collide;
    if ((v = isochron_setting_get("ISOCHRON_CC_COMMAND", NULL)) && check_command(v, err, len)) return;
    if (icc->mode == ICC_NATIVE) return;
    if ((v = isochron_setting_get("ISOCHRON_CC_DIR", NULL)) &&
        isochron_setting_dir("ISOCHRON_CC_DIR", v, ICC_PATH_MAX, ISOCHRON_DIR_CREATE | ISOCHRON_DIR_WRITE, err, len))
        return;
    if ((v = isochron_setting_get("ISOCHRON_CC_LOG", NULL))) {
        if (isochron_setting_dir("ISOCHRON_CC_LOG", v, ICC_PATH_MAX, ISOCHRON_DIR_CREATE | ISOCHRON_DIR_WRITE, err, len)) return;
        snprintf(ck->log_path, sizeof ck->log_path, "%s/cc-log.%d.jsonl", v, icc->rank);
        ck->icc_log = fopen(ck->log_path, "a");
        if (!ck->icc_log) {
            snprintf(err, len, "ISOCHRON_CC_LOG=%s: cannot open the state log %s: %s", v, ck->log_path, strerror(errno));
            return;
        }
    }
    if ((v = isochron_setting_get("ISOCHRON_CC_RESTART", NULL)) &&
        isochron_setting_dir("ISOCHRON_CC_RESTART", v, ICC_PATH_MAX, 0, err, len))
        return;
}

void icc_settings(void)
{
    char err[16384];
    PMPI_Comm_rank(MPI_COMM_WORLD, &icc->rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &icc->size);
    check_settings(err, sizeof err);
    isochron_pmpi_agree_or_stop("isochron-cc", err, ISOCHRON_PMPI_EXIT_SETTING);
    /* the restart reads collectively (every rank takes the same checkpoint): after every rank's settings are good */
    const char *v = isochron_setting_get("ISOCHRON_CC_RESTART", NULL);
    if (v && icc->mode != ICC_NATIVE) {
        icc_load_restart(v, err, sizeof err);
        isochron_pmpi_agree_or_stop("isochron-cc", err, ISOCHRON_PMPI_EXIT_SETTING);
    }
}

void icc_init_protocol(void)
{
    if (icc->mode == ICC_NATIVE || icc->inited) return;
    PMPI_Comm_dup(MPI_COMM_WORLD, &ck->icomm);
    icc->sent_to = calloc((size_t)icc->size, sizeof *icc->sent_to);
    icc->recvd_from = calloc((size_t)icc->size, sizeof *icc->recvd_from);
    ck->need_sent = calloc((size_t)icc->size, sizeof *ck->need_sent);
    ck->need_mark = calloc((size_t)icc->size, 1);
    if (!icc->sent_to || !icc->recvd_from || !ck->need_sent || !ck->need_mark) icc_die("%s%s", "out of memory", "");
    if (ck->restarted_from && ck->icc_log) {
        fprintf(ck->icc_log, "{\"ev\":\"restart\",\"rank\":%d,\"ckpt\":%d,\"dir\":\"%s\",\"t\":%.6f}\n", icc->rank, ck->restarted_from,
                isochron_setting_get("ISOCHRON_CC_RESTART", ""), PMPI_Wtime());
        fflush(ck->icc_log);
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, NULL);
    icc->inited = 1;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);   /* signals go to the application's threads */
    ck->ticker_on = pthread_create(&ck->ticker, NULL, ticker_main, NULL) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!ck->ticker_on) icc_die("%s%s", "cannot start the ticker thread", "");
}

void icc_finalize_protocol(void)
{
    if (!icc->inited) return;
    ck->finalizing = 1;
    icc->attn = 1;
    while (!ck->final_done) icc_poll(ICC_COLL, "MPI_Finalize", -1);
    ck->ticker_stop = 1;
    if (ck->ticker_on) pthread_join(ck->ticker, NULL);
    icc_reap_sends(1);
    PMPI_Comm_free(&ck->icomm);
    icc->inited = 0;
    /* every rank is done with the protocol: saved regions nobody registered stop the job here (status 2) */
    char err[4096];
    icc_unclaimed_regions(err, sizeof err);
    isochron_pmpi_agree_or_stop("isochron-cc", err, ISOCHRON_PMPI_EXIT_SETTING);
    if (ck->icc_log) {
        /* a line the log lost (a full disk) makes the job's exit status non-zero (cc.c, MPI_Finalize's wrapper) */
        int bad = fflush(ck->icc_log) != 0 || ferror(ck->icc_log);
        int e = errno;
        if (fclose(ck->icc_log) != 0 && !bad) bad = 1, e = errno;
        if (bad) {
            fprintf(stderr, "isochron-cc: rank %d: writing the state log %s failed: %s; the job's exit status will be %d\n",
                    icc->rank, ck->log_path, strerror(e), ISOCHRON_PMPI_EXIT_LOST);
            icc->output_lost = 1;
        }
    }
    ck->icc_log = NULL;
}
