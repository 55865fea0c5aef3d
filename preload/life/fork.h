/* fork(): the preload's pthread_atfork handlers (fork.c). */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_PRELOAD_FORK_H
#define FXT_PRELOAD_FORK_H

/* Registers fork.c's handlers (once, from the constructor). Fails: -errno of pthread_atfork. */
int fxtp_fork_init(void);

#endif
