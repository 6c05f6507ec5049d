/* Traces and the union of intervals (how long cores shared by processes were busy), against a
 * brute-force oracle: integer intervals, and the number of covered unit cells. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "fupermod/fupermod.h"
#include "tests/tap.h"

static double oracle(const int *iv, int n) {
  char cover[200];
  int c = 0;
  memset(cover, 0, sizeof cover);
  for (int i = 0; i < n; i++)
    for (int x = iv[2 * i]; x < iv[2 * i + 1]; x++) cover[x] = 1;
  for (int x = 0; x < 200; x++) c += cover[x];
  return c;
}

int main(int argc, char **argv) {
  int bad = 0;
  MPI_Init(&argc, &argv);
  srand(20261122);
  for (int trial = 0; trial < 3000; trial++) {
    int n = rand() % 12, iv[24];
    double d[24];
    for (int i = 0; i < n; i++) {
      /* ties, nesting, touching ends and empty intervals all come up */
      int a = rand() % 100, len = rand() % 4 == 0 ? 0 : rand() % 40;
      iv[2 * i] = a;
      iv[2 * i + 1] = a + len;
      d[2 * i] = a;
      d[2 * i + 1] = a + len;
    }
    if (fupermod_intervals_union(d, n) != oracle(iv, n)) bad++;
  }
  ok(bad == 0, "union of 0-11 random integer intervals = covered cells, 3000 instances (%d wrong)", bad);
  {
    fupermod_trace tr = FUPERMOD_TRACE_INIT;
    double busy = -1;
    int rc = 0;
    for (int i = 0; i < 1000 && rc == 0; i++) rc = fupermod_trace_add(&tr, 2.0 * i, 2.0 * i + 1.5);
    ok(rc == 0 && tr.n == 1000 && fupermod_trace_total(&tr) == 1500.0, "a trace grows to 1000 intervals; total 1500");
    rc = fupermod_trace_add(&tr, 0.5, 3.0); /* overlaps the first two */
    if (rc == 0) rc = fupermod_share_busy(MPI_COMM_NULL, &tr, &busy);
    ok(rc == 0 && busy == 1500.0 + 0.5,
       "alone (MPI_COMM_NULL): busy is the union of its own intervals (%g)", busy);
    ok(fupermod_trace_add(&tr, 2.0, 1.0) == FUPERMOD_ERR_USAGE && strstr(fupermod_error_message(), "[2, 1)"),
       "an interval that ends before it starts is refused, named: %s", fupermod_error_message());
    fupermod_trace_clear(&tr);
    ok(tr.n == 0 && fupermod_share_busy(MPI_COMM_NULL, &tr, &busy) == 0 && busy == 0.0, "cleared: busy 0");
    ok(fupermod_share_busy(MPI_COMM_NULL, NULL, &busy) == 0 && busy == 0.0, "no trace: busy 0");
    ok(fupermod_trace_add_cpu(&tr, 1.0, 2.0, 0.25) == 0 && fupermod_trace_add_cpu(&tr, 3.0, 4.0, 0.5) == 0 &&
           tr.cpu == 0.75 && fupermod_trace_total(&tr) == 2.0,
       "add_cpu sums the CPU seconds beside the intervals");
    {
      double c0 = fupermod_cpu_time(), t0 = fupermod_time();
      volatile double x = 0;
      while (fupermod_time() - t0 < 0.05) x += 1.0;
      c0 = fupermod_cpu_time() - c0;
      ok(c0 > 0.0 && c0 <= fupermod_time() - t0 + 1e-3, "a busy loop uses CPU time, no more than its wall time (%g s)",
         c0);
    }
    fupermod_trace_clear(&tr);
    ok(tr.cpu == 0.0, "clear forgets the CPU time");
    fupermod_trace_free(&tr);
    ok(tr.iv == NULL && tr.cap == 0, "freed");
  }
  ok(fupermod_share_comm(MPI_COMM_NULL, &(MPI_Comm){MPI_COMM_NULL}) == FUPERMOD_ERR_USAGE,
     "share_comm of MPI_COMM_NULL is refused");
  {
    MPI_Comm share = MPI_COMM_WORLD;
    ok(fupermod_share_comm(MPI_COMM_WORLD, &share) == 0 && share == MPI_COMM_NULL,
       "one process alone shares its cores with nobody");
  }
  MPI_Finalize();
  return done_testing();
}
