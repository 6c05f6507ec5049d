/* fupermod run's report: per application, the table of its distributions (predicted and measured
 * time and energy), the per-process comparison on the chosen one, CSV files and gnuplot plots. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "tools/run_report.h"

/* Why processes are idle, and which shares rest on an uncalibrated model (fupermod/calib.h): a
 * model that scatters too much is flagged once, one without sizes near a share at that share. */
static void run_notes(const run_t *runs, int nruns, const fupermod_points *measured, int size) {
  char why[512];
  int any = 0;
  /* repetitions the benchmark rejected as outlying: the models rest on the others */
  for (int i = 0; i < size; i++) {
    int rej = 0, sizes = 0;
    for (int k = 0; k < measured[i].count; k++) {
      rej += measured[i].pts[k].rejected;
      sizes += measured[i].pts[k].rejected > 0;
    }
    if (!rej) continue;
    printf("%s process %d: %d in %d size%s", any ? "," : "   outlying benchmark repetitions rejected from the models:", i,
           rej, sizes, sizes == 1 ? "" : "s");
    any = 1;
  }
  if (any) printf(" (docs/models.md; --keep-outliers keeps them)\n");
  for (int i = 0; i < size; i++) {
    fupermod_calib c;
    if (fupermod_calib_check(&measured[i], 0, &c) == FUPERMOD_SUCCESS && !c.calibrated)
      printf("   warning: process %d's model is not calibrated: %s; its predictions are uncertain at every share\n", i,
             c.why);
  }
  for (int k = 0; k < nruns; k++) {
    const run_t *r = &runs[k];
    /* the energy distribution and the Pareto choice give processes 0 to save energy */
    int energy = strcmp(r->label, "paraleph-energy") == 0 || strcmp(r->label, "pareto-choice") == 0;
    for (int i = 0; i < size; i++) {
      fupermod_calib whole, c;
      if (r->dist->parts[i].d == 0) {
        if (fupermod_dist_idle_reason(r->dist, i, &measured[i], energy, why, sizeof why) == FUPERMOD_SUCCESS)
          printf("   %s: process %d idle: %s\n", r->label, i, why);
      } else if (fupermod_calib_check(&measured[i], 0, &whole) == FUPERMOD_SUCCESS && whole.calibrated &&
                 fupermod_calib_check(&measured[i], r->dist->parts[i].d, &c) == FUPERMOD_SUCCESS && !c.calibrated)
        printf("   warning: %s: process %d's model is not calibrated at d=%ld: %s\n", r->label, i, r->dist->parts[i].d,
               c.why);
    }
  }
}

/* Process i's predicted and measured compute times agree: their confidence intervals overlap. */
static int run_agrees(const run_t *r, int i, const app_t *a) {
  double pt = r->dist->parts[i].t * a->iters, mt = r->meas_proc[i];
  return fabs(pt - mt) <= r->pred_ci[i] + r->meas_ci[i] + 1e-12;
}

/* The grid's step where it was refined for a slow device (docs/models.md): the gcd of the sizes. */
static long grid_step(const run_report *r) {
  long step = r->a->g;
  for (int i = 0; i < r->size; i++)
    for (int k = 0; k < r->measured[i].count; k++)
      for (long x = r->measured[i].pts[k].d; x > 0;) {
        long rest = step % x; /* Euclid: step = gcd(step, d) */
        step = x, x = rest;
      }
  return step;
}

