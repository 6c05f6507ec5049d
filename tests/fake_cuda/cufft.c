/* A stand-in for cuFFT (libcufft.so.12) over FFTW, for tests without a GPU: double-precision
 * plans (Z2Z, D2Z, Z2D; rank 1 to 3; basic and advanced layouts as cuFFT defines them, with the
 * 64-bit sizes of cufftMakePlanMany64) are FFTW guru64 plans, and executions are queued on the
 * plan's stream of the stand-in runtime (tests/fake_cuda/cudart.c). Transforms are unnormalised,
 * CUFFT_FORWARD is FFTW's -1. A plan's work area is device memory, charged to the device: none
 * for a 1D size whose prime factors are at most 7, else the size of the output (as cuFFT's
 * multi-pass algorithms need one); it is overwritten by each execution. The FFTW plans are made
 * only where a payload is computed: without one ($FAKE_CUDA_NOPAYLOAD) a plan of any size costs
 * no host memory, and one made so is completed at its first execution with a payload.
 * fupermod_cufft_standin_execs() counts the executions queued. Single precision is not provided. */
#include "config.h"
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <fftw3.h>
#include <cufft.h>
#include "tests/fake_cuda/standin.h"

STANDIN_EXPORT const char fupermod_cufft_standin[] = "fupermod stand-in";

#define MAXPLANS 4096

typedef long long ll;

typedef struct {
  int made, dev, auto_alloc, rank;
  ll batch;
  cufftType type;
  ll n[3], inembed[3], onembed[3], istride, idist, ostride, odist; /* out-of-place layout */
  ll pin[3], pon[3], pidist, podist;                               /* in-place layout */
  cudaStream_t stream;
  size_t work;
  void *work_area;
  int own_work;
  fftw_plan p[2][2]; /* [in place][inverse] */
} plan_t;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER; /* the table and the FFTW planner */
static plan_t *plans[MAXPLANS];
static int last;
static long execs; /* executions queued, for tests that count launches */

STANDIN_EXPORT long fupermod_cufft_standin_execs(void) {
  long n;
  pthread_mutex_lock(&mu);
  n = execs;
  pthread_mutex_unlock(&mu);
  return n;
}

/* As the stand-in runtime reads $FAKE_CUDA_NOPAYLOAD. */
static int payload(void) {
  const char *v = getenv("FAKE_CUDA_NOPAYLOAD");
  return !(v && *v && strcmp(v, "0") != 0);
}

static plan_t *plan_of(cufftHandle h) { return h >= 1 && h < MAXPLANS ? plans[h] : NULL; }

cufftResult cufftCreate(cufftHandle *h) {
  plan_t *p;
  int dev = fupermod_standin_current();
  if (!h) return CUFFT_INVALID_VALUE;
  if (dev < 0) return CUFFT_INVALID_DEVICE;
  if (!(p = calloc(1, sizeof *p))) return CUFFT_ALLOC_FAILED;
  p->dev = dev;
  p->auto_alloc = 1;
  pthread_mutex_lock(&mu);
  /* handles are not reused at once, so that a destroyed one is refused */
  for (int k = 0; k < MAXPLANS - 1; k++) {
    last = last % (MAXPLANS - 1) + 1;
    if (!plans[last]) {
      plans[last] = p;
      *h = last;
      p = NULL;
      break;
    }
  }
  pthread_mutex_unlock(&mu);
  if (p) {
    free(p);
    return CUFFT_ALLOC_FAILED;
  }
  return CUFFT_SUCCESS;
}

static int is_real_in(cufftType t) { return t == CUFFT_D2Z; }
static int is_real_out(cufftType t) { return t == CUFFT_Z2D; }

/* Logical sizes of one transform's input and output: the complex side of a real transform has
 * n/2 + 1 in its last dimension. */
static void logical(const plan_t *p, ll *in, ll *out) {
  for (int d = 0; d < p->rank; d++) in[d] = out[d] = p->n[d];
  if (p->type == CUFFT_D2Z) out[p->rank - 1] = p->n[p->rank - 1] / 2 + 1;
  if (p->type == CUFFT_Z2D) in[p->rank - 1] = p->n[p->rank - 1] / 2 + 1;
}

