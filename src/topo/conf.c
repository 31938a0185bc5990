/* topology.conf in Slurm's topology/tree format -> the switch tree.
 * Lines are read first (comments, continuations: a line ending in '\' is
 * joined to the next as is, as Slurm's parser does, so "Nodes=a,\" + "b"
 * is "Nodes=a,b"), then the
 * switches are made, then their child switches and nodes are linked, so a
 * switch may be named before the line that defines it. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/hash.h"
#include "topo/topo_internal.h"

/* A topology file is a few thousand lines; this bounds a wrong path (a
 * device, a huge file) to a clear error. */
#define MAX_FILE_BYTES (64L << 20)

/* ---- name index ---- */
int mpisw_topo_index_init(struct topo_index *x, size_t want) {
  size_t n = 16;
  while (n < want * 2) n *= 2;
  x->slot = malloc(n * sizeof *x->slot);
  if (!x->slot) return -1;
  for (size_t i = 0; i < n; i++) x->slot[i] = -1;
  x->mask = n - 1;
  x->count = 0;
  return 0;
}

void mpisw_topo_index_free(struct topo_index *x) {
  free(x->slot);
  x->slot = NULL;
}

static size_t home(const struct topo_index *x, const char *name) {
  return (size_t)mpisw_hash64(0, name, strlen(name)) & x->mask;
}

int mpisw_topo_index_find(const struct topo_index *x, const struct topo_vert *v, const char *name) {
  for (size_t i = home(x, name);; i = (i + 1) & x->mask) {
    int k = x->slot[i];
    if (k < 0) return -1;
    if (!strcmp(v[k].name, name)) return k;
  }
}

int mpisw_topo_index_add(struct topo_index *x, const struct topo_vert *v, int k) {
  if ((x->count + 1) * 2 > x->mask + 1) { /* keep it at most half full */
    struct topo_index bigger;
    if (mpisw_topo_index_init(&bigger, x->mask + 1)) return -1;
    for (size_t i = 0; i <= x->mask; i++)
      if (x->slot[i] >= 0) mpisw_topo_index_add(&bigger, v, x->slot[i]);
    mpisw_topo_index_free(x);
    *x = bigger;
  }
  size_t i = home(x, v[k].name);
  while (x->slot[i] >= 0) i = (i + 1) & x->mask;
  x->slot[i] = k;
  x->count++;
  return 0;
}

/* ---- lines ---- */
struct rec {
  int line;
  char *name, *switches, *nodes; /* point into the line buffer; NULL: absent */
};

struct parse {
  const char *label;
  struct rec *recs;
  int nrecs, cap;
  struct mpisw_topo_tree *t;
  struct mpisw_error *e;
  int cur_parent, cur_line; /* the switch whose children are being linked */
  int linked_failed;        /* a child's link failed: p->e says why */
};

static int at(struct parse *p, int line, const char *what) {
  return mpisw_fail(p->e, MPISW_K_HINT, "%s:%d: %s", p->label, line, what);
}

/* One logical line (comments gone, continuations joined): its key=value
 * tokens into a record. */
