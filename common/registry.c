/* The manager service's packets checked (common/registry.h): one function for the four
 * directions, each type's rule in one place (its exact size, its strings, its counts and
 * ranges). Pure: no I/O, no allocation, no global state; used by the manager and its clients
 * (launcher/manager/msg.c carries the packets) and by the provider (preload/transport/manager-link.c), and fed
 * directly by the fuzzer. A packet that breaks a rule is refused whole. */
/* SPDX-License-Identifier: MIT */
#include "common/registry.h"

#include <errno.h>
#include <string.h>

#include "writer/buffer.h"

_Static_assert(sizeof(struct fxt_msg) == 8, "header");
_Static_assert(sizeof(struct fxt_msg_trace) + FXT_TRIGGERS_MAX * sizeof(struct fxt_trigger) <=
		       FXT_MSG_MAX, "TRACE fits a packet");
_Static_assert(sizeof(struct fxt_msg_start) + FXT_TRIGGERS_MAX * sizeof(struct fxt_trigger) <=
		       FXT_MSG_MAX, "START fits a packet");

static int refuse(const char **why, const char *what)
{
	*why = what;
	return -EBADMSG;
}

/* Whether the string field s[0..size) holds a NUL. */
static int terminated(const char *s, size_t size)
{
	return memchr(s, 0, size) != NULL;
}

static int mode_ok(uint32_t mode)
{
	return mode == FXT_BUF_ONESHOT || mode == FXT_BUF_CIRCULAR || mode == FXT_BUF_STREAMING;
}

/* The triggers after a TRACE or START body: n of them in exactly the rest of the packet. */
static int triggers_ok(const void *pkt, size_t len, size_t body, uint32_t n, const char **why)
{
	if (n > FXT_TRIGGERS_MAX)
		return refuse(why, "too many triggers");
	if (len != body + (size_t)n * sizeof(struct fxt_trigger))
		return refuse(why, "size does not match the trigger count");
	const struct fxt_trigger *t = (const struct fxt_trigger *)((const char *)pkt + body);
	for (uint32_t i = 0; i < n; i++) {
		if (t[i].kind < FXT_TRIGGER_START || t[i].kind > FXT_TRIGGER_SNAPSHOT)
			return refuse(why, "unknown trigger kind");
		if (t[i].reserved)
			return refuse(why, "reserved field not zero");
		if (!terminated(t[i].function, sizeof(t[i].function)) || !t[i].function[0])
			return refuse(why, "trigger function not a string");
	}
	return 0;
}

