/* Kernel ABI newer than Debian 12's headers (Linux 6.7): asynchronous
 * userfaultfd write-protection and PAGEMAP_SCAN, with which the pager and
 * atomic syncs find the pages written since they last looked. */
#ifndef MPISW_CORE_UFFD_ABI_H
#define MPISW_CORE_UFFD_ABI_H

#include <linux/userfaultfd.h>
#include <sys/ioctl.h>

#ifndef UFFD_FEATURE_WP_ASYNC
#define UFFD_FEATURE_WP_ASYNC (1 << 15)
#endif
#ifndef UFFD_FEATURE_WP_UNPOPULATED
#define UFFD_FEATURE_WP_UNPOPULATED (1 << 13)
#endif
#ifndef PAGEMAP_SCAN
struct page_region {
  __u64 start, end, categories;
};
struct pm_scan_arg {
  __u64 size, flags, start, end, walk_end, vec, vec_len, max_pages;
  __u64 category_inverted, category_mask, category_anyof_mask, return_mask;
};
#define PM_SCAN_WP_MATCHING (1 << 0)
#define PM_SCAN_CHECK_WPASYNC (1 << 1)
#define PAGE_IS_WRITTEN (1 << 1)
#define PAGE_IS_PRESENT (1 << 3)
#define PAGE_IS_SWAPPED (1 << 4)
#define PAGEMAP_SCAN _IOWR('f', 16, struct pm_scan_arg)
#endif

#endif
