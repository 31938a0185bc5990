/* Command line: mapreduce MODE [options]. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "mr.h"

void mr_usage(FILE *f) {
  fprintf(f,
          "usage: mapreduce gen    --output FILE --size BYTES [--seed N] [--zipf S] [--words FILE] [--force]\n"
          "       mapreduce serial --input FILE --output FILE\n"
          "       mpiexec -n P mapreduce 1s|2s --input FILE --output FILE [--task-size BYTES]\n"
          "               [--path DIR] [--checkpoints all|none|N] [--restart] [--slots N]\n"
          "               [--window memory|storage] [--task-delay MS] [--verbose]\n"
          "sizes take K, M, G (powers of 1024). Exit codes: 0 ok, 1 run-time error, 2 usage,\n"
          "3 input or word list unreadable, 4 checkpoint directory unusable, 5 no matching\n"
          "checkpoint to restart from, 6 MR-1S table region full (raise --slots).\n");
}

static int size_arg(const char *s, uint64_t *out) {
  char *end;
  errno = 0;
  if (!s || !*s || *s == '-') return -1;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || end == s) return -1;
  int shift = 0;
  if (*end == 'K' || *end == 'k') shift = 10, end++;
  else if (*end == 'M' || *end == 'm') shift = 20, end++;
  else if (*end == 'G' || *end == 'g') shift = 30, end++;
  if (*end == 'i') end++; /* KiB spelling */
  if (*end == 'B') end++;
  if (*end || (shift && v > (~0ull >> shift))) return -1;
  *out = (uint64_t)v << shift;
  return 0;
}

static int bad(const char *opt, const char *val, const char *why) {
  fprintf(stderr, "mapreduce: %s '%s': %s\n", opt, val ? val : "", why);
  mr_usage(stderr);
  return MR_ERR_USAGE;
}

int mr_parse(int argc, char **argv, struct mr_opts *o) {
  static const struct option longs[] = {
      {"input", 1, 0, 'i'},       {"output", 1, 0, 'o'},  {"path", 1, 0, 'p'},
      {"words", 1, 0, 'w'},       {"task-size", 1, 0, 't'}, {"checkpoints", 1, 0, 'c'},
      {"restart", 0, 0, 'r'},     {"slots", 1, 0, 'S'},   {"size", 1, 0, 's'},
      {"seed", 1, 0, 'e'},        {"zipf", 1, 0, 'z'},    {"force", 0, 0, 'f'},
      {"task-delay", 1, 0, 'd'},  {"window", 1, 0, 'W'},  {"verbose", 0, 0, 'v'}, {"help", 0, 0, 'h'},
      {0, 0, 0, 0}};
  memset(o, 0, sizeof *o);
  o->task_size = 64ull << 20;
  o->checkpoints = -1;
  o->seed = 1;
  o->zipf = 1.0;
  o->words = "/usr/share/dict/american-english";
  if (argc < 2) return bad("mode", "", "give gen, serial, 1s or 2s");
  const char *m = argv[1];
  if (!strcmp(m, "--help") || !strcmp(m, "-h")) {
    mr_usage(stdout);
    exit(0);
  }
  if (!strcmp(m, "gen")) o->mode = MR_GEN;
  else if (!strcmp(m, "serial")) o->mode = MR_SERIAL;
  else if (!strcmp(m, "1s")) o->mode = MR_1S;
  else if (!strcmp(m, "2s")) o->mode = MR_2S;
  else return bad("mode", m, "give gen, serial, 1s or 2s");
  optind = 2;
  opterr = 0;
  int c;
  uint64_t v;
  char *end;
  while ((c = getopt_long(argc, argv, "", longs, NULL)) != -1) {
    switch (c) {
    case 'i': o->input = optarg; break;
    case 'o': o->output = optarg; break;
    case 'p': o->path = optarg; break;
    case 'w': o->words = optarg; break;
    case 'r': o->restart = 1; break;
    case 'f': o->force = 1; break;
    case 'v': o->verbose = 1; break;
    case 'h': mr_usage(stdout); exit(0);
    case 'W':
      if (strcmp(optarg, "memory") && strcmp(optarg, "storage"))
        return bad("--window", optarg, "memory or storage");
      o->window = optarg;
      break;
    case 't':
      if (size_arg(optarg, &o->task_size) || o->task_size == 0)
        return bad("--task-size", optarg, "a size of at least 1 byte");
      break;
    case 'S':
      if (size_arg(optarg, &o->slots) || o->slots == 0 || o->slots > (1ull << 24))
        return bad("--slots", optarg, "a count from 1 to 16777216");
      break;
    case 's':
      if (size_arg(optarg, &o->size) || o->size == 0) return bad("--size", optarg, "a size");
      break;
    case 'e':
      if (size_arg(optarg, &o->seed)) return bad("--seed", optarg, "a non-negative integer");
      break;
    case 'd':
      if (size_arg(optarg, &v) || v > 60000) return bad("--task-delay", optarg, "0 to 60000 ms");
      o->task_delay_ms = (unsigned)v;
      break;
    case 'z':
      errno = 0;
      o->zipf = strtod(optarg, &end);
      if (errno || *end || end == optarg || !(o->zipf >= 0 && o->zipf <= 10))
        return bad("--zipf", optarg, "an exponent from 0 to 10");
      break;
    case 'c':
      if (!strcmp(optarg, "all")) o->checkpoints = -1;
      else if (!strcmp(optarg, "none")) o->checkpoints = 0;
      else if (size_arg(optarg, &v) || v > 1000000)
        return bad("--checkpoints", optarg, "all, none or a count");
      else o->checkpoints = (long)v;
      break;
    default:
      return bad("option", argv[optind - 1], "unknown, or its value is missing");
    }
  }
  if (optind < argc) return bad("argument", argv[optind], "unexpected");
  if (!o->output) return bad("--output", "", "required");
  if (o->mode == MR_GEN && !o->size) return bad("--size", "", "required for gen");
  if ((o->mode == MR_SERIAL || o->mode == MR_1S || o->mode == MR_2S) && !o->input)
    return bad("--input", "", "required");
  if (o->mode == MR_1S || o->mode == MR_2S) {
    if (o->checkpoints != 0 && !o->path)
      return bad("--path", "", "a checkpoint directory is required unless --checkpoints none");
    if (o->window && o->mode != MR_1S) return bad("--window", o->window, "for 1s only");
    if (o->window && !strcmp(o->window, "memory") && o->checkpoints != 0)
      return bad("--window", o->window, "checkpoints need storage windows (or --checkpoints none)");
    if (o->window && !strcmp(o->window, "storage") && !o->path)
      return bad("--window", o->window, "storage windows need --path DIR");
    if (o->restart && o->checkpoints == 0)
      return bad("--restart", "", "needs checkpoints (not --checkpoints none)");
  }
  return MR_OK;
}

/* Is there a checkpoint after map round `round` (0-based) of `rounds`? */
int mr_ckpt_after(const struct mr_opts *o, uint64_t round, uint64_t rounds) {
  if (o->checkpoints < 0) return 1;
  if (o->checkpoints == 0 || rounds == 0) return 0;
  uint64_t n = (uint64_t)o->checkpoints;
  return (round + 1) * n / rounds != round * n / rounds;
}
