/* Fatal and terminating signals (dispositions.c): handlers that flush the archive, and the
 * program's own dispositions kept aside by the sigaction/signal wrappers. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_PRELOAD_DISPOSITIONS_H
#define FXT_PRELOAD_DISPOSITIONS_H

/* Installs the handlers that flush the archive on a fatal or terminating signal.
 * Fails: -errno (tracing stays off). Not thread-safe (constructor). */
int fxtp_signals_init(void);
#endif