static ll prod(const ll *v, int rank) {
  ll r = 1;
  for (int d = 0; d < rank; d++) r *= v[d];
  return r;
}

/* Elements spanned by one transform of logical sizes n in an array of sizes embed. */
static ll span(const ll *n, const ll *embed, int rank, ll stride) {
  ll s = 1, step = stride;
  for (int d = rank - 1; d >= 0; d--) {
    s += (n[d] - 1) * step;
    step *= embed[d];
  }
  return s;
}

static int prime_factors_small(ll n) {
  for (ll f = 2; f <= 7; f++)
    while (n % f == 0) n /= f;
  return n == 1;
}

/* The layouts of cuFFT's "Advanced Data Layout"; NULL embeds select the basic one, whose real
 * side is padded to 2 (n/2 + 1) in place. */
static cufftResult layout(plan_t *p, int rank, const ll *n, const ll *inembed, ll istride, ll idist, const ll *onembed,
                          ll ostride, ll odist, cufftType type, ll batch) {
  ll lin[3], lout[3];
  if (type != CUFFT_Z2Z && type != CUFFT_D2Z && type != CUFFT_Z2D) return CUFFT_INVALID_TYPE;
  if (rank < 1 || rank > 3 || !n || batch < 1) return CUFFT_INVALID_SIZE;
  for (int d = 0; d < rank; d++)
    if (n[d] < 1) return CUFFT_INVALID_SIZE;
  p->rank = rank;
  p->type = type;
  p->batch = batch;
  memcpy(p->n, n, (size_t)rank * sizeof *n);
  logical(p, lin, lout);
  if (!inembed || !onembed) {
    memcpy(p->inembed, lin, sizeof lin);
    memcpy(p->onembed, lout, sizeof lout);
    p->istride = p->ostride = 1;
    p->idist = prod(lin, rank);
    p->odist = prod(lout, rank);
    /* in place: the real side holds the complex side's elements */
    memcpy(p->pin, lin, sizeof lin);
    memcpy(p->pon, lout, sizeof lout);
    if (is_real_in(type)) p->pin[rank - 1] = 2 * lout[rank - 1];
    if (is_real_out(type)) p->pon[rank - 1] = 2 * lin[rank - 1];
    p->pidist = prod(p->pin, rank);
    p->podist = prod(p->pon, rank);
  } else {
    if (istride < 1 || ostride < 1 || idist < 1 || odist < 1) return CUFFT_INVALID_VALUE;
    for (int d = 1; d < rank; d++)
      if (inembed[d] < lin[d] || onembed[d] < lout[d]) return CUFFT_INVALID_VALUE;
    memcpy(p->inembed, inembed, (size_t)rank * sizeof *inembed);
    memcpy(p->onembed, onembed, (size_t)rank * sizeof *onembed);
    p->inembed[0] = p->onembed[0] = lin[0] > lout[0] ? lin[0] : lout[0];
    p->istride = istride, p->idist = idist, p->ostride = ostride, p->odist = odist;
    memcpy(p->pin, p->inembed, sizeof p->pin);
    memcpy(p->pon, p->onembed, sizeof p->pon);
    p->pidist = idist, p->podist = odist;
  }
  p->work = rank == 1 && prime_factors_small(n[0]) ? 0 : (size_t)batch * (size_t)p->odist * (is_real_out(type) ? 8 : 16);
  return CUFFT_SUCCESS;
}

/* Bytes spanned by the input (or output) of the whole batch, out of place or in place. */
static size_t bytes(const plan_t *p, int out, int in_place) {
  ll lin[3], lout[3];
  const ll *embed = in_place ? (out ? p->pon : p->pin) : (out ? p->onembed : p->inembed);
  ll dist = in_place ? (out ? p->podist : p->pidist) : (out ? p->odist : p->idist);
  int real = out ? is_real_out(p->type) : is_real_in(p->type);
  logical(p, lin, lout);
  return (size_t)((p->batch - 1) * dist + span(out ? lout : lin, embed, p->rank, out ? p->ostride : p->istride)) *
         (real ? 8 : 16);
}

