/* Recovering the archive a killed trace manager left (`fxt recover F.part` of fxtrun or of the
 * manager service, launcher/cmd/recover.c): plain FXT written front to back, each record vetted
 * before it was written (launcher/manager/saver.c), so a kill leaves whole records and at most one torn
 * piece at the end. The file is read with what `fxt check` applies (the strict reader and the
 * validator) up to the first record either rejects and cut there; each provider seen then gets
 * a drop report saying the manager was killed (what it had not saved is lost; open calls and
 * flows were never ended: readers excuse what is unpaired). In place, then renamed. The
 * manager names its archive FILE.part until it is complete: a file not so named is refused,
 * one whose end is already such reports (recovered before) is left as it was. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/grow.h"
#include "common/io.h"
#include "fxt/reader.h"
#include "launcher/cmd/cmd.h"
#include "launcher/recover/stream.h"
#include "writer/outfile.h"
#include "writer/records.h"

/* A provider of the archive: its id, its process (from its process record, else its first
 * thread) and its latest stamp, for its drop report. */
struct prov {
	uint32_t id;
	uint64_t pid, last;
};

struct provs {
	struct prov *p;
	size_t n, cap, at;	/* at: the last one looked up (records come in sections) */
	int reported;		/* the records read last are the reports of a recovery */
};

/* Whether rec is a report this file appends (the manager was killed). */
static int killed_report(const struct fxt_record *rec)
{
	uint64_t n;
	char words[160];
	fxt_drop_reasons_str(FXT_DROP_MANAGER_KILLED, words, sizeof(words));
	if (!fxt_record_dropped(rec, &n))
		return 0;
	for (unsigned i = 0; i < rec->nargs; i++)
		if (rec->args[i].type == FXT_AT_STRING && rec->args[i].v.str.len == strlen(words) &&
		    !memcmp(rec->args[i].v.str.s, words, strlen(words)))
			return 1;
	return 0;
}

static struct prov *prov_get(struct provs *ps, uint32_t id)
{
	if (ps->n && ps->p[ps->at].id == id)
		return &ps->p[ps->at];
	for (size_t i = 0; i < ps->n; i++)
		if (ps->p[i].id == id)
			return &ps->p[ps->at = i];
	if (FXT_GROW(ps->p, &ps->cap, ps->n + 1) < 0)
		return NULL;
	ps->p[ps->n] = (struct prov){ .id = id };
	return &ps->p[ps->at = ps->n++];
}

/* Notes what rec tells about its provider. */
static int note(struct provs *ps, const struct fxt_record *rec)
{
	if (!rec->provider_id)
		return 0;
	struct prov *p = prov_get(ps, rec->provider_id);
	if (!p)
		return -ENOMEM;
	if (rec->type == FXT_RT_KERNEL_OBJECT && rec->u.kobj.obj_type == 1 && !p->pid)
		p->pid = rec->u.kobj.koid;
	else if (rec->type == FXT_RT_EVENT) {
		uint64_t t = rec->u.event.event_type == FXT_ET_DURATION_COMPLETE &&
					     rec->u.event.end_ts > rec->u.event.ts
				     ? rec->u.event.end_ts
				     : rec->u.event.ts;
		if (t > p->last)
			p->last = t;
		if (!p->pid)
			p->pid = rec->u.event.thread.pid;
	}
	return 0;
}

/* The length of the longest prefix of the archive at path that fxt check's rules accept up to
 * its end (the end-of-archive rules left to the drop reports), and its providers. *why: the
 * first problem past it, "" for none. Returns the length, or -errno. */
static int64_t good_prefix(const char *path, struct provs *ps, char *why, size_t size)
{
	struct fxt_reader *r;
	struct fxt_validator *v;
	int rc = fxt_reader_open(&r, path, FXT_READER_STRICT | FXT_READER_RESERVED);
	if (rc < 0)
		return rc;
	if (fxt_validator_new(&v) < 0) {
		fxt_reader_close(r);
		return -ENOMEM;
	}
	int64_t good = 0;
	struct fxt_record rec;
	why[0] = 0;
	while ((rc = fxt_reader_next(r, &rec)) == FXT_READ_RECORD) {
		rc = fxt_validator_add(v, &rec);
		if (rc == -EBADMSG) {
			snprintf(why, size, "%s", fxt_validator_problem(v)->msg);
			break;
		}
		if (rc < 0 || note(ps, &rec) < 0) {
			good = -ENOMEM;
			break;
		}
		/* the reports come after a section record and a buffer-full event each */
		ps->reported = killed_report(&rec) || (ps->reported && rec.type == FXT_RT_METADATA);
		good = (int64_t)(rec.offset + rec.words * 8);
	}
	if (rc == FXT_READ_TRUNCATED)
		snprintf(why, size, "a record cut short by the kill");
	else if (rc == FXT_READ_CORRUPT)
		snprintf(why, size, "%s", fxt_reader_error(r)->msg);
	fxt_validator_free(v);
	fxt_reader_close(r);
	return good;
}

