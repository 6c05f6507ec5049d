# The public API: registration at run time, and the installed library as a user builds on it.
API_TESTS = tests/test_registry tests/test_option tests/install.sh
check_PROGRAMS += tests/test_registry tests/test_option
TESTS += $(API_TESTS)
EXTRA_DIST += tests/install.sh tests/install_user.c
tests_test_registry_SOURCES = tests/test_registry.c tests/tap.h
tests_test_registry_LDADD = $(TEST_LDADD)
tests_test_option_SOURCES = tests/test_option.c tests/tap.h
tests_test_option_LDADD = $(TEST_LDADD)
TESTS += tests/docs_current.sh tests/docs_examples.sh tests/docs_commands.sh
EXTRA_DIST += tests/docs_current.sh tests/docs_examples.sh tests/docs_commands.sh
# The Debian packages (packaging/debian) built from make dist's tarball, installed, used and purged
# (root only; it runs alone)
TESTS += tests/packaging_deb.sh
EXTRA_DIST += tests/packaging_deb.sh