/* The application, then a line per distribution: time, energy, savings against the even one. */
static void print_distributions(const run_report *r) {
  const app_t *a = r->a;
  const run_t *even = &r->runs[r->nruns - 1];
  int has_e = r->f[0].has_energy;
  long step = grid_step(r);
  printf("\n== %s: %s n=%ld%s, D=%ld units (grid %ld, %ld, ..., %ld", a->name,
         a->ops ? a->ops->description : a->b ? "SUMMA DGEMM" : "2D-FFT", a->n, tool_app_fft(a) ? " x n" : "", a->D, a->g,
         2 * a->g, a->D);
  if (step < a->g) printf(", refined to steps of %ld for a slow device", step);
  printf("), %d processes\n", r->size);
  printf("   kernel %s; each process computes with the threads of its line (thr below), as its model was measured\n",
         a->kernel);
  if (tool_app_dgemm(a)) {
    printf("   d: blocks of C in whole rectangles (BR layout); the time-optimal distributions' sizes fitted\n"
           "   to the models for their arrangement; square-corner: the time-optimal areas as squares on the\n"
           "   diagonal for the slower processes and the rest for the fastest, the sides fitted (docs/matrix.md)\n");
  }
  if (r->tp->label[0]) printf("   energy: %s%s\n", r->tp->label, r->size > 1 ? " (rank 0's; each rank's in the map above)" : "");
  printf("   comp t(s): the computation predicted by the models; pred run(s): the whole run predicted by the\n"
         "   application's cost model (apps/model.h: computation, %s), +- its interval;\n"
         "   meas run(s): the whole application run measured (mean of %d, +- its Student-t half-width);\n"
         "   energy: both the computation only (pred: the models at the shares; meas: each process's dynamic\n"
         "   energy in its compute phases, the run's energy x its compute time / the run's time; a group that\n"
         "   time-shares its cores: x the group's CPU time, as its models were measured), so that the\n"
         "   savings compare; run E(J) is the whole run's, waits included; balance: mean over max of the\n"
         "   predicted times (idle processes at 0); *: the distribution chosen (below, how)\n",
         !r->links           ? "one process: no messages"
         : a->ops            ? "its messages by the measured links, as the plug-in's model prices them"
         : tool_app_dgemm(a) ? "the pivots' messages by the measured links, step by step"
                             : "the two transposes by the measured links",
         r->o->reps);
  printf("   %-17s %10s %10s %9s %10s %9s %10s %10s %10s %8s %8s %8s %7s\n", "distribution", "comp t(s)", "pred run(s)",
         "+-", "meas run(s)", "+-", "pred E(J)", "meas E(J)", "run E(J)", "speedup", "E saving", "pred sav", "balance");
  for (int k = 0; k < r->nruns; k++) {
    const run_t *run = &r->runs[k];
    char label[64];
    snprintf(label, sizeof label, "%s%s", run->label, k == r->best ? " *" : "");
    printf("   %-17s %10.4g %10.4g %9.2g %10.4g %9.2g %10.4g %10.4g %10.4g %8.3f %7.1f%% %7.1f%% %7.3f\n", label,
           run->pred_time, run->pred_run, run->pred_run_ci, run->meas_time, run->meas_run_ci, has_e ? run->pred_energy : NAN, has_e ? run->meas_energy : NAN,
           has_e ? run->meas_energy_run : NAN, even->meas_time / run->meas_time,
           has_e && even->meas_energy > 0 ? 100.0 * (1.0 - run->meas_energy / even->meas_energy) : NAN,
           has_e && even->pred_energy > 0 ? 100.0 * (1.0 - run->pred_energy / even->pred_energy) : NAN,
           fupermod_dist_efficiency(run->dist));
  }
}

/* What the per-process table compares: predictions from smoothed functions or the points. */
static void print_processes_legend(const run_report *r) {
  const options *o = r->o;
  if (o->smooth > 0) {
    printf("   per process on the %s distribution: computation predicted by the smoothed function (local fit\n"
           "   over the measured sizes near it, --smooth %d, x %g kernel runs) +- its %g %% prediction interval for a new run, vs\n"
           "   measured inside the run (mean of %d +- its Student-t half-width); they agree when the intervals\n"
           "   overlap. The points scatter about the fits by (relative sd, the machine's drift while measuring):",
           r->runs[r->best].label, o->smooth, r->a->iters, 100 * o->prec.cl, o->reps);
    for (int i = 0; i < r->size; i++) printf(" %.1f %%%s", 100 * r->scatter[i], i + 1 < r->size ? "," : "\n");
  } else
    printf("   per process on the %s distribution: computation predicted by the measured points (benchmark mean\n"
           "   +- its confidence half-width, x %g kernel runs) vs measured inside the run (mean of %d +- the same\n"
           "   for the runs); they agree when the two intervals overlap\n",
           r->runs[r->best].label, r->a->iters, o->reps);
}

