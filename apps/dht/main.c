/* dht: inserts random 64-bit keys into a distributed hash table of MPI
 * windows (memory, storage, combined or auto), times the inserts, verifies
 * the table and reports one JSON line (stdout) and a summary (stderr).
 * Every rank exits with the same code (dht.h, docs/DHT.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "core/memlimit.h"
#include "dht.h"

static int agree(int rc) { /* the worst code of any rank, on every rank */
  int all;
  MPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return all;
}

static int local_ranks(void) {
  MPI_Comm node;
  int n = 1;
  if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) ==
      MPI_SUCCESS) {
    MPI_Comm_size(node, &n);
    MPI_Comm_free(&node);
  }
  return n;
}

struct results {
  double init_s, insert_s, verify_s, free_s;
  uint64_t table, storage, collisions, retries, heap_used;
  uint64_t minflt, majflt; /* page faults of all ranks during the inserts */
};

static void faults(uint64_t f[2]) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  f[0] = (uint64_t)ru.ru_minflt, f[1] = (uint64_t)ru.ru_majflt;
}

static void report(const struct dht *t, const struct dht_options *o, const struct results *r,
                   int rc) {
  uint64_t inserts = (uint64_t)t->nranks * t->inserts_per_rank;
  uint64_t limit;
  mpisw_memory_limit_env(&limit); /* read as libmpisw reads it; 0 when unset */
  char factor[32] = "null";
  if (o->kind == DHT_COMBINED) snprintf(factor, sizeof factor, "%g", o->factor);
  printf("{\"bench\":\"dht\",\"kind\":\"%s\",\"factor\":%s,\"order\":\"%s\",\"ranks\":%d,"
         "\"elements\":%llu,\"heap_factor\":%g,\"fill\":%g,\"inserts\":%llu,"
         "\"table_bytes\":%llu,\"storage_bytes\":%llu,\"memory_bytes\":%llu,"
         "\"memlimit_env\":%llu,\"seconds\":%.6f,\"inserts_per_s\":%.1f,\"init_seconds\":%.6f,"
         "\"verify_seconds\":%.6f,\"free_seconds\":%.6f,\"collisions\":%llu,"
         "\"cas_retries\":%llu,\"heap_used\":%llu,\"minor_faults\":%llu,"
         "\"major_faults\":%llu,\"verify\":\"%s\",\"status\":%d}\n",
         dht_kind_name(o->kind), factor, o->kind == DHT_COMBINED ? o->order : "memory_first",
         t->nranks, (unsigned long long)t->elements, o->heap_factor, o->fill,
         (unsigned long long)inserts, (unsigned long long)r->table,
         (unsigned long long)r->storage, (unsigned long long)(r->table - r->storage),
         (unsigned long long)limit, r->insert_s, inserts / r->insert_s, r->init_s, r->verify_s,
         r->free_s, (unsigned long long)r->collisions, (unsigned long long)r->retries,
         (unsigned long long)r->heap_used, (unsigned long long)r->minflt,
         (unsigned long long)r->majflt, o->verify == DHT_VERIFY_NONE ? "none" : rc == DHT_OK ? "ok" : "failed", rc);
  fflush(stdout);
  if (o->quiet) return;
  char tb[32], sb[32], lb[32] = "none";
  dht_human(tb, sizeof tb, (double)r->table);
  dht_human(sb, sizeof sb, (double)r->storage);
  if (limit) dht_human(lb, sizeof lb, (double)limit), strcat(lb, " per rank");
  fprintf(stderr,
          "dht: %d rank(s), %s windows: table %s (%llu + %llu heap entries of 16 B per rank), "
          "memory budget %s, on storage %s (%.0f%%). %llu inserts in %.3f s = %.0f inserts/s "
          "(%llu collisions into the heaps). Verify: %s.\n",
          t->nranks, dht_kind_name(o->kind), tb, (unsigned long long)t->elements,
          (unsigned long long)t->heap_elements, lb, sb,
          r->table ? 100.0 * (double)r->storage / (double)r->table : 0.0,
          (unsigned long long)inserts, r->insert_s, inserts / r->insert_s,
          (unsigned long long)r->collisions,
          o->verify == DHT_VERIFY_NONE ? "skipped"
          : rc == DHT_OK ? (o->verify == DHT_VERIFY_FULL
                                ? "every key found exactly once (owners' chains and lookups)"
                                : "every key found exactly once (owners' chains)")
                         : "FAILED");
}

