/* The configuration table (src/core/config.c): every variable's forms, the
 * one rule for bad values (a warning naming variable, value, forms and the
 * default), MPISW_HINTS key typos, the dump, and that the README's
 * "Environment variables" table lists exactly the table's variables with
 * their defaults and bounds.
 *   test_config README.md */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "core/config.h"
#include "core/hints.h"
#include "core/memlimit.h"

static char *warn_buf;
static size_t warn_len;
static FILE *warn_f;

/* Reads the environment again with warnings captured; returns them. */
static const char *reload(void) {
  if (warn_f) fclose(warn_f);
  free(warn_buf);
  warn_buf = NULL;
  warn_f = open_memstream(&warn_buf, &warn_len);
  mpisw_set_warn_stream(warn_f);
  mpisw_config_reload(1);
  fflush(warn_f);
  return warn_buf ? warn_buf : "";
}

static int count(const char *hay, const char *needle) {
  int n = 0;
  for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle)) n++;
  return n;
}

static void clear_env(void) {
  for (int id = 0; id < MPISW_CFG_COUNT; id++) unsetenv(mpisw_cfg_vars[id].name);
  unsetenv("PMI_RANK");
  unsetenv("OMPI_COMM_WORLD_RANK");
  unsetenv("PMIX_RANK");
  unsetenv("SLURM_PROCID");
}

/* One bad value: default kept, source REJECTED, one warning with the
 * variable, the value, the accepted forms and the default. */
static int rejected(int id, const char *value) {
  clear_env();
  setenv(mpisw_cfg_vars[id].name, value, 1);
  const char *w = reload();
  char forms[256], quoted[512];
  mpisw_cfg_forms(id, forms, sizeof forms);
  snprintf(quoted, sizeof quoted, "%s='%s'", mpisw_cfg_vars[id].name, value);
  int ok = mpisw_cfg_source(id) == MPISW_CFG_FROM_REJECTED &&
           mpisw_cfg_int(id) == mpisw_cfg_vars[id].def_value && count(w, "mpisw: ") == 1 &&
           strstr(w, quoted) && strstr(w, forms) && strstr(w, mpisw_cfg_vars[id].def);
  if (!ok) fprintf(stderr, "  %s=%s gave: %s", mpisw_cfg_vars[id].name, value, w);
  return ok;
}

static int accepted(int id, const char *value, int64_t want) {
  clear_env();
  setenv(mpisw_cfg_vars[id].name, value, 1);
  const char *w = reload();
  int ok = mpisw_cfg_source(id) == MPISW_CFG_FROM_ENV && mpisw_cfg_int(id) == want && !*w;
  if (!ok) fprintf(stderr, "  %s=%s gave %lld: %s", mpisw_cfg_vars[id].name, value,
                   (long long)mpisw_cfg_int(id), w);
  return ok;
}


