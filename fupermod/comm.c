/* Point-to-point communication measured between every pair of processes (fupermod/comm.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fupermod/calib.h"
#include "fupermod/comm.h"
#include "fupermod/error.h"
#include "fupermod/lines.h"
#include "fupermod/util.h"

#define TAG_MSG 1
#define TAG_GO 2
#define TAG_PTS 3

int fupermod_comm_init(fupermod_comm *c, int p) {
  if (!c || p < 1) return fupermod_error(FUPERMOD_ERR_USAGE, "comm model: %d processes", p);
  c->p = p;
  if (!(c->links = calloc((size_t)p * (size_t)p, sizeof *c->links)))
    return fupermod_error(FUPERMOD_ERR_NOMEM, "comm model: out of memory for %d processes", p);
  return FUPERMOD_SUCCESS;
}

void fupermod_comm_free(fupermod_comm *c) {
  if (!c || !c->links) return;
  for (int i = 0; i < c->p * c->p; i++) free(c->links[i].pts);
  free(c->links);
  c->links = NULL;
  c->p = 0;
}

fupermod_comm_link *fupermod_comm_link_of(const fupermod_comm *c, int i, int j) {
  if (!c || !c->links || i == j || i < 0 || j < 0 || i >= c->p || j >= c->p) return NULL;
  return i < j ? &c->links[i * c->p + j] : &c->links[j * c->p + i];
}

void fupermod_comm_fit(fupermod_comm_link *l) {
  double s0 = 0, s1 = 0, s2 = 0, t0 = 0, t1 = 0, det;
  l->alpha = l->beta = 0;
  if (l->n < 1) return;
  if (l->n == 1) {
    l->alpha = l->pts[0].t;
    return;
  }
  /* relative least squares: small messages count as much as large ones */
  for (int k = 0; k < l->n; k++) {
    double m = l->pts[k].bytes, t = l->pts[k].t, w = t > 0 ? 1.0 / (t * t) : 0.0;
    s0 += w, s1 += w * m, s2 += w * m * m, t0 += w * t, t1 += w * m * t;
  }
  det = s0 * s2 - s1 * s1;
  if (det > 0) {
    l->alpha = (t0 * s2 - s1 * t1) / det;
    l->beta = (s0 * t1 - s1 * t0) / det;
  }
  if (!(det > 0) || l->alpha < 0 || l->beta < 0) {
    /* a fit outside the physical range: the one-parameter fits instead */
    l->alpha = 0;
    l->beta = s2 > 0 ? t1 / s2 : 0;
    if (!(l->beta > 0)) l->beta = 0, l->alpha = s0 > 0 ? t0 / s0 : 0;
  }
}

double fupermod_comm_time(const fupermod_comm *c, int i, int j, double bytes) {
  const fupermod_comm_link *l;
  const fupermod_comm_point *p;
  if (i == j) return 0.0;
  if (!(l = fupermod_comm_link_of(c, i, j)) || l->n < 1) return -1.0;
  p = l->pts;
  if (bytes <= p[0].bytes) return p[0].t;
  for (int k = 1; k < l->n; k++)
    if (bytes <= p[k].bytes)
      return p[k - 1].t + (p[k].t - p[k - 1].t) * (bytes - p[k - 1].bytes) / (p[k].bytes - p[k - 1].bytes);
  return p[l->n - 1].t + l->beta * (bytes - p[l->n - 1].bytes);
}

double fupermod_comm_time_ci(const fupermod_comm *c, int i, int j, double bytes, double *ci) {
  const fupermod_comm_link *l;
  const fupermod_comm_point *p;
  double t = fupermod_comm_time(c, i, j, bytes), rel;
  if (ci) *ci = 0.0;
  if (t <= 0 || !ci || !(l = fupermod_comm_link_of(c, i, j))) return t;
  p = l->pts;
  rel = p[l->n - 1].t > 0 ? p[l->n - 1].ci / p[l->n - 1].t : 0.0;
  if (bytes <= p[0].bytes) rel = p[0].t > 0 ? p[0].ci / p[0].t : 0.0;
  else
    for (int k = 1; k < l->n; k++)
      if (bytes <= p[k].bytes) {
        double w = (bytes - p[k - 1].bytes) / (p[k].bytes - p[k - 1].bytes);
        rel = (1 - w) * (p[k - 1].t > 0 ? p[k - 1].ci / p[k - 1].t : 0.0) + w * (p[k].t > 0 ? p[k].ci / p[k].t : 0.0);
        break;
      }
  *ci = rel * t;
  return t;
}

