/* The assignment solver (src/core/lap.c) and the aggregator strategies
 * (src/core/cb_assign.c), no MPI. The solver's total equals the optimum
 * found by enumerating every assignment, on thousands of small matrices:
 * square, more rows than columns, more columns than rows, many ties,
 * forbidden (+inf) entries, infeasible ones. TATP's hop-bytes equal the
 * brute-force optimum over the candidates and are <= OTP's and LATP's;
 * LATP moves no more bytes than OTP; LATP vs OTP in hop-bytes is counted and
 * printed (not a theorem). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "core/cb_assign.h"
#include "core/lap.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}
static long rnd(long n) { return (long)(next() % (uint64_t)n); }

/* Brute force: every injective map of the smaller side into the larger. */
struct brute {
  const double *c;
  size_t nr, nc;
  int small_is_col; /* enumerate columns -> rows */
  int used[16];
  double best;
};

static void enumerate(struct brute *b, size_t k, double sum) {
  size_t nsmall = b->small_is_col ? b->nc : b->nr, nbig = b->small_is_col ? b->nr : b->nc;
  if (k == nsmall) {
    if (sum < b->best) b->best = sum;
    return;
  }
  for (size_t t = 0; t < nbig; t++) {
    if (b->used[t]) continue;
    double e = b->small_is_col ? b->c[t * b->nc + k] : b->c[k * b->nc + t];
    if (isinf(e)) continue;
    b->used[t] = 1;
    enumerate(b, k + 1, sum + e);
    b->used[t] = 0;
  }
}

static double brute_min(const double *c, size_t nr, size_t nc) {
  struct brute b = {c, nr, nc, nr >= nc, {0}, INFINITY};
  enumerate(&b, 0, 0);
  return b.best;
}

/* A valid assignment: the arrays agree, each side at most once, the smaller
 * side complete, no forbidden entry, total = sum of the chosen entries. */
static int valid(const double *c, size_t nr, size_t nc, const long *col_row,
                 const long *row_col, double total) {
  size_t assigned = 0;
  double sum = 0;
  for (size_t j = 0; j < nc; j++) {
    long r = col_row[j];
    if (r < 0) continue;
    if ((size_t)r >= nr || row_col[r] != (long)j || isinf(c[r * nc + j])) return 0;
    assigned++;
    sum += c[r * nc + j];
  }
  for (size_t i = 0; i < nr; i++)
    if (row_col[i] >= 0 && col_row[row_col[i]] != (long)i) return 0;
  if (assigned != (nr < nc ? nr : nc)) return 0;
  return fabs(sum - total) <= 1e-9 * (1 + fabs(sum));
}

/* kind 0: integers 0..range-1 (ties when small); 1: uniform doubles. */
static void fill(double *c, size_t cells, int kind, long range, int pct_inf) {
  for (size_t k = 0; k < cells; k++) {
    c[k] = kind ? (double)(next() >> 11) / 9007199254740992.0 * 100 : (double)rnd(range);
    if (pct_inf && rnd(100) < pct_inf) c[k] = MPISW_LAP_FORBIDDEN;
  }
}

static void test_against_brute_force(void) {
  double c[12 * 12];
  long col_row[12], row_col[12], col2[12], row2[12];
  int cases = 0, infeasible = 0, ties = 0;
  for (int trial = 0; trial < 6000; trial++) {
    size_t nr = 1 + (size_t)rnd(9), nc = 1 + (size_t)rnd(9);
    if (trial % 3 == 0) nc = nr; /* square */
    if (nr > 8 && nc > 8) nc = 8;
    size_t small = nr < nc ? nr : nc, big = nr < nc ? nc : nr;
    if (small > 8 || big > 9) continue;
    int kind = trial % 4 == 3;
    long range = trial % 2 ? 3 : 1000; /* 3: almost everything ties */
    int pct_inf = trial % 5 == 0 ? 50 : trial % 5 == 1 ? 8 : 0;
    fill(c, nr * nc, kind, range, pct_inf);
    double want = brute_min(c, nr, nc);
    double total = -1;
    int rc = mpisw_lap_solve(c, nr, nc, col_row, row_col, &total);
    cases++;
    if (range == 3) ties++;
    if (isinf(want)) {
      infeasible++;
      CHECK(rc == MPISW_LAP_EINFEASIBLE);
      if (rc != MPISW_LAP_EINFEASIBLE)
        fprintf(stderr, "trial %d %zux%zu: want infeasible, rc %d\n", trial, nr, nc, rc);
      continue;
    }
    CHECK(rc == MPISW_LAP_OK);
    if (rc != MPISW_LAP_OK) {
      fprintf(stderr, "trial %d %zux%zu: rc %d\n", trial, nr, nc, rc);
      continue;
    }
    CHECK(valid(c, nr, nc, col_row, row_col, total));
    if (kind == 0) {
      CHECK(total == want); /* integers: exact */
    } else {
      CHECK(fabs(total - want) <= 1e-9 * (1 + fabs(want)));
    }
    if (!(fabs(total - want) <= 1e-9 * (1 + fabs(want))))
      fprintf(stderr, "trial %d %zux%zu: total %.17g, brute force %.17g\n", trial, nr, nc,
              total, want);
    /* deterministic: the same matrix, the same assignment */
    double t2;
    CHECK(mpisw_lap_solve(c, nr, nc, col2, row2, &t2) == MPISW_LAP_OK);
    CHECK(t2 == total && !memcmp(col2, col_row, sizeof(long) * nc) &&
          !memcmp(row2, row_col, sizeof(long) * nr));
  }
  printf("brute force: %d matrices (%d with many ties, %d infeasible)\n", cases, ties,
         infeasible);
  CHECK(cases > 5000 && infeasible > 100);
}

