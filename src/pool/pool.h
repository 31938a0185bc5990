/* PLACEHOLDER copied from the pool brief for compiling src/pfile/ before the
 * pool lands; replaced by the pool helper's header at merge. */
#ifndef MPISW_POOL_POOL_H
#define MPISW_POOL_POOL_H
#include <stdint.h>
#include "core/error.h"
enum { MPISW_POOL_OK = 0, MPISW_POOL_NOENT = -1, MPISW_POOL_EXISTS = -2, MPISW_POOL_NOSPACE = -3, MPISW_POOL_BUSY = -4, MPISW_POOL_IO = -5, MPISW_POOL_USAGE = -6 };
int mpisw_pool_ready(void);
struct mpisw_pool_file;
struct mpisw_pool_layout { uint64_t stripe_unit; int stripe_factor; };
int mpisw_pool_open(const char *name, int create, int excl, const struct mpisw_pool_layout *l, struct mpisw_pool_file **f, struct mpisw_error *e);
int mpisw_pool_close(struct mpisw_pool_file *f, struct mpisw_error *e);
int mpisw_pool_delete(const char *name, struct mpisw_error *e);
int mpisw_pool_write(struct mpisw_pool_file *f, uint64_t off, const void *buf, uint64_t len, struct mpisw_error *e);
int mpisw_pool_read(struct mpisw_pool_file *f, uint64_t off, void *buf, uint64_t len, uint64_t *got, struct mpisw_error *e);
int mpisw_pool_get_size(struct mpisw_pool_file *f, uint64_t *size, struct mpisw_error *e);
int mpisw_pool_set_size(struct mpisw_pool_file *f, uint64_t size, struct mpisw_error *e);
int mpisw_pool_preallocate(struct mpisw_pool_file *f, uint64_t size, struct mpisw_error *e);
int mpisw_pool_sync(struct mpisw_pool_file *f, struct mpisw_error *e);
int mpisw_pool_lock(struct mpisw_pool_file *f, struct mpisw_error *e);
int mpisw_pool_unlock(struct mpisw_pool_file *f, struct mpisw_error *e);
int mpisw_pool_shared_ptr(struct mpisw_pool_file *f, int64_t add, int64_t *before, struct mpisw_error *e);
int mpisw_pool_shared_ptr_set(struct mpisw_pool_file *f, int64_t value, struct mpisw_error *e);
int mpisw_pool_owner(struct mpisw_pool_file *f, uint64_t off, int *world_rank, uint64_t *run);
void mpisw_pool_usage(uint64_t *used, uint64_t *capacity, uint64_t *peak);
#endif
