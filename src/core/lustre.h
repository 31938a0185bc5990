/* striping_factor / striping_unit on Lustre; a no-op on other file systems. */
#ifndef MPISW_CORE_LUSTRE_H
#define MPISW_CORE_LUSTRE_H

#include "core/error.h"

/* Extra open(2) flags that delay object creation on Lustre (0 elsewhere). */
int mpisw_lustre_open_flags(const char *path);

/* Sets the layout of a new, empty file on Lustre; does nothing elsewhere. */
int mpisw_lustre_set_striping(int fd, const char *path, long count, long unit,
                              struct mpisw_error *e);

#endif
