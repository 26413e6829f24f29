/*
 * cpp_hello: isochron from C++. The public headers are declared extern "C",
 * so a C++ program includes the umbrella isochron.h and links libisochron
 * (shared or static) like a C one. It reports an error code by name, shows
 * the library's one-line error for a bad timer name, then synchronizes the
 * ranks' clocks with HCA3 (Hunold & Carpen-Amarie, docs/references.md
 * "paper 000", Alg. 1) on the mpi_wtime timer and prints the true largest
 * offset to rank 0 on this host (isochron_sync_true_error).
 *   mpirun -np 2 cpp_hello
 * tests/install/test_install.sh builds it against the installed package
 * through find_package(isochron) and through pkg-config.
 */
// The MPI C API only: no MPI C++ bindings (removed from MPI 3.0; MPICH and Open MPI still ship them)
#define MPICH_SKIP_MPICXX 1
#define OMPI_SKIP_MPICXX 1
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include "isochron.h"

namespace {

// The library's objects owned by C++ handles: destroyed on every path.
struct timer_deleter {
    void operator()(isochron_timer_t *t) const { isochron_timer_destroy(t); }
};
struct clock_deleter {
    void operator()(isochron_clock_t *c) const { isochron_clock_destroy(c); }
};
using timer_ptr = std::unique_ptr<isochron_timer_t, timer_deleter>;
using clock_ptr = std::unique_ptr<isochron_clock_t, clock_deleter>;

int fail(const char *what, int rc)
{
    std::fprintf(stderr, "cpp_hello: %s: %s (%s)\n", what, isochron_strerror(rc), isochron_last_error());
    return 1;
}

int run(int rank)
{
    isochron_timer_t *raw = nullptr;
    int rc = isochron_timer_create("no_such_timer", &raw);
    if (rank == 0)
        std::printf("isochron %s: timer \"no_such_timer\": %s: %s\n", ISOCHRON_VERSION_STRING, isochron_strerror(rc),
                    isochron_last_error());
    if (rc != ISOCHRON_ENAME) return fail("a bad timer name was not refused with ENAME", rc == 0 ? ISOCHRON_EINVAL : rc);

    if ((rc = isochron_timer_create("mpi_wtime", &raw))) return fail("timer mpi_wtime", rc);
    timer_ptr timer(raw);
    isochron_clock_t *c = nullptr;
    if ((rc = isochron_clock_create(timer.get(), &c))) return fail("clock", rc);
    clock_ptr base(c);
    isochron_sync_spec_t spec;
    if ((rc = isochron_sync_spec_parse("hca3", &spec))) return fail("sync spec hca3", rc);
    if ((rc = isochron_sync_run(&spec, MPI_COMM_WORLD, base.get(), &c, nullptr))) return fail("sync hca3", rc);
    clock_ptr global(c);
    double err = NAN;
    if ((rc = isochron_sync_true_error(MPI_COMM_WORLD, global.get(), &err))) return fail("true error", rc);
    char text[256];
    isochron_sync_spec_format(&spec, text, sizeof text);
    if (rank == 0) {
        std::string where = std::isnan(err) ? "ranks on different hosts: no ground truth"
                                            : "true largest offset to rank 0: " + std::to_string(err * 1e6) + " us";
        std::printf("clocks synchronized with %s, global clock now %.6f s; %s\n", text, isochron_clock_now(global.get()),
                    where.c_str());
    }
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int rc = run(rank);
    MPI_Finalize();
    return rc;
}
