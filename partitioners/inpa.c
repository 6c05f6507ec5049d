/* INPA (docs/hierarchical.md): dynamic partitioning of a square matrix of blocks between nodes,
 * with IDPA nested inside every node. Every status is agreed on the whole communicator. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "partitioners/hier.h"

typedef struct {
  long bm;
  fupermod_model **models;
} model_set;

typedef struct {
  int n, cap, p;
  model_set *sets;
} model_cache;

static void cache_free(model_cache *c) {
  for (int s = 0; s < c->n; s++) {
    for (int i = 0; i < c->p; i++) fupermod_model_free(c->sets[s].models[i]);
    free(c->sets[s].models);
  }
  free(c->sets);
  memset(c, 0, sizeof *c);
}

/* Device models depend on the slice height (Clarke 2.12 [TRAP] b): one set per height. */
static int cache_get(model_cache *c, long bm, const char *type, fupermod_model ***out) {
  int rc;
  for (int s = 0; s < c->n; s++)
    if (c->sets[s].bm == bm) {
      *out = c->sets[s].models;
      return FUPERMOD_SUCCESS;
    }
  if (c->n == c->cap) {
    int cap = c->cap ? 2 * c->cap : 8;
    model_set *ns = realloc(c->sets, (size_t)cap * sizeof *ns);
    if (!ns) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
    c->sets = ns;
    c->cap = cap;
  }
  model_set *s = &c->sets[c->n];
  s->bm = bm;
  if (!(s->models = calloc((size_t)c->p, sizeof *s->models))) return fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  for (int i = 0; i < c->p; i++)
    if ((rc = fupermod_model_create(type, NULL, 0, &s->models[i])) != FUPERMOD_SUCCESS) {
      for (int j = 0; j < i; j++) fupermod_model_free(s->models[j]);
      free(s->models);
      return rc;
    }
  c->n++;
  *out = s->models;
  return FUPERMOD_SUCCESS;
}

static int same_layout(const fupermod_layout *a, const fupermod_layout *b) {
  if (a->p != b->p) return 0;
  for (int i = 0; i < a->p; i++)
    if (memcmp(&a->rects[i], &b->rects[i], sizeof a->rects[i]) != 0) return 0;
  return 1;
}

void fupermod_inpa_result_free(fupermod_inpa_result *res) {
  if (!res) return;
  fupermod_layout_free(res->layout);
  fupermod_dist_free(res->nodes);
  fupermod_dist_free(res->devices);
  memset(res, 0, sizeof *res);
}