/* Larger matrices than the brute force reaches (scipy checks those up to
 * 2000 x 2000, tests/tools/lap_scipy.py): an optimal assignment is valid and
 * no exchange of two columns' rows lowers its total. */
static void test_no_two_swap_improves(void) {
  enum { N = 60 };
  static double c[N * N];
  long col_row[N], row_col[N];
  for (int trial = 0; trial < 20; trial++) {
    fill(c, N * N, trial % 2, trial % 4 < 2 ? 5 : 100000, trial % 3 == 0 ? 20 : 0);
    double total;
    int rc = mpisw_lap_solve(c, N, N, col_row, row_col, &total);
    if (rc == MPISW_LAP_EINFEASIBLE) continue;
    CHECK(rc == MPISW_LAP_OK);
    CHECK(valid(c, N, N, col_row, row_col, total));
    /* optimal implies no exchange of two columns' rows lowers the total */
    for (int a = 0; a < N; a++)
      for (int b = a + 1; b < N; b++) {
        long ra = col_row[a], rb = col_row[b];
        double now = c[ra * N + a] + c[rb * N + b], swapped = c[rb * N + a] + c[ra * N + b];
        CHECK(!(swapped < now - 1e-9 * (1 + fabs(now))));
      }
  }
}

static void test_errors_and_edges(void) {
  double c[6] = {1, 2, 3, 4, 5, 6};
  long cr[3] = {7, 7, 7}, rc_[3] = {7, 7, 7};
  double total = 42;
  /* empty matrices: nothing assigned, total 0 */
  CHECK(mpisw_lap_solve(NULL, 0, 3, cr, NULL, &total) == MPISW_LAP_OK);
  CHECK(total == 0 && cr[0] == -1 && cr[2] == -1);
  CHECK(mpisw_lap_solve(NULL, 2, 3, cr, rc_, &total) == MPISW_LAP_EINVAL);
  c[4] = NAN;
  total = 42;
  CHECK(mpisw_lap_solve(c, 2, 3, cr, rc_, &total) == MPISW_LAP_EVALUE);
  CHECK(total == 42); /* outputs untouched on an error */
  c[4] = -INFINITY;
  CHECK(mpisw_lap_solve(c, 2, 3, cr, rc_, &total) == MPISW_LAP_EVALUE);
  c[4] = 1e308;
  CHECK(mpisw_lap_solve(c, 2, 3, cr, rc_, &total) == MPISW_LAP_EVALUE);
  c[4] = 5;
  /* a row of forbidden entries with as many rows as columns: infeasible */
  double sq[4] = {MPISW_LAP_FORBIDDEN, MPISW_LAP_FORBIDDEN, 1, 2};
  CHECK(mpisw_lap_solve(sq, 2, 2, cr, rc_, &total) == MPISW_LAP_EINFEASIBLE);
  /* ... with a spare row it is fine: that process simply does not aggregate */
  double tall[6] = {MPISW_LAP_FORBIDDEN, MPISW_LAP_FORBIDDEN, 1, 2, 4, 3};
  CHECK(mpisw_lap_solve(tall, 3, 2, cr, rc_, &total) == MPISW_LAP_OK);
  CHECK(total == 4 && cr[0] == 1 && cr[1] == 2);
  /* nrows < ncols: each row gets a column, transposed internally */
  CHECK(mpisw_lap_solve(c, 2, 3, cr, rc_, &total) == MPISW_LAP_OK);
  CHECK(total == 1 + 5 && rc_[0] == 0 && rc_[1] == 1 && cr[2] == -1);
  /* negative costs are fine */
  double neg[4] = {-5, -1, -1, -5};
  CHECK(mpisw_lap_solve(neg, 2, 2, cr, NULL, &total) == MPISW_LAP_OK && total == -10);
  /* all equal: any assignment, but always the same one */
  double flat[9] = {2, 2, 2, 2, 2, 2, 2, 2, 2};
  long a1[3], a2[3];
  CHECK(mpisw_lap_solve(flat, 3, 3, a1, NULL, &total) == MPISW_LAP_OK && total == 6);
  CHECK(mpisw_lap_solve(flat, 3, 3, a2, NULL, &total) == MPISW_LAP_OK);
  CHECK(!memcmp(a1, a2, sizeof a1));
  CHECK(strstr(mpisw_lap_strerror(MPISW_LAP_EINFEASIBLE), "no feasible assignment") != NULL);
  CHECK(strstr(mpisw_lap_strerror(MPISW_LAP_EVALUE), "NaN") != NULL);
}

