/* What the fxt subcommands share (cmd.h): the input path ("-": stdin), exit statuses of a
 * read, opening an archive and an output file, the end of a reading command's option switch,
 * the selection's read. Calls no command: main.c's table does. */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "client/client.h"
#include "common/outpath.h"
#include "fxt/reader.h"
#include "launcher/cmd/cmd.h"

const char *cmd_input(const char *arg)
{
	return strcmp(arg, "-") ? arg : "/dev/stdin";
}

int cmd_exit_read(int res)
{
	return res == FXT_READ_END || res == FXT_READ_RECORD ? CMD_EXIT_OK : CMD_EXIT_INVALID;
}

int cmd_exit_client(const struct fxt_client_result *res)
{
	switch (res->status) {
	case FXT_CS_OK:
		return CMD_EXIT_OK;
	case FXT_CS_TRUNCATED:
	case FXT_CS_CORRUPT:
		return CMD_EXIT_INVALID;
	case FXT_CS_OPEN: /* empty, or not FXT: an invalid archive; else it cannot be read */
		return res->err == -ENODATA || res->err == -EINVAL ? CMD_EXIT_INVALID : CMD_EXIT_ERROR;
	default:
		return CMD_EXIT_ERROR;
	}
}

struct fxt_reader *cmd_open_archive(const char *cmd, const char *path, unsigned flags)
{
	struct fxt_reader *r;
	int err = fxt_reader_open(&r, cmd_input(path), flags);
	if (err < 0) {
		fprintf(stderr, "fxt %s: %s: %s\n", cmd, path,
			err == -EFBIG ? "too large to read into memory" : strerror(-err));
		return NULL;
	}
	return r;
}

int cmd_sel_usage(int c, const char *usage)
{
	fprintf(c == 'h' ? stdout : stderr, usage, fxt_sel_usage);
	return c == 'h' ? 0 : CMD_EXIT_ERROR;
}

/* cmd_sel_read()'s callback: the command's, and the trace start noted. */
struct start_noting {
	int (*fn)(void *ctx, const struct fxt_reader *r, const struct fxt_record *rec);
	void *ctx;
	uint64_t *start;
};

static int note_start(void *ctx, const struct fxt_reader *r, const struct fxt_record *rec)
{
	struct start_noting *sn = ctx;

	fxt_trace_start_note(sn->start, r, rec);
	return sn->fn(sn->ctx, r, rec);
}

int cmd_sel_read(const char *cmd, struct fxt_sel *sel, const char *path,
		 int (*fn)(void *ctx, const struct fxt_reader *r, const struct fxt_record *rec),
		 void *ctx, uint64_t *start, struct fxt_client_result *res)
{
	struct start_noting sn = { fn, ctx, start };
	char msg[320];
	if (fxt_sel_needs_start(sel)) {
		/* +TIME counts from the earliest event: one read to find it first */
		fxt_client_read(cmd_input(path), fxt_trace_start_fn, start, res);
		if (res->status == FXT_CS_OPEN || res->status == FXT_CS_CALLBACK)
			return 0;
	}
	if (fxt_sel_resolve(sel, *start, msg, sizeof(msg)) < 0) {
		fprintf(stderr, "fxt %s: %s\n", cmd, msg);
		return -1;
	}
	if (res->reader)
		fxt_client_reread(note_start, &sn, res);
	else
		fxt_client_read(cmd_input(path), note_start, &sn, res);
	return 0;
}

FILE *cmd_open_out(const char *cmd, const char *out, char *tmp, size_t size)
{
	const char *why;
	int fd = fxt_outpath_check(out, &why);
	FILE *f;

	if (fd < 0) {
		fprintf(stderr, "fxt %s: -o %s: %s\n", cmd, out, why);
		return NULL;
	}
	if ((fd = fxt_outpath_open(out, tmp, size)) < 0 || !(f = fdopen(fd, "w"))) {
		fprintf(stderr, "fxt %s: -o %s: %s\n", cmd, out, strerror(fd < 0 ? -fd : errno));
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		return NULL;
	}
	return f;
}
