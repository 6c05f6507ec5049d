/* fupermod build --additivity: does a node's dynamic energy add up over its processes? At each
 * combination of sizes, every process of a node runs its size alone (the others idle) and then
 * all run together; a meter of the whole node measures both. The additivity error is
 * (E_together - sum of E_alone) / sum of E_alone, with its confidence half-width. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tools/build_common.h"

static int add_combo(const char *item, void *ctx) {
  tool_combos *c = ctx;
  long *v = NULL;
  int n = 0;
  const char *s = item;
  for (;;) {
    char buf[32], *end;
    size_t len = strcspn(s, ":");
    long d;
    if (len == 0 || len >= sizeof buf) {
      free(v);
      return fupermod_error(FUPERMOD_ERR_USAGE, "--additivity: '%s' is not a size or sizes d0:d1:...", item);
    }
    memcpy(buf, s, len);
    buf[len] = '\0';
    d = strtol(buf, &end, 10);
    if (*end || d < 1 || d > 1000000000L) {
      free(v);
      return fupermod_error(FUPERMOD_ERR_USAGE, "--additivity: '%s' in '%s' is not a size >= 1", buf, item);
    }
    long *nv = realloc(v, (size_t)(n + 1) * sizeof *v);
    if (!nv) {
      free(v);
      return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
    }
    v = nv;
    v[n++] = d;
    if (!s[len]) break;
    s += len + 1;
  }
  tool_combo *nc = realloc(c->c, (size_t)(c->n + 1) * sizeof *nc);
  if (!nc) {
    free(v);
    return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  }
  c->c = nc;
  c->c[c->n].d = v;
  c->c[c->n].n = n;
  c->n++;
  return FUPERMOD_SUCCESS;
}

int tool_combos_parse(const char *spec, tool_combos *out) {
  memset(out, 0, sizeof *out);
  return tool_list("--additivity", spec, 4096, add_combo, out);
}

void tool_combos_free(tool_combos *c) {
  for (int i = 0; i < c->n; i++) free(c->c[i].d);
  free(c->c);
  memset(c, 0, sizeof *c);
}

/* A barrier whose waiters sleep: an idle process must not load the node it leaves to another. */
static void quiet_barrier(MPI_Comm comm) {
  MPI_Request req;
  MPI_Ibarrier(comm, &req);
  fupermod_mpi_wait_idle(&req, 20000);
}

typedef struct {
  double sum, sq;
  int n;
} sample;

static double sample_mean(const sample *s) { return s->n ? s->sum / s->n : NAN; }
static double sample_ci(const sample *s, double cl) {
  double m = sample_mean(s), var = s->n > 1 ? (s->sq - s->n * m * m) / (s->n - 1) : 0.0;
  return fupermod_student_ci(s->n, sqrt(var > 0 ? var : 0.0), cl);
}

/* Repetitions of one phase on this node until its dynamic energy is precise: the leader reads
 * the node meter around them (static power subtracted); runner >= 0: only that intra-node rank
 * runs, -1: all. Collective over the node. */
static int measure(tool_proc *tp, fupermod_kernel *k, long d, int runner, const fupermod_precision *prec, sample *out) {
  int r, rc = FUPERMOD_SUCCESS, more = 1;
  double t0 = fupermod_time();
  MPI_Comm_rank(tp->intra, &r);
  memset(out, 0, sizeof *out);
  while (more) {
    double j = 0, s = 0;
    int lrc = FUPERMOD_SUCCESS, all;
    if (r == 0) lrc = fupermod_meter_start(tp->meter);
    quiet_barrier(tp->intra);
    if (lrc == FUPERMOD_SUCCESS && (runner < 0 || runner == r)) {
      lrc = k->ops->execute(k->ctx);
      if (lrc == FUPERMOD_SUCCESS) lrc = fupermod_meter_note_run(tp->meter, d);
    }
    quiet_barrier(tp->intra);
    if (r == 0 && lrc == FUPERMOD_SUCCESS && (lrc = fupermod_meter_stop(tp->meter, &j, &s)) == FUPERMOD_SUCCESS) {
      double e = j - tp->static_power * s;
      out->sum += e;
      out->sq += e * e;
      out->n++;
      more = !fupermod_precision_done(prec, out->n, fabs(sample_mean(out)), sample_ci(out, prec->cl),
                                      fupermod_time() - t0);
    }
    MPI_Allreduce(&lrc, &all, 1, MPI_INT, MPI_MIN, tp->intra);
    if (all != FUPERMOD_SUCCESS) return lrc != FUPERMOD_SUCCESS ? lrc : fupermod_error(all, "a process of the node failed");
    MPI_Bcast(&more, 1, MPI_INT, 0, tp->intra);
  }
  return rc;
}

