/* Registration with the per-user trace manager service (preload/transport/manager-link.c, contract in
 * common/registry.h): with FXT_REGISTER=1 (and no FXT_SESSION) the process starts IDLE, and
 * its provider thread registers it, waits for the manager, and starts and stops tracing when
 * told (START, STOP). The program never notices: the thread blocks every signal, holds the
 * tracer guard for good and keeps its descriptors at 64 and above, close-on-exec. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_PRELOAD_MANAGER_LINK_H
#define FXT_PRELOAD_MANAGER_LINK_H

#include <stddef.h>

/* 1 when this process registers with the manager service (FXT_REGISTER=1, FXT_SESSION unset:
 * fxtrun's session wins). Fails: never. Thread-safe (getenv aside). */
int fxtp_link_wanted(void);

/* Starts the provider thread (constructor, state IDLE). Fails: -errno of pthread_create
 * (the process runs untraced). Not thread-safe. */
int fxtp_link_start(void);

/* Fork child (fork.c): the parent's connection and thread are not the child's; it registers
 * anew with a thread of its own (and, when the parent was tracing, traces on in the same
 * session: fork.c gave it its buffer). Fails: silently (the child runs untraced). */
void fxtp_link_fork_child(void);

#endif