static int read_line(struct parse *p, char *s, int line) {
  struct rec r = {line, NULL, NULL, NULL};
  char msg[MPISW_MSG_MAX];
  int ntok = 0;
  char *save = NULL;
  for (char *tok = strtok_r(s, " \t\r", &save); tok; tok = strtok_r(NULL, " \t\r", &save)) {
    ntok++;
    char *eq = strchr(tok, '=');
    if (!eq || eq == tok) {
      snprintf(msg, sizeof msg, "'%.80s' is not key=value", tok);
      return at(p, line, msg);
    }
    *eq = 0;
    char *val = eq + 1;
    char **slot = !strcasecmp(tok, "SwitchName") ? &r.name
                  : !strcasecmp(tok, "Switches") ? &r.switches
                  : !strcasecmp(tok, "Nodes")    ? &r.nodes
                                                 : NULL;
    if (!slot) continue; /* LinkSpeed and keys of other Slurm versions */
    if (*slot) {
      snprintf(msg, sizeof msg, "%s= given twice", tok);
      return at(p, line, msg);
    }
    if (!*val) {
      snprintf(msg, sizeof msg, "%s= has no value", tok);
      return at(p, line, msg);
    }
    *slot = val;
  }
  if (ntok == 0) return 0; /* a blank or comment line */
  if (!r.name)
    return at(p, line,
              "no SwitchName= on this line (a topology/tree line is 'SwitchName=NAME "
              "Switches=... or Nodes=...')");
  if (strlen(r.name) >= MPISW_TOPO_NAME_MAX || strpbrk(r.name, "[],")) {
    snprintf(msg, sizeof msg, "SwitchName=%.80s is not one name of at most %d characters",
             r.name, MPISW_TOPO_NAME_MAX - 1);
    return at(p, line, msg);
  }
  if (p->nrecs == p->cap) {
    int cap = p->cap ? p->cap * 2 : 64;
    struct rec *n = realloc(p->recs, (size_t)cap * sizeof *n);
    if (!n) return mpisw_fail(p->e, MPISW_K_NOMEM, "no memory for %s", p->label);
    p->recs = n;
    p->cap = cap;
  }
  p->recs[p->nrecs++] = r;
  return 0;
}

/* Splits buf into logical lines: '#' to the end of a line is a comment, a
 * line ending in '\' goes on with the next. */
static int read_lines(struct parse *p, char *buf) {
  int line = 1;
  char *s = buf;
  while (*s) {
    int first = line;
    char *out = s, *in = s;
    for (;;) { /* one logical line, joined in place */
      char *nl = strchr(in, '\n');
      char *end = nl ? nl : in + strlen(in);
      char *hash = memchr(in, '#', (size_t)(end - in));
      char *stop = hash ? hash : end;
      while (stop > in && (stop[-1] == ' ' || stop[-1] == '\t' || stop[-1] == '\r')) stop--;
      int more = !hash && stop > in && stop[-1] == '\\';
      if (more) stop--;
      memmove(out, in, (size_t)(stop - in)); /* joined as is, as Slurm does */
      out += stop - in;
      if (!nl) {
        in = end;
        break;
      }
      in = nl + 1;
      line++;
      if (!more) break;
    }
    *out = 0;
    if (read_line(p, s, first)) return -1;
    s = in;
  }
  return 0;
}

/* ---- the tree ---- */
static int add_vert(struct parse *p, const char *name, int is_switch, int line) {
  struct mpisw_topo_tree *t = p->t;
  if (t->n == t->cap) {
    int cap = t->cap ? t->cap * 2 : 256;
    struct topo_vert *n = realloc(t->v, (size_t)cap * sizeof *n);
    if (!n) return mpisw_fail(p->e, MPISW_K_NOMEM, "no memory for %s", p->label);
    t->v = n;
    t->cap = cap;
  }
  struct topo_vert *v = &t->v[t->n];
  snprintf(v->name, sizeof v->name, "%s", name);
  v->is_switch = is_switch;
  v->parent = -1;
  v->line = line;
  if (mpisw_topo_index_add(is_switch ? &t->switches : &t->nodes, t->v, t->n))
    return mpisw_fail(p->e, MPISW_K_NOMEM, "no memory for %s", p->label);
  is_switch ? t->nswitches++ : t->nnodes++;
  return t->n++;
}

static int link_failed(struct parse *p, const char *msg) {
  p->linked_failed = 1;
  return at(p, p->cur_line, msg);
}

static int link_switch(void *arg, const char *name) {
  struct parse *p = arg;
  struct mpisw_topo_tree *t = p->t;
  char msg[MPISW_MSG_MAX];
  int k = mpisw_topo_index_find(&t->switches, t->v, name);
  const char *me = t->v[p->cur_parent].name;
  if (k < 0) {
    snprintf(msg, sizeof msg, "unknown switch '%s' in Switches= of switch '%s' (no SwitchName=%s "
             "line)", name, me, name);
    return link_failed(p, msg);
  }
  if (k == p->cur_parent) {
    snprintf(msg, sizeof msg, "a cycle: switch '%s' lists itself in Switches=", name);
    return link_failed(p, msg);
  }
  if (t->v[k].parent >= 0) {
    snprintf(msg, sizeof msg, "switch '%s' is under two switches, '%s' and '%s' (a tree has one "
             "path between two nodes)", name, t->v[t->v[k].parent].name, me);
    return link_failed(p, msg);
  }
  t->v[k].parent = p->cur_parent;
  return 0;
}