/* Every process of the node must read one meter of the whole node. */
static int check_meter(const char *sub, const char *confpath, tool_proc *tp) {
  const fupermod_process_conf *pc = &tp->conf.procs[tp->index];
  const char *dom = tp->meter ? fupermod_meter_domain(tp->meter) : NULL, *why = NULL;
  char mine[512] = "", lead[512] = "";
  int bad, anybad;
  if (!tp->meter) why = "has no meter (meter=command, or an emulated node meter: meter=emulated,meter_node=NAME)";
  else if (fupermod_meter_is_estimate(tp->meter))
    why = "has the model meter, power x time: an estimate that adds up by construction";
  else if (fupermod_meter_is_external(tp->meter))
    why = "has the external meter, whose energies come only after the job (fupermod energy import)";
  else if (!dom)
    why = "has a meter of its own process or device only, not of the whole node";
  if (dom) snprintf(mine, sizeof mine, "%s", dom);
  memcpy(lead, mine, sizeof lead);
  MPI_Bcast(lead, sizeof lead, MPI_CHAR, 0, tp->intra);
  if (!why && strcmp(lead, mine) != 0) why = "reads another meter than the node's first process";
  bad = why != NULL;
  MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (!anybad) return FUPERMOD_SUCCESS;
  return tool_agree(sub, why ? fupermod_error(FUPERMOD_ERR_INPUT, "%s:%d: --additivity compares a node's energy with the "
                                              "sum of its processes' and needs one meter of the whole node, read by "
                                              "all of them: this line %s", confpath, pc->line, why)
                             : FUPERMOD_ERR_INPUT,
                    MPI_COMM_WORLD);
}

