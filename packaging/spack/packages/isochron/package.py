# Spack recipe for isochron (issue 17). A repository of its own, so it can be
# used from a checkout before isochron is in Spack's builtin repository:
#   spack repo add packaging/spack
#   spack develop --path "$PWD" isochron@main && spack install isochron@main +hwloc
# tests/packaging/check_spack_recipe.py checks that it parses and agrees with
# CMakeLists.txt (options, version, dependencies).
from spack.package import *


class Isochron(CMakePackage):
    """MPI and OpenSHMEM benchmarking on a global clock: clock synchronization
    (SKaMPI, JK, HCA, HCA3, hierarchical), clock tracking, a measurement engine
    (Round-Time, window, barrier schemes; global/max/root/ack methods),
    barrier algorithms, and a Python analysis package."""

    homepage = "https://isochron.invalid"  # no public home yet: use `spack develop` on a checkout
    maintainers("isochron")
    license("BSD-3-Clause")

    version("main")
    version("0.1.0")

    variant("hwloc", default=True, description="hwloc: socket level of hierarchical sync, binding")
    variant("shmem", default=False, description="OpenSHMEM driver (needs an MPI with OpenSHMEM, e.g. Open MPI's oshmem)")
    variant("simgrid", default=False, description="SimGrid SMPI builds of the drivers (sim/build.sh)")
    variant("otf2", default=False, description="libisochron-trace.so, the MPI tracer writing OTF2 and Perfetto traces")

    depends_on("c", type="build")
    depends_on("cmake@3.18:", type="build")
    depends_on("mpi")
    depends_on("hwloc", when="+hwloc")
    depends_on("simgrid", when="+simgrid")
    depends_on("otf2", when="+otf2")
    depends_on("python@3.9:", type="run")

    def cmake_args(self):
        return [
            self.define_from_variant("ISOCHRON_WITH_HWLOC", "hwloc"),
            # the optional parts: +variant requires the part (ON), ~variant leaves it out (OFF)
            self.define_from_variant("ISOCHRON_WITH_SHMEM", "shmem"),
            self.define_from_variant("ISOCHRON_WITH_OTF2", "otf2"),
            self.define_from_variant("ISOCHRON_WITH_SIMGRID", "simgrid"),
            self.define("BUILD_TESTING", self.run_tests),
        ]
