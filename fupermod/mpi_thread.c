#include <time.h>
#include "fupermod/error.h"
#include "fupermod/mpi_thread.h"

const char *fupermod_mpi_thread_name(int level) {
  if (level == MPI_THREAD_SINGLE) return "MPI_THREAD_SINGLE";
  if (level == MPI_THREAD_FUNNELED) return "MPI_THREAD_FUNNELED";
  if (level == MPI_THREAD_SERIALIZED) return "MPI_THREAD_SERIALIZED";
  if (level == MPI_THREAD_MULTIPLE) return "MPI_THREAD_MULTIPLE";
  return "unknown";
}

static int valid_level(int level) {
  return level == MPI_THREAD_SINGLE || level == MPI_THREAD_FUNNELED || level == MPI_THREAD_SERIALIZED ||
         level == MPI_THREAD_MULTIPLE;
}

/* The levels are ordered (MPI standard: SINGLE < FUNNELED < SERIALIZED < MULTIPLE). */
static int compare(int provided, int required, const char *who) {
#ifdef FUPERMOD_SMPI
  /* SimGrid's SMPI provides MPI_THREAD_SINGLE, and in this build no thread but a rank's own calls
   * MPI or SimGrid (no OpenMP, no SUMMA progress thread, no benchmark filler): that serves what
   * the higher levels ask for (docs/simulate.md) */
  if (provided == MPI_THREAD_SINGLE) return FUPERMOD_SUCCESS;
#endif
  if (provided < required)
    return fupermod_error(FUPERMOD_ERR_MPI, "%s needs MPI thread level %s, MPI provides %s", who ? who : "fupermod",
                          fupermod_mpi_thread_name(required), fupermod_mpi_thread_name(provided));
  return FUPERMOD_SUCCESS;
}

int fupermod_mpi_check_thread(int required, const char *who) {
  int init = 0, fin = 0, provided = MPI_THREAD_SINGLE, main_thread = 1;
  if (!valid_level(required)) return fupermod_error(FUPERMOD_ERR_USAGE, "unknown MPI thread level %d", required);
  MPI_Initialized(&init);
  if (init) MPI_Finalized(&fin);
  if (!init || fin)
    return fupermod_error(FUPERMOD_ERR_USAGE, "%s: MPI is %s", who ? who : "fupermod",
                          init ? "finalized" : "not initialized");
  MPI_Query_thread(&provided);
  MPI_Is_thread_main(&main_thread);
  /* FUNNELED means the main thread calls MPI: any other caller needs SERIALIZED */
  if (!main_thread && required < MPI_THREAD_SERIALIZED && required > MPI_THREAD_SINGLE) required = MPI_THREAD_SERIALIZED;
  return compare(provided, required, who);
}

int fupermod_mpi_init_thread(int *argc, char ***argv, int required, const char *who, int *provided) {
  int init = 0, fin = 0, got = MPI_THREAD_SINGLE;
  if (!valid_level(required)) return fupermod_error(FUPERMOD_ERR_USAGE, "unknown MPI thread level %d", required);
  MPI_Initialized(&init);
  if (init) MPI_Finalized(&fin);
  if (fin) return fupermod_error(FUPERMOD_ERR_USAGE, "%s: MPI is finalized", who ? who : "fupermod");
  if (init) MPI_Query_thread(&got);
  else if (MPI_Init_thread(argc, argv, required, &got) != MPI_SUCCESS)
    return fupermod_error(FUPERMOD_ERR_MPI, "%s: MPI_Init_thread failed", who ? who : "fupermod");
  if (provided) *provided = got;
  return compare(got, required, who);
}

int fupermod_mpi_wait_idle(MPI_Request *req, long nap_ns) {
  const struct timespec nap = {nap_ns / 1000000000L, nap_ns % 1000000000L};
#ifdef FUPERMOD_SMPI
  /* SimGrid: no core to yield, and each nap would be a simulated sleep (docs/simulate.md) */
  (void)nap;
  return MPI_Wait(req, MPI_STATUS_IGNORE) == MPI_SUCCESS ? 0 : -1;
#endif
  for (;;) {
    int done = 0;
    if (MPI_Test(req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) return -1;
    if (done) return 0;
    nanosleep(&nap, NULL);
  }
}
