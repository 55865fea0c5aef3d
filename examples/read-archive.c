/* read-archive: reads an FXT archive with libfxtreader and prints one line per thread: its
 * process and thread koids, its number of complete slices (duration complete events, and
 * duration begin/end pairs), its process and thread names when kernel object records give them.
 * Build against an installed fxtauto: cc read-archive.c $(pkg-config --cflags --libs fxtreader)
 * Usage: read-archive ARCHIVE; exit 0, 1 when the archive is truncated or corrupt (the counts
 * of what precedes are printed), 2 when it cannot be opened. */
/* SPDX-License-Identifier: MIT */
#include <fxt/reader.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct entry {	/* a thread (pid, tid), or a process (pid, 0) */
	uint64_t pid, tid, slices, open_begins;
	struct fxt_sv name;
};
static struct entry *entries;
static size_t nentries;

static struct entry *find(uint64_t pid, uint64_t tid)
{
	for (size_t i = 0; i < nentries; i++)
		if (entries[i].pid == pid && entries[i].tid == tid)
			return &entries[i];
	if (!(entries = realloc(entries, (nentries + 1) * sizeof(*entries)))) {
		fprintf(stderr, "read-archive: out of memory\n");
		exit(2);
	}
	entries[nentries] = (struct entry){ .pid = pid, .tid = tid, .name = { "", 0 } };
	return &entries[nentries++];
}

int main(int argc, char **argv)
{
	struct fxt_reader *r;
	struct fxt_record rec;
	int res;
	if (argc != 2) {
		fprintf(stderr, "usage: read-archive ARCHIVE\n");
		return 2;
	}
	if ((res = fxt_reader_open(&r, argv[1], 0)) < 0) {
		fprintf(stderr, "read-archive: %s: %s\n", argv[1], strerror(-res));
		return 2;
	}
	while ((res = fxt_reader_next(r, &rec)) == FXT_READ_RECORD) {
		if (rec.type == FXT_RT_KERNEL_OBJECT && rec.u.kobj.obj_type == FXT_OBJ_TYPE_PROCESS)
			find(rec.u.kobj.koid, 0)->name = rec.u.kobj.name;
		for (unsigned i = 0; rec.type == FXT_RT_KERNEL_OBJECT && i < rec.nargs; i++)
			if (rec.args[i].type == FXT_AT_KOID && rec.args[i].name.len == 7 &&
			    !memcmp(rec.args[i].name.s, "process", 7)) /* a thread's process */
				find(rec.args[i].v.u64, rec.u.kobj.koid)->name = rec.u.kobj.name;
		if (rec.type != FXT_RT_EVENT)
			continue;
		struct entry *t = find(rec.u.event.thread.pid, rec.u.event.thread.tid);
		if (rec.u.event.event_type == FXT_ET_DURATION_COMPLETE)
			t->slices++;
		else if (rec.u.event.event_type == FXT_ET_DURATION_BEGIN)
			t->open_begins++;
		else if (rec.u.event.event_type == FXT_ET_DURATION_END && t->open_begins)
			t->open_begins--, t->slices++;
	}
	printf("%8s %8s %10s  %s\n", "pid", "tid", "slices", "process/thread");
	for (size_t i = 0; i < nentries; i++) {
		struct entry *p = find(entries[i].pid, 0), *t = &entries[i]; /* find() may move them */
		if (t->tid)
			printf("%8" PRIu64 " %8" PRIu64 " %10" PRIu64 "  %.*s/%.*s\n", t->pid, t->tid,
			       t->slices, (int)p->name.len, p->name.s, (int)t->name.len, t->name.s);
	}
	if (res != FXT_READ_END)
		fprintf(stderr, "read-archive: %s at byte %" PRIu64 "\n", fxt_reader_error(r)->msg,
			fxt_reader_error(r)->offset);
	fxt_reader_close(r);
	free(entries);
	return res != FXT_READ_END;
}