static int link_node(void *arg, const char *name) {
  struct parse *p = arg;
  struct mpisw_topo_tree *t = p->t;
  char msg[MPISW_MSG_MAX];
  int k = mpisw_topo_index_find(&t->nodes, t->v, name);
  if (k >= 0) {
    const struct topo_vert *o = &t->v[k];
    if (o->parent == p->cur_parent)
      snprintf(msg, sizeof msg, "node '%s' is listed twice under switch '%s'", name,
               t->v[p->cur_parent].name);
    else
      snprintf(msg, sizeof msg, "node '%s' is under two leaf switches, '%s' (line %d) and '%s'",
               name, t->v[o->parent].name, o->line, t->v[p->cur_parent].name);
    return link_failed(p, msg);
  }
  k = add_vert(p, name, 0, p->cur_line);
  if (k < 0) {
    p->linked_failed = 1;
    return -1;
  }
  t->v[k].parent = p->cur_parent;
  return 0;
}

/* A hostlist of a record: a syntax error is placed at the record's line;
 * a link's error (unknown switch, ...) already is. */
static int each(struct parse *p, const struct rec *r, const char *key, const char *list,
                int (*fn)(void *, const char *)) {
  struct mpisw_error sub;
  p->cur_line = r->line;
  p->linked_failed = 0;
  if (!mpisw_hostlist_expand(list, fn, p, &sub)) return 0;
  if (p->linked_failed) return -1;
  return mpisw_fail(p->e, sub.kind, "%s:%d: %s=%s: %s", p->label, r->line, key, list, sub.msg);
}

static int check_tree(struct parse *p) {
  struct mpisw_topo_tree *t = p->t;
  char msg[MPISW_MSG_MAX];
  /* A cycle: walking up from a switch takes more steps than there are switches. */
  for (int i = 0; i < t->n; i++) {
    if (!t->v[i].is_switch) continue;
    int k = i, steps = 0;
    while (k >= 0 && steps <= t->nswitches) {
      k = t->v[k].parent;
      steps++;
    }
    if (k < 0) continue;
    /* k is on the cycle now (i may only lead into it): name it from its
     * first-defined switch. */
    for (int j = t->v[k].parent, first = k; j != first; j = t->v[j].parent)
      if (j < k) k = j;
    int len = snprintf(msg, sizeof msg, "a cycle of switches: %s", t->v[k].name);
    for (int j = t->v[k].parent; j != k && len < 300; j = t->v[j].parent)
      len += snprintf(msg + len, sizeof msg - (size_t)len, " is under %s", t->v[j].name);
    snprintf(msg + len, sizeof msg - (size_t)len, " is under %s (a tree has one root above all)",
             t->v[k].name);
    return at(p, t->v[k].line, msg);
  }
  t->root = -1;
  int roots = 0, len = 0;
  for (int i = 0; i < t->n; i++) {
    if (!t->v[i].is_switch || t->v[i].parent >= 0) continue;
    if (roots++ == 0) t->root = i;
    if (len < 300)
      len += snprintf(msg + len, sizeof msg - (size_t)len, "%s'%s' (line %d)", roots > 1 ? ", " : "",
                      t->v[i].name, t->v[i].line);
  }
  if (roots > 1) {
    char all[MPISW_MSG_MAX];
    snprintf(all, sizeof all, "%s: no root: %d switches are under no other (%s); add a "
             "top switch with Switches= naming them", p->label, roots, msg);
    return mpisw_fail(p->e, MPISW_K_HINT, "%s", all);
  }
  return 0;
}