/* one size between pinger a and ponger b (ranks of comm): a returns the point. Round trips that a
 * burst of load stretched are left out as the benchmark leaves out outlying repetitions
 * (fupermod_outliers_floor, unless prec->keep_outliers); t and keep hold reps_max values. */
static void pingpong(MPI_Comm comm, int me, int a, int b, char *buf, long bytes, const fupermod_precision *prec,
                     double *t, int *keep, fupermod_comm_point *pt) {
  int go = 1, n = 0;
  double start = MPI_Wtime();
  if (me == b) {
    /* the warm-up and every timed round trip, until a says stop */
    while (go) {
      MPI_Recv(buf, (int)bytes, MPI_BYTE, a, TAG_MSG, comm, MPI_STATUS_IGNORE);
      MPI_Send(buf, (int)bytes, MPI_BYTE, a, TAG_MSG, comm);
      MPI_Recv(&go, 1, MPI_INT, a, TAG_GO, comm, MPI_STATUS_IGNORE);
    }
    return;
  }
  for (int rep = -1; go; rep++) {
    double t0 = MPI_Wtime(), dt;
    MPI_Send(buf, (int)bytes, MPI_BYTE, b, TAG_MSG, comm);
    MPI_Recv(buf, (int)bytes, MPI_BYTE, b, TAG_MSG, comm, MPI_STATUS_IGNORE);
    dt = (MPI_Wtime() - t0) / 2;
    if (rep >= 0) { /* rep -1: the warm-up (first touch of the buffers, connection set-up) */
      int kept = 0;
      double sum = 0, sum2 = 0, mean, ci;
      t[n++] = dt;
      if (prec->keep_outliers || fupermod_outliers_floor(t, n, FUPERMOD_BENCH_OUTLIER_K, FUPERMOD_BENCH_OUTLIER_FLOOR, keep) < 0)
        for (int i = 0; i < n; i++) keep[i] = 1;
      for (int i = 0; i < n; i++)
        if (keep[i]) kept++, sum += t[i], sum2 += t[i] * t[i];
      mean = sum / kept;
      ci = kept > 1 ? fupermod_student_ci(kept, sqrt(fmax(0.0, (sum2 - kept * mean * mean) / (kept - 1))), prec->cl) : 0;
      /* precision from the kept round trips, the limits on every one */
      go = n < prec->reps_max && !fupermod_precision_done(prec, kept, mean, ci, MPI_Wtime() - start);
      pt->bytes = (double)bytes, pt->t = mean, pt->ci = ci, pt->reps = n;
    }
    MPI_Send(&go, 1, MPI_INT, b, TAG_GO, comm);
  }
}

/* the pairs of round r of a round-robin tournament of q (even) players: pair k = (a[k], b[k]) */
static void round_pairs(int q, int r, int *a, int *b) {
  a[0] = q - 1, b[0] = r;
  for (int k = 1; k < q / 2; k++) a[k] = (r + k) % (q - 1), b[k] = (r - k + q - 1) % (q - 1);
}

