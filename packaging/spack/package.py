# SPDX-License-Identifier: BSD-3-Clause
# Spack recipe for dmx. To use it from this tree:
#   spack repo create myrepo && mkdir -p myrepo/packages/dmx &&
#   cp packaging/spack/package.py myrepo/packages/dmx/ && spack repo add myrepo && spack install dmx

from spack.package import *


class Dmx(CMakePackage):
    """Redistribution, transposition and multiplication of distributed dense matrices over
    MPI: any two layouts (ScaLAPACK block-cyclic, custom splits, local-only blocks), a
    communication-optimal rank relabeling, collectives with a cost model, one-sided patches,
    and a ScaLAPACK drop-in (p?gemr2d, p?trmr2d, p?tran*, p?gemm)."""

    # Placeholders until the project has a public address: point both at it.
    homepage = "https://example.org/dmx"
    git = "https://example.org/dmx.git"

    license("BSD-3-Clause")

    version("main", branch="main")
    version("0.2.0", tag="v0.2.0")  # the tag of the 0.2.0 release (CHANGELOG.md)

    variant("scalapack", default=True,
            description="Build libdmx_scalapack, the ScaLAPACK drop-in (needs a ScaLAPACK)")
    variant("openmp", default=True, description="OpenMP threads in the local kernels")
    variant("shared", default=True,
            description="Install the shared libraries (else the static ones only)")

    depends_on("c", type="build")
    depends_on("cmake@3.18:", type="build")
    depends_on("mpi")
    depends_on("blas")
    depends_on("scalapack", when="+scalapack")

    # dmx passes 32-bit integers to BLAS and ScaLAPACK (LP64); its CMake refuses ILP64.
    conflicts("^openblas+ilp64")
    conflicts("^intel-oneapi-mkl+ilp64")

    def cmake_args(self):
        spec = self.spec
        args = [
            self.define_from_variant("DMX_WITH_SCALAPACK", "scalapack"),
            self.define_from_variant("DMX_WITH_OPENMP", "openmp"),
            self.define_from_variant("DMX_SHARED", "shared"),
            self.define("DMX_BUILD_TESTS", self.run_tests),
            self.define("MPI_C_COMPILER", spec["mpi"].mpicc),
            self.define("BLAS_LIBRARIES", spec["blas"].libs.joined(";")),
        ]
        blas_headers = spec["blas"].headers
        if blas_headers.directories:
            args.append(self.define("DMX_CBLAS_INCLUDE_DIR", ";".join(blas_headers.directories)))
        if spec.satisfies("+scalapack"):
            args.append(self.define("DMX_SCALAPACK_LIBRARIES",
                                    spec["scalapack"].libs.joined(";")))
        else:
            args.append(self.define("DMX_SCALAPACK", "OFF"))
        return args

    def check(self):
        with working_dir(self.build_directory):
            ctest("-L", "unit", "--output-on-failure")
