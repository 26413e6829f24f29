/* cluster_probe: what each MPI rank sees of its host, for the namespace cluster (tools/cluster).
 *
 * Design. Every rank reads what makes a host a host to a clock: its hostname, the kernel's boot_id
 * (/proc/sys/kernel/random/boot_id, the same for every process of one kernel whatever its
 * namespaces), its time namespace's CLOCK_MONOTONIC offset (/proc/self/timens_offsets,
 * time_namespaces(7)), and CLOCK_MONOTONIC against CLOCK_REALTIME read back to back (the tightest
 * of 20 tries; REALTIME is not namespaced, so mono - real differs between two nodes by their
 * monotonic offsets: truth the kernel keeps, independent of any MPI or isochron code). It also
 * reports MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)'s size, i.e. how the MPI library groups ranks
 * into nodes, and the CPUs the rank may run on (Cpus_allowed_list of /proc/self/status: tools/cluster
 * gives each node its own). Rank 0 prints one line per rank, "key=value" fields, for tests to parse.
 * With --pingpong N, rank 0 and the first rank on another host (by hostname; rank 1 when all share
 * one) exchange 8 bytes N times after 20 warm-up round trips and rank 0 prints the median, minimum
 * and maximum round trip from MPI_Wtime; the other ranks wait in MPI_Barrier (busy-polling, as MPI
 * libraries do unless told to yield: the "starved" condition of docs/cluster.md).
 * This file uses MPI only (no isochron code): it checks the cluster, not isochron.
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct {
  char host[64];
  char boot_id[40];
  char cpus[64]; /* Cpus_allowed_list */
  long long timens_mono_s; /* -1: no time namespaces in this kernel */
  long long mono_ns, real_ns, mono_minus_real_ns, read_width_ns;
  int node_size, node_rank;
} probe_t;

static long long ts_ns(const struct timespec *t) { return (long long)t->tv_sec * 1000000000LL + t->tv_nsec; }

static void read_line(const char *path, char *out, size_t n) {
  FILE *f = fopen(path, "r");
  out[0] = '\0';
  if (!f) { snprintf(out, n, "unreadable"); return; }
  if (!fgets(out, (int)n, f)) snprintf(out, n, "empty");
  fclose(f);
  out[strcspn(out, "\n")] = '\0';
}

static long long timens_monotonic(void) {
  FILE *f = fopen("/proc/self/timens_offsets", "r");
  char key[32];
  long long s, ns;
  long long r = -1;
  if (!f) return -1;
  while (fscanf(f, "%31s %lld %lld", key, &s, &ns) == 3)
    if (strcmp(key, "monotonic") == 0) r = s;
  fclose(f);
  return r;
}

static void cpus_allowed(char *out, size_t n) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  snprintf(out, n, "unknown");
  if (!f) return;
  while (fgets(line, sizeof line, f))
    if (strncmp(line, "Cpus_allowed_list:", 18) == 0) {
      char *v = line + 18;
      v += strspn(v, " \t");
      v[strcspn(v, "\n")] = '\0';
      snprintf(out, n, "%s", v);
    }
  fclose(f);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  int rank, size, pingpong = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--pingpong") == 0 && i + 1 < argc) {
      char *end;
      long v = strtol(argv[++i], &end, 10);
      if (*end || v < 1 || v > 1000000) {
        if (rank == 0) fprintf(stderr, "cluster_probe: --pingpong '%s' is not an integer from 1 to 1000000\n", argv[i]);
        MPI_Abort(MPI_COMM_WORLD, 2);
      }
      pingpong = (int)v;
    } else {
      if (rank == 0) fprintf(stderr, "cluster_probe: unknown argument '%s' (valid: --pingpong N)\n", argv[i]);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }

  probe_t me;
  memset(&me, 0, sizeof me);
  gethostname(me.host, sizeof me.host - 1);
  read_line("/proc/sys/kernel/random/boot_id", me.boot_id, sizeof me.boot_id);
  me.timens_mono_s = timens_monotonic();
  cpus_allowed(me.cpus, sizeof me.cpus);
  me.read_width_ns = -1;
  for (int t = 0; t < 20; t++) {
    struct timespec r0, m, r1;
    clock_gettime(CLOCK_REALTIME, &r0);
    clock_gettime(CLOCK_MONOTONIC, &m);
    clock_gettime(CLOCK_REALTIME, &r1);
    long long w = ts_ns(&r1) - ts_ns(&r0);
    if (me.read_width_ns < 0 || w < me.read_width_ns) {
      me.read_width_ns = w;
      me.mono_ns = ts_ns(&m);
      me.real_ns = ts_ns(&r0) + w / 2;
      me.mono_minus_real_ns = me.mono_ns - me.real_ns;
    }
  }
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  MPI_Comm_size(node, &me.node_size);
  MPI_Comm_rank(node, &me.node_rank);
  MPI_Comm_free(&node);

  probe_t *all = NULL;
  if (rank == 0) {
    all = malloc((size_t)size * sizeof *all);
    if (!all) { fprintf(stderr, "cluster_probe: out of memory for %d ranks\n", size); MPI_Abort(MPI_COMM_WORLD, 1); }
  }
  MPI_Gather(&me, (int)sizeof me, MPI_BYTE, all, (int)sizeof me, MPI_BYTE, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    for (int r = 0; r < size; r++)
      printf("rank=%d host=%s boot_id=%s timens_monotonic_s=%lld node_size=%d node_rank=%d mono_ns=%lld real_ns=%lld "
             "mono_minus_real_ns=%lld read_width_ns=%lld cpus=%s\n",
             r, all[r].host, all[r].boot_id, all[r].timens_mono_s, all[r].node_size, all[r].node_rank, all[r].mono_ns,
             all[r].real_ns, all[r].mono_minus_real_ns, all[r].read_width_ns, all[r].cpus);
    fflush(stdout);
  }

  if (pingpong > 0 && size > 1) {
    int peer = 1;
    if (rank == 0) {
      for (int r = 1; r < size; r++)
        if (strcmp(all[r].host, all[0].host) != 0) { peer = r; break; }
    }
    MPI_Bcast(&peer, 1, MPI_INT, 0, MPI_COMM_WORLD);
    char buf[8] = {0};
    const int warm = 20;
    double *rtt = rank == 0 ? malloc((size_t)pingpong * sizeof *rtt) : NULL;
    if (rank == 0 && !rtt) MPI_Abort(MPI_COMM_WORLD, 1);
    if (rank == 0 || rank == peer) {
      for (int i = 0; i < warm + pingpong; i++) {
        if (rank == 0) {
          double t0 = MPI_Wtime();
          MPI_Send(buf, 8, MPI_BYTE, peer, 7, MPI_COMM_WORLD);
          MPI_Recv(buf, 8, MPI_BYTE, peer, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          if (i >= warm) rtt[i - warm] = MPI_Wtime() - t0;
        } else {
          MPI_Recv(buf, 8, MPI_BYTE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          MPI_Send(buf, 8, MPI_BYTE, 0, 7, MPI_COMM_WORLD);
        }
      }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
      qsort(rtt, (size_t)pingpong, sizeof *rtt, cmp_double);
      printf("pingpong peer=%d peer_host=%s bytes=8 n=%d rtt_median_us=%.1f rtt_min_us=%.1f rtt_max_us=%.1f\n", peer,
             all[peer].host, pingpong, 1e6 * rtt[pingpong / 2], 1e6 * rtt[0], 1e6 * rtt[pingpong - 1]);
      free(rtt);
    }
  }
  free(all);
  MPI_Finalize();
  return 0;
}
