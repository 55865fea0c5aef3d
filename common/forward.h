/* How fxtrun forwards a signal to the program (launcher/cmd/record.c) so that the program's
 * preload (preload/life/dispositions.c) can tell a forward from the signal itself: rt_sigqueueinfo with
 * si_code SI_QUEUE and si_value FXT_FORWARD_TAG | the original sender's pid. A forward of a
 * signal the program got from the same sender (a process-group kill that reached both; the
 * forward may arrive first) is dropped there, so the program sees each signal once.
 * Header-only, no state. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_COMMON_FORWARD_H
#define FXT_COMMON_FORWARD_H

#include <stdint.h>

#define FXT_FORWARD_TAG (0x66787466ULL << 32) /* "fxtf" in the high half of si_value */
#define FXT_FORWARD_WINDOW_NS 1000000000ULL /* farther apart: two signals, not one twice */

/* The si_value of a forward of sender's signal. Fails: never. Thread-safe: yes. */
static inline uint64_t fxt_forward_value(int32_t sender)
{
	return FXT_FORWARD_TAG | (uint32_t)sender;
}

/* The original sender of a forward (si_value v), or -1: not a forward. Fails: never.
 * Thread-safe and async-signal-safe: yes. */
static inline int32_t fxt_forward_sender(uint64_t v)
{
	return (v >> 32) == (FXT_FORWARD_TAG >> 32) ? (int32_t)(uint32_t)v : -1;
}

#endif
