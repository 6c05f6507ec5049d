# Spack recipe for fupermod (packaging/README.md). Untested: no Spack where it was written.
# Copy it to packages/fupermod/package.py of a Spack package repository (`spack repo create`).

try:  # Spack >= 1.0: the build systems live in the builtin package repository
    from spack_repo.builtin.build_systems.autotools import AutotoolsPackage
except ImportError:  # Spack 0.x: spack.package exports them
    pass

from spack.package import *


class Fupermod(AutotoolsPackage):
    """Functional performance models and data partitioning for heterogeneous HPC platforms:
    processes benchmark a kernel together, the measurements become speed and dynamic-energy
    functions, and partitioning algorithms (PARALEPH, POPTA, HPOPTA, HiPOPTA, ...) turn them
    into a distribution of the work. Libraries, headers, the fupermod command, kernel plug-ins
    and the SUMMA, 2D-FFT and Jacobi drivers."""

    # No public download: the tarball is the one `make dist` writes (fupermod-VERSION.tar.gz).
    # Put it in a source mirror as MIRROR/fupermod/fupermod-VERSION.tar.gz (`spack mirror add`),
    # or build a checkout with `spack develop` / `spack dev-build`. This URL only names the file
    # (the .invalid domain never resolves).
    homepage = "https://fupermod.invalid/"
    url = "https://fupermod.invalid/fupermod-0.1.0.tar.gz"

    # The tarball is built locally, so no checksum is recorded: install with --no-checksum, or
    # add sha256=... (sha256sum fupermod-0.1.0.tar.gz) for a tarball you keep.
    version("0.1.0")

    variant(
        "cuda",
        default=False,
        description="CUDA executor module and GPU kernels (cuBLAS, cuFFT, cudart; no nvcc needed)",
    )
    # configure.ac has no --without-scalapack: ScaLAPACK (pdgemm_, SUMMA's baseline) is required
    variant("scalapack", default=True, description="ScaLAPACK (required by configure)")
    variant("plots", default=False, description="gnuplot for the PNG plots of fupermod run")

    depends_on("c", type="build")
    depends_on("pkgconfig", type="build")
    # mpicc builds everything (AX_PROG_CC_MPI); configure needs mpiexec and so does fupermod run
    depends_on("mpi", type=("build", "link", "run"))
    # OpenBLAS itself, not any BLAS: the kernels call openblas_set_num_threads and configure
    # checks openblas_get_config through pkg-config's openblas
    depends_on("openblas")
    depends_on("gsl@2.5:")
    depends_on("fftw@3.3: +mpi +openmp precision=double")
    depends_on("hwloc@2:")
    depends_on("scalapack", when="+scalapack")
    depends_on("cuda", when="+cuda")
    depends_on("gnuplot", type=("build", "run"), when="+plots")

    conflicts("~scalapack", msg="fupermod's configure requires ScaLAPACK (pdgemm_)")

    def setup_build_environment(self, env):
        # AX_PROG_CC_MPI takes the compiler from MPICC
        env.set("MPICC", self.spec["mpi"].mpicc)

    def configure_args(self):
        # CUDA: --with-cuda=DIR checks DIR/include and DIR/lib64; without the option configure
        # looks in /usr/local/cuda and builds the module when it is usable there
        args = self.with_or_without("cuda", activation_value="prefix")
        if self.spec.satisfies("+plots"):
            args.append("GNUPLOT=" + self.spec["gnuplot"].prefix.bin.gnuplot)
        else:
            # the gnuplot path is compiled in: none rather than whatever PATH has at build time
            args.append("ac_cv_path_GNUPLOT=")
        # a statically linked `fupermod` front (faster start) wants static GSL, libgomp and libc;
        # Spack's prefixes need not have them: link it like everything else
        args.append("--disable-static-front")
        return args
