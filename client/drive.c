/* The read loop shared by the client commands (client.h): open, check the magic number record,
 * hand every record to the command's callback, and describe how the read ended. The reader
 * skips unknown record types itself; a truncated archive is a warning, not a failure. */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "client/client.h"
#include "writer/fields.h"

static int is_magic(const struct fxt_record *rec)
{
	return rec->type == FXT_RT_METADATA && rec->u.meta.meta_type == FXT_MT_TRACE_INFO &&
	       rec->u.meta.trace_info_type == FXT_TI_MAGIC && rec->u.meta.magic == FXT_MAGIC;
}

int fxt_client_read(const char *path, fxt_client_fn fn, void *ctx, struct fxt_client_result *res)
{
	struct fxt_record *rec = malloc(sizeof(*rec)); /* large (15 args) */
	struct fxt_reader *r;
	int rc, first = 1;

	memset(res, 0, sizeof(*res));
	rc = rec ? fxt_reader_open(&r, path, 0) : -ENOMEM;
	if (rc < 0) {
		free(rec);
		res->status = FXT_CS_OPEN;
		res->err = rc;
		return res->status;
	}
	while ((rc = fxt_reader_next(r, rec)) == FXT_READ_RECORD) {
		if (first && !is_magic(rec)) {
			res->status = FXT_CS_OPEN;
			res->err = -EINVAL;
			break;
		}
		first = 0;
		rc = fn(ctx, r, rec);
		if (rc < 0) {
			res->status = FXT_CS_CALLBACK;
			res->err = rc;
			break;
		}
	}
	if (first && rc == FXT_READ_END) {
		res->status = FXT_CS_OPEN;
		res->err = -EINVAL;
	} else if (rc == FXT_READ_TRUNCATED || rc == FXT_READ_CORRUPT) {
		res->status = rc == FXT_READ_TRUNCATED ? FXT_CS_TRUNCATED : FXT_CS_CORRUPT;
		res->where = *fxt_reader_error(r);
		if (first) {
			res->status = FXT_CS_OPEN;
			res->err = -EINVAL;
		}
	}
	res->stats = *fxt_reader_stats(r);
	res->reader = r;
	free(rec);
	return res->status;
}

void fxt_client_close(struct fxt_client_result *res)
{
	if (res->reader)
		fxt_reader_close(res->reader);
	res->reader = NULL;
}

const char *fxt_client_message(const struct fxt_client_result *res, const char *path, char *msg,
			       size_t len, int *code)
{
	switch (res->status) {
	case FXT_CS_OK:
		*code = 0;
		snprintf(msg, len, "%s: read to the end", path);
		break;
	case FXT_CS_TRUNCATED:
		*code = 0;
		snprintf(msg, len, "warning: %s: archive truncated at offset %llu (%s); read up to the "
			 "last whole record", path, (unsigned long long)res->where.offset,
			 res->where.msg);
		break;
	case FXT_CS_CORRUPT:
		*code = 1;
		snprintf(msg, len, "%s: corrupt record at offset %llu: %s", path,
			 (unsigned long long)res->where.offset, res->where.msg);
		break;
	case FXT_CS_OPEN:
		*code = 2;
		if (res->err == -EINVAL)
			snprintf(msg, len, "%s: not an FXT archive (no magic number record)", path);
		else
			snprintf(msg, len, "%s: %s", path, strerror(-res->err));
		break;
	case FXT_CS_CALLBACK:
		*code = 1;
		snprintf(msg, len, "%s: %s", path, strerror(-res->err));
		break;
	}
	return msg;
}
