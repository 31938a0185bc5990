/* hacc_io: the HACC I/O kernel's checkpoint and restart of particles
 * (CORAL benchmarks; paper section 3.5.1), written for libmpisw.
 *
 * Every rank holds n particles as 9 arrays: xx yy zz vx vy vz phi (float),
 * pid (int64), mask (uint16): 38 bytes a particle. A checkpoint writes them
 * all into one shared file: a 4 KiB header, then one section per rank, each
 * holding that rank's 9 arrays one after another (as the CORAL kernel does),
 * sections starting at 4 KiB boundaries. A restart reads them back and
 * verifies every byte. docs: README "HACC-IO", apps/hacc_io/layout.c. */
#ifndef HACC_IO_H
#define HACC_IO_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

/* Exit codes; every rank exits with the same one (the worst of all ranks). */
enum hacc_exit {
  HACC_OK = 0,
  HACC_VERIFY_FAILED = 1, /* a restart byte differs from what was written */
  HACC_BAD_OPTION = 2,
  HACC_BAD_FILE = 3,      /* not a hacc_io file, incomplete, short, corrupt
                             header, or from another size or rank count */
  HACC_IO_ERROR = 4       /* missing directory, no permission, full disk, any
                             MPI-IO, window or checkpoint failure */
};

enum hacc_method { HACC_INDEP, HACC_COLL, HACC_WIN, HACC_POOL, HACC_CKPT };

struct hacc_options {
  uint64_t particles;     /* total over all ranks */
  int particles_given;    /* --particles on the command line */
  enum hacc_method method;
  const char *path;       /* the shared file (pool: its name in the pool) */
  int steps;              /* checkpoints taken, one per step */
  int restart_only;       /* read and verify an existing checkpoint */
  int no_restart;         /* checkpoint only */
  int verify;             /* verify every restart byte (default on) */
  int cold;               /* drop the file from the page cache before restart */
  int remove;             /* remove the checkpoint file(s) at the end */
  const char *backend;    /* win: storage_backend hint (auto | mmap | pager) */
  const char *access;     /* win: access_style hint, or NULL */
  double settle;          /* seconds waited after syncfs before each timed phase; <0 none */
  int readers;            /* win restart: threads bringing the section in (0: auto) */
  int fill_put;           /* win checkpoint: MPI_Put to itself, not memcpy */
  int quiet;              /* no summary lines on stderr */
};

/* The particle arrays of one rank. */
#define HACC_ARRAYS 9
#define HACC_PARTICLE_BYTES 38
extern const char *const hacc_array_names[HACC_ARRAYS];
extern const unsigned hacc_array_size[HACC_ARRAYS]; /* bytes per element */

struct hacc_particles {
  uint64_t first;              /* global index of this rank's first particle */
  uint64_t n;                  /* particles of this rank */
  void *array[HACC_ARRAYS];    /* xx yy zz vx vy vz phi pid mask */
  void *block;                 /* one allocation holding all of them */
};

/* ---- the file layout (layout.c) ---- */
#define HACC_HEADER_BYTES 4096u
#define HACC_ALIGN 4096u
#define HACC_MAGIC "HACCIOMP"
#define HACC_FORMAT 1u
#define HACC_COMPLETE 0x434f4d50u /* "COMP" */

/* The header as written (little-endian, as the writer's machine: x86-64). */
struct hacc_header {
  char magic[8];          /* HACC_MAGIC */
  uint32_t format;        /* HACC_FORMAT */
  uint32_t header_bytes;  /* HACC_HEADER_BYTES */
  uint64_t total;         /* particles over all ranks */
  uint32_t ranks;         /* ranks that wrote the file */
  uint32_t step;          /* the step whose particles the file holds */
  uint32_t align;         /* sections start at multiples of this */
  uint32_t state;         /* HACC_COMPLETE once every section is durable */
  uint64_t file_bytes;    /* the file's size */
  uint64_t checksum;      /* mpisw_hash64 of every byte above */
};

/* Rank r of p's share of total: its first global index and count. */
void hacc_share(uint64_t total, int p, int r, uint64_t *first, uint64_t *n);
uint64_t hacc_section_bytes(uint64_t n);                     /* 38 n */
uint64_t hacc_section_offset(uint64_t total, int p, int r);  /* in the file */
uint64_t hacc_file_bytes(uint64_t total, int p);
uint64_t hacc_array_offset(uint64_t n, int a);               /* in a section */
void hacc_header_make(struct hacc_header *h, uint64_t total, int p, int step, int complete);
/* 0, or HACC_BAD_FILE with a message in why (the file's name not included). */
int hacc_header_check(const struct hacc_header *h, uint64_t file_size, char *why, size_t n);