/* Appends, for each provider, its drop report: the manager was killed. */
static int append_reports(int fd, const struct provs *ps)
{
	for (size_t i = 0; i < ps->n; i++) {
		const struct prov *p = &ps->p[i];
		uint64_t rec[FXT_OUTFILE_TRAILER_WORDS + 2];
		int n = fxt_provider_section_write(rec, p->id);
		n += fxt_provider_event_write(rec + n, p->id, FXT_PE_BUFFER_OVERFLOW);
		int m = fxt_dropped_event_write(rec + n, sizeof(rec) / 8 - (size_t)n, p->pid,
						p->last, 0, FXT_DROP_MANAGER_KILLED);
		if (m < 0)
			return m;
		int rc = fxt_write_all(fd, rec, (size_t)(n + m) * 8);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Whether another process has the file open (a manager still writing it): a write lease is
 * refused then. Files of another owner cannot be leased: 0 (cannot tell). */
static int open_elsewhere(int fd)
{
	if (fcntl(fd, F_SETLEASE, F_WRLCK) < 0)
		return errno == EAGAIN || errno == EBUSY;
	fcntl(fd, F_SETLEASE, F_UNLCK);
	return 0;
}

int fxt_recover_manager_file(const char *path, int fd, const char *out)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return fprintf(stderr, "fxt recover: %s: %s\n", path, strerror(errno)),
		       CMD_EXIT_ERROR;
	if (open_elsewhere(fd))
		return fprintf(stderr, "fxt recover: %s: still open in another process (a trace "
				       "manager writing it?): recover it once that ends\n", path),
		       CMD_EXIT_ERROR;
	size_t len = strlen(path);
	if (len < 5 || strcmp(path + len - 5, ".part"))
		return fprintf(stderr, "fxt recover: %s: not a killed run's file: an FXT archive "
				       "not named FILE.part (a trace manager renames it when "
				       "complete)\n", path),
		       CMD_EXIT_INVALID;
	struct provs ps = { 0 };
	char why[200];
	int64_t good = good_prefix(path, &ps, why, sizeof(why));
	if (good == st.st_size && ps.reported) {
		free(ps.p);
		if (out && rename(path, out) < 0)
			return fprintf(stderr, "fxt recover: %s: %s\n", path, strerror(errno)),
			       CMD_EXIT_ERROR;
		return printf("fxt recover: %s: recovered before: left as it was%s%s\n", path,
			      out ? "; renamed to " : "", out ? out : ""),
		       CMD_EXIT_OK;
	}
	int rc = good < 0 ? (int)good : 0;
	if (!rc && !ps.n)
		rc = 1;
	if (!rc && ftruncate(fd, (off_t)good) < 0)
		rc = -errno;
	if (!rc && lseek(fd, 0, SEEK_END) < 0)
		rc = -errno;
	if (!rc)
		rc = append_reports(fd, &ps);
	if (!rc && fsync(fd) < 0)
		rc = -errno;
	if (!rc && out && rename(path, out) < 0)
		rc = -errno;
	free(ps.p);
	if (rc == 1)
		return fprintf(stderr, "fxt recover: %s: a trace manager's archive with no provider's "
				       "records: nothing to keep\n", path),
		       CMD_EXIT_INVALID;
	if (rc < 0)
		return fprintf(stderr, "fxt recover: %s: %s\n", path, strerror(-rc)), CMD_EXIT_ERROR;
	printf("fxt recover: %s: a killed trace manager's archive: %.1f MB of records of %zu "
	       "process%s kept", path, (double)good / 1e6, ps.n, ps.n == 1 ? "" : "es");
	if ((uint64_t)good < (uint64_t)st.st_size)
		printf(", %" PRIu64 " bytes cut at offset %" PRId64 " (%s)",
		       (uint64_t)st.st_size - (uint64_t)good, good, why);
	printf("; what the manager had not saved when it was killed is lost (the archive says "
	       "so); written to %s\n", out ? out : path);
	return CMD_EXIT_OK;
}
