/* The topology model without MPI (src/topo/): hostlist expressions,
 * topology.conf (good files and every error with its message), hop
 * distances and link loads on small trees computed by hand, distances
 * inside a node on synthetic hwloc machines. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "topo/topo.h"

/* ---- hostlist ---- */
struct names {
  char all[4096];
  int n;
};

static int collect(void *arg, const char *name) {
  struct names *x = arg;
  size_t len = strlen(x->all);
  snprintf(x->all + len, sizeof x->all - len, "%s%s", x->n++ ? " " : "", name);
  return 0;
}

static const char *expand(const char *expr) {
  static struct names x;
  struct mpisw_error e;
  memset(&x, 0, sizeof x);
  if (mpisw_hostlist_expand(expr, collect, &x, &e)) snprintf(x.all, sizeof x.all, "ERR %s", e.msg);
  return x.all;
}

static int count_names(const char *expr) {
  struct names x;
  struct mpisw_error e;
  memset(&x, 0, sizeof x);
  return mpisw_hostlist_expand(expr, collect, &x, &e) ? -1 : x.n;
}

static int says(const char *got, const char *want) {
  if (strstr(got, want)) return 1;
  fprintf(stderr, "  got:  %s\n  want: %s\n", got, want);
  return 0;
}

static void test_hostlist(void) {
  CHECK(!strcmp(expand("n[0-3,7],login1"), "n0 n1 n2 n3 n7 login1"));
  CHECK(!strcmp(expand("n[01-03]"), "n01 n02 n03"));
  CHECK(count_names("n[01-12]") == 12 && says(expand("n[01-12]"), "n09 n10 n11 n12"));
  CHECK(!strcmp(expand("n[9-10]"), "n9 n10"));
  CHECK(!strcmp(expand("r[1-2]n[1-2]"), "r1n1 r1n2 r2n1 r2n2"));
  CHECK(!strcmp(expand("a[5]b"), "a5b"));
  CHECK(!strcmp(expand("solo"), "solo"));
  CHECK(says(expand("n[3-1]"), "ERR hostlist 'n[3-1]': range 3-1 goes down"));
  CHECK(says(expand("n[1-"), "'[' without ']'"));
  CHECK(says(expand("n[]"), "empty brackets"));
  CHECK(says(expand("n]"), "']' without '['"));
  CHECK(says(expand("a,,b"), "an empty name"));
  CHECK(says(expand("n[a-b]"), "'a' is not a number"));
  CHECK(says(expand("n[[1]]"), "nested '['"));
  CHECK(says(expand("a b"), "a space inside"));
  CHECK(says(expand("n[1,]"), "an empty range"));
  CHECK(says(expand("n[0-9999999]"), "names more than 1000000 hosts"));
  CHECK(says(expand(""), "an empty hostlist"));
}

/* ---- topology.conf ---- */
static const char *GOOD =
    "# a two-level tree, keys in any case\n"
    "SwitchName=s0 Nodes=n[0-1] LinkSpeed=100\n"
    "switchname=s1 nodes=n[2-3]\n"
    "\n"
    "SwitchName=s2 \\\n"
    "    Nodes=n4,\\\n"
    "n5   # continued lines, joined as is\n"
    "SwitchName=top Switches=s[0-1],mid\n"
    "SwitchName=mid Switches=s2   # named above, defined here\n";

static const char *parse_error(const char *text) {
  static struct mpisw_error e;
  struct mpisw_topo_tree *t = NULL;
  memset(&e, 0, sizeof e);
  if (!mpisw_topo_tree_parse(text, "t.conf", &t, &e)) {
    mpisw_topo_tree_free(t);
    return "parsed";
  }
  CHECK(t == NULL && e.kind == MPISW_K_HINT);
  return e.msg;
}