/* Per process on the chosen distribution: its share, predicted and measured compute times. */
static void print_processes(const run_report *r) {
  const app_t *a = r->a;
  const run_t *best = &r->runs[r->best];
  int agree = 0, busy = 0, grouped = 0;
  print_processes_legend(r);
  printf("   %-6s %-14s %5s %4s %7s %6s %11s %9s %11s %9s %7s %10s %10s %11s\n", "rank", "host", "group", "thr", "share", "d",
         "pred t(s)", "+-", "meas t(s)", "+-", "agree", "busy t(s)", "cpu t(s)", "pred msg(s)");
  for (int i = 0; i < r->size; i++) {
    double pt = best->dist->parts[i].t * a->iters, mt = best->meas_proc[i];
    int in = run_agrees(best, i, a);
    busy += best->dist->parts[i].d > 0;
    agree += best->dist->parts[i].d > 0 && in;
    grouped += r->leader[i] != i;
    printf("   %-6d %-14s %5d %4d %6.1f%% %6ld %11.4g %9.2g %11.4g %9.2g %7s %10.4g %10.4g %11.4g\n", i, r->hosts[i],
           r->leader[i], r->threads[i], 100.0 * best->dist->parts[i].d / a->D, best->dist->parts[i].d, pt,
           best->pred_ci[i], mt, best->meas_ci[i], best->dist->parts[i].d == 0 ? "idle" : in ? "yes" : "no",
           best->meas_wall[i], best->meas_cpu[i], best->pred_comm[i]);
  }
  if (grouped)
    printf("   a group of processes time-shares its cores: each member shows the group's prediction (at its\n"
           "   mean share), and its meas is the CPU time the members' computation got, summed (the union of\n"
           "   their phases, busy, also counts one member's communication while another computes)\n");
  printf("   busy t(s): how long the cores computed (a group: the union of its members' phases), the meas of a\n"
         "   process alone; cpu t(s): the CPU time the computation got (a group's summed); busy above cpu means\n"
         "   the cores were taken by something else part of the time (a co-located process, other load)\n");
  printf("   pred msg(s): the process's messages (sent, then received) and, in the 2D-FFT, its own copies in\n"
         "   the whole-run prediction\n");
  printf("   predictions within confidence: %d of %d working processes\n", agree, busy);
}

/* OUT/report-APP.csv: per distribution and process. */
static void write_process_csv(const run_report *r) {
  const app_t *a = r->a;
  int has_e = r->f[0].has_energy;
  char path[4200];
  fupermod_atomic_file af;
  snprintf(path, sizeof path, "%s/report-%s.csv", r->o->out, a->name);
  if (fupermod_atomic_open(&af, path) != FUPERMOD_SUCCESS) return;
  fprintf(af.fp, "app,n,distribution,rank,host,d,share,pred_time,meas_time,pred_ci,meas_ci,agree,pred_energy,meas_energy,group,meas_cpu,meas_busy,threads,pred_comp,pred_comm\n");
  for (int k = 0; k < r->nruns; k++) {
    const run_t *run = &r->runs[k];
    for (int i = 0; i < r->size; i++)
      fprintf(af.fp, "%s,%ld,%s,%d,%s,%ld,%.6g,%.9g,%.9g,%.9g,%.9g,%d,%.9g,%.9g,%d,%.9g,%.9g,%d,%.9g,%.9g\n", a->name, a->n,
              run->label, i, r->hosts[i], run->dist->parts[i].d, (double)run->dist->parts[i].d / a->D,
              run->dist->parts[i].t * a->iters, run->meas_proc[i], run->pred_ci[i], run->meas_ci[i],
              run->dist->parts[i].d > 0 && run_agrees(run, i, a), has_e ? run->dist->parts[i].e * a->iters : NAN,
              run->meas_proc_e[i], r->leader[i], run->meas_cpu[i], run->meas_wall[i], r->threads[i], run->pred_comp[i],
              run->pred_comm[i]);
  }
  fupermod_atomic_commit(&af);
}

