/* hacc_io: checkpoint and restart of HACC's particles (hacc_io.h), by
 * MPI-IO, storage windows, a pooled file or the checkpoint API. Each phase is
 * timed between two barriers (the slowest rank), reported as one JSON line
 * on stdout and a summary on stderr. Every rank exits with the same code. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hacc_io.h"

/* One result for every rank: the worst code, and the message of the lowest
 * rank that has it (printed once, by that rank's data on rank 0). */
static int agree_why(int rc, char *why, size_t n) {
  int all = hacc_agree(rc), me = hacc_rank(), first;
  int mine = rc == all && rc ? me : hacc_nranks();
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (all) {
    MPI_Bcast(why, (int)n, MPI_CHAR, first, MPI_COMM_WORLD);
    if (me == 0) fprintf(stderr, "hacc_io: rank %d: %s\n", first, why);
  }
  return all;
}

static int is_file_method(enum hacc_method m) { return m != HACC_CKPT; }

static int checkpoint(const struct hacc_options *o, struct hacc_particles *pt, int step,
                      struct hacc_io_result *res) {
  switch (o->method) {
    case HACC_WIN: return hacc_win_checkpoint(o, pt, step, res);
    case HACC_CKPT: return hacc_ckpt_checkpoint(o, pt, step, res);
    default: return hacc_mpiio_checkpoint(o, pt, step, res);
  }
}

static int restart(const struct hacc_options *o, struct hacc_particles *pt, int *step,
                   struct hacc_io_result *res) {
  switch (o->method) {
    case HACC_WIN: return hacc_win_restart(o, pt, step, res);
    case HACC_CKPT: return hacc_ckpt_restart(o, pt, step, res);
    default: return hacc_mpiio_restart(o, pt, step, res);
  }
}

struct phase {
  const char *name;   /* checkpoint | restart */
  int step;
  double seconds;
  int64_t cached;     /* restart: bytes of the file still cached before it, -1 unknown */
  const char *verify; /* ok | failed | none */
  int status;
};

static double load1(void) { /* the machine's load, for noisy timings */
  double l[1];
  return getloadavg(l, 1) == 1 ? l[0] : -1;
}

static void report(const struct hacc_options *o, const struct phase *ph) {
  if (hacc_rank() != 0) return;
  uint64_t bytes = o->particles * HACC_PARTICLE_BYTES;
  double gbs = ph->seconds > 0 ? (double)bytes / ph->seconds / 1e9 : 0;
  const char *cache = !strcmp(ph->name, "checkpoint") ? "none"
                      : o->method == HACC_POOL ? "memory"
                      : o->cold ? "fadvise" : "warm";
  printf("{\"bench\":\"hacc_io\",\"phase\":\"%s\",\"method\":\"%s\",\"backend\":\"%s\","
         "\"access\":\"%s\",\"ranks\":%d,\"particles\":%llu,\"bytes\":%llu,\"step\":%d,"
         "\"sim_step\":%d,"
         "\"seconds\":%.6f,\"gb_per_s\":%.4f,\"cache\":\"%s\",\"cached_bytes\":%lld,"
         "\"verify\":\"%s\",\"status\":%d,\"load1\":%.2f,\"cores\":%ld}\n",
         ph->name, hacc_method_name(o->method), o->method == HACC_WIN ? hacc_win_backend() : "none",
         o->access ? o->access : "none", hacc_nranks(), (unsigned long long)o->particles,
         (unsigned long long)bytes, ph->step, ph->step, ph->seconds, gbs, cache, (long long)ph->cached,
         ph->verify, ph->status, load1(), sysconf(_SC_NPROCESSORS_ONLN));
  fflush(stdout);
  if (!o->quiet)
    fprintf(stderr, "hacc_io: %s %s, %d rank(s), %llu particles (%.3f GB), step %d: %.3f s "
            "= %.3f GB/s%s%s\n", hacc_method_name(o->method), ph->name, hacc_nranks(),
            (unsigned long long)o->particles, (double)bytes / 1e9, ph->step, ph->seconds, gbs,
            strcmp(ph->verify, "none") ? ", verify " : "",
            strcmp(ph->verify, "none") ? ph->verify : "");
}

/* Every rank's part of the checkpoint dropped from the page cache; the
 * bytes still cached (all ranks) or -1. */
