/* A manager's side of the streaming policy for unit tests that drive writer/policy.c alone:
 * backing always succeeds, save requests go nowhere, the saves acknowledged are
 * stub_acks (set by the test), and a wait gives up at once. Header-only, one test per binary. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_TESTS_POLICY_STUB_H
#define FXT_TESTS_POLICY_STUB_H
#include <stdint.h>

#include "writer/policy.h"

static uint32_t stub_acks;	/* the halves "saved": a take may switch to wrap stub_acks + 1 */

static int stub_back(struct fxt_buf *b, uint64_t end)
{
	(void)b, (void)end;
	return 0;
}
static void stub_request_save(struct fxt_buf *b, uint32_t w, uint64_t used)
{
	(void)b, (void)w, (void)used;
}
static uint32_t stub_acked(struct fxt_buf *b)
{
	(void)b;
	return stub_acks;
}
static int stub_wait(struct fxt_buf *b, uint32_t w)
{
	(void)b, (void)w;
	return 0;
}
__attribute__((unused)) static const struct fxt_policy_ops stub_ops = {
	stub_back, stub_request_save, stub_acked, stub_wait
};
#endif
