/* Hybrid SUMMA on two emulated nodes of two devices (group=), every process through its executor
 * in the one SUMMA: exact results with integer data on hand-made and random node layouts and
 * column slices (b dividing n or not, empty slices, accumulate), the INPA layout measured on the
 * real CPU devices, agreed errors, and with a GPU one device of a node on the GPU, with two GPUs
 * two of them, C held on the GPU or not (skipped without; tests/standin_summa_hybrid.sh runs them
 * on the stand-in CUDA of tests/fake_cuda). */
#include <string.h>
#include "tests/tap.h"
#include "tests/standin_check.h"
#include "apps/summa.h"
#include "apps/summa_hybrid.h"
#include "fupermod/mpi_thread.h"

static int rank, size;

static int all_ok(int mine) {
  int all;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all;
}

static uint64_t rs = 42;
static long rnd(long lo, long hi) {
  rs ^= rs >> 12, rs ^= rs << 25, rs ^= rs >> 27;
  return lo + (long)((rs * 2685821657736338717ULL) % (uint64_t)(hi - lo + 1));
}

/* Multiply on a layout and check exactly; returns mismatches (-1: an error). */
static long run(const fupermod_hybrid_layout *hl, fupermod_exec *dev, int accumulate, int *rcp) {
  size_t e = (size_t)hl->rows[rank] * (size_t)hl->cols[rank] + 1;
  double *A = malloc(e * sizeof *A), *B = malloc(e * sizeof *B), *C = malloc(e * sizeof *C), rel;
  long bad = -1;
  int rc;
  fupermod_hybrid_fill(hl, rank, 11, FUPERMOD_SUMMA_INTEGER, A);
  fupermod_hybrid_fill(hl, rank, 12, FUPERMOD_SUMMA_INTEGER, B);
  fupermod_hybrid_fill(hl, rank, 13, FUPERMOD_SUMMA_INTEGER, C);
  rc = fupermod_hybrid_dgemm(MPI_COMM_WORLD, hl, dev, A, B, C, accumulate, NULL);
  if (rc == FUPERMOD_SUCCESS)
    rc = fupermod_hybrid_check(MPI_COMM_WORLD, hl, FUPERMOD_SUMMA_INTEGER, 11, 12, accumulate, 13, C, 0.0, &bad, &rel);
  if (rc != FUPERMOD_SUCCESS) bad = -1;
  if (rcp) *rcp = rc;
  free(A), free(B), free(C);
  return bad;
}

/* Random composition of width into the node's devices (some empty). */
static void slices(const fupermod_hier_comm *hc, const fupermod_layout *l, int n, int b, long *cols) {
  for (int k = 0; k < hc->nodes; k++) {
    const fupermod_rect *r = &l->rects[k];
    long c1 = (long)(r->col + r->width) * b, w = r->height ? (c1 < n ? c1 : n) - (long)r->col * b : 0, left = w;
    int last = -1;
    for (int q = 0; q < size; q++)
      if (hc->node_of[q] == k) last = q;
    for (int q = 0; q < size; q++) {
      if (hc->node_of[q] != k) continue;
      cols[q] = q == last ? left : rnd(0, left);
      left -= cols[q];
    }
  }
}

