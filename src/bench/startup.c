/*
 * Start-up (include/isochron/bench.h): how MPI is started and what that cost, as OSU's osu_init
 * and osu_hello measure it (osu-micro-benchmarks 7.2 added initialisation through sessions).
 * Two ways, selectable by name (isochron_init_find):
 *  - world:    MPI_Init_thread; the world communicator is MPI_COMM_WORLD;
 *  - sessions: the MPI 4.0 sessions model (MPI standard 4.0, chapter 11.3): MPI_Session_init, the
 *              group of the process set "mpi://WORLD" (MPI_Group_from_session_pset), and a
 *              communicator made from it (MPI_Comm_create_from_group). Everything isochron does
 *              takes its communicator as an argument, so the drivers run on this one unchanged.
 * (and the three together, init_s, beside MPI_Init's). Then the first MPI_Barrier and MPI_Allreduce on that communicator (the first collectives set up
 * connections). Each phase is timed on the rank's own CLOCK_MONOTONIC (isochron_truth_now): no
 * global clock exists yet; isochron_startup_summarize reduces them to min, mean and max over ranks.
 * Sessions exist where mpi.h defines MPI_SESSION_NULL (MPICH 4, Open MPI 5; Open MPI 4.1 has none):
 * elsewhere they are refused with a sentence naming the MPI library and its version.
 */
#include <stdlib.h>
#include <string.h>
#include "isochron.h"
#include "isochron/bench.h"
#include "isochron/timer.h"
#include "core/util.h"

static const char *const init_names[2] = {"world", "sessions"};

int isochron_init_find(const char *name, int *init)
{
    for (int i = 0; i < 2; i++)
        if (name && !strcmp(name, init_names[i])) { *init = i; return ISOCHRON_OK; }
    return isochron_set_error(ISOCHRON_ENAME, "unknown init '%s'; valid: world, sessions", name ? name : "");
}

const char *isochron_init_name(int init) { return init == ISOCHRON_INIT_SESSIONS ? "sessions" : "world"; }

int isochron_sessions_available(void)
{
#ifdef MPI_SESSION_NULL
    return ISOCHRON_OK;
#else
    char lib[128];
    int v = 0, sv = 0;
    isochron_mpi_library_name(lib, sizeof lib);
    MPI_Get_version(&v, &sv);
    return isochron_set_error(ISOCHRON_EUNSUPPORTED,
                              "the MPI library isochron was built with, %s (MPI %d.%d), has no sessions (MPI_Session_init and process sets "
                              "are MPI 4.0: MPICH 4, Open MPI 5)", lib, v, sv);
#endif
}

#ifdef MPI_SESSION_NULL
static int mpi_error(int rc, const char *what)
{
    char s[MPI_MAX_ERROR_STRING] = "";
    int n = 0;
    MPI_Error_string(rc, s, &n);
    return isochron_set_error(ISOCHRON_EMPI, "%s failed: %s", what, s);
}

/* a step after MPI_Session_init failed: the error set, the session finalized and freed */
static int session_failed(isochron_world_t *w, MPI_Session *s, int rc, const char *what)
{
    mpi_error(rc, what);
    MPI_Session_finalize(s);
    free(s);
    w->session = NULL;
    return ISOCHRON_EMPI;
}
#endif

static void phase(isochron_startup_t *st, const char *what, const char *key)
{
    st->what[st->nphases] = what;
    st->key[st->nphases] = key;
    st->nphases++;
}