/* The README's rows: "| `NAME` | values | default | meaning |". */
static void check_readme(const char *path) {
  FILE *f = fopen(path, "r");
  CHECK(f != NULL);
  if (!f) return;
  char line[8192];
  int in = 0, seen[MPISW_CFG_COUNT] = {0}, rows = 0;
  while (fgets(line, sizeof line, f)) {
    if (!strncmp(line, "## ", 3)) in = !strcmp(line, "## Environment variables\n");
    if (!in || strncmp(line, "| `MPISW_", 9)) continue;
    rows++;
    char *col[4] = {0}, *save = NULL, *p = line + 1;
    for (int c = 0; c < 4; c++, p = NULL) col[c] = strtok_r(p, "|", &save);
    CHECK(col[3] != NULL);
    if (!col[3]) continue;
    char name[128] = "", def[512] = "";
    sscanf(col[0], " `%127[A-Z_]`", name);
    /* the default column: `x` or unset */
    char *d = col[2];
    while (*d == ' ') d++;
    snprintf(def, sizeof def, "%s", d);
    for (char *e = def + strlen(def); e > def && (e[-1] == ' ' || e[-1] == '`');) *--e = 0;
    char *dv = def[0] == '`' ? def + 1 : def;
    int id = -1;
    for (int i = 0; i < MPISW_CFG_COUNT; i++)
      if (!strcmp(name, mpisw_cfg_vars[i].name)) id = i;
    if (id < 0) {
      fprintf(stderr, "  README lists %s, which the configuration table does not have\n", name);
      CHECK(id >= 0);
      continue;
    }
    seen[id]++;
    if (strcmp(dv, mpisw_cfg_vars[id].def))
      fprintf(stderr, "  README default of %s is '%s', the table's is '%s'\n", name, dv,
              mpisw_cfg_vars[id].def);
    CHECK(!strcmp(dv, mpisw_cfg_vars[id].def));
    /* the values column names the type and the bounds */
    const struct mpisw_cfg_var *v = &mpisw_cfg_vars[id];
    char lo[40], hi[40], want[100];
    if (v->type == MPISW_CFG_BOOL) CHECK(strstr(col[1], "boolean") != NULL);
    if (v->type == MPISW_CFG_SIZE || v->type == MPISW_CFG_INT) {
      if (v->type == MPISW_CFG_SIZE) {
        mpisw_cfg_format_size((uint64_t)v->min, lo, sizeof lo);
        mpisw_cfg_format_size((uint64_t)v->max, hi, sizeof hi);
      } else {
        snprintf(lo, sizeof lo, "%lld", (long long)v->min);
        snprintf(hi, sizeof hi, "%lld", (long long)v->max);
      }
      snprintf(want, sizeof want, "`%s` to `%s`", lo, hi);
      if (!strstr(col[1], want)) fprintf(stderr, "  README values of %s lack %s\n", name, want);
      CHECK(strstr(col[1], want) != NULL);
      CHECK(strstr(col[1], v->type == MPISW_CFG_SIZE ? "size" : "integer") != NULL);
      if (v->page_multiple) CHECK(strstr(col[1], "page size") != NULL);
    }
    if (v->type == MPISW_CFG_CHOICE) { /* every word (a table cell cannot hold "a|b") */
      char words[256], *save2 = NULL;
      snprintf(words, sizeof words, "%s", v->choices);
      for (char *w = strtok_r(words, "|", &save2); w; w = strtok_r(NULL, "|", &save2)) {
        char quoted[80];
        snprintf(quoted, sizeof quoted, "`%s`", w);
        if (!strstr(col[1], quoted)) fprintf(stderr, "  README values of %s lack %s\n", name, quoted);
        CHECK(strstr(col[1], quoted) != NULL);
      }
    }
  }
  fclose(f);
  CHECK(rows == MPISW_CFG_COUNT);
  for (int i = 0; i < MPISW_CFG_COUNT; i++) {
    if (seen[i] != 1)
      fprintf(stderr, "  README lists %s %d times\n", mpisw_cfg_vars[i].name, seen[i]);
    CHECK(seen[i] == 1);
  }
}

