/* Write-behind for the mmap backend (docs/DURABILITY.md "Write-behind"):
 * a small background thread starts the kernel's write-back of a window's
 * dirty pages early, so they never pile up to a memory cgroup's limit. */
#ifndef MPISW_WIN_WRITEBEHIND_H
#define MPISW_WIN_WRITEBEHIND_H

#include <stdint.h>

struct mpisw_place;

/* Serves p when the mmap backend maps its storage part and MPISW_WRITEBEHIND
 * asks for it (auto: a storage part of at least a quarter of the memory
 * cgroup's limit). Nothing happens on any failure: the window works as before. */
void mpisw_writebehind_attach(struct mpisw_place *p);
/* Before p's mapping or file goes; waits for a pass over p in progress. */
void mpisw_writebehind_detach(struct mpisw_place *p);
/* Whether p is served (tests, the report). */
int mpisw_writebehind_serves(const struct mpisw_place *p);

#endif
