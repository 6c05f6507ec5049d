#!/bin/sh
# Runs a link command and passes on its output and status, except libgomp's notice that a
# static program using dlopen needs the glibc it was linked with: libgomp's offloading plugins
# are its only dlopen, and the fupermod front never offloads.
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out" | grep -v -e "libgomp\.a(target\.o): in function" -e "Using 'dlopen' in statically linked" |
  grep -v '^$' >&2
exit $rc
