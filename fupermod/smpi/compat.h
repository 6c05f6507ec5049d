/* The SMPI build's force-included header (configure --with-smpi puts -include fupermod/smpi/compat.h
 * into CPPFLAGS, after smpicc's own smpi_helpers.h; docs/simulate.md). smpi_helpers.h turns
 * sleep, usleep, nanosleep, gettimeofday and clock_gettime into calls on SimGrid's simulated
 * clock; clock_nanosleep, which the emulated kernel sleeps with (to an absolute time), is not among
 * them, and would sleep on the real clock while the simulated one stood still. Here it becomes
 * a simulated sleep too. Nothing in this file is compiled outside the SMPI build. */
#ifndef FUPERMOD_SMPI_COMPAT_H
#define FUPERMOD_SMPI_COMPAT_H

#define FUPERMOD_SMPI 1

#include <errno.h>
#include <time.h>

/* clock_nanosleep on the simulated clock: an absolute deadline (TIMER_ABSTIME) is read against
 * smpi_clock_gettime, the clock the caller read it from; a relative one sleeps that long. */
static inline int fupermod_smpi_clock_nanosleep(clockid_t clk, int flags, const struct timespec *t, struct timespec *rem) {
  struct timespec d = *t;
  if (flags & TIMER_ABSTIME) {
    struct timespec now;
    smpi_clock_gettime(clk, &now);
    d.tv_sec = t->tv_sec - now.tv_sec;
    d.tv_nsec = t->tv_nsec - now.tv_nsec;
    if (d.tv_nsec < 0) d.tv_sec--, d.tv_nsec += 1000000000L;
    if (d.tv_sec < 0) return 0;
    rem = NULL;
  }
  return smpi_nanosleep(&d, rem) == 0 ? 0 : errno;
}
#define clock_nanosleep(clk, flags, t, rem) fupermod_smpi_clock_nanosleep((clk), (flags), (t), (rem))

/* smpi_helpers.h brings <unistd.h> into every file, whose dup(int) clashes with the static
 * dup(const char *) of partitioners/registry.c; no file of fupermod calls dup(2) */
#define dup fupermod_smpi_dup

/* SimGrid 3.32's MPI_Bcast and MPI_Ibcast (every algorithm of smpi/bcast) leave activities behind
 * in the simulator, which scans them whenever a later message completes: a run of thousands of
 * broadcasts (fupermod's agreements, the benchmark's) slowed down quadratically. Here a broadcast
 * is a binomial tree of plain messages, which leave nothing (docs/simulate.md). The non-blocking
 * one completes before it returns: fupermod waits on it at once. */
#include <mpi.h>
#define FUPERMOD_SMPI_BCAST_TAG 32001
static inline int fupermod_smpi_bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  int rank, size, rel, mask = 1, rc = MPI_SUCCESS;
  if ((rc = MPI_Comm_size(comm, &size)) != MPI_SUCCESS || (rc = MPI_Comm_rank(comm, &rank)) != MPI_SUCCESS) return rc;
  if (root < 0 || root >= size) return MPI_ERR_ROOT;
  rel = (rank - root + size) % size;
  for (; mask < size; mask <<= 1) /* from the parent: the rank without my lowest set bit */
    if (rel & mask) {
      rc = MPI_Recv(buf, count, type, (rank - mask + size) % size, FUPERMOD_SMPI_BCAST_TAG, comm, MPI_STATUS_IGNORE);
      break;
    }
  for (mask >>= 1; mask > 0 && rc == MPI_SUCCESS; mask >>= 1) /* to the children */
    if (rel + mask < size) rc = MPI_Send(buf, count, type, (rank + mask) % size, FUPERMOD_SMPI_BCAST_TAG, comm);
  return rc;
}
static inline int fupermod_smpi_ibcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request *req) {
  *req = MPI_REQUEST_NULL;
  return fupermod_smpi_bcast(buf, count, type, root, comm);
}
#define MPI_Bcast(buf, count, type, root, comm) fupermod_smpi_bcast((buf), (count), (type), (root), (comm))
#define MPI_Ibcast(buf, count, type, root, comm, req) fupermod_smpi_ibcast((buf), (count), (type), (root), (comm), (req))

#endif