static void test_errors(void) {
  CHECK(says(parse_error("SwitchName=top Switches=s0,sx\nSwitchName=s0 Nodes=a\n"),
             "t.conf:1: unknown switch 'sx' in Switches= of switch 'top' (no SwitchName=sx line)"));
  CHECK(says(parse_error("SwitchName=top Switches=a,b\nSwitchName=a Nodes=n[1-2]\n"
                         "SwitchName=b Nodes=n2\n"),
             "t.conf:3: node 'n2' is under two leaf switches, 'a' (line 2) and 'b'"));
  CHECK(says(parse_error("SwitchName=a Nodes=n1,n[0-1]\n"),
             "t.conf:1: node 'n1' is listed twice under switch 'a'"));
  CHECK(says(parse_error("SwitchName=top Switches=a\nSwitchName=x Switches=a\nSwitchName=a\n"),
             "t.conf:2: switch 'a' is under two switches, 'top' and 'x'"));
  CHECK(says(parse_error("SwitchName=a Switches=b\nSwitchName=b Switches=a Nodes=n1\n"),
             "a cycle of switches: a is under b is under a"));
  CHECK(says(parse_error("SwitchName=top Switches=c\nSwitchName=a Switches=b\n"
                         "SwitchName=b Switches=a\nSwitchName=c\n"),
             "t.conf:2: a cycle of switches: a is under b is under a"));
  CHECK(says(parse_error("SwitchName=a Switches=a\n"),
             "t.conf:1: a cycle: switch 'a' lists itself in Switches="));
  CHECK(says(parse_error("SwitchName=a Nodes=n1\nSwitchName=b Nodes=n2\n"),
             "t.conf: no root: 2 switches are under no other ('a' (line 1), 'b' (line 2))"));
  CHECK(says(parse_error("SwitchName=a Nodes=n1\n# x\nSwitchName=a Nodes=n2\n"),
             "t.conf:3: switch 'a' is defined twice (first on line 1)"));
  CHECK(says(parse_error("SwitchName=a Nodes=n1\nNodes=n2\n"), "t.conf:2: no SwitchName= on this line"));
  CHECK(says(parse_error("BlockName=b1 Nodes=n[1-4]\n"), "t.conf:1: no SwitchName= on this line"));
  CHECK(says(parse_error("SwitchName=a Nodes\n"), "t.conf:1: 'Nodes' is not key=value"));
  CHECK(says(parse_error("SwitchName=a Nodes=\n"), "t.conf:1: Nodes= has no value"));
  CHECK(says(parse_error("SwitchName=a Nodes=x SwitchName=b\n"), "t.conf:1: SwitchName= given twice"));
  CHECK(says(parse_error("SwitchName=s[1-2] Nodes=x\n"), "t.conf:1: SwitchName=s[1-2] is not one name"));
  CHECK(says(parse_error("# only comments\n\n"), "t.conf: no SwitchName= line"));
  CHECK(says(parse_error(""), "t.conf: no SwitchName= line"));
  CHECK(says(parse_error("SwitchName=top Switches=a\nSwitchName=a Nodes=n[3-1]\n"),
             "t.conf:2: Nodes=n[3-1]: hostlist 'n[3-1]': range 3-1 goes down"));
  CHECK(says(parse_error("SwitchName=top Switches=a,\\\n  b\nSwitchName=a\n"),
             "t.conf:1: 'b' is not key=value"));
  CHECK(says(parse_error("SwitchName=top Switches=a,\\\nb\nSwitchName=a\nSwitchName=b\n"
                         "SwitchName=c\n"),
             "t.conf: no root: 2 switches are under no other ('top' (line 1), 'c' (line 5))"));
  /* A file that does not exist: its own kind, the path named. */
  struct mpisw_topo_tree *t = NULL;
  struct mpisw_error e;
  CHECK(mpisw_topo_tree_load("/nonexistent-mpisw-topo/t.conf", &t, &e) == -1 && !t);
  CHECK(e.kind == MPISW_K_NOFILE &&
        says(e.msg, "cannot open the topology file /nonexistent-mpisw-topo/t.conf"));
  CHECK(mpisw_topo_tree_load("/", &t, &e) == -1 && says(e.msg, "is not a regular file"));
}