static int run(struct dht *t, const struct dht_options *o) {
  struct results r = {0};
  dht_table_size(t, o); /* the precheck needs the volume's size too */
  int rc = agree(dht_memory_precheck(o, dht_table_bytes(t), local_ranks(), t->rank));
  if (rc) return rc;

  double t0 = MPI_Wtime();
  rc = dht_table_create(t, o); /* collective: every rank gets the same result */
  if (rc) return rc;
  MPI_Barrier(MPI_COMM_WORLD);
  r.init_s = MPI_Wtime() - t0;

  MPI_Win_lock_all(MPI_MODE_NOCHECK, t->vol.win);
  MPI_Win_lock_all(MPI_MODE_NOCHECK, t->heap.win);
  MPI_Barrier(MPI_COMM_WORLD);
  uint64_t f0[2], f1[2];
  faults(f0);
  t0 = MPI_Wtime();
  int mine = dht_insert_all(t);
  MPI_Win_unlock_all(t->heap.win);
  MPI_Win_unlock_all(t->vol.win);
  MPI_Barrier(MPI_COMM_WORLD);
  r.insert_s = MPI_Wtime() - t0;
  faults(f1);
  rc = agree(mine);
  if (rc == DHT_HEAP_FULL) {
    if (mine && !o->quiet)
      fprintf(stderr, "dht: rank %d: an overflow heap is full (%llu elements per rank): "
              "too many collisions for --heap-factor %g; use a larger one\n", t->rank,
              (unsigned long long)t->heap_elements, o->heap_factor);
    dht_table_free(t);
    return rc;
  }

  t0 = MPI_Wtime();
  uint64_t heap_used = 0;
  rc = agree(dht_verify(t, o->verify, &heap_used));
  r.verify_s = MPI_Wtime() - t0;

  uint64_t sums[6] = {t->vol.bytes + t->heap.bytes, t->vol.storage_bytes + t->heap.storage_bytes,
                      t->collisions, t->cas_retries, f1[0] - f0[0], f1[1] - f0[1]}, all[6];
  MPI_Reduce(sums, all, 6, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  r.table = all[0], r.storage = all[1], r.collisions = all[2], r.retries = all[3];
  r.minflt = all[4], r.majflt = all[5];
  r.heap_used = heap_used;
  t0 = MPI_Wtime();
  dht_table_free(t);
  MPI_Barrier(MPI_COMM_WORLD);
  r.free_s = MPI_Wtime() - t0;
  if (t->rank == 0) report(t, o, &r, rc);
  return rc;
}

/* --memory-limit B sets MPISW_MEMORY_LIMIT for this run. libmpisw reads it
 * when it is loaded, before main, so the program sets it and executes itself
 * again, once, before MPI_Init (nothing of MPI has started yet). */
static void apply_memory_limit(int argc, char **argv) {
  const char *want = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--memory-limit") && i + 1 < argc) want = argv[i + 1];
    else if (!strncmp(argv[i], "--memory-limit=", 15)) want = argv[i] + 15;
  }
  const char *have = getenv("MPISW_MEMORY_LIMIT");
  if (!want || (have && !strcmp(have, want))) return;
  setenv("MPISW_MEMORY_LIMIT", want, 1);
  execv("/proc/self/exe", argv);
  perror("dht: --memory-limit: cannot execute itself again");
  exit(DHT_ALLOC_ERROR);
}

#ifndef MPISW_PROJECT_VERSION
#define MPISW_PROJECT_VERSION "unknown"
#endif
#ifdef OPEN_MPI
#define DHT_MPI "Open MPI"
#else
#define DHT_MPI "MPICH"
#endif

/* --version answers without MPI, so it works outside mpiexec. */
static int asked_version(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--version")) return 1;
  return 0;
}

int main(int argc, char **argv) {
  if (asked_version(argc, argv)) {
    printf("dht %s (mpisw, built for %s)\n", MPISW_PROJECT_VERSION, DHT_MPI);
    return DHT_OK;
  }
  apply_memory_limit(argc, argv);
  MPI_Init(&argc, &argv);
  /* Errors come back as codes: the DHT says what failed and exits cleanly. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  struct dht t = {0};
  struct dht_options o;
  MPI_Comm_rank(MPI_COMM_WORLD, &t.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &t.nranks);
  int rc = dht_parse_options(argc, argv, t.rank, &o);
  if (rc == 0) rc = run(&t, &o);
  else if (rc < 0) rc = DHT_OK; /* --help */
  MPI_Finalize();
  return rc;
}
