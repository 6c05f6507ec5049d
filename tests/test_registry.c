/* Partitioners and model types registered at run time: found by name beside the built-in ones,
 * run through the same entry points, refused when malformed or taken, and safe to register from
 * several threads at once. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fupermod/fupermod.h>
#include "partitioners/partitioners.h"
#include "tap.h"

/* A user model: constant speed taken from the largest point. */
static double line_t(const fupermod_model *m, double x) { return x * *(double *)m->impl; }
static void line_destroy(fupermod_model *m) { free(m->impl); }
static const fupermod_model_ops line_ops = {"user-line", line_t, NULL, NULL, NULL, line_destroy};
static int line_create(fupermod_model *m) {
  double *a;
  if (m->points.count < 1) return fupermod_error(FUPERMOD_ERR_INPUT, "user-line needs a point");
  if (!(a = malloc(sizeof *a))) return FUPERMOD_ERR_NOMEM;
  *a = m->points.pts[m->points.count - 1].t / (double)m->points.pts[m->points.count - 1].d;
  m->ops = &line_ops;
  m->impl = a;
  return FUPERMOD_SUCCESS;
}

/* A user continuous partitioner: shares proportional to the models' speeds at D. */
static int prop(int size, fupermod_model **models, fupermod_dist *dist) {
  double x[16] = {0}, sum = 0;
  long d[16];
  for (int i = 0; i < size; i++) sum += x[i] = fupermod_model_speed(models[i], (double)dist->D);
  for (int i = 0; i < size; i++) x[i] *= (double)dist->D / sum;
  if (fupermod_dist_round(x, size, dist->D, d) != FUPERMOD_SUCCESS) return FUPERMOD_ERR_INPUT;
  for (int i = 0; i < size; i++) dist->parts[i].d = d[i];
  return fupermod_dist_predict(dist, models);
}

/* A user discrete partitioner: everything to the processor fastest at a measured size D. */
static int alone(const fupermod_problem *prob, fupermod_dist *out) {
  int best = -1;
  double bt = INFINITY;
  for (int i = 0; i < prob->p; i++) {
    int k = fupermod_points_find(prob->f[i], prob->D);
    if (k >= 0 && prob->f[i]->pts[k].t < bt) {
      bt = prob->f[i]->pts[k].t;
      best = i;
    }
  }
  if (best < 0) return fupermod_error(FUPERMOD_ERR_INFEASIBLE, "alone: nobody measured D");
  for (int i = 0; i < prob->p; i++) out->parts[i].d = i == best ? prob->D : 0;
  return FUPERMOD_SUCCESS;
}

static int dummy(const fupermod_problem *prob, fupermod_dist *out) { return FUPERMOD_SUCCESS; }

#define THREADS 4
#define PER_THREAD 40
static void *registrar(void *arg) {
  long t = (long)arg;
  for (int j = 0; j < PER_THREAD; j++) {
    char name[32];
    fupermod_partitioner alg = {0};
    snprintf(name, sizeof name, "thr%ld-%d", t, j);
    alg.name = name;
    alg.kind = FUPERMOD_PART_DISCRETE;
    alg.discrete = dummy;
    if (fupermod_partitioner_register(&alg) != FUPERMOD_SUCCESS) return (void *)1;
    if (!fupermod_partitioner_find(name) || !fupermod_partitioner_find("paraleph")) return (void *)2;
  }
  return NULL;
}