/* IDPA of this node on its rectangle of layout (nothing for an empty rectangle). */
static int node_round(const fupermod_hier_comm *hc, const fupermod_inpa_opts *o, model_cache *cache, long bm, long bn,
                      fupermod_hier_measure measure, void *ctx, fupermod_inpa_result *res, double *t_node, int *conv) {
  fupermod_model **models = NULL;
  int rc;
  fupermod_dist_free(res->devices);
  if (!(res->devices = fupermod_dist_alloc(bn, hc->node_size[hc->node])))
    return fupermod_agree(fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory"), hc->comm_node);
  if (bm == 0 || bn == 0) {
    for (int i = 0; i < res->devices->size; i++) res->devices->parts[i] = (fupermod_part){0, 0.0, 0.0};
    *t_node = 0.0;
    *conv = 1;
    return FUPERMOD_SUCCESS;
  }
  rc = cache_get(cache, bm, o->inner_model, &models);
  if ((rc = fupermod_agree(rc, hc->comm_node)) != FUPERMOD_SUCCESS) return rc;
  return fupermod_idpa(hc, bm, bn, o->eps2, o->max_idpa, o->inner, models, measure, ctx, res->devices, t_node, conv,
                       &res->idpa_measurements);
}

int fupermod_inpa(const fupermod_hier_comm *hc, const fupermod_inpa_opts *o, fupermod_hier_measure measure,
                  void *ctx, fupermod_inpa_result *res) {
  model_cache cache = {0, 0, 0, NULL};
  fupermod_dynamic dyn;
  int rc = FUPERMOD_SUCCESS, q, leader, done = 0, dyn_ok = 0, node_conv = 0;
  long M = 0, W = 0, *w = NULL;
  double t_node = 0.0, *areas = NULL, *buf = NULL;
  fupermod_model *probe = NULL;
  fupermod_layout *next = NULL;
  if (!res) return fupermod_error(FUPERMOD_ERR_USAGE, "inpa: NULL result");
  memset(res, 0, sizeof *res);
  if (!hc || hc->comm == MPI_COMM_NULL) return fupermod_error(FUPERMOD_ERR_USAGE, "inpa: no hierarchy communicator");
  q = hc->nodes;
  leader = hc->comm_leaders != MPI_COMM_NULL;
  if (!o || !measure || !o->outer || !o->inner || !o->outer_model || !o->inner_model)
    rc = fupermod_error(FUPERMOD_ERR_USAGE, "inpa: missing options, measure function or partitioners");
  else if (o->b < 1 || o->N < o->b || o->N % o->b != 0)
    rc = fupermod_error(FUPERMOD_ERR_USAGE, "inpa: N = %ld must be a positive multiple of b = %ld", o->N, o->b);
  else if (!(o->eps1 >= 0) || !(o->eps2 >= 0) || o->max_inpa < 1 || o->max_idpa < 1)
    rc = fupermod_error(FUPERMOD_ERR_USAGE, "inpa: need eps1, eps2 >= 0 and iteration caps >= 1");
  else if (o->layout && strcmp(o->layout, "sc") == 0)
    rc = fupermod_error(FUPERMOD_ERR_USAGE, "inpa: layout 'sc' gives the fast node several pieces; the nodes need one "
                        "rectangle each (br, kl)");
  else {
    M = o->N / o->b;
    W = M * M;
    if (W < q) rc = fupermod_error(FUPERMOD_ERR_USAGE, "inpa: %ld blocks for %d nodes", W, q);
    for (int k = 0; k < q && rc == FUPERMOD_SUCCESS; k++)
      if (hc->node_size[k] > o->b)
        rc = fupermod_error(FUPERMOD_ERR_USAGE, "inpa: node %d has %d devices, more than the b = %ld columns of one block",
                            k, hc->node_size[k], o->b);
    if (rc == FUPERMOD_SUCCESS && (rc = fupermod_model_create(o->inner_model, NULL, 0, &probe)) == FUPERMOD_SUCCESS) {
      fupermod_model_free(probe);
      rc = fupermod_model_create(o->outer_model, NULL, 0, &probe);
      fupermod_model_free(probe);
    }
  }
  if (rc == FUPERMOD_SUCCESS && (!(w = malloc((size_t)q * sizeof *w)) || !(areas = malloc((size_t)q * sizeof *areas)) ||
                                 !(buf = malloc(3 * (size_t)q * sizeof *buf))))
    rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  if ((rc = fupermod_agree(rc, hc->comm)) != FUPERMOD_SUCCESS) goto out;
  cache.p = hc->node_size[hc->node];
  if (leader) {
    rc = fupermod_dynamic_init(&dyn, q, o->outer_model, W, o->outer);
    dyn_ok = rc == FUPERMOD_SUCCESS;
  }
  if ((rc = fupermod_agree(rc, hc->comm)) != FUPERMOD_SUCCESS) goto out;

  /* INPA steps 1-2: every node's time for one b x b block seeds its model ([TRAP] e: w = 1 block) */
  rc = node_round(hc, o, &cache, o->b, o->b, measure, ctx, res, &t_node, &node_conv);
  if ((rc = fupermod_agree(rc, hc->comm)) != FUPERMOD_SUCCESS) goto out;
  if (leader) {
    fupermod_point pt = FUPERMOD_POINT_INIT;
    int c;
    pt.d = 1;
    pt.t = t_node;
    for (int k = 0; k < q; k++) dyn.dist->parts[k].d = 1;
    if ((rc = fupermod_dynamic_step(&dyn, hc->comm_leaders, &pt, -1.0, &c)) == FUPERMOD_SUCCESS) {
      /* step 3: the even start */
      fupermod_dist *even = fupermod_dist_alloc(W, q);
      rc = even ? fupermod_dist_copy(dyn.dist, even) : fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
      fupermod_dist_free(even);
    }
  }
  res->inpa_iterations = 1;
  if ((rc = fupermod_agree(rc, hc->comm)) != FUPERMOD_SUCCESS) goto out;

  while (!done) {
    int conv = 0, all_conv = 0, mine_conv;
    long bm, bn;
    const fupermod_rect *r;
    /* steps 4-5: shapes of the current shares, then IDPA on every node */
    if (leader)
      for (int k = 0; k < q; k++) w[k] = dyn.dist->parts[k].d;
    MPI_Bcast(w, q, MPI_LONG, 0, hc->comm);
    for (int k = 0; k < q; k++) areas[k] = (double)w[k];
    rc = fupermod_layout_by_name(o->layout ? o->layout : "br", areas, q, (int)M, (int)M, &next);
    if (rc == FUPERMOD_SUCCESS && next->npieces > 0) /* the node rectangles below are rects */
      rc = fupermod_error(FUPERMOD_ERR_USAGE, "inpa: layout '%s' gives a node several pieces; the nodes need one "
                          "rectangle each (br, kl)", o->layout);
    if ((rc = fupermod_agree(rc, hc->comm)) != FUPERMOD_SUCCESS) goto out;
    if (res->layout && same_layout(res->layout, next)) {
      /* the shares map to the rectangles just measured: the block granularity of the CMA
       * cannot get closer, and measuring them again would repeat the same times */
      fupermod_layout_free(next);
      next = NULL;
      res->stalled = 1;
      break;
    }
    fupermod_layout_free(res->layout);
    res->layout = next;
    next = NULL;
    r = &res->layout->rects[hc->node];
    bm = (long)r->height * o->b;
    bn = (long)r->width * o->b;
    if (bm == 0 || bn == 0) bm = bn = 0;
    rc = node_round(hc, o, &cache, bm, bn, measure, ctx, res, &t_node, &node_conv);
    if ((rc = fupermod_agree(rc, hc->comm)) != FUPERMOD_SUCCESS) goto out;
    res->bm = bm;
    res->bn = bn;
    /* step 6: node points at the areas actually computed (they tile the matrix, so sum to W) */
    if (leader) {
      fupermod_point pt = FUPERMOD_POINT_INIT;
      for (int k = 0; k < q; k++) dyn.dist->parts[k].d = fupermod_layout_area(res->layout, k);
      pt.d = dyn.dist->parts[hc->node].d;
      pt.t = pt.d > 0 ? t_node : 0.0;
      rc = fupermod_dynamic_step(&dyn, hc->comm_leaders, &pt, o->eps1, &conv);
      if (rc == FUPERMOD_SUCCESS)
        for (int k = 0; k < q; k++) {
          buf[3 * k] = (double)dyn.measured->parts[k].d;
          buf[3 * k + 1] = dyn.measured->parts[k].t;
          buf[3 * k + 2] = dyn.imbalance;
        }
    }
    res->inpa_iterations++;
    if ((rc = fupermod_agree(rc, hc->comm)) != FUPERMOD_SUCCESS) goto out;
    MPI_Bcast(&conv, 1, MPI_INT, 0, hc->comm);
    MPI_Bcast(buf, 3 * q, MPI_DOUBLE, 0, hc->comm);
    mine_conv = node_conv;
    MPI_Allreduce(&mine_conv, &all_conv, 1, MPI_INT, MPI_MIN, hc->comm);
    res->imbalance = buf[2];
    res->node_imbalance = 0.0;
    {
      double lo = INFINITY, hi = 0.0;
      for (int i = 0; i < res->devices->size; i++)
        if (res->devices->parts[i].d > 0) {
          if (res->devices->parts[i].t < lo) lo = res->devices->parts[i].t;
          if (res->devices->parts[i].t > hi) hi = res->devices->parts[i].t;
        }
      if (hi > 0) res->node_imbalance = (hi - lo) / lo;
    }
    res->converged = conv && all_conv;
    done = conv || res->inpa_iterations - 1 >= o->max_inpa;
  }
  if (!(res->nodes = fupermod_dist_alloc(W, q))) rc = fupermod_error(FUPERMOD_ERR_NOMEM, "out of memory");
  else
    for (int k = 0; k < q; k++) res->nodes->parts[k] = (fupermod_part){(long)buf[3 * k], buf[3 * k + 1], NAN};
  rc = fupermod_agree(rc, hc->comm);
out:
  fupermod_layout_free(next);
  if (dyn_ok) fupermod_dynamic_free(&dyn);
  cache_free(&cache);
  free(w);
  free(areas);
  free(buf);
  if (rc != FUPERMOD_SUCCESS) fupermod_inpa_result_free(res);
  return rc;
}
