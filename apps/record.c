/* Application runs recorded beside the models (apps/record.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "config.h"
#include "apps/record.h"
#include "fupermod/error.h"
#include "fupermod/util.h"

#define HEADER "# fupermod application runs v1 (docs/formats.md, \"Application runs\")\n" \
               "launch,date,version,app,size,rank,host,share,whole,phases\n"

static int bad_name(const char *s, const char *forbidden) { return !s || !*s || strpbrk(s, forbidden) != NULL; }

/* rank 0: the lines of every process */
static int write_lines(const char *dir, const char *app, long size, int p, const char *hosts, const long *shares,
                       double whole, int nphases, const char *const *names, const double *ph) {
  char path[4200], launch[64], date[32];
  time_t now = time(NULL);
  struct tm tm;
  FILE *fp;
  int rc;
  gmtime_r(&now, &tm);
  strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
  snprintf(launch, sizeof launch, "%s.%ld", date, (long)getpid());
  snprintf(path, sizeof path, "%s/models", dir);
  if ((rc = fupermod_mkdir_p(path)) != FUPERMOD_SUCCESS) return rc;
  snprintf(path, sizeof path, "%s/models/runs.csv", dir);
  if (!(fp = fopen(path, "a"))) return fupermod_error(FUPERMOD_ERR_SYSTEM, "%s: cannot append: %s", path, strerror(errno));
  if (ftell(fp) == 0) fputs(HEADER, fp);
  for (int i = 0; i < p; i++) {
    fprintf(fp, "%s,%s,%s,%s,%ld,%d,%s,%ld,%.9g,", launch, date, PACKAGE_VERSION, app, size, i,
            hosts + (size_t)i * MPI_MAX_PROCESSOR_NAME, shares[i], whole);
    for (int k = 0; k < nphases; k++) fprintf(fp, "%s%s=%.9g", k ? " " : "", names[k], ph[(size_t)i * nphases + k]);
    fprintf(fp, "\n");
  }
  /* the run's lines reach the disk before the program goes on: nothing measured is lost */
  if (fflush(fp) != 0 || fsync(fileno(fp)) != 0 || fclose(fp) != 0)
    return fupermod_error(FUPERMOD_ERR_SYSTEM, "%s: cannot write: %s", path, strerror(errno));
  return FUPERMOD_SUCCESS;
}

/* Every rank returns the same status: the first failing one's (its message where it failed, a
 * pointer to it elsewhere). Collective. */
static int agree(MPI_Comm comm, int rc, const char *dir) {
  int worst = rc;
  MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MIN, comm);
  if (worst != FUPERMOD_SUCCESS && rc == FUPERMOD_SUCCESS)
    rc = fupermod_error(worst, "record: %s/models/runs.csv: another rank failed to record the run", dir ? dir : "");
  return rc;
}

int fupermod_app_record(MPI_Comm comm, const char *dir, const char *app, long size, long share, double whole,
                        int nphases, const char *const *names, const double *phases) {
  int rank, p, rc = FUPERMOD_SUCCESS, len;
  char host[MPI_MAX_PROCESSOR_NAME] = "", *hosts = NULL;
  long *shares = NULL;
  double mine[FUPERMOD_RECORD_PHASES] = {0}, *ph = NULL;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &p);
  if (!dir || !*dir) rc = fupermod_error(FUPERMOD_ERR_USAGE, "record: no directory");
  else if (bad_name(app, ", \n"))
    rc = fupermod_error(FUPERMOD_ERR_USAGE, "record: application name '%s' is empty or has a comma, space or newline",
                        app ? app : "(null)");
  else if (nphases < 0 || nphases > FUPERMOD_RECORD_PHASES || (nphases > 0 && (!names || !phases)))
    rc = fupermod_error(FUPERMOD_ERR_USAGE, "record: %d phases (0 to %d, each named)", nphases, FUPERMOD_RECORD_PHASES);
  for (int k = 0; rc == FUPERMOD_SUCCESS && k < nphases; k++)
    if (bad_name(names[k], ", =\n")) rc = fupermod_error(FUPERMOD_ERR_USAGE, "record: phase name '%s' is empty or has a comma, space or '='",
                                                         names[k] ? names[k] : "(null)");
  for (int k = 0; rc == FUPERMOD_SUCCESS && k < nphases; k++) mine[k] = phases[k];
  if ((rc = agree(comm, rc, dir)) != FUPERMOD_SUCCESS) return rc;
  MPI_Get_processor_name(host, &len);
  /* the commas of the file are its separators: a host name never has one, but be sure */
  for (char *c = host; *c; c++)
    if (*c == ',') *c = '_';
  if (rank == 0) {
    hosts = calloc((size_t)p, MPI_MAX_PROCESSOR_NAME);
    shares = malloc((size_t)p * sizeof *shares);
    ph = malloc((size_t)p * FUPERMOD_RECORD_PHASES * sizeof *ph);
    if (rc == FUPERMOD_SUCCESS && (!hosts || !shares || !ph)) rc = fupermod_error(FUPERMOD_ERR_NOMEM, "record: out of memory");
  }
  MPI_Gather(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, hosts, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, comm);
  MPI_Gather(&share, 1, MPI_LONG, shares, 1, MPI_LONG, 0, comm);
  MPI_Gather(mine, FUPERMOD_RECORD_PHASES, MPI_DOUBLE, ph, FUPERMOD_RECORD_PHASES, MPI_DOUBLE, 0, comm);
  if (rank == 0 && rc == FUPERMOD_SUCCESS) {
    /* compact the gathered phases to nphases per process */
    for (int i = 0; i < p; i++)
      for (int k = 0; k < nphases; k++) ph[(size_t)i * nphases + k] = ph[(size_t)i * FUPERMOD_RECORD_PHASES + k];
    rc = write_lines(dir, app, size, p, hosts, shares, whole, nphases, names, ph);
  }
  free(hosts), free(shares), free(ph);
  return agree(comm, rc, dir);
}
