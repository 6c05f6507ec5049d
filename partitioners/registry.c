/* The registry of partitioners by name: the built-in ones, then those a program registers.
 * Each algorithm file defines its descriptor. The serial ones are referenced strongly, so that a
 * static link (the `fupermod` front command) pulls them in; paraleph weakly, so that a program
 * without MPI links without it. Entries never move or leave, so a list returned earlier
 * stays valid while others register (it may then show the new entries too). */
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fupermod/error.h"
#include "fupermod/util.h"
#include "partitioners/partitioners.h"

#define P(x) extern const fupermod_partitioner fupermod_partitioner_##x;
P(even) P(cpm) P(geometric) P(numerical)
P(popta) P(eopta) P(aleph)
P(hpopta) P(heopta) P(hepopta) P(htpopta)
P(balanced) P(dp)
#undef P
extern const fupermod_partitioner fupermod_partitioner_paraleph __attribute__((weak));

#define CAPACITY 256

/* list[count] is NULL: zero-initialised, and a slot is published (release) after it is filled */
static const fupermod_partitioner *list[CAPACITY + 1];
static int count, nbuiltin;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void builtins(void) {
  const fupermod_partitioner *cand[] = {
      &fupermod_partitioner_even, &fupermod_partitioner_cpm, &fupermod_partitioner_geometric,
      &fupermod_partitioner_numerical, &fupermod_partitioner_popta, &fupermod_partitioner_eopta,
      &fupermod_partitioner_aleph, &fupermod_partitioner_hpopta, &fupermod_partitioner_heopta,
      &fupermod_partitioner_hepopta, &fupermod_partitioner_htpopta,
      &fupermod_partitioner_balanced, &fupermod_partitioner_dp, &fupermod_partitioner_paraleph};
  for (size_t i = 0; i < sizeof cand / sizeof cand[0]; i++)
    if (cand[i]) __atomic_store_n(&list[count++], cand[i], __ATOMIC_RELEASE);
  nbuiltin = count;
}

int fupermod_partitioner_builtin(const fupermod_partitioner *alg) {
  const fupermod_partitioner *const *l = fupermod_partitioners();
  for (int i = 0; alg && i < nbuiltin; i++)
    if (l[i] == alg) return 1;
  return 0;
}

const fupermod_partitioner *const *fupermod_partitioners(void) {
  pthread_once(&once, builtins);
  return list;
}

const fupermod_partitioner *fupermod_partitioner_find(const char *name) {
  const fupermod_partitioner *const *l = fupermod_partitioners();
  const fupermod_partitioner *a;
  const char *names[CAPACITY], *near;
  char known[1024] = "";
  size_t n = 0, used = 0;
  if (!name) {
    fupermod_error(FUPERMOD_ERR_USAGE, "partitioner find: no name");
    return NULL;
  }
  for (int i = 0; (a = __atomic_load_n(&l[i], __ATOMIC_ACQUIRE)); i++) {
    if (strcmp(a->name, name) == 0) return a;
    if (n < CAPACITY) names[n++] = a->name;
    if (used < sizeof known) used += (size_t)snprintf(known + used, sizeof known - used, " %s", a->name);
  }
  near = fupermod_closest_name(name, names, n);
  fupermod_error(FUPERMOD_ERR_USAGE, "unknown partitioner '%s'%s%s%s; known:%s", name, near ? " (did you mean '" : "",
                 near ? near : "", near ? "'?)" : "", known);
  return NULL;
}

static int check(const fupermod_partitioner *alg) {
  const char *name = alg->name;
  if (!name || !*name) return fupermod_error(FUPERMOD_ERR_USAGE, "partitioner register: no name");
  for (const char *c = name; *c; c++)
    if (!isgraph((unsigned char)*c) || *c == ',' || *c == '=')
      return fupermod_error(FUPERMOD_ERR_USAGE,
                            "partitioner register: name '%s' has a space, ',' or '=' (it is used in options)", name);
  switch (alg->kind) {
  case FUPERMOD_PART_CONTINUOUS:
    if (!alg->continuous || !alg->model_type)
      return fupermod_error(FUPERMOD_ERR_USAGE,
                            "partitioner register '%s': a continuous partitioner needs continuous and model_type", name);
    for (const char *const *t = fupermod_model_types(); *t; t++)
      if (strcmp(*t, alg->model_type) == 0) return FUPERMOD_SUCCESS;
    return fupermod_error(FUPERMOD_ERR_USAGE, "partitioner register '%s': unknown model type '%s'", name,
                          alg->model_type);
  case FUPERMOD_PART_DISCRETE:
    if (!alg->discrete)
      return fupermod_error(FUPERMOD_ERR_USAGE, "partitioner register '%s': a discrete partitioner needs discrete", name);
    return FUPERMOD_SUCCESS;
  case FUPERMOD_PART_PARETO:
    if (!alg->pareto)
      return fupermod_error(FUPERMOD_ERR_USAGE, "partitioner register '%s': a Pareto partitioner needs pareto", name);
    return FUPERMOD_SUCCESS;
  default:
    return fupermod_error(FUPERMOD_ERR_USAGE, "partitioner register '%s': unknown kind %d", name, alg->kind);
  }
}

static char *dup(const char *s) { return s ? strdup(s) : NULL; }

int fupermod_partitioner_register(const fupermod_partitioner *alg) {
  fupermod_partitioner *copy;
  int rc;
  if (!alg) return fupermod_error(FUPERMOD_ERR_USAGE, "partitioner register: NULL descriptor");
  if ((rc = check(alg)) != FUPERMOD_SUCCESS) return rc;
  fupermod_partitioners();
  pthread_mutex_lock(&lock);
  if (fupermod_partitioner_find(alg->name))
    rc = fupermod_error(FUPERMOD_ERR_USAGE, "partitioner register: '%s' is already registered", alg->name);
  else if (count == CAPACITY)
    rc = fupermod_error(FUPERMOD_ERR_USAGE, "partitioner register '%s': the registry is full (%d)", alg->name,
                        CAPACITY);
  else if (!(copy = malloc(sizeof *copy)))
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  else {
    *copy = *alg;
    copy->name = dup(alg->name);
    copy->description = dup(alg->description);
    copy->model_type = dup(alg->model_type);
    if (!copy->name || (alg->description && !copy->description) || (alg->model_type && !copy->model_type)) {
      free((char *)copy->name);
      free((char *)copy->description);
      free((char *)copy->model_type);
      free(copy);
      rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
    } else
      __atomic_store_n(&list[count++], copy, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&lock);
  return rc;
}