static struct mpisw_topo_tree *good_tree(void) {
  struct mpisw_topo_tree *t = NULL;
  struct mpisw_error e;
  if (mpisw_topo_tree_parse(GOOD, "good.conf", &t, &e)) fprintf(stderr, "  %s\n", e.msg);
  return t;
}

/* Distances on GOOD: top -> s0 (n0 n1), s1 (n2 n3), mid -> s2 (n4 n5). */
static void test_distances(void) {
  struct mpisw_topo_tree *t = good_tree();
  CHECK(t != NULL);
  if (!t) return;
  CHECK(mpisw_topo_tree_switches(t) == 5 && mpisw_topo_tree_nodes(t) == 6);
  const char *hosts[] = {"n0", "n1", "n2", "n4.cluster.example", "n5", "n0"};
  struct mpisw_topo_net net;
  struct mpisw_error e;
  CHECK(mpisw_topo_net_build(t, hosts, 6, &net, &e) == 0);
  CHECK(mpisw_topo_hops(&net, 0, 0) == 0);
  CHECK(mpisw_topo_hops(&net, 0, 1) == 2); /* one leaf switch */
  CHECK(mpisw_topo_hops(&net, 0, 2) == 4); /* s0 - top - s1 */
  CHECK(mpisw_topo_hops(&net, 0, 3) == 5); /* s0 - top - mid - s2 (found without .cluster...) */
  CHECK(mpisw_topo_hops(&net, 2, 3) == 5 && mpisw_topo_hops(&net, 3, 2) == 5);
  CHECK(mpisw_topo_hops(&net, 3, 4) == 2);
  CHECK(mpisw_topo_hops(&net, 0, 5) == 2); /* one name twice: two nodes under one switch */
  CHECK(mpisw_topo_diameter(&net) == 5);
  /* Only the switches on the hosts' paths: s0, top, s1, s2, mid (not the unused ones). */
  CHECK(net.nhosts == 6 && net.nverts == 11);
  CHECK(!strcmp(net.name[3], "n4.cluster.example") && !strcmp(net.name[6], "s0") &&
        !strcmp(net.name[7], "top") && net.parent[7] == -1 && net.depth[0] == 2 &&
        net.depth[3] == 3);

  /* The same net rebuilt from its arrays (as rank 0 broadcasts it). */
  struct mpisw_topo_net copy;
  CHECK(mpisw_topo_net_from(net.nhosts, net.nverts, net.parent,
                            (const char(*)[MPISW_TOPO_NAME_MAX])net.name, &copy, &e) == 0);
  for (int a = 0; a < 6; a++)
    for (int b = 0; b < 6; b++) CHECK(mpisw_topo_hops(&copy, a, b) == mpisw_topo_hops(&net, a, b));
  mpisw_topo_net_free(&copy);
  int loop[3] = {2, 0, 1}; /* host 0's parent is a switch in a loop, no root */
  char nm[3][MPISW_TOPO_NAME_MAX] = {"h", "x", "y"};
  CHECK(mpisw_topo_net_from(1, 3, loop, (const char(*)[MPISW_TOPO_NAME_MAX])nm, &copy, &e) == -1);
  int host_parent[2] = {1, -1}, host_under_host[3] = {1, -1, 0};
  CHECK(mpisw_topo_net_from(1, 2, host_parent, (const char(*)[MPISW_TOPO_NAME_MAX])nm, &copy, &e) == 0);
  mpisw_topo_net_free(&copy);
  CHECK(mpisw_topo_net_from(2, 3, host_under_host, (const char(*)[MPISW_TOPO_NAME_MAX])nm, &copy,
                            &e) == -1);
  mpisw_topo_net_free(&net);

  /* Hosts the file does not name: 1, each named once. */
  const char *strangers[] = {"n0", "zz", "yy", "zz"};
  CHECK(mpisw_topo_net_build(t, strangers, 4, &net, &e) == 1 &&
        says(e.msg, "'zz', 'yy' are not in the topology file"));
  CHECK(mpisw_topo_net_build(t, strangers, 2, &net, &e) == 1 &&
        says(e.msg, "'zz' is not in the topology file"));

  /* The flat default: every pair 2 hops. */
  CHECK(mpisw_topo_net_flat(hosts, 4, &net, &e) == 0);
  CHECK(mpisw_topo_hops(&net, 0, 3) == 2 && mpisw_topo_hops(&net, 1, 1) == 0 &&
        mpisw_topo_diameter(&net) == 2 && !strcmp(net.name[4], "(flat)"));
  mpisw_topo_net_free(&net);
  mpisw_topo_tree_free(t);
}