int fupermod_comm_measure(MPI_Comm comm, const long *sizes, int nsizes, const fupermod_precision *prec,
                          fupermod_comm *c, fupermod_comm_round_fn each, void *ctx) {
  int p, me, q, rounds, rc = FUPERMOD_SUCCESS, *todo = NULL, *pa = NULL, *pb = NULL, *keep = NULL;
  MPI_Comm work = MPI_COMM_NULL;
  char *buf = NULL;
  double *row = NULL, *times = NULL;
  MPI_Comm_size(comm, &p);
  MPI_Comm_rank(comm, &me);
  if (!c || c->p != p || !sizes || nsizes < 1)
    return fupermod_error(FUPERMOD_ERR_USAGE, "comm measure: a model of %d processes for a communicator of %d, %d sizes",
                          c ? c->p : 0, p, nsizes);
  for (int k = 0; k < nsizes; k++)
    if (sizes[k] < 1 || sizes[k] > (1L << 30) || (k && sizes[k] <= sizes[k - 1]))
      return fupermod_error(FUPERMOD_ERR_USAGE, "comm measure: message size %ld: sizes must increase, from 1 byte to 1 GiB",
                            sizes[k]);
  if ((rc = fupermod_precision_check(prec)) != FUPERMOD_SUCCESS) return rc;
  q = p % 2 ? p + 1 : p; /* an odd count plays with a rest in every round */
  rounds = q - 1;
  todo = calloc((size_t)p * (size_t)p, sizeof *todo);
  pa = malloc((size_t)q * sizeof *pa), pb = malloc((size_t)q * sizeof *pb);
  buf = malloc((size_t)sizes[nsizes - 1]);
  row = malloc((size_t)nsizes * 4 * sizeof *row);
  times = malloc((size_t)prec->reps_max * sizeof *times);
  keep = malloc((size_t)prec->reps_max * sizeof *keep);
  if (!todo || !pa || !pb || !buf || !row || !times || !keep) rc = fupermod_error(FUPERMOD_ERR_NOMEM, "comm measure: out of memory");
  MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MAX, comm);
  if (rc != FUPERMOD_SUCCESS) goto done;
  memset(buf, 0, (size_t)sizes[nsizes - 1]);
  /* rank 0's model says which links are measured already */
  for (int i = 0; i < p; i++)
    for (int j = i + 1; j < p; j++) todo[i * p + j] = c->links[i * p + j].n == 0;
  MPI_Bcast(todo, p * p, MPI_INT, 0, comm);
  MPI_Comm_dup(comm, &work);
  for (int r = 0; r < rounds && rc == FUPERMOD_SUCCESS; r++) {
    round_pairs(q, r, pa, pb);
    MPI_Barrier(work); /* the pairs of a round, and only they, overlap */
    for (int k = 0; k < q / 2; k++) {
      int a = pa[k] < pb[k] ? pa[k] : pb[k], b = pa[k] < pb[k] ? pb[k] : pa[k];
      if (b >= p || !todo[a * p + b] || (me != a && me != b)) continue;
      for (int s = 0; s < nsizes; s++) {
        fupermod_comm_point pt = {0, 0, 0, 0};
        pingpong(work, me, a, b, buf, sizes[s], prec, times, keep, &pt);
        if (me == a) row[4 * s] = pt.bytes, row[4 * s + 1] = pt.t, row[4 * s + 2] = pt.ci, row[4 * s + 3] = pt.reps;
      }
      if (me == a && a != 0) MPI_Send(row, 4 * nsizes, MPI_DOUBLE, 0, TAG_PTS, work);
    }
    /* rank 0 gathers the round's links */
    if (me == 0)
      for (int k = 0; k < q / 2 && rc == FUPERMOD_SUCCESS; k++) {
        int a = pa[k] < pb[k] ? pa[k] : pb[k], b = pa[k] < pb[k] ? pb[k] : pa[k];
        fupermod_comm_link *l;
        if (b >= p || !todo[a * p + b]) continue;
        l = &c->links[a * p + b];
        if (a != 0) MPI_Recv(row, 4 * nsizes, MPI_DOUBLE, a, TAG_PTS, work, MPI_STATUS_IGNORE);
        if (!(l->pts = malloc((size_t)nsizes * sizeof *l->pts))) {
          rc = fupermod_error(FUPERMOD_ERR_NOMEM, "comm measure: out of memory");
          break;
        }
        l->n = nsizes;
        for (int s = 0; s < nsizes; s++)
          l->pts[s] = (fupermod_comm_point){row[4 * s], row[4 * s + 1], row[4 * s + 2], (int)row[4 * s + 3]};
        fupermod_comm_fit(l);
      }
    if (me == 0 && rc == FUPERMOD_SUCCESS && each) rc = each(c, r + 1, rounds, ctx);
    MPI_Bcast(&rc, 1, MPI_INT, 0, work);
  }
  /* every rank gets rank 0's model */
  for (int i = 0; i < p && rc == FUPERMOD_SUCCESS; i++)
    for (int j = i + 1; j < p && rc == FUPERMOD_SUCCESS; j++) {
      fupermod_comm_link *l = &c->links[i * p + j];
      int n = l->n;
      MPI_Bcast(&n, 1, MPI_INT, 0, work);
      if (me != 0) {
        free(l->pts);
        l->pts = n ? malloc((size_t)n * sizeof *l->pts) : NULL;
        l->n = l->pts ? n : 0;
      }
      MPI_Bcast(l->pts, (int)(l->n * sizeof *l->pts), MPI_BYTE, 0, work);
      fupermod_comm_fit(l);
    }