int isochron_world_init(int init, int *argc, char ***argv, int thread_level, isochron_world_t *w)
{
    memset(w, 0, sizeof *w);
    w->init = init;
    w->comm = MPI_COMM_NULL;
    w->provided = MPI_THREAD_SINGLE;
    isochron_startup_t *st = &w->startup;
    st->init = init;
    double t[ISOCHRON_STARTUP_MAXPHASES + 1] = {0}; /* = {0}: GCC 12 at -O3 cannot see that every t[i + 1] read below was set */
    int rc, k = 0;
    t[k++] = isochron_truth_now();
    if (init == ISOCHRON_INIT_SESSIONS) {
#ifdef MPI_SESSION_NULL
        MPI_Session *s = malloc(sizeof *s);
        if (!s) return isochron_set_error(ISOCHRON_ENOMEM, "out of memory");
        MPI_Info info = MPI_INFO_NULL;
        if (thread_level != MPI_THREAD_SINGLE) {
            MPI_Info_create(&info);
            MPI_Info_set(info, "thread_level", thread_level == MPI_THREAD_MULTIPLE ? "MPI_THREAD_MULTIPLE"
                                             : thread_level == MPI_THREAD_SERIALIZED ? "MPI_THREAD_SERIALIZED" : "MPI_THREAD_FUNNELED");
        }
        rc = MPI_Session_init(info, MPI_ERRORS_RETURN, s);
        if (info != MPI_INFO_NULL) MPI_Info_free(&info);
        if (rc != MPI_SUCCESS) { free(s); return mpi_error(rc, "MPI_Session_init"); }
        w->session = s;
        t[k++] = isochron_truth_now();
        phase(st, "MPI_Session_init", "session_init_s");
        MPI_Group g;
        if ((rc = MPI_Group_from_session_pset(*s, "mpi://WORLD", &g)) != MPI_SUCCESS)
            return session_failed(w, s, rc, "MPI_Group_from_session_pset(\"mpi://WORLD\")");
        t[k++] = isochron_truth_now();
        phase(st, "MPI_Group_from_session_pset", "group_from_pset_s");
        rc = MPI_Comm_create_from_group(g, "org.isochron.world", MPI_INFO_NULL, MPI_ERRORS_ARE_FATAL, &w->comm);
        MPI_Group_free(&g);
        if (rc != MPI_SUCCESS) return session_failed(w, s, rc, "MPI_Comm_create_from_group");
        t[k++] = isochron_truth_now();
        phase(st, "MPI_Comm_create_from_group", "comm_create_s");
        /* the level provided: the session's "thread_level" info */
        MPI_Info got = MPI_INFO_NULL;
        if (MPI_Session_get_info(*s, &got) == MPI_SUCCESS && got != MPI_INFO_NULL) {
            char val[64] = "";
            int flag = 0;
            MPI_Info_get(got, "thread_level", (int)sizeof val - 1, val, &flag);
            if (flag) w->provided = !strcmp(val, "MPI_THREAD_MULTIPLE") ? MPI_THREAD_MULTIPLE : !strcmp(val, "MPI_THREAD_SERIALIZED") ? MPI_THREAD_SERIALIZED
                                  : !strcmp(val, "MPI_THREAD_FUNNELED") ? MPI_THREAD_FUNNELED : MPI_THREAD_SINGLE;
            MPI_Info_free(&got);
        }
#else
        (void)argc; (void)argv; (void)thread_level;
        return isochron_sessions_available();
#endif
    } else if (init == ISOCHRON_INIT_WORLD) {
        if (thread_level != MPI_THREAD_SINGLE) rc = MPI_Init_thread(argc, argv, thread_level, &w->provided);
        else rc = MPI_Init(argc, argv);
        if (rc != MPI_SUCCESS) return isochron_set_error(ISOCHRON_EMPI, "MPI_Init failed (error %d)", rc);
        w->comm = MPI_COMM_WORLD;
        t[k++] = isochron_truth_now();
        phase(st, "MPI_Init", "init_s");
    } else
        return isochron_set_error(ISOCHRON_ENAME, "unknown init %d; valid: world (%d), sessions (%d)", init, ISOCHRON_INIT_WORLD, ISOCHRON_INIT_SESSIONS);
    /* the first collectives, before anything else talks */
    int one = 1, all = 0;
    MPI_Barrier(w->comm);
    t[k++] = isochron_truth_now();
    phase(st, "first MPI_Barrier", "first_barrier_s");
    MPI_Allreduce(&one, &all, 1, MPI_INT, MPI_SUM, w->comm);
    t[k++] = isochron_truth_now();
    phase(st, "first MPI_Allreduce", "first_allreduce_s");
    st->ranks = all;
    for (int i = 0; i < st->nphases; i++) st->self[i] = t[i + 1] - t[i];
    if (init == ISOCHRON_INIT_SESSIONS) { /* the three calls together: what compares with MPI_Init (init_s) */
        for (int i = st->nphases; i > 3; i--) { st->what[i] = st->what[i - 1]; st->key[i] = st->key[i - 1]; st->self[i] = st->self[i - 1]; }
        st->what[3] = "sessions start-up, all";
        st->key[3] = "init_s";
        st->self[3] = t[3] - t[0];
        st->nphases++;
    }
    return ISOCHRON_OK;
}

int isochron_world_finalize(isochron_world_t *w)
{
    int rc = MPI_SUCCESS;
#ifdef MPI_SESSION_NULL
    if (w->init == ISOCHRON_INIT_SESSIONS) {
        if (w->comm != MPI_COMM_NULL) MPI_Comm_free(&w->comm);
        if (w->session) rc = MPI_Session_finalize((MPI_Session *)w->session);
        free(w->session);
        w->session = NULL;
        return rc == MPI_SUCCESS ? ISOCHRON_OK : mpi_error(rc, "MPI_Session_finalize");
    }
#endif
    w->comm = MPI_COMM_NULL;
    rc = MPI_Finalize();
    return rc == MPI_SUCCESS ? ISOCHRON_OK : isochron_set_error(ISOCHRON_EMPI, "MPI_Finalize failed (error %d)", rc);
}

int isochron_startup_summarize(const isochron_world_t *w, isochron_startup_t *out)
{
    *out = w->startup;
    int n = w->startup.nphases, size;
    double sum[ISOCHRON_STARTUP_MAXPHASES];
    MPI_Comm_size(w->comm, &size);
    if (MPI_Reduce(w->startup.self, out->min, n, MPI_DOUBLE, MPI_MIN, 0, w->comm) != MPI_SUCCESS ||
        MPI_Reduce(w->startup.self, out->max, n, MPI_DOUBLE, MPI_MAX, 0, w->comm) != MPI_SUCCESS ||
        MPI_Reduce(w->startup.self, sum, n, MPI_DOUBLE, MPI_SUM, 0, w->comm) != MPI_SUCCESS)
        return isochron_set_error(ISOCHRON_EMPI, "start-up: MPI_Reduce failed");
    for (int i = 0; i < n; i++) out->mean[i] = sum[i] / size;
    out->ranks = size;
    return ISOCHRON_OK;
}
