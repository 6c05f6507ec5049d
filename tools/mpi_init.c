#include "fupermod/error.h"
#include "fupermod/mpi_thread.h"
#include "tools/mpi_init.h"
#include "tools/tools.h"

int tool_mpi_init(const char *sub, int *argc, char ***argv, int required) {
  int rc, init = 0, fin = 0;
  if ((rc = fupermod_mpi_init_thread(argc, argv, required, "the command", NULL)) == FUPERMOD_SUCCESS) {
    tool_mpi_started = 1;
    return 0;
  }
  MPI_Initialized(&init);
  if (init) MPI_Finalized(&fin);
  if (init && !fin) MPI_Finalize();
  return tool_fail(sub, rc);
}