done:
  if (work != MPI_COMM_NULL) MPI_Comm_free(&work);
  free(todo), free(pa), free(pb), free(buf), free(row), free(times), free(keep);
  return rc;
}

int fupermod_comm_save(const fupermod_comm *c, const char *path, const char *const *names, const long *sizes,
                       int nsizes) {
  fupermod_atomic_file af;
  FILE *fp;
  int rc;
  /* a whole file or the old one, even when the job is killed while writing */
  if ((rc = fupermod_atomic_open(&af, path)) != FUPERMOD_SUCCESS) return rc;
  fp = af.fp;
  fprintf(fp, "# fupermod comm v1: one-way message time between processes (half a ping-pong round trip)\n");
  fprintf(fp, "processes");
  for (int i = 0; i < c->p; i++) fprintf(fp, " %s", names && names[i] ? names[i] : "?");
  fprintf(fp, "\nsizes");
  for (int k = 0; k < nsizes; k++) fprintf(fp, " %ld", sizes[k]);
  fprintf(fp, "\n# i j bytes t reps ci  (ranks, bytes, s, count, s)\n");
  for (int i = 0; i < c->p; i++)
    for (int j = i + 1; j < c->p; j++) {
      const fupermod_comm_link *l = &c->links[i * c->p + j];
      for (int k = 0; k < l->n; k++)
        fprintf(fp, "%d %d %.0f %.10g %d %.4g\n", i, j, l->pts[k].bytes, l->pts[k].t, l->pts[k].reps, l->pts[k].ci);
    }
  return fupermod_atomic_commit(&af);
}

static void free_names(char **names) {
  for (int i = 0; names && names[i]; i++) free(names[i]);
  free(names);
}

/* one data line "i j bytes t reps ci" into c */
static int data_line(fupermod_comm *c, char **f, int nf, const char *path, int lineno) {
  long i, j, reps;
  double bytes, t, ci;
  fupermod_comm_link *l;
  fupermod_comm_point *np;
  if (nf != 6 || fupermod_parse_long(f[0], &i) || fupermod_parse_long(f[1], &j) || fupermod_parse_double(f[2], &bytes) ||
      fupermod_parse_double(f[3], &t) || fupermod_parse_long(f[4], &reps) || fupermod_parse_double(f[5], &ci))
    return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: expected 'i j bytes t reps ci'", path, lineno);
  if (i < 0 || j <= i || j >= c->p || !(bytes >= 1) || !(t > 0) || reps < 1 || !(ci >= 0))
    return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: bad link %ld %ld or values (need 0 <= i < j < %d, bytes >= 1, t > 0, "
                          "reps >= 1, ci >= 0)", path, lineno, i, j, c->p);
  l = &c->links[i * c->p + j];
  if (l->n > 0 && bytes <= l->pts[l->n - 1].bytes)
    return fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: link %ld %ld: sizes must increase", path, lineno, i, j);
  if (!(np = realloc(l->pts, (size_t)(l->n + 1) * sizeof *np))) return fupermod_error(FUPERMOD_ERR_NOMEM, "%s: out of memory", path);
  l->pts = np;
  l->pts[l->n++] = (fupermod_comm_point){bytes, t, ci, (int)reps};
  return FUPERMOD_SUCCESS;
}

