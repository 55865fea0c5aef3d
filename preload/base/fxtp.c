/* The preload's globals, defined once at the bottom of the house (declared in fxtp.h): the state
 * word, the settings, the process-wide context, the calling thread's state, the flag of a
 * process ending on a fatal signal; and fxtp_warn, the one line on stderr. Calls no other part
 * of the preload: every room may use it. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "common/io.h"
#include "preload/base/fxtp.h"

uint32_t fxtp_state = FXTP_STATE_SETUP;
struct fxt_settings fxtp_settings;
struct fxtp_ctx fxtp;
FXTP_TLS struct fxtp_thread fxtp_self;
int fxtp_sig_fatal;
uint64_t fxtp_tick_gap;

void fxtp_warn(const char *msg, const char *detail)
{
	int saved = errno;
	char line[512];
	size_t n = 0;
	const char *parts[] = { "fxtauto: ", msg, detail ? ": " : "", detail ? detail : "", "\n" };
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		size_t l = strnlen(parts[i], sizeof(line) - 1 - n);
		memcpy(line + n, parts[i], l);
		n += l;
	}
	if (fxt_write_all(2, line, n) < 0) {
		/* nothing more to do: stderr is gone */
	}
	errno = saved;
}
