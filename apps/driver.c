#include <stdio.h>
#include <string.h>
#include "apps/driver.h"
#include "fupermod/fupermod.h"

/* one program, one driver: its name, its place in MPI_COMM_WORLD, whether a failure was printed */
static const char *who = "";
static int rank = 0, size = 1, reported = 0;

int driver_mpi_start(int *argc, char ***argv, int required, const char *name, int *provided, int *rank_out,
                     int *size_out) {
  int rc = fupermod_mpi_init_thread(argc, argv, required, name, provided);
  who = name;
  if (rc != FUPERMOD_SUCCESS) {
    fprintf(stderr, "%s: %s\n", who, fupermod_error_message());
    MPI_Finalize();
    return fupermod_exit_status(rc);
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank_out) *rank_out = rank;
  if (size_out) *size_out = size;
  return 0;
}

int driver_agree(int rc) {
  int pair = rc != FUPERMOD_SUCCESS ? rank : size, first = size;
  MPI_Allreduce(&pair, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (first == size) return FUPERMOD_SUCCESS;
  reported = 1;
  if (rank == first) fprintf(stderr, "%s: rank %d: %s\n", who, rank, fupermod_error_message());
  MPI_Bcast(&rc, 1, MPI_INT, first, MPI_COMM_WORLD);
  return rc;
}

int driver_conf_bind(const char *conffile, const char *cpu_only) {
  fupermod_conf conf = {0};
  MPI_Comm intra = MPI_COMM_NULL;
  int idx = -1, rc = fupermod_conf_load(conffile, &conf);
  if ((rc = driver_agree(rc)) != FUPERMOD_SUCCESS) return rc;
  rc = fupermod_conf_locate(&conf, MPI_COMM_WORLD, &idx, &intra);
  if (rc == FUPERMOD_SUCCESS && cpu_only && strcmp(conf.procs[idx].device_type, "cpu") != 0)
    rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: a %s line: %s", conffile, conf.procs[idx].line,
                        conf.procs[idx].device_type, cpu_only);
  if (rc == FUPERMOD_SUCCESS) rc = fupermod_bind_apply(conf.procs[idx].bind);
  if (intra != MPI_COMM_NULL) MPI_Comm_free(&intra);
  fupermod_conf_free(&conf);
  return driver_agree(rc);
}

int driver_end(int rc) {
  if (rc == 1) rc = 0;
  else if (rc != FUPERMOD_SUCCESS && !reported && rank == 0) fprintf(stderr, "%s: %s\n", who, fupermod_error_message());
  MPI_Finalize();
  return rc == 0 ? 0 : fupermod_exit_status(rc);
}