int fupermod_comm_load(const char *path, fupermod_comm *c, char ***names, long **sizes, int *nsizes) {
  static const char magic[] = "# fupermod comm v1";
  char *text = NULL, *line, **f = NULL, **nm = NULL;
  size_t len = 0;
  long *sz = NULL;
  int ns = 0, rc, maxf = 1 << 16;
  fupermod_lines r;
  memset(c, 0, sizeof *c);
  if ((rc = fupermod_read_file(path, &text, &len)) != FUPERMOD_SUCCESS) return rc;
  if (len < sizeof magic - 1 || memcmp(text, magic, sizeof magic - 1) != 0) {
    free(text);
    return fupermod_error(FUPERMOD_ERR_INPUT, "%s:1: not a fupermod comm v1 file", path);
  }
  if (!(f = malloc((size_t)(maxf + 1) * sizeof *f))) {
    free(text);
    return fupermod_error(FUPERMOD_ERR_NOMEM, "%s: out of memory", path);
  }
  fupermod_lines_init(&r, text, len, path);
  while ((rc = fupermod_lines_next(&r, &line)) == FUPERMOD_SUCCESS && line) {
    int nf = fupermod_lines_fields(line, f, maxf);
    if (nf > maxf) rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: more than %d fields", path, r.line, maxf);
    else if (!strcmp(f[0], "processes")) {
      if (c->links || nf < 2) {
        rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: 'processes' needs the names, once", path, r.line);
      } else if ((rc = fupermod_comm_init(c, nf - 1)) == FUPERMOD_SUCCESS) {
        if (!(nm = calloc((size_t)nf, sizeof *nm))) rc = fupermod_error(FUPERMOD_ERR_NOMEM, "%s: out of memory", path);
        for (int i = 1; rc == FUPERMOD_SUCCESS && i < nf; i++)
          if (!(nm[i - 1] = strdup(f[i]))) rc = fupermod_error(FUPERMOD_ERR_NOMEM, "%s: out of memory", path);
      }
    } else if (!strcmp(f[0], "sizes")) {
      if (sz || nf < 2) rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: 'sizes' needs the sizes, once", path, r.line);
      else if (!(sz = malloc((size_t)(nf - 1) * sizeof *sz))) rc = fupermod_error(FUPERMOD_ERR_NOMEM, "%s: out of memory", path);
      for (int k = 1; rc == FUPERMOD_SUCCESS && k < nf; k++)
        if (fupermod_parse_long(f[k], &sz[k - 1]) || sz[k - 1] < 1 || (k > 1 && sz[k - 1] <= sz[k - 2]))
          rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: size '%s': sizes are increasing byte counts", path, r.line, f[k]);
      ns = nf - 1;
    } else if (!c->links || !sz) {
      rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: a data line before the 'processes' and 'sizes' lines", path, r.line);
    } else
      rc = data_line(c, f, nf, path, r.line);
    if (rc != FUPERMOD_SUCCESS) break;
  }
  fupermod_lines_free(&r);
  free(f);
  free(text);
  if (rc == FUPERMOD_SUCCESS && (!c->links || !sz))
    rc = fupermod_error(FUPERMOD_ERR_INPUT, "%s: no 'processes' or 'sizes' line", path);
  if (rc == FUPERMOD_SUCCESS)
    for (int k = 0; k < c->p * c->p; k++) fupermod_comm_fit(&c->links[k]);
  if (rc != FUPERMOD_SUCCESS) {
    fupermod_comm_free(c);
    free_names(nm);
    free(sz);
    return rc;
  }
  if (names) *names = nm;
  else free_names(nm);
  if (sizes) *sizes = sz;
  else free(sz);
  if (nsizes) *nsizes = ns;
  return FUPERMOD_SUCCESS;
}

/* ---- several messages at once between hosts ---- */

/* The tournament's round r of H (even: a dummy host added to an odd count): host a meets
 * partner(a), or -1 for a bye. */
static int partner(int a, int r, int H) {
  int n = H % 2 ? H + 1 : H, q;
  if (a == n - 1) q = r;
  else if (a == r) q = n - 1;
  else q = (2 * r - a + 2 * (n - 1)) % (n - 1);
  return q >= H ? -1 : q;
}

static int cmp_double_asc(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return a < b ? -1 : a > b;
}

