/* The staging module's table (src/ckpt/stage_module.c), listed in
 * src/dispatch/modules.c after the modules that take checkpoints. */
#ifndef MPISW_CKPT_STAGE_MODULE_H
#define MPISW_CKPT_STAGE_MODULE_H

#include "process/module.h"

extern const struct mpisw_module mpisw_stage_module;

#endif