/* A cluster: nodes of ppn processes; D: 0 to itself, 0.5 inside a node, 2
 * or 4 hops between nodes (two switches). */
static void cluster_dist(double *D, size_t P, size_t ppn, size_t nodes_per_switch) {
  for (size_t p = 0; p < P; p++)
    for (size_t q = 0; q < P; q++) {
      size_t np = p / ppn, nq = q / ppn;
      D[p * P + q] = p == q                                             ? 0
                     : np == nq                                         ? 0.5
                     : np / nodes_per_switch == nq / nodes_per_switch ? 2
                                                                        : 4;
    }
}

static double brute_hop(const struct mpisw_cb_problem *pb) {
  /* the optimum over the candidates, by enumeration of W's columns -> rows */
  size_t m = pb->ndomains, nc = pb->ncand;
  double *w = malloc(sizeof *w * nc * m);
  mpisw_cb_workload(pb, pb->cand, nc, w);
  double best = brute_min(w, nc, m);
  free(w);
  return best;
}

static void test_strategies(void) {
  enum { PMAX = 16, MMAX = 8 };
  double C[PMAX * MMAX], D[PMAX * PMAX];
  long cand[PMAX], otp[MMAX], latp[MMAX], tatp[MMAX], anyp[MMAX];
  int latp_better = 0, latp_worse = 0, latp_equal = 0, tatp_better = 0, cases = 0;
  for (int trial = 0; trial < 400; trial++) {
    size_t ppn = 1 + (size_t)rnd(4), nodes = 2 + (size_t)rnd(4);
    size_t P = ppn * nodes;
    if (P > PMAX) continue;
    cluster_dist(D, P, ppn, 2);
    /* candidates: one per node (the node's first process), ROMIO's default,
     * or a random subset in random order (a cb_config_list) */
    size_t nc = 0;
    if (trial % 2 == 0) {
      for (size_t n = 0; n < nodes; n++) cand[nc++] = (long)(n * ppn);
    } else {
      long perm[PMAX];
      for (size_t p = 0; p < P; p++) perm[p] = (long)p;
      for (size_t p = P; p > 1; p--) {
        size_t k = (size_t)rnd((long)p);
        long t = perm[p - 1];
        perm[p - 1] = perm[k];
        perm[k] = t;
      }
      nc = 2 + (size_t)rnd((long)(P - 1));
      if (nc > 9) nc = 9;
      memcpy(cand, perm, sizeof(long) * nc);
    }
    size_t m = 1 + (size_t)rnd((long)nc);
    if (m > MMAX) m = MMAX;
    /* bytes: each process holds a random share of each domain, some none */
    for (size_t k = 0; k < P * m; k++) C[k] = rnd(3) ? (double)rnd(1 << 20) : 0;
    struct mpisw_cb_problem pb = {P, m, C, D, cand, nc, NULL, 0};
    CHECK(mpisw_cb_otp(&pb, otp) == 0);
    CHECK(mpisw_cb_latp(&pb, latp) == 0);
    CHECK(mpisw_cb_tatp(&pb, 0, NULL, tatp) == 0);
    for (size_t d = 0; d < m; d++) CHECK(otp[d] == cand[d]);
    double ho = mpisw_cb_hopbytes(&pb, otp), hl = mpisw_cb_hopbytes(&pb, latp),
           ht = mpisw_cb_hopbytes(&pb, tatp);
    /* hop-bytes are integers times 0.5 below 2^53: exact */
    CHECK(ht == brute_hop(&pb));
    CHECK(ht <= ho && ht <= hl);
    CHECK(mpisw_cb_moved_bytes(&pb, latp) <= mpisw_cb_moved_bytes(&pb, otp));
    /* each candidate at most once */
    for (size_t a = 0; a < m; a++)
      for (size_t b = a + 1; b < m; b++) CHECK(tatp[a] != tatp[b] && latp[a] != latp[b]);
    /* any process may aggregate: never worse than the candidates alone */
    CHECK(mpisw_cb_tatp(&pb, 1, NULL, anyp) == 0);
    CHECK(mpisw_cb_hopbytes(&pb, anyp) <= ht);
    /* ... and with only the candidates allowed, the same optimum */
    unsigned char may[PMAX] = {0};
    for (size_t k = 0; k < nc; k++) may[cand[k]] = 1;
    CHECK(mpisw_cb_tatp(&pb, 1, may, anyp) == 0);
    CHECK(mpisw_cb_hopbytes(&pb, anyp) == ht);
    for (size_t d = 0; d < m; d++) CHECK(may[anyp[d]]);
    cases++;
    latp_better += hl < ho;
    latp_worse += hl > ho;
    latp_equal += hl == ho;
    tatp_better += ht < hl;
  }
  printf("strategies: %d problems; LATP hop-bytes vs OTP: %d lower, %d equal, %d higher; "
         "TATP below LATP in %d\n", cases, latp_better, latp_equal, latp_worse, tatp_better);
  CHECK(cases > 200 && tatp_better > 0);

  /* The source document's Figure 1 kind of case: LATP keeps local bytes. */
  double C2[3 * 2] = {0, 10, 10, 0, 1, 1};
  double D2[9] = {0, 2, 2, 2, 0, 2, 2, 2, 0};
  long c2[3] = {0, 1, 2}, a2[2];
  struct mpisw_cb_problem p2 = {3, 2, C2, D2, c2, 3, NULL, 0};
  CHECK(mpisw_cb_latp(&p2, a2) == 0 && a2[0] == 1 && a2[1] == 0);
  CHECK(mpisw_cb_tatp(&p2, 0, NULL, a2) == 0 && a2[0] == 1 && a2[1] == 0);
  CHECK(mpisw_cb_hopbytes(&p2, a2) == 2 * (1 + 1) && mpisw_cb_moved_bytes(&p2, a2) == 2);
  CHECK(mpisw_cb_otp(&p2, a2) == 0 && a2[0] == 0 && a2[1] == 1);
  CHECK(mpisw_cb_hopbytes(&p2, a2) == 2 * (10 + 1) * 2);

  /* bad problems */
  long dup[2] = {1, 1}, out[2] = {0, 9};
  struct mpisw_cb_problem bad = {3, 2, C2, D2, dup, 2, NULL, 0};
  CHECK(mpisw_cb_tatp(&bad, 0, NULL, a2) == MPISW_LAP_EINVAL);
  bad.cand = out;
  CHECK(mpisw_cb_latp(&bad, a2) == MPISW_LAP_EINVAL);
  bad.cand = c2;
  bad.ncand = 1; /* fewer candidates than domains */
  CHECK(mpisw_cb_otp(&bad, a2) == MPISW_LAP_EINVAL);
  /* every process forbidden: no assignment */
  unsigned char none[3] = {0, 0, 0};
  CHECK(mpisw_cb_tatp(&p2, 1, none, a2) == MPISW_LAP_EINFEASIBLE);
}