int fupermod_comm_share_measure(MPI_Comm comm, const int *host, const fupermod_comm *c, long bytes, int reps,
                                double *share) {
  int p, me, H = 0, rc = FUPERMOD_SUCCESS, npairs = 0;
  int *nth = NULL, *count = NULL, **members = NULL;
  double *send = NULL, *recv = NULL, *pair_share = NULL, *tries = NULL;
  MPI_Request req;
  if (!host || !c || !share || bytes < 8 || reps < 1)
    return fupermod_error(FUPERMOD_ERR_USAGE, "comm share: NULL argument, bytes < 8 or reps < 1");
  MPI_Comm_size(comm, &p);
  MPI_Comm_rank(comm, &me);
  *share = 0;
  if (c->p != p) return fupermod_error(FUPERMOD_ERR_USAGE, "comm share: links of %d processes for %d", c->p, p);
  for (int r = 0; r < p; r++) {
    if (host[r] < 0) return fupermod_error(FUPERMOD_ERR_USAGE, "comm share: rank %d's host %d", r, host[r]);
    if (host[r] >= H) H = host[r] + 1;
  }
  if (H < 2) return FUPERMOD_SUCCESS;
  nth = calloc((size_t)p, sizeof *nth);
  count = calloc((size_t)H, sizeof *count);
  members = calloc((size_t)H, sizeof *members);
  send = malloc((size_t)bytes), recv = malloc((size_t)bytes);
  pair_share = calloc((size_t)H * H, sizeof *pair_share);
  tries = calloc((size_t)reps, sizeof *tries);
  if (!nth || !count || !members || !send || !recv || !pair_share || !tries) rc = FUPERMOD_ERR_NOMEM;
  for (int r = 0; rc == FUPERMOD_SUCCESS && r < p; r++) nth[r] = count[host[r]]++;
  for (int h = 0; rc == FUPERMOD_SUCCESS && h < H; h++)
    if (!(members[h] = malloc((size_t)(count[h] ? count[h] : 1) * sizeof **members))) rc = FUPERMOD_ERR_NOMEM;
  for (int r = 0; rc == FUPERMOD_SUCCESS && r < p; r++) members[host[r]][nth[r]] = r;
  if (rc == FUPERMOD_SUCCESS) memset(send, 1, (size_t)bytes);
  /* every rank agrees on failure before any message */
  {
    int all = rc;
    MPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MIN, comm);
    if (all != FUPERMOD_SUCCESS) {
      rc = fupermod_error(FUPERMOD_ERR_NOMEM, "comm share: out of memory");
      goto done;
    }
  }
  for (int round = 0; round < (H % 2 ? H : H - 1); round++) {
    int a = host[me], b = partner(a, round, H), nb = b >= 0 ? count[b] : 0;
    /* my message goes to the process of the other host at my place there (modulo), and I take
     * one from each of its processes whose place lands on me */
    int to = b >= 0 ? members[b][nth[me] % nb] : -1;
    for (int k = -1; k < reps; k++) {
      double t0, t, tmax;
      MPI_Barrier(comm);
      t0 = MPI_Wtime();
      if (to >= 0) {
        MPI_Isend(send, (int)bytes, MPI_BYTE, to, 77, comm, &req);
        for (int j = 0; j < nb; j++) {
          int from = members[b][j];
          if (j % count[a] != nth[me]) continue;
          MPI_Recv(recv, (int)bytes, MPI_BYTE, from, 77, comm, MPI_STATUS_IGNORE);
        }
        MPI_Wait(&req, MPI_STATUS_IGNORE);
      }
      t = MPI_Wtime() - t0;
      /* the pair's time: until the last message of either host arrived */
      MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, comm);
      if (k >= 0) tries[k] = tmax;
    }
    /* the pair's median time, kept by its lower host's first process (gathered below) */
    if (to >= 0 && a < b && nth[me] == 0) {
      qsort(tries, (size_t)reps, sizeof *tries, cmp_double_asc);
      pair_share[a * H + b] = tries[reps / 2];
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, pair_share, H * H, MPI_DOUBLE, MPI_MAX, comm);
  /* over the messages' times one at a time, where this rank's c holds their links */
  for (int a = 0; a < H; a++)
    for (int b = a + 1; b < H; b++) {
      double sum = 0, t;
      int bad = 0;
      for (int i = 0; i < count[a]; i++)
        bad |= (t = fupermod_comm_time(c, members[a][i], members[b][i % count[b]], (double)bytes)) <= 0, sum += t;
      for (int j = 0; j < count[b]; j++)
        bad |= (t = fupermod_comm_time(c, members[b][j], members[a][j % count[a]], (double)bytes)) <= 0, sum += t;
      if (!bad && count[a] && count[b] && pair_share[a * H + b] > 0) pair_share[npairs++] = pair_share[a * H + b] / sum;
    }
  if (npairs > 0) {
    qsort(pair_share, (size_t)npairs, sizeof *pair_share, cmp_double_asc);
    *share = npairs % 2 ? pair_share[npairs / 2] : 0.5 * (pair_share[npairs / 2 - 1] + pair_share[npairs / 2]);
  }
done:
  for (int h = 0; members && h < H; h++) free(members[h]);
  free(members), free(count), free(nth), free(send), free(recv), free(pair_share), free(tries);
  return rc;
}
