/* Exec (exec.c): what the constructor learns from the image this one replaced. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_PRELOAD_EXEC_H
#define FXT_PRELOAD_EXEC_H

/* The name sequence number passed by the previous image of this pid at exec (and removed from
 * the environment), or -1 for a first image. Constructor only. */
int fxtp_exec_image(void);

#endif
