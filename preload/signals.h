/* Fatal and terminating signals (signal.c): handlers that flush the archive, and the
 * alternate signal stack each thread gets so that a stack overflow is flushed too. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_PRELOAD_SIGNALS_H
#define FXT_PRELOAD_SIGNALS_H

/* Installs the handlers that flush the archive on a fatal or terminating signal.
 * Fails: -errno (tracing stays off). Not thread-safe (constructor). */
int fxtp_signals_init(void);
/* Gives the calling thread an alternate signal stack unless it has one, so that a stack
 * overflow is flushed too; returns it (for release) or NULL. Release at thread exit. */
void *fxtp_altstack_setup(void);
void fxtp_altstack_release(void *stack);

#endif
