/* fupermod run (tools/cmd_run.c): the links between the processes and to their devices, measured
 * once per launch (tools/run_job.h). */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cblas.h>
#include <fftw3.h>
#include <gsl/gsl_sort_double.h>
#include <gsl/gsl_statistics_double.h>
#include <mpi.h>
#include "apps/fft2d.h"
#include "apps/model.h"
#include "fupermod/comm.h"
#include "apps/summa.h"
#include "partitioners/whole.h"
#include "partitioners/hier.h"
#include "partitioners/paraleph.h"
#include "partitioners/partitioners.h"
#include "tools/build_common.h"
#include "tools/mpi_init.h"
#include "tools/run_report.h"
#include "tools/run_history.h"
#include "tools/run_calib.h"
#include "tools/provenance.h"
#include "apps/app_model.h"
#include "tools/run_job.h"

static const char SUB[] = "run";

/* A GPU process's link to its device as its executor moves data: uploads and downloads from
 * page-locked and pageable host memory at the sizes (the mean of the benchmark's minimum of
 * repetitions, at least 3), each fitted t = alpha + beta bytes; rank 0 prints them. Collective. */
static int device_links(const options *o, tool_proc *tp, const long *sizes, int ns, char **names) {
  double fit[8] = {0}, *all = NULL;
  int rank, size, rc = FUPERMOD_SUCCESS, reps = o->prec.reps_min > 3 ? o->prec.reps_min : 3, any;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (tp->exec && fupermod_exec_kind(tp->exec) == FUPERMOD_EXEC_CUDA)
    for (int k = 0; k < 4 && rc == FUPERMOD_SUCCESS; k++) {
      fupermod_comm_point pts[16];
      fupermod_comm_link l = {ns < 16 ? ns : 16, pts, 0, 0};
      for (int i = 0; i < l.n && rc == FUPERMOD_SUCCESS; i++) {
        double sum = 0, t;
        for (int r = 0; r < reps && rc == FUPERMOD_SUCCESS; r++)
          if ((rc = fupermod_exec_reference(tp->exec, k % 2 ? FUPERMOD_EXEC_REF_DOWN : FUPERMOD_EXEC_REF_UP, sizes[i], k / 2,
                                            1, &t)) == FUPERMOD_SUCCESS)
            sum += t;
        pts[i] = (fupermod_comm_point){(double)sizes[i], sum / reps, 0, reps};
      }
      if (rc == FUPERMOD_SUCCESS) fupermod_comm_fit(&l);
      fit[2 * k] = l.alpha, fit[2 * k + 1] = l.beta;
    }
  any = tp->exec && fupermod_exec_kind(tp->exec) == FUPERMOD_EXEC_CUDA;
  MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if ((rc = tool_agree(SUB, rc, MPI_COMM_WORLD)) != FUPERMOD_SUCCESS || !any) return rc;
  if (rank == 0 && !(all = malloc((size_t)size * sizeof fit))) rc = fupermod_error(FUPERMOD_ERR_NOMEM, "run: out of memory");
  MPI_Gather(fit, 8, MPI_DOUBLE, all, 8, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  for (int i = 0; rank == 0 && all && i < size; i++) {
    static const char *const kinds[4] = {"up pinned", "down pinned", "up pageable", "down pageable"};
    const double *f = all + 8 * i;
    if (f[1] <= 0 && f[3] <= 0) continue;
    printf("   device link of %s (through its executor, t = alpha + beta bytes):", names[i]);
    for (int k = 0; k < 4; k++)
      printf("%s %s %.2f us, %.2f GB/s", k ? ";" : "", kinds[k], f[2 * k] * 1e6, f[2 * k + 1] > 0 ? 1e-9 / f[2 * k + 1] : 0.0);
    printf("\n");
  }
  free(all);
  return tool_agree(SUB, rc, MPI_COMM_WORLD);
}

/* Every pair of processes' one-way message time at the applications' range of message sizes (as
 * fupermod comm), kept in DIR/models/comm-FINGERPRINT.txt and reused while nothing that determines
 * it changed (--rebuild measures again; an interrupted measurement resumes); rank 0 prints each
 * link's Hockney fit. */
/* Several messages at once between hosts (fupermod_comm_share_measure), kept beside the links in
 * PATH (the links' file with .share for .txt) and reused with them; job->link_share on every rank,
 * and its line (rank 0). One host: nothing. Collective. */
static int host_share(const options *o, const tool_proc *tp, const fupermod_comm *cm, const char *links_path,
                      run_job *job) {
  char path[4200];
  int rank, size, H, have = 0, rc = FUPERMOD_SUCCESS, *host;
  double share = 0;
  FILE *fp;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (tp->nmap != size || !(host = malloc((size_t)size * sizeof *host)))
    return tool_agree(SUB, tp->nmap != size ? FUPERMOD_SUCCESS : fupermod_error(FUPERMOD_ERR_NOMEM, "run: out of memory"),
                      MPI_COMM_WORLD);
  H = fupermod_launch_host_index(tp->map, size, host);
  snprintf(path, sizeof path, "%.*s.share", (int)(strlen(links_path) - 4), links_path);
  if (H > 1 && rank == 0 && !o->rebuild && (fp = fopen(path, "r"))) {
    have = fscanf(fp, "# fupermod host links v1 share %lf", &share) == 1 && share > 0;
    fclose(fp);
  }
  MPI_Bcast(&have, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (H > 1 && !have) {
    rc = fupermod_comm_share_measure(MPI_COMM_WORLD, host, cm, 1L << 20, 5, &share);
    if (rc == FUPERMOD_SUCCESS && rank == 0 && share > 0 && (fp = fopen(path, "w"))) {
      fprintf(fp, "# fupermod host links v1 share %.6g\n", share);
      fclose(fp);
    }
  }
  free(host);
  MPI_Bcast(&share, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  job->link_share = share;
  if (rc == FUPERMOD_SUCCESS && rank == 0 && share > 0)
    printf("   host links: %d hosts; messages at once between two hosts (1 MiB from every process of each to the other)"
           " take %.2f x their times one at a time%s (%s)\n", H, share,
           share > 0.8 ? ": one after the other" : share < 0.6 ? ": largely at once" : "", path);
  return tool_agree(SUB, rc, MPI_COMM_WORLD);
}

int run_measure_links(const options *o, tool_proc *tp, run_job *job) {
  static const long sizes[] = {8, 4096, 65536, 1048576, 16777216};
  const int ns = (int)(sizeof sizes / sizeof sizes[0]);
  fupermod_comm cm = {0, NULL};
  char path[4096], **names = NULL;
  int rank, size, rc = FUPERMOD_SUCCESS;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  job->links_done = 1;
  snprintf(path, sizeof path, "%s", o->models);
  if (rank == 0 && mkdir(path, 0777) != 0 && errno != EEXIST)
    rc = fupermod_error(FUPERMOD_ERR_SYSTEM, "%s: cannot create the directory: %s", path, strerror(errno));
  if ((rc = tool_agree(SUB, rc, MPI_COMM_WORLD)) != FUPERMOD_SUCCESS) return rc;
  {
    /* kept under the fingerprint of what determines them: every process's line and real host,
     * the sizes and the precision */
    char mine[1024], host[MPI_MAX_PROCESSOR_NAME], *all = rank == 0 ? malloc((size_t)size * sizeof mine) : NULL;
    const fupermod_process_conf *pc = &tp->conf.procs[tp->index];
    uint64_t h = 1469598103934665603ULL;
    int len = 0;
    MPI_Get_processor_name(host, &len);
    memset(mine, 0, sizeof mine);
    snprintf(mine, sizeof mine, "%s %d %s %s %s|%s", pc->hostname, pc->rank_intra, pc->bind, pc->device_type, pc->subopts,
             host);
    MPI_Gather(mine, sizeof mine, MPI_CHAR, all, sizeof mine, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      char pbuf[256];
      for (int r = 0; all && r < size; r++) h = run_fnv(h, all + (size_t)r * sizeof mine, strlen(all + (size_t)r * sizeof mine) + 1);
      h = run_fnv(h, sizes, sizeof sizes);
      snprintf(pbuf, sizeof pbuf, "%d|%d|%g|%g|%g|%d", o->prec.reps_min, o->prec.reps_max, o->prec.cl, o->prec.eps,
               o->prec.time_max, o->prec.keep_outliers);
      h = run_fnv(h, pbuf, strlen(pbuf));
    }
    free(all);
    MPI_Bcast(&h, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    snprintf(path, sizeof path, "%s/comm-%016llx.txt", o->models, (unsigned long long)h);
    /* the same fingerprint names the platform in the history (tools/run_history.h) */
    tool_launch_init(&job->launch, h);
  }
  if (size < 2) return FUPERMOD_SUCCESS;
  rc = tool_comm_links(SUB, tp, path, sizes, ns, &o->prec, o->rebuild, o->quiet, &cm, &names);
  if (rc == FUPERMOD_SUCCESS && rank == 0) {
    printf("   links (one-way time t = alpha + beta bytes, half a ping-pong, 8 B to 16 MiB; %s):", path);
    for (int i = 0; i < size; i++)
      for (int j = i + 1; j < size; j++) {
        const fupermod_comm_link *l = fupermod_comm_link_of(&cm, i, j);
        printf("%s %s - %s %.2f us, %.2f GB/s", i + j > 1 ? ";" : "", names[i], names[j], l->alpha * 1e6,
               l->beta > 0 ? 1e-9 / l->beta : 0.0);
      }
    printf("\n   the energy of communication is not modelled (no meter measures it apart)\n");
  }
  if (rc == FUPERMOD_SUCCESS) rc = device_links(o, tp, sizes, ns, names);
  if (rc == FUPERMOD_SUCCESS) rc = host_share(o, tp, &cm, path, job);
  if (rc == FUPERMOD_SUCCESS && rank == 0) job->links = cm;
  else fupermod_comm_free(&cm);
  for (int i = 0; names && names[i]; i++) free(names[i]);
  free(names);
  return rc;
}