static int64_t drop_cache(const struct hacc_options *o, uint64_t total, int writers) {
  int64_t left = 0;
  if (o->method == HACC_CKPT) {
    hacc_ckpt_drop_cache();
  } else {
    /* This rank's share of the writers' sections (any reader rank count). */
    int p = hacc_nranks(), r = hacc_rank();
    for (int q = r; q < writers; q += p) {
      uint64_t f, n;
      hacc_share(total, writers, q, &f, &n);
      int64_t c = hacc_cache_drop(o->path, hacc_section_offset(total, writers, q),
                                  hacc_section_bytes(n));
      left = left < 0 || c < 0 ? -1 : left + c;
    }
    if (r == 0) {
      int64_t c = hacc_cache_drop(o->path, 0, HACC_HEADER_BYTES);
      left = left < 0 || c < 0 ? -1 : left + c;
    }
  }
  long long mine = left, sum, worst;
  MPI_Allreduce(&mine, &sum, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&mine, &worst, 1, MPI_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
  return o->method == HACC_CKPT || worst < 0 ? -1 : sum;
}

/* --settle before a timed phase (a pooled file has no file system). */
static void settle(const struct hacc_options *o) {
  if (o->method != HACC_POOL) hacc_settle(o->path, o->settle);
}

static int run(struct hacc_options *o) {
  struct hacc_particles pt;
  struct hacc_io_result res = {0};
  int p = hacc_nranks(), r = hacc_rank(), rc = 0;
  int writers = p; /* ranks that wrote the file being restarted */

  if (o->restart_only && o->method != HACC_CKPT) {
    /* The header says how many particles, from how many ranks. */
    struct hacc_header h;
    rc = agree_why(hacc_file_header(o, &h, res.why, sizeof res.why), res.why, sizeof res.why);
    if (rc) return rc;
    if (o->particles_given && h.total != o->particles) {
      if (r == 0)
        fprintf(stderr, "hacc_io: %s holds %llu particles, not the %llu of --particles: a "
                "checkpoint of another run\n", o->path, (unsigned long long)h.total,
                (unsigned long long)o->particles);
      return HACC_BAD_FILE;
    }
    o->particles = h.total;
    writers = (int)h.ranks;
  }
  if (hacc_agree(hacc_particles_alloc(&pt, o->particles, p, r) ? HACC_IO_ERROR : 0)) {
    if (r == 0) fprintf(stderr, "hacc_io: out of memory for %llu particles\n",
                        (unsigned long long)o->particles);
    return HACC_IO_ERROR;
  }

  if (o->method == HACC_WIN && o->readers == 0) o->readers = hacc_win_readers_auto();
  int last = o->steps - 1;
  if (!o->restart_only) {
    if (is_file_method(o->method)) {
      rc = agree_why(hacc_file_prepare(o, res.why, sizeof res.why), res.why, sizeof res.why);
      if (rc) goto out;
    }
    for (int step = 0; step < o->steps; step++) {
      hacc_particles_fill(&pt, step); /* the simulation's step: not timed */
      settle(o);
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      rc = checkpoint(o, &pt, step, &res);
      if (!hacc_agree(rc) && is_file_method(o->method))
        rc = hacc_file_commit(o, o->particles, p, step, res.why, sizeof res.why);
      MPI_Barrier(MPI_COMM_WORLD);
      struct phase ph = {"checkpoint", step, MPI_Wtime() - t0, -1, "none", 0};
      rc = agree_why(rc, res.why, sizeof res.why);
      ph.status = rc;
      report(o, &ph);
      if (rc) goto out;
    }
    if (o->method == HACC_WIN) { /* its window, kept for every step: freed, not timed */
      rc = agree_why(hacc_win_close_checkpoint(res.why, sizeof res.why), res.why,
                     sizeof res.why);
      if (rc) goto out;
    }
  }
  if (o->no_restart) goto out;

  int64_t cached = -1;
  if (o->cold && o->method != HACC_POOL) cached = drop_cache(o, o->particles, writers);
  hacc_particles_clear(&pt);
  settle(o);
  int step = -1;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  rc = restart(o, &pt, &step, &res);
  MPI_Barrier(MPI_COMM_WORLD);
  struct phase ph = {"restart", step, MPI_Wtime() - t0, cached, "none", 0};
  rc = agree_why(rc, res.why, sizeof res.why);
  if (!rc && !o->restart_only && step != last) {
    snprintf(res.why, sizeof res.why, "restarted step %d, the last checkpoint was step %d",
             step, last);
    rc = agree_why(HACC_BAD_FILE, res.why, sizeof res.why);
  }
  if (!rc && o->verify) {
    int bad = hacc_particles_verify(&pt, step, res.why, sizeof res.why);
    rc = agree_why(bad ? HACC_VERIFY_FAILED : 0, res.why, sizeof res.why);
    ph.verify = rc ? "failed" : "ok";
  }
  ph.status = rc;
  report(o, &ph);

out:
  hacc_win_close_checkpoint(res.why, sizeof res.why); /* after a failed step */
  hacc_win_close(&pt); /* a win restart's window, before the file may go */
  if (o->method == HACC_CKPT) {
    if (o->remove) hacc_ckpt_remove(o);
    else hacc_ckpt_close();
  } else if (o->remove && r == 0) {
    MPI_File_delete(o->path, MPI_INFO_NULL);
  }
  hacc_particles_free(&pt);
  return rc;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  struct hacc_options o;
  int rc = hacc_parse_options(argc, argv, hacc_rank(), &o);
  if (rc == 0) rc = run(&o);
  else if (rc < 0) rc = HACC_OK; /* --help */
  MPI_Finalize();
  return rc;
}