/* cb_nodes=auto: problems for k = 1..8 domains of one byte range spread over
 * 8 processes on 4 nodes. */
struct auto_ctx {
  double C[8 * 8], D[8 * 8];
  long cand[8];
};

static int auto_problem(size_t k, void *vctx, struct mpisw_cb_problem *out) {
  struct auto_ctx *x = vctx;
  /* process p writes bytes [p*1024, (p+1)*1024); domain d is the d-th of k
   * equal parts of [0, 8192) */
  for (size_t p = 0; p < 8; p++)
    for (size_t d = 0; d < k; d++) {
      double lo = (double)d * 8192 / k, hi = (double)(d + 1) * 8192 / k;
      double a = p * 1024.0 > lo ? p * 1024.0 : lo, b = (p + 1) * 1024.0 < hi ? (p + 1) * 1024.0 : hi;
      x->C[p * k + d] = b > a ? floor(b) - floor(a) : 0;
    }
  *out = (struct mpisw_cb_problem){8, k, x->C, x->D, x->cand, 8, NULL, 0};
  return 0;
}

static void test_auto(void) {
  struct auto_ctx x;
  cluster_dist(x.D, 8, 2, 2);
  for (int p = 0; p < 8; p++) x.cand[p] = p;
  struct mpisw_cb_auto_model m;
  mpisw_cb_auto_defaults(&m);
  CHECK(m.net_bw > 0 && m.agg_bw > 0 && m.fs_bw == 0 && m.agg_cost > 0);
  double hop[8], cost[8];
  size_t k = 0;
  /* a big call, free aggregators: all 8 (hop-bytes 0, most parallel I/O) */
  m.agg_cost = 0;
  CHECK(mpisw_cb_auto(&m, 8, 1e9, auto_problem, &x, 0, NULL, &k, hop, cost) == 0);
  CHECK(k == 8 && hop[7] == 0 && hop[0] > hop[3]);
  for (int i = 0; i < 8; i++)
    CHECK(cost[i] == mpisw_cb_auto_cost(&m, (size_t)i + 1, hop[i], 1e9));
  /* expensive aggregators and a file system that one saturates: one */
  m.agg_cost = 1;
  m.fs_bw = m.agg_bw;
  CHECK(mpisw_cb_auto(&m, 8, 1e9, auto_problem, &x, 0, NULL, &k, NULL, NULL) == 0);
  CHECK(k == 1);
  /* the model by hand: T = H/net + B/min(k agg, fs) + k cost */
  struct mpisw_cb_auto_model h = {100, 10, 25, 0.5};
  CHECK(mpisw_cb_auto_cost(&h, 2, 1000, 200) == 1000 / 100.0 + 200 / 20.0 + 1.0);
  CHECK(mpisw_cb_auto_cost(&h, 4, 1000, 200) == 1000 / 100.0 + 200 / 25.0 + 2.0);
  h.net_bw = 0;
  CHECK(mpisw_cb_auto(&h, 8, 1, auto_problem, &x, 0, NULL, &k, NULL, NULL) ==
        MPISW_LAP_EINVAL);
}

