/* Processes that time-share cores, and how long their cores were busy with them. */
#ifndef FUPERMOD_SHARE_H
#define FUPERMOD_SHARE_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* the public API; the libraries build with -fvisibility=hidden */

/* A growing list of [start, end) intervals in fupermod_time() seconds: when a process computed. */
typedef struct fupermod_trace {
  double *iv; /* 2 n doubles: start, end, start, end, ... */
  int n, cap;
  double cpu; /* CPU seconds of the calling thread inside the intervals (fupermod_trace_add_cpu) */
} fupermod_trace;

#define FUPERMOD_TRACE_INIT {NULL, 0, 0, 0.0}

/* Append [t0, t1) (t1 >= t0). FUPERMOD_ERR_NOMEM when it cannot grow. */
int fupermod_trace_add(fupermod_trace *tr, double t0, double t1);
/* The same, also adding cpu (fupermod_cpu_time() at the end minus at the start) to tr->cpu: the
 * core time the work really got, which excludes what other threads took from it. */
int fupermod_trace_add_cpu(fupermod_trace *tr, double t0, double t1, double cpu);
/* CPU seconds used by the calling thread (CLOCK_THREAD_CPUTIME_ID). */
double fupermod_cpu_time(void);
/* Forget the intervals and the CPU time, keep the memory. */
void fupermod_trace_clear(fupermod_trace *tr);
void fupermod_trace_free(fupermod_trace *tr);
/* The sum of the interval lengths (this process's own compute time). */
double fupermod_trace_total(const fupermod_trace *tr);

/* The length of the union of n intervals iv[2i] .. iv[2i+1] (sorts iv by start). */
double fupermod_intervals_union(double *iv, int n);

/* Collective over comm: *share = the processes of comm on this node that time-share this
 * process's cores: those whose CPU affinity is exactly this process's and a strict subset of the
 * node's online CPUs; or, where bindings overlap without being equal, the processes connected by
 * overlapping bindings among the bound ones (fupermod_bind_applied, or a strict subset), when
 * they outnumber the CPUs of their union (three processes bound to both cores of a two-core node,
 * or one on both beside one on each). MPI_COMM_NULL when there is no other (unbound processes are
 * never grouped: the kernel moves them). Free it with MPI_Comm_free. */
int fupermod_share_comm(MPI_Comm comm, MPI_Comm *share);

/* Collective over share (MPI_COMM_NULL: this process alone): *busy = the length of the union of
 * all members' intervals, the time their cores spent on any of them. Every member gets the
 * same value. The clocks must be one (fupermod_time() on one node), as fupermod_share_comm's
 * members are. */
int fupermod_share_busy(MPI_Comm share, const fupermod_trace *tr, double *busy);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