int tool_additivity(const char *sub, const char *confpath, tool_proc *tp, const tool_combos *combos,
                    const fupermod_precision *prec, const char *dir, int quiet) {
  int rank, size, r, nr, rc;
  fupermod_kernel *k = tp->kernel;
  FILE *csv = NULL, *alone_csv = NULL;
  char host[MPI_MAX_PROCESSOR_NAME] = "", path[4200];
  double emin = INFINITY, emax = 0, esum = 0;
  int ecount = 0, additive = 0;
  MPI_Comm leaders = MPI_COMM_NULL;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_rank(tp->intra, &r);
  MPI_Comm_size(tp->intra, &nr);
  {
    int len;
    MPI_Get_processor_name(host, &len);
  }
  if ((rc = check_meter(sub, confpath, tp)) != FUPERMOD_SUCCESS) return rc;
  rc = FUPERMOD_SUCCESS;
  for (int c = 0; c < combos->n && rc == FUPERMOD_SUCCESS; c++)
    if (combos->c[c].n != 1 && combos->c[c].n != size)
      rc = fupermod_error(FUPERMOD_ERR_USAGE, "--additivity: combination %d has %d sizes for %d processes (give one size "
                          "for all, or one per process in rank order)", c + 1, combos->c[c].n, size);
  if ((rc = tool_agree(sub, rc, MPI_COMM_WORLD)) != FUPERMOD_SUCCESS) return rc;
  MPI_Comm_split(MPI_COMM_WORLD, r == 0 ? 0 : MPI_UNDEFINED, rank, &leaders);
  if (rank == 0) {
    snprintf(path, sizeof path, "%s/additivity.csv", dir);
    if (!(csv = fopen(path, "w")))
      rc = fupermod_error(FUPERMOD_ERR_SYSTEM, "%s: cannot write", path);
    snprintf(path, sizeof path, "%s/additivity-alone.csv", dir);
    if (rc == FUPERMOD_SUCCESS && !(alone_csv = fopen(path, "w")))
      rc = fupermod_error(FUPERMOD_ERR_SYSTEM, "%s: cannot write", path);
    if (rc == FUPERMOD_SUCCESS) {
      fprintf(csv, "host,combination,sizes,sum_alone,sum_alone_ci,together,together_ci,error,error_ci,additive\n");
      fprintf(alone_csv, "host,combination,rank,d,energy,energy_ci,reps\n");
      printf("# additivity: dynamic energy (J) of each node's processes alone and together, meter %s, static power "
             "%g W\n# %-14s %4s  %-20s %12s %10s %12s %10s %9s %9s %s\n", fupermod_meter_describe(tp->meter),
             tp->static_power, "host", "comb", "sizes", "sum alone", "+-", "together", "+-", "error", "+-", "additive");
    }
  }
  if ((rc = tool_agree(sub, rc, MPI_COMM_WORLD)) != FUPERMOD_SUCCESS) goto done;
  for (int c = 0; c < combos->n && rc == FUPERMOD_SUCCESS; c++) {
    long d = combos->c[c].n == 1 ? combos->c[c].d[0] : combos->c[c].d[rank];
    sample *alone = calloc((size_t)nr, sizeof *alone), together;
    double row[6], *rows = NULL;
    long *sizes = malloc((size_t)nr * sizeof *sizes);
    int nnodes = 0, mine_rank = rank;
    if (!alone || !sizes) rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
    if (rc == FUPERMOD_SUCCESS) rc = k->ops->initialize(d, k->ctx);
    if ((rc = tool_agree(sub, rc, MPI_COMM_WORLD)) != FUPERMOD_SUCCESS) {
      free(alone), free(sizes);
      break;
    }
    if (rank == 0 && !quiet) fprintf(stderr, "fupermod %s: additivity: combination %d of %d\n", sub, c + 1, combos->n);
    for (int i = 0; i < nr && rc == FUPERMOD_SUCCESS; i++) rc = measure(tp, k, d, i, prec, &alone[i]);
    if (rc == FUPERMOD_SUCCESS) rc = measure(tp, k, d, -1, prec, &together);
    k->ops->finalize(k->ctx);
    if ((rc = tool_agree(sub, rc, MPI_COMM_WORLD)) != FUPERMOD_SUCCESS) {
      free(alone), free(sizes);
      break;
    }
    MPI_Gather(&d, 1, MPI_LONG, sizes, 1, MPI_LONG, 0, tp->intra);
    {
      int *wr = malloc((size_t)nr * sizeof *wr);
      MPI_Gather(&mine_rank, 1, MPI_INT, wr, 1, MPI_INT, 0, tp->intra);
      /* the node leaders send their node's results to rank 0, which writes them */
      if (r == 0) {
        double s = 0, sci2 = 0, e, eci;
        for (int i = 0; i < nr; i++) {
          double ci = sample_ci(&alone[i], prec->cl);
          s += sample_mean(&alone[i]);
          sci2 += ci * ci;
        }
        e = (sample_mean(&together) - s) / s;
        eci = sqrt(sci2 + pow(sample_ci(&together, prec->cl), 2)) / fabs(s);
        row[0] = s, row[1] = sqrt(sci2), row[2] = sample_mean(&together), row[3] = sample_ci(&together, prec->cl);
        row[4] = e, row[5] = eci;
        MPI_Comm_size(leaders, &nnodes);
        if (rank == 0) {
          rows = malloc((size_t)nnodes * 6 * sizeof *rows);
        }
        MPI_Gather(row, 6, MPI_DOUBLE, rows, 6, MPI_DOUBLE, 0, leaders);
        {
          /* per process of the node: world rank, size, alone mean and half-width, repetitions */
          double *mine = malloc((size_t)size * 5 * sizeof *mine), *all = NULL;
          int *cnt = NULL, *off = NULL, n5 = nr * 5;
          char *hosts = NULL;
          for (int i = 0; i < nr; i++) {
            mine[5 * i] = wr[i], mine[5 * i + 1] = (double)sizes[i], mine[5 * i + 2] = sample_mean(&alone[i]);
            mine[5 * i + 3] = sample_ci(&alone[i], prec->cl), mine[5 * i + 4] = alone[i].n;
          }
          if (rank == 0) {
            cnt = malloc((size_t)nnodes * sizeof *cnt);
            off = malloc((size_t)nnodes * sizeof *off);
            hosts = malloc((size_t)nnodes * MPI_MAX_PROCESSOR_NAME);
          }
          MPI_Gather(&n5, 1, MPI_INT, cnt, 1, MPI_INT, 0, leaders);
          MPI_Gather(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, hosts, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, leaders);
          if (rank == 0) {
            int tot = 0;
            for (int q = 0; q < nnodes; q++) off[q] = tot, tot += cnt[q];
            all = malloc((size_t)(tot ? tot : 1) * sizeof *all);
          }
          MPI_Gatherv(mine, n5, MPI_DOUBLE, all, cnt, off, MPI_DOUBLE, 0, leaders);
          if (rank == 0) {
            for (int q = 0; q < nnodes; q++) {
              const double *w = rows + 6 * q;
              const char *h = hosts + (size_t)q * MPI_MAX_PROCESSOR_NAME;
              char sz[256] = "";
              int in = fabs(w[4]) <= w[5];
              for (int i = 0; i < cnt[q] / 5; i++) {
                const double *a = all + off[q] + 5 * i;
                snprintf(sz + strlen(sz), sizeof sz - strlen(sz), "%s%.0f", i ? ":" : "", a[1]);
                fprintf(alone_csv, "%s,%d,%.0f,%.0f,%.9g,%.9g,%.0f\n", h, c + 1, a[0], a[1], a[2], a[3], a[4]);
              }
              fprintf(csv, "%s,%d,%s,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%d\n", h, c + 1, sz, w[0], w[1], w[2], w[3], w[4],
                      w[5], in);
              printf("  %-14s %4d  %-20s %12.6g %10.3g %12.6g %10.3g %8.2f%% %8.2f%% %s\n", h, c + 1, sz, w[0], w[1],
                     w[2], w[3], 100 * w[4], 100 * w[5], in ? "yes" : "no");
              if (fabs(w[4]) < emin) emin = fabs(w[4]);
              if (fabs(w[4]) > emax) emax = fabs(w[4]);
              esum += fabs(w[4]);
              ecount++;
              additive += in;
            }
          }
          free(mine), free(all), free(cnt), free(off), free(hosts);
        }
      }
      free(wr);
    }
    free(alone), free(sizes), free(rows);
    if (rank == 0) fflush(csv), fflush(alone_csv); /* what was measured is kept if the job is stopped */
    MPI_Barrier(MPI_COMM_WORLD);
  }
  if (rank == 0 && rc == FUPERMOD_SUCCESS && ecount > 0)
    printf("# additivity error |E_together - sum E_alone| / sum E_alone over %d result%s (nodes x combinations): min "
           "%.2f %%, average %.2f %%, max %.2f %%; additive within confidence in %d (%s/additivity.csv)\n",
           ecount, ecount == 1 ? "" : "s", 100 * emin, 100 * esum / ecount, 100 * emax, additive, dir);
done:
  if (csv && fclose(csv) != 0 && rc == FUPERMOD_SUCCESS) rc = fupermod_error(FUPERMOD_ERR_SYSTEM, "%s/additivity.csv: write failed", dir);
  if (alone_csv && fclose(alone_csv) != 0 && rc == FUPERMOD_SUCCESS)
    rc = fupermod_error(FUPERMOD_ERR_SYSTEM, "%s/additivity-alone.csv: write failed", dir);
  if (leaders != MPI_COMM_NULL) MPI_Comm_free(&leaders);
  return tool_agree(sub, rc, MPI_COMM_WORLD);
}