int main(int argc, char **argv) {
  int provided, status, rc;
  const char *text = "localhost 0 none cpu group=a\nlocalhost 1 none cpu group=a\n"
                     "localhost 2 none cpu group=b\nlocalhost 3 none gpu group=b,device=0\n";
  fupermod_conf conf;
  fupermod_hier_comm hc;
  fupermod_exec *cpu = NULL;
  fupermod_exec_opts mine, one = {FUPERMOD_EXEC_CPU, 1, 0, 0};
  if (fupermod_mpi_init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, "mpi_summa_hybrid", &provided) != FUPERMOD_SUCCESS) {
    printf("Bail out! %s\n", fupermod_error_message());
    MPI_Finalize();
    return 1;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  tap_quiet(rank != 0);
  rc = fupermod_conf_parse(text, strlen(text), "hybrid", &conf);
  if (rc == FUPERMOD_SUCCESS) rc = fupermod_hier_comm_create(&conf, MPI_COMM_WORLD, &hc);
  if (!ok(all_ok(rc == FUPERMOD_SUCCESS && size == 4 && hc.nodes == 2), "4 processes in 2 emulated nodes")) {
    status = done_testing();
    MPI_Finalize();
    return status;
  }
  rc = fupermod_exec_opts_line(&conf.procs[rank], "hybrid", &mine);
  ok(all_ok(rc == FUPERMOD_SUCCESS && mine.kind == (rank == 3 ? FUPERMOD_EXEC_CUDA : FUPERMOD_EXEC_CPU) &&
            mine.cuda_device == 0), "executors from the configuration: a CUDA one on the gpu line");
  ok(all_ok(fupermod_exec_open(&one, &cpu) == FUPERMOD_SUCCESS), "a CPU executor of one thread per process");

  /* hand-made: n = 50, b = 8 (7 x 7 blocks, the last partial), slices not on block boundaries */
  {
    double areas[2] = {0.6, 0.4};
    fupermod_layout *l = NULL;
    fupermod_hybrid_layout *hl = NULL;
    long cols[4];
    int r2;
    rc = fupermod_layout_br(areas, 2, 0, 7, 7, &l);
    for (int k = 0; k < 2 && rc == FUPERMOD_SUCCESS; k++) {
      long c1 = (long)(l->rects[k].col + l->rects[k].width) * 8, w = (c1 < 50 ? c1 : 50) - l->rects[k].col * 8;
      cols[2 * k] = k == 0 ? w / 3 + 1 : 0; /* node b: device 2 gets nothing */
      cols[2 * k + 1] = w - cols[2 * k];
    }
    if (rc == FUPERMOD_SUCCESS) rc = fupermod_hybrid_layout_make(&hc, l, cols, 50, 8, &hl);
    ok(all_ok(rc == FUPERMOD_SUCCESS), "layout of 2 node rectangles cut into element-column slices%s%s",
       rc ? ": " : "", rc ? fupermod_error_message() : "");
    if (rc == FUPERMOD_SUCCESS) {
      long bad = run(hl, cpu, 0, &r2);
      ok(all_ok(bad == 0), "n=50, b=8, one empty slice: C = A B exactly (%ld mismatches)", bad);
      bad = run(hl, cpu, 1, &r2);
      ok(all_ok(bad == 0), "accumulate: C = C0 + A B exactly (%ld mismatches)", bad);
      cols[0]++;
      fupermod_hybrid_layout *bad_l = NULL;
      rc = fupermod_hybrid_layout_make(&hc, l, cols, 50, 8, &bad_l);
      ok(all_ok(rc == FUPERMOD_ERR_USAGE && strstr(fupermod_error_message(), "does not fit")),
         "slices wider than the node are refused (%s)", fupermod_error_message());
      fupermod_hybrid_layout_free(bad_l);
    }
    fupermod_hybrid_layout_free(hl);
    fupermod_layout_free(l);
  }

  /* random node layouts, block sizes and slices: the same random stream on every rank */
  {
    long bad = 0, runs = 0;
    for (int it = 0; it < 40; it++) {
      int n = (int)rnd(1, 70), b = (int)rnd(1, 16), K = (n + b - 1) / b, r2;
      double areas[2] = {(double)rnd(0, 5), (double)rnd(1, 5)};
      fupermod_layout *l = NULL;
      fupermod_hybrid_layout *hl = NULL;
      long cols[4];
      if (fupermod_layout_br(areas, 2, 0, K, K, &l) != FUPERMOD_SUCCESS) {
        bad++;
        continue;
      }
      slices(&hc, l, n, b, cols);
      if (fupermod_hybrid_layout_make(&hc, l, cols, n, b, &hl) != FUPERMOD_SUCCESS) bad++;
      else {
        long m = run(hl, cpu, (int)(it % 2), &r2);
        bad += m != 0;
        runs++;
      }
      fupermod_hybrid_layout_free(hl);
      fupermod_layout_free(l);
    }
    ok(all_ok(bad == 0 && runs == 40), "40 random layouts (n 1..70, b 1..16, random slices, idle node or devices): "
       "exact (%ld bad)", bad);
  }

  /* the layout INPA finds by measuring the CPU devices */
  {
    const fupermod_partitioner *gpa = fupermod_partitioner_find("geometric");
    fupermod_inpa_opts o = {128, 16, 0.3, 0.3, 3, 4, gpa->continuous, gpa->continuous, "piecewise", "piecewise", "br"};
    fupermod_hybrid_measure_ctx mc = {16, 2, cpu};
    fupermod_inpa_result res;
    fupermod_hybrid_layout *hl = NULL;
    rc = fupermod_inpa(&hc, &o, fupermod_hybrid_measure, &mc, &res);
    if (rc == FUPERMOD_SUCCESS) rc = fupermod_hybrid_layout_inpa(&hc, &res, 128, 16, &hl);
    ok(all_ok(rc == FUPERMOD_SUCCESS), "INPA measured on the CPU devices gives a hybrid layout (%d node measurements)%s%s",
       rc == FUPERMOD_SUCCESS ? res.inpa_iterations : -1, rc ? ": " : "", rc ? fupermod_error_message() : "");
    if (rc == FUPERMOD_SUCCESS) {
      int r2;
      long bad = run(hl, cpu, 0, &r2);
      ok(all_ok(bad == 0), "hybrid SUMMA n=128 b=16 on the INPA layout: exact (%ld mismatches)", bad);
      fupermod_inpa_result_free(&res);
    }
    fupermod_hybrid_layout_free(hl);
  }

  /* errors are agreed */
  {
    fupermod_hybrid_layout wrong = {3, 8, 4, NULL, NULL, NULL, NULL};
    rc = fupermod_hybrid_dgemm(MPI_COMM_WORLD, &wrong, cpu, NULL, NULL, NULL, 0, NULL);
    ok(all_ok(rc == FUPERMOD_ERR_USAGE), "a layout for 3 processes on 4: usage error everywhere");
  }

  /* CPU and GPU devices in one node: rank 3 computes on its GPU */
  {
    double areas[2] = {1, 1};
    fupermod_layout *l = NULL;
    fupermod_hybrid_layout *hl = NULL;
    long cols[4];
    int r2 = FUPERMOD_SUCCESS;
    fupermod_exec *ex = NULL;
    fupermod_layout_br(areas, 2, 0, 12, 12, &l);
    rnd(0, 0);
    slices(&hc, l, 96, 8, cols);
    rc = fupermod_hybrid_layout_make(&hc, l, cols, 96, 8, &hl);
    /* the gpu line's executor: without a GPU, rank 3 fails and every rank says so */
    r2 = fupermod_agree(fupermod_exec_open(&mine, &ex), MPI_COMM_WORLD);
    if (rc == FUPERMOD_SUCCESS && fupermod_cuda_device_count() == 0) {
      ok(all_ok(r2 == FUPERMOD_ERR_NODEVICE) && all_ok(strstr(fupermod_error_message(), "no CUDA device") != NULL),
         "a gpu line without a GPU: every rank reports it (%s)", fupermod_error_message());
      skip("no CUDA device: hybrid SUMMA with CPU and GPU devices in one node");
    } else if (rc == FUPERMOD_SUCCESS && r2 == FUPERMOD_SUCCESS) {
      long bad = run(hl, ex, 0, &r2);
      ok(all_ok(bad == 0), "CPU and GPU devices in one node: exact (%ld mismatches)", bad);
    } else
      ok(0, "GPU layout or executor: %s", fupermod_error_message());
    fupermod_exec_close(ex);
    fupermod_hybrid_layout_free(hl);
    fupermod_layout_free(l);
  }
  /* two GPUs of the host beside CPU processes (ranks 1 and 3 on GPUs 1 and 0): C held on the
   * GPU; a memory limit that keeps it off (each update then moves it, out of card); a GPU process
   * with an empty slice */
  {
    static const char *const what[3] = {"C held on the GPUs", "8 kB of GPU memory: C not held, out of card",
                                        "GPU 1's slice empty"};
    fupermod_exec_opts two = {.kind = rank == 1 || rank == 3 ? FUPERMOD_EXEC_CUDA : FUPERMOD_EXEC_CPU, .threads = 1, .cuda_device = rank == 1 ? 1 : 0, .mem_limit = 0};
    fupermod_exec *ex = NULL;
    double areas[2] = {1, 2};
    fupermod_layout *l = NULL;
    const int n = 75, b = 8;
    if (!all_ok(fupermod_cuda_device_count() >= 2))
      for (int v = 0; v < 3; v++) skip("fewer than 2 CUDA devices: hybrid SUMMA on two GPUs and CPU processes");
    else if (ok(all_ok(fupermod_layout_br(areas, 2, 0, 10, 10, &l) == FUPERMOD_SUCCESS), "layout for two GPUs")) {
      for (int v = 0; v < 3; v++) {
        fupermod_hybrid_layout *hl = NULL;
        long cols[4], bad = -1;
        int r2 = FUPERMOD_SUCCESS;
        for (int k = 0; k < 2; k++) {
          const fupermod_rect *r = &l->rects[k];
          long c1 = (long)(r->col + r->width) * b, w = r->height ? (c1 < n ? c1 : n) - (long)r->col * b : 0;
          cols[2 * k] = v == 2 && k == 0 ? w : w / 3; /* the CPU process's share */
          cols[2 * k + 1] = w - cols[2 * k];
        }
        two.mem_limit = v == 1 ? 8.0 * 1000 : 0.0;
        r2 = fupermod_agree(fupermod_exec_open(&two, &ex), MPI_COMM_WORLD);
        if (r2 == FUPERMOD_SUCCESS && fupermod_hybrid_layout_make(&hc, l, cols, n, b, &hl) == FUPERMOD_SUCCESS)
          bad = run(hl, ex, 1, &r2);
        fupermod_exec_close(ex);
        ex = NULL;
        ok(all_ok(bad == 0), "n=%d b=%d on CPU, GPU 1 | CPU, GPU 0 (%ld, %ld | %ld, %ld columns), %s: exact (%ld "
           "mismatches%s%s)", n, b, cols[0], cols[1], cols[2], cols[3], what[v], bad, r2 ? ": " : "",
           r2 ? fupermod_error_message() : "");
        fupermod_hybrid_layout_free(hl);
      }
      if (getenv("FUPERMOD_CUDA_STANDIN")) {
        /* the GPU ranks loaded CUDA: rank 1 says which */
        char where[4096] = "";
        int mine = two.kind != FUPERMOD_EXEC_CUDA ||
                   standin_all(getenv("FUPERMOD_CUDA_STANDIN"), "cudart cublas", where, sizeof where);
        if (rank == 1) MPI_Send(where, sizeof where, MPI_CHAR, 0, 7, MPI_COMM_WORLD);
        if (rank == 0) MPI_Recv(where, sizeof where, MPI_CHAR, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        ok(all_ok(mine), "the GPU processes ran on the stand-in CUDA (rank 1: %s)", where);
      }
    }
    fupermod_layout_free(l);
  }
  fupermod_exec_close(cpu);
  fupermod_hier_comm_free(&hc);
  fupermod_conf_free(&conf);
  status = done_testing();
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return status;
}
