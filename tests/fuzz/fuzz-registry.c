/* libFuzzer target: arbitrary packets through the manager service's check (common/registry.c,
 * which the manager, its clients and the providers all use), as each of the four receivers sees
 * them (the first byte picks the direction). A packet that passes is then read as its type
 * says, the way the service reads it: no read may go past it. */
/* SPDX-License-Identifier: MIT */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/registry.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size || size - 1 > FXT_MSG_MAX)
		return 0;
	uint64_t *pkt = malloc(size - 1 + 8);	/* aligned as a received packet */
	if (!pkt)
		return 0;
	memcpy(pkt, data + 1, size - 1);
	int type = fxt_msg_check(pkt, size - 1, (enum fxt_msg_from)(data[0] & 3), NULL);
	volatile size_t sink = 0;
	if (type == FXT_MSG_HELLO)
		sink += strlen(((struct fxt_msg_hello *)pkt)->name);
	else if (type == FXT_MSG_TRACE || type == FXT_MSG_START) {
		const struct fxt_msg_trace *t = (const void *)pkt;
		const struct fxt_msg_start *s = (const void *)pkt;
		uint32_t n = type == FXT_MSG_TRACE ? t->ntriggers : s->ntriggers;
		const struct fxt_trigger *tr =
			type == FXT_MSG_TRACE ? (const void *)(t + 1) : (const void *)(s + 1);
		for (uint32_t i = 0; i < n; i++)
			sink += strlen(tr[i].function);
	} else if (type == FXT_MSG_LIST_REPLY) {
		const struct fxt_msg_list *l = (const void *)pkt;
		const struct fxt_list_entry *e = (const void *)(l + 1);
		for (uint32_t i = 0; i < l->count; i++)
			sink += strlen(e[i].name);
	} else if (type == FXT_MSG_REPLY) {
		sink += strlen(((struct fxt_msg_reply *)pkt)->message);
	}
	(void)sink;
	free(pkt);
	return 0;
}