/* Link loads on GOOD for hosts n0 n1 n2 n4, by hand. */
static void test_links(void) {
  struct mpisw_topo_tree *t = good_tree();
  if (!t) return;
  const char *hosts[] = {"n0", "n1", "n2", "n4"};
  struct mpisw_topo_net net;
  struct mpisw_error e;
  CHECK(mpisw_topo_net_build(t, hosts, 4, &net, &e) == 0);
  /* vertices: 0 n0, 1 n1, 2 n2, 3 n4, 4 s0, 5 top, 6 s1, 7 s2, 8 mid */
  CHECK(net.nverts == 9 && !strcmp(net.name[4], "s0") && !strcmp(net.name[6], "s1") &&
        !strcmp(net.name[8], "mid"));
  uint64_t traffic[16] = {0};
  traffic[0 * 4 + 2] = 100; /* n0 -> n2 */
  traffic[1 * 4 + 2] = 50;  /* n1 -> n2 */
  traffic[3 * 4 + 0] = 7;   /* n4 -> n0 */
  traffic[1 * 4 + 1] = 999; /* to itself: no link */
  uint64_t up[9], down[9];
  int link = -2, dir = -1;
  uint64_t most = mpisw_topo_link_loads(&net, traffic, up, down, &link, &dir);
  CHECK(up[0] == 100 && down[0] == 7);  /* n0 <-> s0 */
  CHECK(up[1] == 50 && down[1] == 0);   /* n1 <-> s0 */
  CHECK(up[4] == 150 && down[4] == 7);  /* s0 <-> top */
  CHECK(down[6] == 150 && up[6] == 0);  /* top <-> s1 */
  CHECK(down[2] == 150);                /* s1 <-> n2 */
  CHECK(up[3] == 7 && up[7] == 7 && up[8] == 7); /* n4 -> s2 -> mid -> top */
  CHECK(up[5] == 0 && down[5] == 0);    /* the root has no link */
  CHECK(most == 150 && link == 2 && dir == 0); /* s1 -> n2, the first of the 150s */
  CHECK(mpisw_topo_hop_bytes(&net, traffic) == 100 * 4 + 50 * 4 + 7 * 5);
  uint64_t none[16] = {0};
  CHECK(mpisw_topo_link_loads(&net, none, up, down, &link, &dir) == 0 && link == -1);
  mpisw_topo_net_free(&net);
  mpisw_topo_tree_free(t);
}

/* A big flat switch parses fast (a hash of names, not a list). */
static void test_scale(void) {
  struct mpisw_topo_tree *t = NULL;
  struct mpisw_error e;
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  CHECK(mpisw_topo_tree_parse("SwitchName=top Switches=l[0-99]\n"
                              "SwitchName=l[0-99] Nodes=x\n", "t.conf", &t, &e) == -1);
  char text[8192];
  int n = snprintf(text, sizeof text, "SwitchName=top Switches=l[000-099]\n");
  for (int i = 0; i < 100; i++)
    n += snprintf(text + n, sizeof text - (size_t)n, "SwitchName=l%03d Nodes=c%03d-[0000-0999]\n",
                  i, i);
  CHECK(mpisw_topo_tree_parse(text, "big.conf", &t, &e) == 0);
  clock_gettime(CLOCK_MONOTONIC, &b);
  double secs = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
  printf("100000 nodes parsed in %.3f s\n", secs);
  CHECK(t && mpisw_topo_tree_nodes(t) == 100000 && secs < 2.0);
  const char *hosts[] = {"c000-0000", "c099-0999", "c000-0999"};
  struct mpisw_topo_net net;
  CHECK(t && mpisw_topo_net_build(t, hosts, 3, &net, &e) == 0);
  if (t) {
    CHECK(mpisw_topo_hops(&net, 0, 1) == 4 && mpisw_topo_hops(&net, 0, 2) == 2);
    mpisw_topo_net_free(&net);
  }
  mpisw_topo_tree_free(t);
}