/* Out of memory: a child process whose address space is capped just above
 * what it uses gets MPISW_LAP_ENOMEM for a solve that needs a 16 MiB
 * transposed copy, not a crash. (Not under AddressSanitizer, which reserves
 * its shadow memory and aborts on a failed allocation by design.) */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LAP_TEST_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define LAP_TEST_ASAN 1
#endif
static void test_out_of_memory(void) {
#ifdef LAP_TEST_ASAN
  printf("out of memory: not checked under AddressSanitizer\n");
#else
  enum { R = 2048, C = 1024 };
  double *c = malloc(sizeof *c * R * C);
  CHECK(c != NULL);
  if (!c) return;
  for (size_t k = 0; k < (size_t)R * C; k++) c[k] = (double)(k % 97);
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    long pages = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f || fscanf(f, "%ld", &pages) != 1) _exit(3);
    fclose(f);
    struct rlimit rl;
    rl.rlim_cur = rl.rlim_max = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + (4 << 20);
    if (setrlimit(RLIMIT_AS, &rl) != 0) _exit(4);
    long cr[C];
    double total = 0;
    int rc = mpisw_lap_solve(c, R, C, cr, NULL, &total);
    _exit(rc == MPISW_LAP_ENOMEM ? 0 : 10 + rc);
  }
  int status = 0;
  CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    fprintf(stderr, "out of memory child: status 0x%x\n", status);
  /* with the memory it needs, the same matrix solves */
  long *cr = malloc(sizeof *cr * C);
  double total;
  CHECK(cr && mpisw_lap_solve(c, R, C, cr, NULL, &total) == MPISW_LAP_OK);
  free(cr);
  free(c);
#endif
}

int main(void) {
  test_errors_and_edges();
  test_against_brute_force();
  test_no_two_swap_improves();
  test_strategies();
  test_auto();
  test_out_of_memory();
  return check_summary("test_lap");
}
