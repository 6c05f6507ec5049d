# Executors (fupermod/exec.h): the CPU one here; the CUDA one on two stand-in GPUs (tests/fake_cuda.mk).
check_PROGRAMS += tests/test_exec
TESTS += tests/test_exec
tests_test_exec_SOURCES = tests/test_exec.c tests/tap.h tests/standin_check.h
tests_test_exec_LDADD = $(TEST_LDADD) -ldl
if HAVE_CUDA
TESTS += tests/standin_exec.sh tests/standin_summa.sh tests/standin_fft2d.sh tests/standin_run.sh tests/standin_sim_run.sh
endif
EXTRA_DIST += tests/standin_exec.sh tests/standin_summa.sh tests/standin_fft2d.sh tests/standin_run.sh tests/standin_sim_run.sh
