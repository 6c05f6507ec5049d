#!/bin/bash
# fupermod-summa -a: every comma-separated token is an area; empty, extra, missing and
# non-numeric tokens are usage errors that name the token or the list.
. "$top_srcdir/tests/tap.sh"
RUN="$MPIEXEC --oversubscribe --bind-to none"
SUMMA="$top_builddir/apps/fupermod-summa"
expect_exit 0 "-a 1,2 on 2 processes" -- $RUN -np 2 "$SUMMA" -n 64 -b 8 -l kl -a 1,2 -v exact -r 1
for a in '1,,2' '1,2,' ',1,2'; do
  expect_exit 2 "-a '$a': an empty area" -- $RUN -np 2 "$SUMMA" -n 64 -b 8 -l kl -a "$a" -r 1
  stderr_has "-a: empty area in '$a'" "-a '$a': the message names the list"
done
expect_exit 2 "-a 1,2,3 on 2 processes" -- $RUN -np 2 "$SUMMA" -n 64 -b 8 -l kl -a 1,2,3 -r 1
stderr_has "more than 2 areas" "-a 1,2,3: too many areas"
expect_exit 2 "-a 1 on 2 processes" -- $RUN -np 2 "$SUMMA" -n 64 -b 8 -l kl -a 1 -r 1
stderr_has "1 areas given for 2 processes" "-a 1: too few areas"
for a in '1,x' '1,-1' '1,nan'; do
  expect_exit 2 "-a '$a': not a non-negative number" -- $RUN -np 2 "$SUMMA" -n 64 -b 8 -l kl -a "$a" -r 1
  stderr_has "is not a non-negative number" "-a '$a': the message names the token"
done
done_testing
