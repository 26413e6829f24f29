/* libisochron-fortran.so: lets the PMPI layers see a Fortran program's MPI calls (issue 28).
 *
 * Open MPI's Fortran bindings (libmpi_mpifh: mpif.h and `use mpi`; the mpi_f08 module calls
 * into them) convert the Fortran arguments and then call the C *profiling* entry points
 * (PMPI_Allreduce, PMPI_Init, ...), never MPI_*: a C PMPI layer preloaded beside a Fortran
 * program such as Quantum ESPRESSO's pw.x sees none of its calls, not even MPI_Init (the job
 * runs, the layer stays inert and writes nothing; the mpi_f08 module, libmpi_usempif08, calls
 * libmpi_mpifh's functions, and PMPI_Buffer_detach directly). This is an rtld-audit module (glibc
 * rtld-audit(7), `LD_AUDIT=libisochron-fortran.so`, used with `LD_PRELOAD=` of a layer): when
 * the dynamic linker binds a reference made BY a Fortran bindings library (a file named
 * libmpi_mpifh*, libmpi_usempif08* or MPICH's libmpifort*) to a symbol named PMPI_X, it binds
 * it instead to MPI_X as the program's global scope resolves it: the preloaded layer's wrapper when the layer defines
 * one, else the MPI library's MPI_X, which is PMPI_X under another name. The wrapper then calls
 * PMPI_X as it does for C callers, so each Fortran call passes the layer once. References from
 * every other object (the layer's own PMPI_X calls, the application's C code, ScaLAPACK) are
 * left as they are. Nothing else is changed: no wrapper per function, no Fortran handle
 * conversion here (Open MPI's bindings did it). Needs glibc >= 2.35 for libraries linked
 * with BIND_NOW (la_symbind at load time, glibc bug 23734); lazily bound ones work with any
 * glibc that has LD_AUDIT. Reference: rtld-audit(7). Tools such as Score-P solve this with a
 * Fortran wrapper per function instead; the MPI standard's profiling interface (MPI-3.1
 * section 14.2) does not make a Fortran binding call the C MPI_ entry points.
 * It includes no isochron header and keeps no state: the program's global scope is found by
 * walking the referring object's link map back to its namespace's head (the program).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int isochron_fa_is_fortran(const struct link_map *m) {
  if (!m || !m->l_name) return 0;
  const char *b = strrchr(m->l_name, '/');
  b = b ? b + 1 : m->l_name;
  return strncmp(b, "libmpi_mpifh", 12) == 0 || strncmp(b, "libmpi_usempif08", 16) == 0 ||
         strncmp(b, "libmpifort", 10) == 0;
}

unsigned int la_version(unsigned int version) {
  return version < LAV_CURRENT ? version : LAV_CURRENT;
}

unsigned int la_objopen(struct link_map *map, Lmid_t lmid, uintptr_t *cookie) {
  (void)lmid;
  *cookie = (uintptr_t)map; /* the default: each object's cookie is its link map */
  /* bindings FROM the Fortran library to anything; every object may define the target */
  return (isochron_fa_is_fortran(map) ? LA_FLG_BINDFROM : 0u) | LA_FLG_BINDTO;
}

static uintptr_t isochron_fa_bind(uintptr_t value, const uintptr_t *refcook, const char *name) {
  struct link_map *from = (struct link_map *)*refcook;
  if (strncmp(name, "PMPI_", 5) != 0 || !isochron_fa_is_fortran(from)) return value;
  /* the head of the referring object's namespace is the program: its handle searches the
   * global scope, LD_PRELOAD objects first, as the program's own references do */
  struct link_map *head = from;
  while (head->l_prev) head = head->l_prev;
  char c_name[128];
  int n = snprintf(c_name, sizeof c_name, "MPI_%s", name + 5);
  if (n < 0 || (size_t)n >= sizeof c_name) return value;
  void *to = dlsym(head, c_name);
  return to ? (uintptr_t)to : value;
}

/* The dynamic linker calls la_symbind64 or la_symbind32 after the ELF class: the same binding in both. */
#define ISOCHRON_FA_SYMBIND(bits)                                                                        \
  uintptr_t la_symbind##bits(Elf##bits##_Sym *sym, unsigned int ndx, uintptr_t *refcook, uintptr_t *defcook, \
                             unsigned int *flags, const char *symname) {                                  \
    (void)ndx;                                                                                           \
    (void)defcook;                                                                                       \
    (void)flags;                                                                                         \
    return isochron_fa_bind(sym->st_value, refcook, symname);                                            \
  }
ISOCHRON_FA_SYMBIND(64)
ISOCHRON_FA_SYMBIND(32)