int main(int argc, char **argv) {
  /* The table itself: unique MPISW_ names, defaults in their own forms. */
  for (int i = 0; i < MPISW_CFG_COUNT; i++) {
    const struct mpisw_cfg_var *v = &mpisw_cfg_vars[i];
    CHECK(!strncmp(v->name, "MPISW_", 6) && v->def && v->help && *v->help);
    for (int j = 0; j < i; j++) CHECK(strcmp(v->name, mpisw_cfg_vars[j].name) != 0);
    uint64_t u;
    int b;
    if (v->type == MPISW_CFG_SIZE && strcmp(v->def, "unset"))
      CHECK(mpisw_parse_size(v->def, &u) == 0 && (int64_t)u == v->def_value);
    if (v->type == MPISW_CFG_BOOL) CHECK(mpisw_parse_bool(v->def, &b) == 0 && b == v->def_value);
  }

  /* Defaults when unset, and when set but empty. */
  clear_env();
  CHECK(!*reload());
  CHECK(mpisw_cfg_size(MPISW_CFG_ARENA_SIZE) == 64u << 20);
  CHECK(mpisw_cfg_int(MPISW_CFG_PAGER_WORKERS) == 4);
  CHECK(mpisw_cfg_int(MPISW_CFG_PAGER_READAHEAD) == -1);
  CHECK(mpisw_cfg_size(MPISW_CFG_PAGER_BLOCK) == 2u << 20);
  CHECK(!mpisw_cfg_bool(MPISW_CFG_DISABLE) && !mpisw_cfg_text(MPISW_CFG_HINTS));
  CHECK(mpisw_cfg_source(MPISW_CFG_MEMORY_LIMIT) == MPISW_CFG_FROM_DEFAULT);
  setenv("MPISW_PAGER_WORKERS", "", 1);
  CHECK(!*reload() && mpisw_cfg_source(MPISW_CFG_PAGER_WORKERS) == MPISW_CFG_FROM_DEFAULT);

  /* Documented forms are taken. */
  CHECK(accepted(MPISW_CFG_PAGER_WORKERS, "8", 8));
  CHECK(accepted(MPISW_CFG_PAGER_WORKERS, "64", 64));
  CHECK(accepted(MPISW_CFG_PAGER_READAHEAD, "0", 0));
  CHECK(accepted(MPISW_CFG_MEMORY_LIMIT, "1M", 1 << 20));
  CHECK(accepted(MPISW_CFG_MEMORY_LIMIT, "64k", 64 << 10));
  CHECK(accepted(MPISW_CFG_ARENA_SIZE, "0", 0));
  CHECK(accepted(MPISW_CFG_PAGER_BLOCK, "8K", 8192));
  CHECK(accepted(MPISW_CFG_DISABLE, "1", 1));
  CHECK(accepted(MPISW_CFG_DISABLE, "TRUE", 1));
  CHECK(accepted(MPISW_CFG_REPORT, "false", 0));
  CHECK(accepted(MPISW_CFG_PAGER_DEBUG, "0", 0));

  /* Anything else: one warning, the default holds. */
  CHECK(rejected(MPISW_CFG_PAGER_WORKERS, "x"));
  CHECK(rejected(MPISW_CFG_PAGER_WORKERS, "0"));
  CHECK(rejected(MPISW_CFG_PAGER_WORKERS, "65"));
  CHECK(rejected(MPISW_CFG_PAGER_WORKERS, "-2"));
  CHECK(rejected(MPISW_CFG_PAGER_WORKERS, "4x"));
  CHECK(rejected(MPISW_CFG_PAGER_WORKERS, " 4"));
  CHECK(rejected(MPISW_CFG_PAGER_READAHEAD, "abc"));
  CHECK(rejected(MPISW_CFG_PAGER_READAHEAD, "99999999999999999999999"));
  CHECK(rejected(MPISW_CFG_MEMORY_LIMIT, "12Q"));
  CHECK(rejected(MPISW_CFG_MEMORY_LIMIT, "1KiB"));
  CHECK(rejected(MPISW_CFG_MEMORY_LIMIT, "0x10"));
  CHECK(rejected(MPISW_CFG_MEMORY_LIMIT, "-1"));
  CHECK(rejected(MPISW_CFG_MEMORY_LIMIT, "2048T"));
  CHECK(rejected(MPISW_CFG_ARENA_SIZE, "1.5G"));
  CHECK(rejected(MPISW_CFG_PAGER_BLOCK, "4097"));
  CHECK(rejected(MPISW_CFG_PAGER_BLOCK, "2K"));
  CHECK(rejected(MPISW_CFG_PAGER_BLOCK, "2G"));
  CHECK(rejected(MPISW_CFG_DISABLE, "yes"));
  CHECK(rejected(MPISW_CFG_REPORT, "2"));
  CHECK(rejected(MPISW_CFG_CONFIG, "print"));
  /* A malformed limit now means what unset means, as the warning says. */
  uint64_t lim = 1;
  CHECK(rejected(MPISW_CFG_MEMORY_LIMIT, "12Q"));
  CHECK(mpisw_memory_limit_env(&lim) == 0 && lim == 0);
  CHECK(accepted(MPISW_CFG_MEMORY_LIMIT, "3M", 3 << 20));
  CHECK(mpisw_memory_limit_env(&lim) == 1 && lim == 3u << 20);

  /* Only the speaking process (launcher rank 0, or unnumbered) warns. */
  clear_env();
  setenv("MPISW_PAGER_WORKERS", "x", 1);
  setenv("PMI_RANK", "1", 1);
  CHECK(!*reload() && mpisw_cfg_source(MPISW_CFG_PAGER_WORKERS) == MPISW_CFG_FROM_REJECTED);
  setenv("PMI_RANK", "0", 1);
  CHECK(count(reload(), "MPISW_PAGER_WORKERS='x'") == 1);
  unsetenv("PMI_RANK");
  setenv("OMPI_COMM_WORLD_RANK", "3", 1);
  CHECK(!*reload());

  /* MPISW_HINTS: unknown keys warn once each, naming the nearest known key. */
  clear_env();
  setenv("MPISW_HINTS",
         "alloc-type=storage; storage_alloc_filname=/x%r ;alloc-type=memory;"
         "storage_alloc_factor=0.5;access_style=random",
         1);
  const char *w = reload();
  CHECK(count(w, "mpisw: ") == 2);
  CHECK(count(w, "unknown key 'alloc-type'") == 1 && strstr(w, "did you mean 'alloc_type'"));
  CHECK(strstr(w, "unknown key 'storage_alloc_filname'") &&
        strstr(w, "did you mean 'storage_alloc_filename'"));
  CHECK(!strstr(w, "storage_alloc_factor") && !strstr(w, "'access_style'"));
  CHECK(!strcmp(mpisw_cfg_text(MPISW_CFG_HINTS), getenv("MPISW_HINTS")));
  CHECK(!strcmp(mpisw_hints_nearest("storage-backend"), "storage_backend"));
  CHECK(!strcmp(mpisw_hints_nearest("filename"), "storage_alloc_filename") ||
        !strcmp(mpisw_hints_nearest("filename"), "file_perm"));
  setenv("MPISW_HINTS", "alloc_type=storage;storage_alloc_filename=/d/", 1);
  CHECK(!*reload());

  /* The effective configuration, and MPISW_CONFIG=dump printing it. */
  clear_env();
  setenv("MPISW_PAGER_WORKERS", "7", 1);
  setenv("MPISW_PAGER_BLOCK", "junk", 1);
  setenv("MPISW_CONFIG", "dump", 1);
  w = reload();
  CHECK(strstr(w, "mpisw: effective configuration") != NULL);
  CHECK(strstr(w, "MPISW_PAGER_WORKERS    7 (environment)") != NULL);
  CHECK(strstr(w, "MPISW_PAGER_BLOCK      2M (default; the environment's 'junk' is not valid)"));
  CHECK(strstr(w, "MPISW_ARENA_SIZE       64M (default)") != NULL);
  char small[16];
  int need = mpisw_config_format(small, sizeof small);
  CHECK(need > (int)sizeof small && strlen(small) == sizeof small - 1 &&
        !strncmp(small, "MPISW_HINTS    ", 15));
  char *all = malloc((size_t)need + 1);
  CHECK(mpisw_config_format(all, need + 1) == need && (int)strlen(all) == need);
  for (int i = 0; i < MPISW_CFG_COUNT; i++) CHECK(strstr(all, mpisw_cfg_vars[i].name) != NULL);
  free(all);
  unsetenv("MPISW_CONFIG");
  CHECK(!strstr(reload(), "effective configuration"));

  if (argc > 1) check_readme(argv[1]);
  else CHECK(!"usage: test_config README.md");
  clear_env();
  return check_summary("test_config");
}