/* OUT/summary-APP.csv: per distribution but the even one, against it. */
static void write_summary_csv(const run_report *r) {
  const run_t *even = &r->runs[r->nruns - 1];
  char path[4200];
  fupermod_atomic_file af;
  snprintf(path, sizeof path, "%s/summary-%s.csv", r->o->out, r->a->name);
  if (fupermod_atomic_open(&af, path) != FUPERMOD_SUCCESS) return;
  fprintf(af.fp, "app,size,algorithm,time,energy,even_time,even_energy,pred_time,pred_energy,speedup,energy_saving,"
                 "pred_energy_saving,run_energy,even_run_energy,balance,pred_run,pred_run_ci,meas_run_ci,chosen\n");
  for (int k = 0; k < r->nruns - 1; k++) {
    const run_t *run = &r->runs[k];
    fprintf(af.fp, "%s,%ld,%s,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.6g,%.6g,%.6g,%.9g,%.9g,%.6g,%.9g,%.9g,%.9g,%d\n",
            r->a->name, r->a->n,
            run->label, run->meas_time, run->meas_energy, even->meas_time, even->meas_energy, run->pred_time,
            run->pred_energy, even->meas_time / run->meas_time,
            even->meas_energy > 0 ? 1.0 - run->meas_energy / even->meas_energy : NAN,
            even->pred_energy > 0 ? 1.0 - run->pred_energy / even->pred_energy : NAN, run->meas_energy_run,
            even->meas_energy_run, fupermod_dist_efficiency(run->dist), run->pred_run, run->pred_run_ci, run->meas_run_ci,
            k == r->best);
  }
  fupermod_atomic_commit(&af);
}

/* The data of the plots: speed functions (OUT/plot-APP.dat), distributions (dist-APP.dat) and the
 * Pareto front (front-APP.csv). 0, or -1 when a file could not be written: no plots then. */
static int write_plot_data(const run_report *r) {
  const options *o = r->o;
  const app_t *a = r->a;
  char path[4200];
  fupermod_atomic_file af;
  snprintf(path, sizeof path, "%s/plot-%s.dat", o->out, a->name);
  if (fupermod_atomic_open(&af, path) != FUPERMOD_SUCCESS) return -1;
  for (int i = 0; i < r->size; i++) {
    const fupermod_points *f = &r->f[i], *m = &r->measured[i];
    fprintf(af.fp, "# rank %d: d speed(units/s) energy(J), measured; speed of the function partitioned on\n", i);
    for (int k = 0; k < f->count; k++)
      fprintf(af.fp, "%ld %.9g %.9g %.9g\n", f->pts[k].d, m->pts[k].d / m->pts[k].t, m->pts[k].e,
              f->pts[k].d / f->pts[k].t);
    fprintf(af.fp, "\n\n");
  }
  fupermod_atomic_commit(&af);
  snprintf(path, sizeof path, "%s/dist-%s.dat", o->out, a->name);
  if (fupermod_atomic_open(&af, path) != FUPERMOD_SUCCESS) return -1;
  fprintf(af.fp, "# rank");
  for (int k = 0; k < r->nruns; k++) fprintf(af.fp, " %s", r->runs[k].label);
  fprintf(af.fp, "\n");
  for (int i = 0; i < r->size; i++) {
    fprintf(af.fp, "%d", i);
    for (int k = 0; k < r->nruns; k++) fprintf(af.fp, " %ld", r->runs[k].dist->parts[i].d);
    fprintf(af.fp, "\n");
  }
  fupermod_atomic_commit(&af);
  if (!r->front || r->front->count <= 0) return 0;
  snprintf(path, sizeof path, "%s/front-%s.csv", o->out, a->name);
  if (fupermod_atomic_open(&af, path) != FUPERMOD_SUCCESS) return 0;
  fprintf(af.fp, "time,energy,chosen,d\n");
  for (int k = 0; k < r->front->count; k++) {
    const fupermod_front_point *fp = &r->front->points[k];
    fprintf(af.fp, "%.9g,%.9g,%d,", fp->time * a->iters, fp->energy * a->iters, k == r->chosen);
    for (int i = 0; i < r->size; i++) fprintf(af.fp, "%s%ld", i ? " " : "", fp->dist->parts[i].d);
    fprintf(af.fp, "\n");
  }
  fupermod_atomic_commit(&af);
  return 0;
}

