/* The service's packet checking (common/registry.c): every type accepted when exactly right and
 * refused for each rule it breaks, in each direction. */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <string.h>

#include "check.h"
#include "common/registry.h"

static uint64_t buf[FXT_MSG_MAX / 8 + 1];

static int check(size_t len, enum fxt_msg_from from)
{
	return fxt_msg_check(buf, len, from, NULL);
}

static size_t trace_with(uint32_t ntriggers)
{
	memset(buf, 0, sizeof(buf));
	struct fxt_msg_trace *t = (void *)buf;
	size_t len = sizeof(*t) + ntriggers * sizeof(struct fxt_trigger);
	t->h = fxt_msg_hdr(FXT_MSG_TRACE, len);
	t->ntriggers = ntriggers;
	struct fxt_trigger *tr = (void *)(t + 1);
	for (uint32_t i = 0; i < ntriggers; i++) {
		tr[i].kind = FXT_TRIGGER_SNAPSHOT;
		strcpy(tr[i].function, "f");
	}
	return len;
}

int main(void)
{
	struct fxt_msg_hello *h = (void *)buf;
	*h = (struct fxt_msg_hello){ .h = fxt_msg_hdr(FXT_MSG_HELLO, sizeof(*h)), .pid = 7,
				     .state = FXT_PROVIDER_IDLE };
	ok(check(sizeof(*h), FXT_FROM_PROVIDER) == FXT_MSG_HELLO, "a good HELLO is accepted");
	ok(check(sizeof(*h), FXT_FROM_CLIENT) == -EBADMSG, "HELLO is refused from a client");
	ok(check(sizeof(*h) - 8, FXT_FROM_PROVIDER) == -EBADMSG, "a packet shorter than its size");
	h->h.version = FXT_REGISTRY_VERSION - 1;
	ok(check(sizeof(*h), FXT_FROM_PROVIDER) == -EBADMSG, "another version is refused");
	h->h.version = FXT_REGISTRY_VERSION;
	h->session = 3;
	ok(check(sizeof(*h), FXT_FROM_PROVIDER) == -EBADMSG, "an idle HELLO naming a session");
	h->state = FXT_PROVIDER_TRACING;
	ok(check(sizeof(*h), FXT_FROM_PROVIDER) == FXT_MSG_HELLO,
	   "a fork child's HELLO: tracing in its parent's session");
	h->session = 0;
	ok(check(sizeof(*h), FXT_FROM_PROVIDER) == -EBADMSG, "tracing in no session");
	h->state = FXT_PROVIDER_STOPPING;
	h->session = 3;
	ok(check(sizeof(*h), FXT_FROM_PROVIDER) == -EBADMSG, "a state a HELLO cannot say");
	h->state = FXT_PROVIDER_IDLE;
	h->session = 0;
	memset(h->name, 'x', sizeof(h->name));
	ok(check(sizeof(*h), FXT_FROM_PROVIDER) == -EBADMSG, "a name without its NUL");
	ok(check(4, FXT_FROM_PROVIDER) == -EBADMSG, "4 bytes are no packet");

	ok(check(trace_with(0), FXT_FROM_CLIENT) == FXT_MSG_TRACE, "a TRACE without triggers");
	ok(check(trace_with(FXT_TRIGGERS_MAX), FXT_FROM_CLIENT) == FXT_MSG_TRACE, "16 triggers");
	ok(check(trace_with(FXT_TRIGGERS_MAX + 1), FXT_FROM_CLIENT) == -EBADMSG, "17 triggers");
	size_t len = trace_with(2);
	((struct fxt_msg_trace *)buf)->ntriggers = 1;
	ok(check(len, FXT_FROM_CLIENT) == -EBADMSG, "a trigger count that is not the size");
	len = trace_with(1);
	((struct fxt_trigger *)((struct fxt_msg_trace *)buf + 1))->kind = 4;
	ok(check(len, FXT_FROM_CLIENT) == -EBADMSG, "an unknown trigger kind");
	len = trace_with(0);
	((struct fxt_msg_trace *)buf)->mode = 3;
	ok(check(len, FXT_FROM_CLIENT) == -EBADMSG, "mode growing is not for a trace");
	len = trace_with(0);
	((struct fxt_msg_trace *)buf)->flags = 2;
	ok(check(len, FXT_FROM_CLIENT) == -EBADMSG, "unknown flags");

	struct fxt_msg_end *e = (void *)buf;
	*e = (struct fxt_msg_end){ .h = fxt_msg_hdr(FXT_MSG_END, sizeof(*e)), .what = 2 };
	ok(check(sizeof(*e), FXT_FROM_CLIENT) == FXT_MSG_END, "END SNAPSHOT");
	e->what = 3;
	ok(check(sizeof(*e), FXT_FROM_CLIENT) == -EBADMSG, "END of an unknown kind");

	struct fxt_msg_list *l = (void *)buf;
	memset(buf, 0, sizeof(buf));
	len = sizeof(*l) + 2 * sizeof(struct fxt_list_entry);
	l->h = fxt_msg_hdr(FXT_MSG_LIST_REPLY, len);
	l->count = 2;
	ok(check(len, FXT_FROM_CONTROL) == FXT_MSG_LIST_REPLY, "a LIST_REPLY of 2");
	l->count = 0x40000000;
	ok(check(len, FXT_FROM_CONTROL) == -EBADMSG, "a count that overflows is refused");

	struct fxt_msg_start *s = (void *)buf;
	memset(buf, 0, sizeof(buf));
	s->h = fxt_msg_hdr(FXT_MSG_START, sizeof(*s));
	strcpy(s->session_dir, "/dev/shm/x");
	s->session = 1;
	s->buffer_size = 1 << 20;
	ok(check(sizeof(*s), FXT_FROM_REGISTRY) == FXT_MSG_START, "a START");
	s->session = 0;
	ok(check(sizeof(*s), FXT_FROM_REGISTRY) == -EBADMSG, "a START of session 0");
	s->session = 1;
	s->buffer_size = (1 << 20) - 1;
	ok(check(sizeof(*s), FXT_FROM_REGISTRY) == -EBADMSG, "a START with a buffer under 1M");
	s->buffer_size = (64ULL << 30) + 1;
	ok(check(sizeof(*s), FXT_FROM_REGISTRY) == -EBADMSG, "a START with a buffer over 64G");
	s->buffer_size = 1 << 20;
	strcpy(s->session_dir, "dev/shm/x");
	ok(check(sizeof(*s), FXT_FROM_REGISTRY) == -EBADMSG, "a START with a relative directory");
	s->session_dir[0] = 0;
	ok(check(sizeof(*s), FXT_FROM_REGISTRY) == -EBADMSG, "a START without a session directory");
	ok(check(sizeof(*s), FXT_FROM_PROVIDER) == -EBADMSG, "START is not a provider's to send");
	return done();
}