int mpisw_topo_tree_parse(const char *text, const char *label, struct mpisw_topo_tree **out,
                          struct mpisw_error *e) {
  *out = NULL;
  struct parse p;
  memset(&p, 0, sizeof p);
  p.label = label;
  p.e = e;
  char *buf = strdup(text);
  struct mpisw_topo_tree *t = calloc(1, sizeof *t);
  if (!buf || !t || mpisw_topo_index_init(&t->switches, 64) || mpisw_topo_index_init(&t->nodes, 256)) {
    free(buf);
    mpisw_topo_tree_free(t);
    return mpisw_fail(e, MPISW_K_NOMEM, "no memory for %s", label);
  }
  p.t = t;
  int rc = read_lines(&p, buf);
  if (!rc && p.nrecs == 0)
    rc = mpisw_fail(e, MPISW_K_HINT, "%s: no SwitchName= line: not a topology.conf of "
                    "switches", label);
  for (int i = 0; !rc && i < p.nrecs; i++) { /* the switches */
    int k = mpisw_topo_index_find(&t->switches, t->v, p.recs[i].name);
    if (k >= 0) {
      char msg[MPISW_MSG_MAX];
      snprintf(msg, sizeof msg, "switch '%s' is defined twice (first on line %d)", p.recs[i].name,
               t->v[k].line);
      rc = at(&p, p.recs[i].line, msg);
    } else if (add_vert(&p, p.recs[i].name, 1, p.recs[i].line) < 0) {
      rc = -1;
    }
  }
  for (int i = 0; !rc && i < p.nrecs; i++) { /* their children */
    const struct rec *r = &p.recs[i];
    p.cur_parent = i; /* switch i is vertex i: made in record order */
    if (r->switches) rc = each(&p, r, "Switches", r->switches, link_switch);
    if (!rc && r->nodes) rc = each(&p, r, "Nodes", r->nodes, link_node);
  }
  if (!rc) rc = check_tree(&p);
  free(p.recs);
  free(buf);
  if (rc) {
    mpisw_topo_tree_free(t);
    return -1;
  }
  *out = t;
  return 0;
}

int mpisw_topo_tree_load(const char *path, struct mpisw_topo_tree **out, struct mpisw_error *e) {
  *out = NULL;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return mpisw_fail(e, mpisw_errno_kind(errno), "cannot open the topology file %s: %s", path,
                      strerror(errno));
  struct stat st;
  if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > MAX_FILE_BYTES) {
    close(fd);
    return mpisw_fail(e, MPISW_K_HINT, "the topology file %s is not a regular file of at most "
                      "%ld MiB", path, MAX_FILE_BYTES >> 20);
  }
  char *text = malloc((size_t)st.st_size + 1);
  if (!text) {
    close(fd);
    return mpisw_fail(e, MPISW_K_NOMEM, "no memory to read %s", path);
  }
  size_t got = 0;
  while (got < (size_t)st.st_size) {
    ssize_t k = read(fd, text + got, (size_t)st.st_size - got);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) break;
    got += (size_t)k;
  }
  int err = errno;
  close(fd);
  if (got < (size_t)st.st_size) {
    free(text);
    return mpisw_fail(e, MPISW_K_IO, "cannot read the topology file %s: %s", path,
                      strerror(err));
  }
  text[got] = 0;
  if (memchr(text, 0, got)) {
    free(text);
    return mpisw_fail(e, MPISW_K_HINT, "the topology file %s is not text (a NUL byte)", path);
  }
  int rc = mpisw_topo_tree_parse(text, path, out, e);
  free(text);
  return rc;
}

void mpisw_topo_tree_free(struct mpisw_topo_tree *t) {
  if (!t) return;
  mpisw_topo_index_free(&t->switches);
  mpisw_topo_index_free(&t->nodes);
  free(t->v);
  free(t);
}

int mpisw_topo_tree_switches(const struct mpisw_topo_tree *t) { return t->nswitches; }
int mpisw_topo_tree_nodes(const struct mpisw_topo_tree *t) { return t->nnodes; }
