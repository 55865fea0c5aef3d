/* The read loop shared by the client commands (client.h): open, check the magic number record,
 * hand every record to the command's callback, and describe how the read ended. The reader
 * skips unknown record types itself; a truncated archive is a warning, not a failure. */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "client/client.h"

static int is_magic(const struct fxt_record *rec)
{
	return rec->type == FXT_RT_METADATA && rec->u.meta.meta_type == FXT_MT_TRACE_INFO &&
	       rec->u.meta.trace_info_type == FXT_TI_MAGIC && rec->u.meta.magic == FXT_MAGIC;
}

/* Reads every record of r into fn; fills res (which keeps r). */
static int drive(struct fxt_reader *r, fxt_client_fn fn, void *ctx, struct fxt_client_result *res)
{
	struct fxt_record *rec = malloc(sizeof(*rec)); /* large (15 args) */
	int rc, first = 1;

	memset(res, 0, sizeof(*res));
	res->reader = r;
	if (!rec) {
		res->status = FXT_CS_CALLBACK;
		res->err = -ENOMEM;
		return res->status;
	}
	while ((rc = fxt_reader_next(r, rec)) == FXT_READ_RECORD) {
		if (first && !is_magic(rec)) {
			res->status = FXT_CS_OPEN;
			res->err = -EINVAL;
			break;
		}
		first = 0;
		int cb = fn(ctx, r, rec);	/* not rc: -ENOENT would read as FXT_READ_CORRUPT */
		if (cb < 0) {
			res->status = FXT_CS_CALLBACK;
			res->err = cb;
			break;
		}
	}
	if (first && rc == FXT_READ_END) {
		res->status = FXT_CS_OPEN;
		res->err = -ENODATA;
	} else if (rc == FXT_READ_TRUNCATED || rc == FXT_READ_CORRUPT) {
		res->status = rc == FXT_READ_TRUNCATED ? FXT_CS_TRUNCATED : FXT_CS_CORRUPT;
		res->where = *fxt_reader_error(r);
		if (first) {
			res->status = FXT_CS_OPEN;
			res->err = -EINVAL;
		}
	}
	res->stats = *fxt_reader_stats(r);
	free(rec);
	return res->status;
}

int fxt_client_read(const char *path, fxt_client_fn fn, void *ctx, struct fxt_client_result *res)
{
	struct fxt_reader *r;
	int rc = fxt_reader_open(&r, path, 0);

	if (rc < 0) {
		memset(res, 0, sizeof(*res));
		res->status = FXT_CS_OPEN;
		res->err = rc;
		return res->status;
	}
	return drive(r, fn, ctx, res);
}

int fxt_client_reread(fxt_client_fn fn, void *ctx, struct fxt_client_result *res)
{
	struct fxt_reader *r = res->reader;
	int rc = r ? fxt_reader_rewind(r) : -EBADF;

	if (rc < 0) {
		res->status = FXT_CS_CALLBACK;
		res->err = rc;
		return res->status;
	}
	return drive(r, fn, ctx, res);
}

void fxt_client_close(struct fxt_client_result *res)
{
	if (res->reader)
		fxt_reader_close(res->reader);
	res->reader = NULL;
}

const char *fxt_client_message(const struct fxt_client_result *res, const char *path, char *msg,
			       size_t len)
{
	switch (res->status) {
	case FXT_CS_OK:
		snprintf(msg, len, "%s: read to the end", path);
		break;
	case FXT_CS_TRUNCATED:
		snprintf(msg, len, "%s: archive truncated at offset %llu (%s); read up to the "
			 "last whole record", path, (unsigned long long)res->where.offset,
			 res->where.msg);
		break;
	case FXT_CS_CORRUPT:
		snprintf(msg, len, "%s: corrupt record at offset %llu: %s", path,
			 (unsigned long long)res->where.offset, res->where.msg);
		break;
	case FXT_CS_OPEN:
		if (res->err == -ENODATA)
			snprintf(msg, len, "%s: empty archive (no magic number record)", path);
		else if (res->err == -EFBIG)
			snprintf(msg, len, "%s: too large to read into memory", path);
		else if (res->err == -EINVAL)
			snprintf(msg, len, "%s: not an FXT archive (no magic number record)", path);
		else
			snprintf(msg, len, "%s: %s", path, strerror(-res->err));
		break;
	case FXT_CS_CALLBACK:
		snprintf(msg, len, "%s: %s", path, strerror(-res->err));
		break;
	}
	return msg;
}
