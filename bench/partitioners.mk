# Cost of every partitioner against the exact DP: `make bench`, then `bench/partitioners [--quick]`
# (results in docs/performance.md).
noinst_PROGRAMS += bench/partitioners
BENCH_BINS += bench/partitioners
bench_partitioners_SOURCES = bench/partitioners.c bench/machine.h
bench_partitioners_LDADD = libfupermod.la $(GSL_LIBS) $(LIBS)
# CPU time of whole commands, interleaved (bench/peer_commands.sh uses it)
noinst_PROGRAMS += bench/cputime
BENCH_BINS += bench/cputime
bench_cputime_SOURCES = bench/cputime.c
# the whole partition command against the peer HPOPTA tool (a script; --help)
BENCH_BINS += bench/peer_commands
EXTRA_DIST += bench/peer_commands.sh
CLEANFILES += bench/peer_commands
check_SCRIPTS += bench/peer_commands
TESTS += tests/bench_peer_commands.sh
EXTRA_DIST += tests/bench_peer_commands.sh
bench/peer_commands: $(srcdir)/bench/peer_commands.sh
	$(BENCH_SCRIPT)