static int check_body(const void *pkt, size_t len, uint16_t type, const char **why)
{
	switch (type) {
	case FXT_MSG_HELLO: {
		const struct fxt_msg_hello *m = pkt;
		if (len != sizeof(*m))
			return refuse(why, "HELLO of the wrong size");
		if (!m->pid)
			return refuse(why, "HELLO: pid 0");
		int in_trace = m->state == FXT_PROVIDER_TRACING || m->state == FXT_PROVIDER_ARMED;
		if (in_trace != (m->session != 0) || (!in_trace && m->state != FXT_PROVIDER_IDLE))
			return refuse(why, "HELLO: state and session do not agree");
		return terminated(m->name, sizeof(m->name)) ? 0 : refuse(why, "name not a string");
	}
	case FXT_MSG_STOP:
	case FXT_MSG_STOPPED:
	case FXT_MSG_RECORDING:
		return len == sizeof(struct fxt_msg_session) ? 0 : refuse(why, "wrong size");
	case FXT_MSG_TRIGGERED: {
		const struct fxt_msg_triggered *m = pkt;
		if (len != sizeof(*m))
			return refuse(why, "TRIGGERED of the wrong size");
		if (m->reserved)
			return refuse(why, "reserved field not zero");
		return m->kind >= FXT_TRIGGER_START && m->kind <= FXT_TRIGGER_SNAPSHOT
			       ? 0
			       : refuse(why, "unknown trigger kind");
	}
	case FXT_MSG_START: {
		const struct fxt_msg_start *m = pkt;
		if (len < sizeof(*m))
			return refuse(why, "START too short");
		if (!mode_ok(m->mode))
			return refuse(why, "unknown mode");
		if (!m->session)
			return refuse(why, "session 0");
		if (m->buffer_size < FXT_START_BUFFER_MIN || m->buffer_size > FXT_START_BUFFER_MAX)
			return refuse(why, "buffer size out of range");
		if (m->session_dir[0] != '/')
			return refuse(why, "session directory not an absolute path");
		if (!terminated(m->session_dir, sizeof(m->session_dir)) || !m->session_dir[0] ||
		    !terminated(m->categories, sizeof(m->categories)))
			return refuse(why, "session directory or categories not a string");
		return triggers_ok(pkt, len, sizeof(*m), m->ntriggers, why);
	}
	case FXT_MSG_LIST:
		return len == sizeof(struct fxt_msg) ? 0 : refuse(why, "LIST of the wrong size");
	case FXT_MSG_TRACE: {
		const struct fxt_msg_trace *m = pkt;
		if (len < sizeof(*m))
			return refuse(why, "TRACE too short");
		if (!mode_ok(m->mode))
			return refuse(why, "unknown mode");
		if (m->flags & ~(uint32_t)FXT_TRACE_ATTACHED)
			return refuse(why, "unknown flags");
		if (!terminated(m->name, sizeof(m->name)) ||
		    !terminated(m->categories, sizeof(m->categories)) ||
		    !terminated(m->output, sizeof(m->output)))
			return refuse(why, "name, categories or output not a string");
		if (m->output[0] && m->output[0] != '/')
			return refuse(why, "output not an absolute path");
		return triggers_ok(pkt, len, sizeof(*m), m->ntriggers, why);
	}
	case FXT_MSG_END: {
		const struct fxt_msg_end *m = pkt;
		if (len != sizeof(*m))
			return refuse(why, "END of the wrong size");
		if (m->flags & ~(uint32_t)FXT_END_FORCE)
			return refuse(why, "unknown flags");
		return m->what == FXT_END_STOP || m->what == FXT_END_SNAPSHOT
			       ? 0
			       : refuse(why, "END of an unknown kind");
	}
	case FXT_MSG_LIST_REPLY: {
		const struct fxt_msg_list *m = pkt;
		if (len < sizeof(*m) || m->count > (FXT_MSG_MAX - sizeof(*m)) /
							   sizeof(struct fxt_list_entry) ||
		    len != sizeof(*m) + m->count * sizeof(struct fxt_list_entry))
			return refuse(why, "size does not match the provider count");
		if (m->session_state > 1)
			return refuse(why, "unknown session state");
		const struct fxt_list_entry *e = (const struct fxt_list_entry *)(m + 1);
		for (uint32_t i = 0; i < m->count; i++)
			if (!terminated(e[i].name, sizeof(e[i].name)))
				return refuse(why, "name not a string");
		return 0;
	}
	case FXT_MSG_REPLY: {
		const struct fxt_msg_reply *m = pkt;
		if (len != sizeof(*m))
			return refuse(why, "REPLY of the wrong size");
		if ((m->flags & ~(uint32_t)(FXT_REPLY_IN_FILE | FXT_REPLY_IN_START)) ||
		    m->status > 0)
			return refuse(why, "unknown flags, or a positive status");
		if (!terminated(m->message, sizeof(m->message)) ||
		    !terminated(m->archive, sizeof(m->archive)))
			return refuse(why, "message or archive not a string");
		return 0;
	}
	}
	return refuse(why, "unknown type");
}

int fxt_msg_check(const void *pkt, size_t len, enum fxt_msg_from from, const char **why)
{
	static const uint16_t allowed[4][4] = {
		[FXT_FROM_PROVIDER] = { FXT_MSG_HELLO, FXT_MSG_STOPPED, FXT_MSG_TRIGGERED,
					FXT_MSG_RECORDING },
		[FXT_FROM_CLIENT] = { FXT_MSG_LIST, FXT_MSG_TRACE, FXT_MSG_END, FXT_MSG_END },
		[FXT_FROM_REGISTRY] = { FXT_MSG_START, FXT_MSG_STOP, FXT_MSG_STOP, FXT_MSG_STOP },
		[FXT_FROM_CONTROL] = { FXT_MSG_LIST_REPLY, FXT_MSG_REPLY, FXT_MSG_REPLY,
				       FXT_MSG_REPLY },
	};
	const char *dummy;
	if (!why)
		why = &dummy;
	*why = NULL;
	const struct fxt_msg *h = pkt;
	if ((unsigned)from > FXT_FROM_CONTROL || len < sizeof(*h) || len > FXT_MSG_MAX)
		return refuse(why, "packet too short or too long");
	if (h->size != len)
		return refuse(why, "size field is not the packet's size");
	if (h->version != FXT_REGISTRY_VERSION)
		return refuse(why, "unknown version");
	if (h->type != allowed[from][0] && h->type != allowed[from][1] &&
	    h->type != allowed[from][2] && h->type != allowed[from][3])
		return refuse(why, "a type this sender may not send");
	int rc = check_body(pkt, len, h->type, why);
	return rc < 0 ? rc : h->type;
}