/* OUT/plot-APP.gp, then gnuplot on it: the speed functions, the distributions, the front. */
static void write_plots(const run_report *r) {
  const options *o = r->o;
  const app_t *a = r->a;
  int front = r->front && r->front->count > 0;
  char script[4200];
  fupermod_atomic_file af;
  snprintf(script, sizeof script, "%s/plot-%s.gp", o->out, a->name);
  if (fupermod_atomic_open(&af, script) != FUPERMOD_SUCCESS) return;
  fprintf(af.fp, "set terminal pngcairo size 900,600 noenhanced\nset grid\nset key outside right\n");
  /* every plot says where and with what it was measured (DIR/provenance.txt has the rest) */
  if (o->provenance) fprintf(af.fp, "set label 99 '%s' at screen 0.01, 0.015 font ',8'\n", o->provenance);
  fprintf(af.fp, "set output '%s/speed-%s.png'\nset title '%s: speed functions (points: measured%s)'\n", o->out, a->name,
          a->name, o->smooth > 0 ? "; lines: smoothed" : "");
  fprintf(af.fp, "set xlabel 'problem size d (units)'\nset ylabel 'speed (units/s)'\nplot ");
  for (int i = 0; i < r->size; i++) {
    char style[64], same[48] = "";
    int j = 0;
    while (j < i && !tool_points_equal(&r->measured[j], &r->measured[i])) j++;
    if (j < i) snprintf(same, sizeof same, ", the same as rank %d", j);
    tool_plot_style(style, sizeof style, i);
    fprintf(af.fp, "%s'%s/plot-%s.dat' index %d using 1:2 with %s %s title 'rank %d (%s%s)'", i ? ", " : "", o->out,
            a->name, i, o->smooth > 0 ? "points" : "linespoints", style, i, r->hosts[i], same);
    if (o->smooth > 0)
      fprintf(af.fp, ", '%s/plot-%s.dat' index %d using 1:4 with lines lw 2 %s notitle", o->out, a->name, i, style);
  }
  fprintf(af.fp, "\nset output '%s/distribution-%s.png'\nset title '%s: units per process'\n", o->out, a->name, a->name);
  fprintf(af.fp, "set style data histograms\nset style histogram clustered\nset style fill solid 0.8\n"
                 "set xlabel 'rank'\nset ylabel 'units'\nplot ");
  for (int k = 0; k < r->nruns; k++)
    fprintf(af.fp, "%s'%s/dist-%s.dat' using %d:xtic(1) title '%s'", k ? ", " : "", o->out, a->name, k + 2,
            r->runs[k].label);
  fprintf(af.fp, "\n");
  if (front) {
    fprintf(af.fp, "set style data points\nset datafile separator ','\nset output '%s/front-%s.png'\n", o->out, a->name);
    fprintf(af.fp, "set title '%s: Pareto front of time and dynamic energy (predicted)'\nset xlabel 'time (s)'\n"
                   "set ylabel 'dynamic energy (J)'\n", a->name);
    fprintf(af.fp, "plot '%s/front-%s.csv' every ::1 using 1:2 with linespoints pt 7 title 'front', "
                   "'' every ::1 using ($3 == 1 ? $1 : 1/0):2 with points pt 9 ps 3 title 'chosen'\n", o->out, a->name);
  }
  if (fupermod_atomic_commit(&af) != FUPERMOD_SUCCESS) return;
  if (tool_gnuplot(script) == 0)
    printf("   plots: %s/speed-%s.png, distribution-%s.png%s\n", o->out, a->name, a->name, front ? ", front PNG" : "");
  else printf("   gnuplot not available: plot script %s\n", script);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* group[k]: the first run on run k's distribution; meas[k], for a first run: the distribution's
 * runs under every name pooled (each the mean of as many rounds); sample[k]: 1 in sample (the
 * calibration's distributions, whose factors were measured on them). */
static void distinct_runs(const run_t *runs, int nruns, int *group, double *meas, int *sample) {
  for (int k = 0; k < nruns; k++) {
    group[k] = k;
    for (int j = 0; j < k && group[k] == k; j++)
      if (group[j] == j && tool_same_run(&runs[j], &runs[k])) group[k] = j;
  }
  for (int k = 0; k < nruns; k++) {
    int n = 0;
    meas[k] = 0;
    for (int j = k; j < nruns && group[k] == k; j++)
      if (group[j] == k) meas[k] += runs[j].meas_time, n++;
    if (n) meas[k] /= n;
    sample[k] = 0;
    for (int j = 0; j < nruns; j++) sample[k] |= group[j] == group[k] && runs[j].calibrated;
  }
}

int tool_run_accounting(const run_t *runs, int nruns, int best, int model, run_accounting *acc) {
  int *group = malloc((size_t)nruns * sizeof *group), *sample = malloc((size_t)nruns * sizeof *sample);
  double *meas = malloc((size_t)nruns * sizeof *meas), *err = malloc((size_t)nruns * sizeof *err);
  int rc = FUPERMOD_SUCCESS;
  memset(acc, 0, sizeof *acc);
  acc->worst = acc->median = NAN;
  acc->best_meas = INFINITY;
  if (!group || !sample || !meas || !err) rc = fupermod_error(FUPERMOD_ERR_NOMEM, "run: out of memory");
  else distinct_runs(runs, nruns, group, meas, sample);
  for (int k = 0; rc == FUPERMOD_SUCCESS && k < nruns; k++) {
    if (group[k] != k) continue;
    double pred = model == TOOL_MODEL_REAL ? runs[k].pred_run : runs[k].pred_wrong[model];
    double e = fabs(pred - meas[k]) / meas[k]; /* NaN where no prediction: never within */
    acc->distinct++;
    if (meas[k] < acc->best_meas) acc->best_meas = meas[k];
    if (group[best] == k) acc->chosen_meas = meas[k];
    if (sample[k]) {
      acc->in_n++;
      acc->in_k += e <= 0.1;
    } else {
      err[acc->out_n++] = isnan(e) ? INFINITY : e;
      acc->out_k += e <= 0.1;
    }
  }
  if (acc->out_n > 0) {
    qsort(err, (size_t)acc->out_n, sizeof *err, cmp_double);
    acc->worst = err[acc->out_n - 1];
    acc->median = acc->out_n % 2 ? err[acc->out_n / 2] : 0.5 * (err[acc->out_n / 2 - 1] + err[acc->out_n / 2]);
  }
  acc->regret = acc->chosen_meas / acc->best_meas - 1.0;
  free(group), free(sample), free(meas), free(err);
  return rc;
}

/* OUT/predictions-APP.csv: a row per distinct distribution, its names joined by '=', as counted. */
static void write_predictions_csv(const run_report *r) {
  int n = r->nruns, *group = malloc((size_t)n * sizeof *group), *sample = malloc((size_t)n * sizeof *sample);
  double *meas = malloc((size_t)n * sizeof *meas);
  char path[4200];
  fupermod_atomic_file af;
  snprintf(path, sizeof path, "%s/predictions-%s.csv", r->o->out, r->a->name);
  if (group && sample && meas && fupermod_atomic_open(&af, path) == FUPERMOD_SUCCESS) {
    distinct_runs(r->runs, n, group, meas, sample);
    fprintf(af.fp, "app,names,shares,pred_run,pred_run_ci,meas_run,meas_run_ci,rel_error,sample,chosen,pred_uncalibrated,"
                   "pred_no_messages\n");
    for (int k = 0; k < n; k++) {
      if (group[k] != k) continue;
      double ci = 0;
      int m = 0;
      fprintf(af.fp, "%s,", r->a->name);
      for (int j = k; j < n; j++)
        if (group[j] == k) {
          fprintf(af.fp, "%s%s", m ? "=" : "", r->runs[j].label);
          ci += r->runs[j].meas_run_ci, m++;
        }
      fprintf(af.fp, ",");
      for (int i = 0; i < r->size; i++) fprintf(af.fp, "%s%ld", i ? " " : "", r->runs[k].dist->parts[i].d);
      /* the pooled mean's half-width: the names' means, each of as many rounds (a bound) */
      fprintf(af.fp, ",%.9g,%.9g,%.9g,%.9g,%.6g,%s,%d,%.9g,%.9g\n", r->runs[k].pred_run, r->runs[k].pred_run_ci, meas[k],
              ci / m, (r->runs[k].pred_run - meas[k]) / meas[k], sample[k] ? "in" : "out", group[r->best] == k,
              r->runs[k].pred_wrong[0], r->runs[k].pred_wrong[1]);
    }
    fupermod_atomic_commit(&af);
  }
  free(group), free(sample), free(meas);
}

/* Two wrong models scored as the model is, out of sample, so that a reader sees what the score
 * tells apart on this platform: where the calibration, or the messages, do not matter, the wrong
 * model scores as well (and the configuration cannot show the model's worth on them). */
static void print_wrong(const run_report *r) {
  static const char *what[2] = {"uncalibrated (the functions and links alone)", "without messages"};
  printf("   wrong models, scored alike for comparison:");
  for (int m = TOOL_MODEL_UNCALIBRATED; m <= TOOL_MODEL_NO_MESSAGES; m++) {
    run_accounting acc;
    if (tool_run_accounting(r->runs, r->nruns, r->best, m, &acc) != FUPERMOD_SUCCESS) return;
    printf("%s %s out of sample %d of %d within 10 %% (median %.1f %%)", m ? ";" : "", what[m], acc.out_k, acc.out_n,
           100 * acc.median);
  }
  printf("\n");
}

/* The predictions counted strictly (|pred - meas| / meas <= 10 %), each distinct distribution once,
 * out of sample apart from the calibration's distribution, and the choice's regret against the best
 * measured distribution; intervals are in the table, never used to count. */
static void print_accounting(const run_report *r) {
  run_accounting acc;
  if (tool_run_accounting(r->runs, r->nruns, r->best, TOOL_MODEL_REAL, &acc) != FUPERMOD_SUCCESS) return;
  for (int k = 0; k < r->nruns; k++) {
    int first = 1, more = 0;
    for (int j = 0; j < k && first; j++) first = !tool_same_run(&r->runs[j], &r->runs[k]);
    for (int j = k + 1; first && j < r->nruns; j++) more += tool_same_run(&r->runs[k], &r->runs[j]);
    if (!more) continue;
    printf("   one distribution under several names, counted once (its runs pooled): %s", r->runs[k].label);
    for (int j = k + 1; j < r->nruns; j++)
      if (tool_same_run(&r->runs[k], &r->runs[j])) printf(" = %s", r->runs[j].label);
    printf("\n");
  }
  printf("   in sample: the distributions the whole-run model was calibrated on (");
  for (int k = 0, n = 0; k < r->nruns; k++)
    if (r->runs[k].calibrated) printf("%s%s", n++ ? ", " : "", r->runs[k].label);
  printf("); out of sample: the others\n");
  print_wrong(r);
  printf("   whole-run predictions: out of sample %d of %d within 10 %% (median %.1f %%, worst %.1f %%); in sample %d of %d; "
         "chosen %.4g s, best measured %.4g s (regret %.1f %%)\n",
         acc.out_k, acc.out_n, 100 * acc.median, 100 * acc.worst, acc.in_k, acc.in_n, acc.chosen_meas, acc.best_meas,
         100 * acc.regret);
}

void tool_run_report(const run_report *r) {
  const run_t *even = &r->runs[r->nruns - 1], *best = &r->runs[r->best];
  print_distributions(r);
  if (r->choice) printf("%s\n", r->choice);
  run_notes(r->runs, r->nruns, r->measured, r->size);
  print_processes(r);
  printf("   speedup of %s over the even distribution: %.3f (measured), %.3f (predicted)\n", best->label,
         even->meas_time / best->meas_time, even->pred_run / best->pred_run);
  print_accounting(r);
  write_process_csv(r);
  write_summary_csv(r);
  write_predictions_csv(r);
  if (write_plot_data(r) == 0) write_plots(r);
}