/* Inside a node: 2 packages x 2 cores x 2 PUs (PUs 0-1 core 0, 2-3 core 1
 * of package 0; 4-7 package 1). */
static void test_intra(void) {
  struct mpisw_topo_machine *m = NULL;
  struct mpisw_error e;
  CHECK(mpisw_topo_machine_open("pack:2 core:2 pu:2", &m, &e) == 0);
  if (!m) return;
  CHECK(mpisw_topo_intra(m, "0", "0") == MPISW_TOPO_SAME_CORE);
  CHECK(mpisw_topo_intra(m, "0", "1") == MPISW_TOPO_SAME_CORE); /* two PUs of one core */
  CHECK(mpisw_topo_intra(m, "0-1", "1") == MPISW_TOPO_SAME_CORE);
  CHECK(mpisw_topo_intra(m, "0", "2") == MPISW_TOPO_SAME_PACKAGE);
  CHECK(mpisw_topo_intra(m, "0-3", "2") == MPISW_TOPO_SAME_PACKAGE);
  CHECK(mpisw_topo_intra(m, "6", "7") == MPISW_TOPO_SAME_CORE);
  CHECK(mpisw_topo_intra(m, "0", "4") == MPISW_TOPO_SAME_NODE);
  CHECK(mpisw_topo_intra(m, "0-3", "4") == MPISW_TOPO_SAME_NODE);
  CHECK(mpisw_topo_intra(m, "", "0") == MPISW_TOPO_SAME_NODE); /* unbound */
  CHECK(mpisw_topo_intra(m, "x", "0") == MPISW_TOPO_SAME_NODE); /* not a list */
  CHECK(mpisw_topo_intra(m, "0", "99") == MPISW_TOPO_SAME_NODE); /* not a PU here */
  CHECK(MPISW_TOPO_SAME_CORE < MPISW_TOPO_SAME_PACKAGE &&
        MPISW_TOPO_SAME_PACKAGE < MPISW_TOPO_SAME_NODE && MPISW_TOPO_SAME_NODE <= 1.0);
  mpisw_topo_machine_close(m);
  /* A machine without packages: one core is still closer than the node. */
  CHECK(mpisw_topo_machine_open("core:4 pu:1", &m, &e) == 0);
  if (m) {
    CHECK(mpisw_topo_intra(m, "1", "1") == MPISW_TOPO_SAME_CORE);
    CHECK(mpisw_topo_intra(m, "1", "2") == MPISW_TOPO_SAME_NODE);
    mpisw_topo_machine_close(m);
  }
  CHECK(mpisw_topo_machine_open("nonsense:x", &m, &e) == -1 && says(e.msg, "not a synthetic"));
  /* This machine: the binding is a PU list, or "" when unbound. */
  CHECK(mpisw_topo_machine_open(NULL, &m, &e) == 0);
  if (m) {
    char b[256] = "junk";
    mpisw_topo_binding(m, b, sizeof b);
    printf("this process's binding: '%s'\n", b);
    CHECK(strcmp(b, "junk") != 0);
    CHECK(mpisw_topo_intra(m, b, b) <= 1.0);
    mpisw_topo_machine_close(m);
  }
}

int main(void) {
  test_hostlist();
  test_errors();
  test_distances();
  test_links();
  test_scale();
  test_intra();
  return check_summary("test_topo");
}