/* ---- the particles (particles.c) ---- */
int hacc_particles_alloc(struct hacc_particles *pt, uint64_t total, int p, int r);
void hacc_particles_free(struct hacc_particles *pt);
void hacc_particles_fill(struct hacc_particles *pt, int step);
void hacc_particles_clear(struct hacc_particles *pt);
/* 0 when every byte is what step writes; else 1, and the first difference
 * (array, particle) in why. */
int hacc_particles_verify(const struct hacc_particles *pt, int step, char *why, size_t n);

/* ---- the methods: one checkpoint or restart each, collective ---- */
struct hacc_io_result {
  double seconds;        /* slowest rank, between two barriers */
  uint64_t bytes;        /* particle bytes of all ranks */
  char why[512];         /* the failure, when the call returns non-zero */
};

/* MPI-IO, independent or collective, on a real path or a mem: name (io_mpiio.c). */
int hacc_mpiio_checkpoint(const struct hacc_options *o, struct hacc_particles *pt, int step,
                          struct hacc_io_result *res);
int hacc_mpiio_restart(const struct hacc_options *o, struct hacc_particles *pt,
                       int *step, struct hacc_io_result *res);
/* Storage windows, one per rank over its section (io_win.c). */
int hacc_win_checkpoint(const struct hacc_options *o, struct hacc_particles *pt, int step,
                        struct hacc_io_result *res);
int hacc_win_restart(const struct hacc_options *o, struct hacc_particles *pt, int *step,
                     struct hacc_io_result *res);
/* The checkpoints' window, kept from the first checkpoint to the last, freed
 * (collective); 0 or HACC_IO_ERROR with why. */
int hacc_win_close_checkpoint(char *why, size_t n);
/* After a win restart, the particles live in its window: freed here (outside
 * the timed phase), the arrays pointed back at their own memory. */
void hacc_win_close(struct hacc_particles *pt);
/* --readers 0 (auto): 2 readers for a rank alone on its node (the other
 * core would idle), else 1 (the node's cores are the other ranks');
 * collective (MPI_Comm_split_type), called before any timed phase. */
int hacc_win_readers_auto(void);
/* storage_backend in effect for the last window made (MPI_Win_get_info). */
const char *hacc_win_backend(void);
/* The mpisw_ckpt_* API (io_ckpt.c). */
int hacc_ckpt_checkpoint(const struct hacc_options *o, struct hacc_particles *pt, int step,
                         struct hacc_io_result *res);
int hacc_ckpt_restart(const struct hacc_options *o, struct hacc_particles *pt, int *step,
                      struct hacc_io_result *res);
void hacc_ckpt_remove(const struct hacc_options *o); /* the set freed, its images removed */
void hacc_ckpt_drop_cache(void);                    /* this rank's images */
void hacc_ckpt_close(void);                         /* the set freed, images kept */

/* ---- shared steps of the file methods (commit.c) ---- */
/* Rank 0 makes the file empty and marks it incomplete; collective. */
int hacc_file_prepare(const struct hacc_options *o, char *why, size_t n);
/* Rank 0 writes the complete header once every section is durable. */
int hacc_file_commit(const struct hacc_options *o, uint64_t total, int p, int step, char *why,
                     size_t n);
/* Every rank reads and checks the header; same result on every rank. */
int hacc_file_header(const struct hacc_options *o, struct hacc_header *h, char *why, size_t n);

/* ---- page cache (cache.c) ---- */
/* Writes back and drops [off, off+len) of path from the page cache
 * (posix_fadvise DONTNEED); returns the bytes still cached after, or -1. */
int64_t hacc_cache_drop(const char *path, uint64_t off, uint64_t len);
int64_t hacc_cache_resident(const char *path, uint64_t off, uint64_t len);
/* --settle: every rank syncs the file system of path (syncfs: write-back,
 * journal commit and the discards of removed files finished), then all wait
 * seconds; collective. No-op for seconds < 0. */
void hacc_settle(const char *path, double seconds);

/* ---- helpers (options.c, main.c) ---- */
int hacc_parse_options(int argc, char **argv, int rank, struct hacc_options *o);
const char *hacc_method_name(enum hacc_method m);
int hacc_agree(int rc);                 /* the worst code of any rank */
void hacc_mpi_why(int err, const char *what, char *why, size_t n);
int hacc_nranks(void);
int hacc_rank(void);

#endif
