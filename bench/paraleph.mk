# PARALEPH benchmark: `make bench`, then e.g. `mpirun --bind-to none -np 2 bench/paraleph`.
# (noinst_PROGRAMS because EXTRA_PROGRAMS is not declared in Makefile.am; appending to an
# undeclared variable is an automake error.)
noinst_PROGRAMS += bench/paraleph
BENCH_BINS += bench/paraleph
bench_paraleph_SOURCES = bench/paraleph.c bench/machine.h
bench_paraleph_LDADD = libfupermod_driver.la libfupermod.la $(LIBS)