static void destroy_fftw(plan_t *p) {
  for (int a = 0; a < 2; a++)
    for (int b = 0; b < 2; b++)
      if (p->p[a][b]) fftw_destroy_plan(p->p[a][b]);
  memset(p->p, 0, sizeof p->p);
}

/* Scratch arrays to plan on: reserved, never committed (FFTW_ESTIMATE does not touch them). */
static void *scratch(size_t n) {
  void *m = mmap(NULL, n ? n : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return m == MAP_FAILED ? NULL : m;
}

/* FFTW's guru64 dimensions of one transform in an array of sizes embed, element stride stride. */
static void dims_of(const plan_t *p, const ll *embed, ll stride, int out, fftw_iodim64 *d) {
  ll step = stride;
  for (int k = p->rank - 1; k >= 0; k--) {
    if (out) d[k].os = step;
    else d[k].n = p->n[k], d[k].is = step;
    step *= embed[k];
  }
}

/* FFTW plans for both placements (and both directions of Z2Z), on scratch arrays. Called with
 * mu held: the FFTW planner is not thread-safe. */
static cufftResult make_fftw(plan_t *p) {
  const unsigned flags = FFTW_ESTIMATE | FFTW_UNALIGNED;
  size_t bi = bytes(p, 0, 0), bo = bytes(p, 1, 0), bp = bytes(p, 0, 1) > bytes(p, 1, 1) ? bytes(p, 0, 1) : bytes(p, 1, 1);
  void *in = scratch(bi), *out = scratch(bo), *inplace = scratch(bp);
  cufftResult r = CUFFT_SUCCESS;
  if (!in || !out || !inplace) r = CUFFT_ALLOC_FAILED;
  for (int ip = 0; ip < 2 && r == CUFFT_SUCCESS; ip++) {
    void *i = ip ? inplace : in, *o = ip ? inplace : out;
    fftw_iodim64 d[3], h = {p->batch, ip ? p->pidist : p->idist, ip ? p->podist : p->odist};
    dims_of(p, ip ? p->pin : p->inembed, p->istride, 0, d);
    dims_of(p, ip ? p->pon : p->onembed, p->ostride, 1, d);
    if (p->type == CUFFT_Z2Z) {
      p->p[ip][0] = fftw_plan_guru64_dft(p->rank, d, 1, &h, i, o, FFTW_FORWARD, flags);
      p->p[ip][1] = fftw_plan_guru64_dft(p->rank, d, 1, &h, i, o, FFTW_BACKWARD, flags);
      if (!p->p[ip][1]) r = CUFFT_SETUP_FAILED;
    } else if (p->type == CUFFT_D2Z)
      p->p[ip][0] = fftw_plan_guru64_dft_r2c(p->rank, d, 1, &h, i, o, flags);
    else
      p->p[ip][0] = fftw_plan_guru64_dft_c2r(p->rank, d, 1, &h, i, o, flags);
    if (!p->p[ip][0]) r = CUFFT_SETUP_FAILED;
  }
  if (in) munmap(in, bi ? bi : 1);
  if (out) munmap(out, bo ? bo : 1);
  if (inplace) munmap(inplace, bp ? bp : 1);
  if (r != CUFFT_SUCCESS) destroy_fftw(p);
  return r;
}

static cufftResult make_plan(cufftHandle h, int rank, const ll *n, const ll *inembed, ll istride, ll idist,
                             const ll *onembed, ll ostride, ll odist, cufftType type, ll batch, size_t *work) {
  plan_t *p, q;
  cufftResult r;
  int dev = fupermod_standin_current();
  pthread_mutex_lock(&mu);
  if (!(p = plan_of(h)) || p->made) r = CUFFT_INVALID_PLAN;
  else if (dev < 0) r = CUFFT_INVALID_DEVICE;
  else {
    q = *p;
    q.dev = dev; /* the device current when the plan is made */
    if ((r = layout(&q, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch)) == CUFFT_SUCCESS &&
        q.auto_alloc && q.work && cudaMalloc(&q.work_area, q.work) != cudaSuccess) {
      cudaGetLastError();
      r = CUFFT_ALLOC_FAILED;
    }
    q.own_work = q.auto_alloc && q.work;
    if (r == CUFFT_SUCCESS && payload() && (r = make_fftw(&q)) != CUFFT_SUCCESS && q.own_work) cudaFree(q.work_area);
    if (r == CUFFT_SUCCESS) {
      q.made = 1;
      *p = q;
      if (work) *work = q.work;
    }
  }
  pthread_mutex_unlock(&mu);
  return r;
}

/* The int interface's sizes as the 64-bit one's. */
static void widen(int rank, const int *v, ll *w) {
  for (int d = 0; d < rank && d < 3; d++) w[d] = v[d];
}

cufftResult cufftMakePlanMany(cufftHandle h, int rank, int *n, int *inembed, int istride, int idist, int *onembed,
                              int ostride, int odist, cufftType type, int batch, size_t *work) {
  ll nl[3], il[3], ol[3];
  if (rank < 1 || rank > 3 || !n) return CUFFT_INVALID_SIZE;
  widen(rank, n, nl);
  if (inembed) widen(rank, inembed, il);
  if (onembed) widen(rank, onembed, ol);
  return make_plan(h, rank, nl, inembed ? il : NULL, istride, idist, onembed ? ol : NULL, ostride, odist, type, batch, work);
}

cufftResult cufftMakePlanMany64(cufftHandle h, int rank, long long *n, long long *inembed, long long istride,
                                long long idist, long long *onembed, long long ostride, long long odist, cufftType type,
                                long long batch, size_t *work) {
  return make_plan(h, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch, work);
}

/* The work area a plan of this layout would have. */
static cufftResult estimate(int rank, const ll *n, const ll *inembed, ll istride, ll idist, const ll *onembed, ll ostride,
                            ll odist, cufftType type, ll batch, size_t *work) {
  plan_t q;
  cufftResult r;
  memset(&q, 0, sizeof q);
  if (!work) return CUFFT_INVALID_VALUE;
  if ((r = layout(&q, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch)) == CUFFT_SUCCESS)
    *work = q.work;
  return r;
}

cufftResult cufftGetSizeMany64(cufftHandle h, int rank, long long *n, long long *inembed, long long istride,
                               long long idist, long long *onembed, long long ostride, long long odist, cufftType type,
                               long long batch, size_t *work) {
  int known;
  pthread_mutex_lock(&mu);
  known = plan_of(h) != NULL;
  pthread_mutex_unlock(&mu);
  return known ? estimate(rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch, work) : CUFFT_INVALID_PLAN;
}

cufftResult cufftMakePlan1d(cufftHandle h, int nx, cufftType type, int batch, size_t *work) {
  return cufftMakePlanMany(h, 1, &nx, NULL, 1, 0, NULL, 1, 0, type, batch, work);
}

cufftResult cufftMakePlan2d(cufftHandle h, int nx, int ny, cufftType type, size_t *work) {
  int n[2] = {nx, ny};
  return cufftMakePlanMany(h, 2, n, NULL, 1, 0, NULL, 1, 0, type, 1, work);
}

cufftResult cufftMakePlan3d(cufftHandle h, int nx, int ny, int nz, cufftType type, size_t *work) {
  int n[3] = {nx, ny, nz};
  return cufftMakePlanMany(h, 3, n, NULL, 1, 0, NULL, 1, 0, type, 1, work);
}

/* Create and make; on failure no handle remains. */
static cufftResult plan_new(cufftHandle *h, int rank, int *n, int *inembed, int istride, int idist, int *onembed,
                            int ostride, int odist, cufftType type, int batch) {
  cufftResult r;
  if (!h) return CUFFT_INVALID_VALUE;
  if ((r = cufftCreate(h)) != CUFFT_SUCCESS) return r;
  if ((r = cufftMakePlanMany(*h, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch, NULL)) !=
      CUFFT_SUCCESS) {
    cufftDestroy(*h);
    *h = 0;
  }
  return r;
}

cufftResult cufftPlanMany(cufftHandle *h, int rank, int *n, int *inembed, int istride, int idist, int *onembed,
                          int ostride, int odist, cufftType type, int batch) {
  return plan_new(h, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch);
}

cufftResult cufftPlan1d(cufftHandle *h, int nx, cufftType type, int batch) {
  return plan_new(h, 1, &nx, NULL, 1, 0, NULL, 1, 0, type, batch);
}

cufftResult cufftPlan2d(cufftHandle *h, int nx, int ny, cufftType type) {
  int n[2] = {nx, ny};
  return plan_new(h, 2, n, NULL, 1, 0, NULL, 1, 0, type, 1);
}

cufftResult cufftPlan3d(cufftHandle *h, int nx, int ny, int nz, cufftType type) {
  int n[3] = {nx, ny, nz};
  return plan_new(h, 3, n, NULL, 1, 0, NULL, 1, 0, type, 1);
}

cufftResult cufftEstimateMany(int rank, int *n, int *inembed, int istride, int idist, int *onembed, int ostride, int odist,
                              cufftType type, int batch, size_t *work) {
  ll nl[3], il[3], ol[3];
  if (rank < 1 || rank > 3 || !n) return CUFFT_INVALID_SIZE;
  widen(rank, n, nl);
  if (inembed) widen(rank, inembed, il);
  if (onembed) widen(rank, onembed, ol);
  return estimate(rank, nl, inembed ? il : NULL, istride, idist, onembed ? ol : NULL, ostride, odist, type, batch, work);
}

cufftResult cufftGetSize(cufftHandle h, size_t *work) {
  plan_t *p;
  cufftResult r = CUFFT_SUCCESS;
  if (!work) return CUFFT_INVALID_VALUE;
  pthread_mutex_lock(&mu);
  if (!(p = plan_of(h))) r = CUFFT_INVALID_PLAN;
  else *work = p->work;
  pthread_mutex_unlock(&mu);
  return r;
}

/* The stream of a plan, or whether it allocates its work area (before it is made only, as with
 * cuFFT). */
static cufftResult set_plan(cufftHandle h, int auto_alloc, cudaStream_t s) {
  plan_t *p;
  cufftResult r = CUFFT_SUCCESS;
  pthread_mutex_lock(&mu);
  if (!(p = plan_of(h)) || (auto_alloc >= 0 && p->made)) r = CUFFT_INVALID_PLAN;
  else if (auto_alloc >= 0) p->auto_alloc = auto_alloc;
  else p->stream = s;
  pthread_mutex_unlock(&mu);
  return r;
}

cufftResult cufftSetAutoAllocation(cufftHandle h, int a) { return set_plan(h, a != 0, NULL); }
cufftResult cufftSetStream(cufftHandle h, cudaStream_t s) { return set_plan(h, -1, s); }

cufftResult cufftSetWorkArea(cufftHandle h, void *area) {
  plan_t *p;
  cufftResult r = CUFFT_SUCCESS;
  pthread_mutex_lock(&mu);
  if (!(p = plan_of(h)) || !p->made) r = CUFFT_INVALID_PLAN;
  else if (p->work && !fupermod_standin_accessible(p->dev, area, p->work)) r = CUFFT_INVALID_VALUE;
  else {
    if (p->own_work) cudaFree(p->work_area);
    p->own_work = 0;
    p->work_area = area;
  }
  pthread_mutex_unlock(&mu);
  return r;
}

/* Work queued with the plan runs first (freeing its work area synchronises, as cudaFree). */
cufftResult cufftDestroy(cufftHandle h) {
  plan_t *p;
  pthread_mutex_lock(&mu);
  if ((p = plan_of(h))) plans[h] = NULL;
  pthread_mutex_unlock(&mu);
  if (!p) return CUFFT_INVALID_PLAN;
  fupermod_standin_sync_device(p->dev);
  if (p->own_work) cudaFree(p->work_area);
  pthread_mutex_lock(&mu);
  destroy_fftw(p);
  pthread_mutex_unlock(&mu);
  free(p);
  return CUFFT_SUCCESS;
}

cufftResult cufftGetVersion(int *v) {
  if (!v) return CUFFT_INVALID_VALUE;
  *v = CUFFT_VERSION;
  return CUFFT_SUCCESS;
}

cufftResult cufftGetProperty(libraryPropertyType type, int *v) {
  if (!v) return CUFFT_INVALID_VALUE;
  return standin_version(type, CUFFT_VER_MAJOR, CUFFT_VER_MINOR, CUFFT_VER_PATCH, v) == 0 ? CUFFT_SUCCESS : CUFFT_INVALID_TYPE;
}

/* ---------------------------------------------------------------- execution */

typedef struct {
  fftw_plan plan;
  cufftType type;
  void *in, *out, *work;
  size_t work_bytes;
} fft_op;

static void run_fft(void *arg) {
  fft_op *o = arg;
  if (o->work_bytes) memset(o->work, 0xFF, o->work_bytes);
  if (o->type == CUFFT_Z2Z) fftw_execute_dft(o->plan, o->in, o->out);
  else if (o->type == CUFFT_D2Z) fftw_execute_dft_r2c(o->plan, o->in, o->out);
  else fftw_execute_dft_c2r(o->plan, o->in, o->out);
}

static cufftResult exec(cufftHandle h, cufftType type, void *in, void *out, int direction) {
  plan_t *p;
  fft_op *o = NULL;
  cufftResult r = CUFFT_SUCCESS;
  int dev = fupermod_standin_current(), ip = in == out;
  cudaStream_t s = NULL;
  standin_cost cost = {STANDIN_COST_FFT, 0, 0, 0, 0, 0};
  pthread_mutex_lock(&mu);
  if (!(p = plan_of(h)) || !p->made || p->type != type) r = CUFFT_INVALID_PLAN;
  else if (type == CUFFT_Z2Z && direction != CUFFT_FORWARD && direction != CUFFT_INVERSE) r = CUFFT_INVALID_VALUE;
  else if (p->work && !p->work_area) r = CUFFT_NO_WORKSPACE;
  else if (dev != p->dev) {
    fupermod_standin_note("cuFFT plan of device %d executed while device %d is current", p->dev, dev);
    r = CUFFT_EXEC_FAILED;
  } else if (!fupermod_standin_accessible(dev, in, bytes(p, 0, ip)) || !fupermod_standin_accessible(dev, out, bytes(p, 1, ip))) {
    fupermod_standin_note("cuFFT: data of plan %d not in device %d's memory", h, dev);
    r = CUFFT_EXEC_FAILED;
  } else if (payload() && !p->p[0][0] && make_fftw(p) != CUFFT_SUCCESS) { /* made without a payload */
    fupermod_standin_note("cuFFT: plan %d cannot be computed on the host (FFTW planned none)", h);
    r = CUFFT_EXEC_FAILED;
  } else if (!(o = malloc(sizeof *o)))
    r = CUFFT_ALLOC_FAILED;
  else {
    double pts = (double)prod(p->n, p->rank);
    *o = (fft_op){p->p[ip][type == CUFFT_Z2Z && direction == CUFFT_INVERSE], type, in, out, p->work_area, p->work};
    s = p->stream;
    /* the simulated GPU's cost: 5 N log2 N flops per transform of N points, half for real ones;
     * the shape (points, transforms, input stride) lets the simulator charge small or strided
     * launches more than their flops (the contract with tests/fake_cuda/cudart.c) */
    cost.flops = (type == CUFFT_Z2Z ? 5.0 : 2.5) * pts * log2(pts) * p->batch;
    cost.m = pts;
    cost.n = p->batch;
    cost.k = p->istride;
  }
  pthread_mutex_unlock(&mu);
  if (r != CUFFT_SUCCESS) return r;
  if (fupermod_standin_enqueue_cost(s, dev, &cost, run_fft, free, o) != cudaSuccess) return CUFFT_EXEC_FAILED;
  pthread_mutex_lock(&mu);
  execs++;
  pthread_mutex_unlock(&mu);
  return CUFFT_SUCCESS;
}

cufftResult cufftExecZ2Z(cufftHandle h, cufftDoubleComplex *in, cufftDoubleComplex *out, int direction) {
  return exec(h, CUFFT_Z2Z, in, out, direction);
}

cufftResult cufftExecD2Z(cufftHandle h, cufftDoubleReal *in, cufftDoubleComplex *out) {
  return exec(h, CUFFT_D2Z, in, out, CUFFT_FORWARD);
}

cufftResult cufftExecZ2D(cufftHandle h, cufftDoubleComplex *in, cufftDoubleReal *out) {
  return exec(h, CUFFT_Z2D, in, out, CUFFT_INVERSE);
}