int main(void) {
  const fupermod_partitioner *a;
  int n0 = 0, n1 = 0, rc;

  for (const fupermod_partitioner *const *l = fupermod_partitioners(); *l; l++) n0++;
  ok(n0 >= 10 && fupermod_partitioner_find("paraleph") && !fupermod_partitioner_find("alone"),
     "the built-in partitioners are listed (%d), 'alone' is not", n0);

  /* every built-in discrete or Pareto partitioner checks its problem itself (the partition command
   * leaves that check to them): points that are not a function, abandoned or without energy */
  {
    int bad = 0, tried = 0;
    for (const fupermod_partitioner *const *l = fupermod_partitioners(); *l; l++) {
      const fupermod_partitioner *alg = *l;
      if (!fupermod_partitioner_builtin(alg)) {
        bad++;
        diag("%s is listed first but is not built in", alg->name);
      }
      if (alg->kind == FUPERMOD_PART_CONTINUOUS || strcmp(alg->name, "paraleph") == 0) continue; /* paraleph: MPI */
      for (int c = 0; c < 4; c++) {
        fupermod_point p0[3], p1[3];
        fupermod_points f0 = {3, p0, 1}, f1 = {3, p1, 1};
        const fupermod_points *f[2] = {&f0, alg->homogeneous ? &f0 : &f1};
        fupermod_problem prob = {12, 2, f, 1.0, 0, 0};
        fupermod_dist *dist = fupermod_dist_alloc(12, 2);
        fupermod_front front = {0, NULL};
        for (int k = 0; k < 3; k++) {
          p0[k] = (fupermod_point)FUPERMOD_POINT_INIT;
          p0[k].d = 2 * (k + 1);
          p0[k].t = 1.0 + k;
          p0[k].e = 3.0 + k;
          p1[k] = p0[k];
          p1[k].t *= 1.5;
        }
        if (c == 0) p0[1].t = 0.0;                    /* not a positive time */
        if (c == 1) p0[2].d = 3;                      /* not increasing */
        if (c == 2) p0[1].flags = FUPERMOD_POINT_ABANDONED;
        if (c == 3 && !alg->needs_energy) p0[1].t = -1.0;
        if (c == 3 && alg->needs_energy) f0.has_energy = 0, p0[0].e = p0[1].e = p0[2].e = -1.0;
        rc = alg->kind == FUPERMOD_PART_PARETO ? alg->pareto(&prob, &front) : alg->discrete(&prob, dist);
        tried++;
        if (rc == FUPERMOD_SUCCESS || !strstr(fupermod_error_message(), "processor 0")) {
          bad++;
          diag("%s, case %d: %d, %s", alg->name, c, rc, fupermod_error_message());
        }
        fupermod_front_free(&front);
        fupermod_dist_free(dist);
      }
    }
    ok(bad == 0 && tried >= 36, "every built-in discrete and Pareto partitioner refuses a bad problem itself (%d cases)",
       tried);
  }

  /* a model type */
  ok(fupermod_model_register("user-line", line_create) == FUPERMOD_SUCCESS, "a model type registers: %s",
     fupermod_error_message());
  {
    int found = 0;
    for (const char *const *t = fupermod_model_types(); *t; t++) found += strcmp(*t, "user-line") == 0;
    ok(found == 1, "and is listed once among the model types");
  }
  ok(fupermod_model_register("user-line", line_create) == FUPERMOD_ERR_USAGE &&
         strstr(fupermod_error_message(), "user-line"),
     "registering it twice is refused: %s", fupermod_error_message());
  ok(fupermod_model_register("cpm", line_create) == FUPERMOD_ERR_USAGE, "a built-in name is taken");
  ok(fupermod_model_register("a b", line_create) == FUPERMOD_ERR_USAGE, "a name with a space is refused");
  ok(fupermod_model_register("x", NULL) == FUPERMOD_ERR_USAGE, "a NULL constructor is refused");

  /* a continuous partitioner over the user model */
  {
    fupermod_partitioner alg = {0};
    char name[] = "user-prop";
    fupermod_point pts[3] = {{.d = 10, .t = 1.0, .e = -1, .e_ci = -1, .reps = 3, .samples = -1}, {.d = 10, .t = 2.0, .e = -1, .e_ci = -1, .reps = 3, .samples = -1}, {.d = 10, .t = 4.0, .e = -1, .e_ci = -1, .reps = 3, .samples = -1}};
    fupermod_model *m[3] = {NULL, NULL, NULL};
    fupermod_dist *dist = fupermod_dist_alloc(700, 3);
    alg.name = name;
    alg.description = "proportional to speed at D";
    alg.kind = FUPERMOD_PART_CONTINUOUS;
    alg.model_type = "user-line";
    alg.continuous = prop;
    rc = fupermod_partitioner_register(&alg);
    ok(rc == FUPERMOD_SUCCESS, "a continuous partitioner on the user model registers: %s", fupermod_error_message());
    strcpy(name, "overwrite"); /* the registry keeps its own copy of the strings */
    a = fupermod_partitioner_find("user-prop");
    ok(a && a->continuous == prop && strcmp(a->description, "proportional to speed at D") == 0,
       "it is found by name, with its copied descriptor");
    rc = FUPERMOD_SUCCESS;
    for (int i = 0; i < 3 && rc == FUPERMOD_SUCCESS; i++) {
      fupermod_points set = {1, &pts[i], 0};
      rc = fupermod_model_create(a ? a->model_type : "user-line", &set, 700, &m[i]);
    }
    ok(rc == FUPERMOD_SUCCESS, "fupermod_model_create builds the registered type: %s", fupermod_error_message());
    ok(rc == FUPERMOD_SUCCESS && fabs(fupermod_model_time(m[1], 20) - 4.0) < 1e-12,
       "and the model answers with the user's function (t(20) = %g)", m[1] ? fupermod_model_time(m[1], 20) : NAN);
    rc = a && dist && rc == FUPERMOD_SUCCESS ? a->continuous(3, m, dist) : -1;
    ok(rc == FUPERMOD_SUCCESS && dist->parts[0].d == 400 && dist->parts[1].d == 200 && dist->parts[2].d == 100,
       "the registered partitioner runs: 400 200 100 (got %ld %ld %ld)", dist ? dist->parts[0].d : -1,
       dist ? dist->parts[1].d : -1, dist ? dist->parts[2].d : -1);
    for (int i = 0; i < 3; i++) fupermod_model_free(m[i]);
    fupermod_dist_free(dist);
  }

  /* a discrete one, checked by the problem evaluation every partitioner is checked with */
  {
    fupermod_partitioner alg = {0};
    fupermod_point p0[2] = {{.d = 5, .t = 1.0, .e = -1, .e_ci = -1, .reps = 3, .samples = -1}, {.d = 9, .t = 3.0, .e = -1, .e_ci = -1, .reps = 3, .samples = -1}};
    fupermod_point p1[2] = {{.d = 4, .t = 0.5, .e = -1, .e_ci = -1, .reps = 3, .samples = -1}, {.d = 9, .t = 2.0, .e = -1, .e_ci = -1, .reps = 3, .samples = -1}};
    fupermod_points f0 = {2, p0, 0}, f1 = {2, p1, 0};
    const fupermod_points *f[2] = {&f0, &f1};
    fupermod_problem prob = {9, 2, f, 0, 0, 0};
    fupermod_dist *dist = fupermod_dist_alloc(9, 2);
    double t = 0, e = 0;
    long d[2];
    alg.name = "alone";
    alg.kind = FUPERMOD_PART_DISCRETE;
    alg.discrete = alone;
    ok(fupermod_partitioner_register(&alg) == FUPERMOD_SUCCESS, "a discrete partitioner registers");
    a = fupermod_partitioner_find("alone");
    ok(a && !fupermod_partitioner_builtin(a) && !fupermod_partitioner_builtin(&alg) && !fupermod_partitioner_builtin(NULL),
       "it is not built in (the partition command checks its problem for it)");
    rc = a ? fupermod_problem_check(&prob, a) : -1;
    ok(rc == FUPERMOD_SUCCESS, "the problem is valid for it: %s", fupermod_error_message());
    rc = rc == FUPERMOD_SUCCESS ? a->discrete(&prob, dist) : rc;
    d[0] = dist ? dist->parts[0].d : -1;
    d[1] = dist ? dist->parts[1].d : -1;
    rc = rc == FUPERMOD_SUCCESS ? fupermod_problem_evaluate(&prob, d, &t, &e, NULL) : rc;
    ok(rc == FUPERMOD_SUCCESS && d[1] == 9 && t == 2.0,
       "it runs and its distribution evaluates to t = 2 (0 9; got %ld %ld, t = %g)", d[0], d[1], t);
    fupermod_dist_free(dist);
    ok(fupermod_partitioner_register(&alg) == FUPERMOD_ERR_USAGE && strstr(fupermod_error_message(), "alone"),
       "registering 'alone' again is refused: %s", fupermod_error_message());
    alg.name = "paraleph";
    ok(fupermod_partitioner_register(&alg) == FUPERMOD_ERR_USAGE, "a built-in name is taken");
    alg.name = "no,comma";
    ok(fupermod_partitioner_register(&alg) == FUPERMOD_ERR_USAGE, "a name with ',' is refused");
    alg.name = "nofn";
    alg.discrete = NULL;
    ok(fupermod_partitioner_register(&alg) == FUPERMOD_ERR_USAGE && !fupermod_partitioner_find("nofn"),
       "a discrete partitioner without its function is refused: %s", fupermod_error_message());
    alg.kind = FUPERMOD_PART_CONTINUOUS;
    alg.continuous = prop;
    alg.model_type = "nosuchmodel";
    ok(fupermod_partitioner_register(&alg) == FUPERMOD_ERR_USAGE && strstr(fupermod_error_message(), "nosuchmodel"),
       "an unknown model type is refused: %s", fupermod_error_message());
    ok(fupermod_partitioner_register(NULL) == FUPERMOD_ERR_USAGE, "NULL is refused");
  }

  /* registration from several threads while others look names up */
  {
    pthread_t th[THREADS];
    void *res;
    int bad = 0;
    for (long t = 0; t < THREADS; t++) pthread_create(&th[t], NULL, registrar, (void *)t);
    for (int t = 0; t < THREADS; t++) {
      pthread_join(th[t], &res);
      bad += res != NULL;
    }
    for (const fupermod_partitioner *const *l = fupermod_partitioners(); *l; l++) n1++;
    ok(bad == 0 && n1 == n0 + 2 + THREADS * PER_THREAD,
       "%d threads register %d partitioners each: all found, the list grows from %d to %d", THREADS, PER_THREAD,
       n0, n1);
    {
      int dup = 0;
      for (const fupermod_partitioner *const *l = fupermod_partitioners(); *l; l++)
        for (const fupermod_partitioner *const *k = l + 1; *k; k++) dup += strcmp((*l)->name, (*k)->name) == 0;
      ok(dup == 0, "every name is listed once");
    }
  }
  return done_testing();
}
