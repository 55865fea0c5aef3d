/* One standalone archive file a killed run left, made valid in place (launcher/recover/recover.h):
 * chunks still open are finished (their records up to the first unwritten one, then padding),
 * the string area's tail is padded, the count of dropped records is added, and the file is cut
 * after the last chunk; a file shorter than its string area (killed before that area was
 * backed) is first lengthened to it with zeros, which become padding. A finished archive is
 * left as it was (recovering twice is harmless). Never while its writer still runs. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#include "common/clock.h"
#include "launcher/cmd/cmd.h"
#include "launcher/recover/recover.h"
#include "launcher/recover/stream.h"
#include "launcher/recover/verify.h"
#include "writer/outfile.h"
#include "writer/records.h"

/* Ticks per second of this machine's clock, for a file killed before it stored one. */
static uint64_t measure_tps(void)
{
	if (!fxt_invariant_tsc())
		return 1000000000ULL;
	uint64_t n0 = fxt_mono_ns(), t0 = __rdtsc(), n1;
	struct timespec ts = { 0, 20000000 };
	nanosleep(&ts, NULL);
	n1 = fxt_mono_ns();
	return fxt_ticks_per_second(__rdtsc() - t0, n1 - n0);
}

int fxt_recover_still_written(const struct fxt_buf_hdr *h, const struct stat *st)
{
	if (__atomic_load_n(&h->state, __ATOMIC_ACQUIRE) != FXT_BUF_WRITING || !h->pid ||
	    h->pid > INT32_MAX)
		return 0;
	char maps[64], *line = NULL;
	size_t cap = 0;
	snprintf(maps, sizeof(maps), "/proc/%llu/maps", (unsigned long long)h->pid);
	FILE *f = fopen(maps, "re");
	if (!f)
		return 0;	/* gone (or not ours to read) */
	int found = 0;
	while (!found && getline(&line, &cap, f) > 0) {
		unsigned long long ino = 0;
		unsigned maj, min;
		if (sscanf(line, "%*s %*s %*s %x:%x %llu", &maj, &min, &ino) == 3)
			found = ino == (unsigned long long)st->st_ino &&
				makedev(maj, min) == st->st_dev;
	}
	free(line);
	fclose(f);
	return found;
}

const struct fxt_buf_hdr *fxt_recover_header(const char *path, uint64_t *page, struct stat *st)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	ssize_t n = -1;
	if (!fstat(fd, st) && S_ISREG(st->st_mode))
		n = pread(fd, page, FXT_BUF_HDR_SIZE, 0);
	close(fd);
	return n == FXT_BUF_HDR_SIZE ? fxt_outfile_header(page) : NULL;
}

/* Prints why and returns status (CMD_EXIT_INVALID: not such a file; CMD_EXIT_ERROR: cannot
 * read or write it). */
static int fail(const char *path, const char *why, int status)
{
	fprintf(stderr, "fxt recover: %s: %s\n", path, why);
	return status;
}

/* Checks the file open at fd (status st) before it is mapped: a standalone run's, not still
 * written, and at least as long as its string area (lengthened when shorter). */
static int prepare(const char *path, int fd, struct stat *st)
{
	if (st->st_size < FXT_BUF_HDR_SIZE)
		return fail(path, st->st_size ? "not an fxtauto archive file (too short)"
					      : "empty file, not an fxtauto archive file (a trace "
						"manager killed before its first save leaves one: "
						"nothing was saved)",
			    CMD_EXIT_INVALID);
	_Alignas(64) uint64_t page[FXT_BUF_HDR_SIZE / 8];
	ssize_t n = pread(fd, page, sizeof(page), 0);
	if (n != (ssize_t)sizeof(page))
		return fail(path, strerror(n < 0 ? errno : EIO), CMD_EXIT_ERROR);
	const struct fxt_buf_hdr *h = fxt_outfile_header(page);
	if (!h)
		return fail(path, errno == EPROTONOSUPPORT
					  ? "written by another fxtauto version (layout)"
					  : "not the file of a standalone fxtauto run",
			    CMD_EXIT_INVALID);
	if (fxt_recover_still_written(h, st))
		return fail(path, "still being written by a live process: recover it once that ends",
			    CMD_EXIT_ERROR);
	if (st->st_size < (off_t)h->chunks_off && h->state == FXT_BUF_WRITING) {
		if (ftruncate(fd, (off_t)h->chunks_off) < 0 || fstat(fd, st) < 0)
			return fail(path, strerror(errno), CMD_EXIT_ERROR);
	}
	return CMD_EXIT_OK;
}

/* Whether the file open at fd (status st) is a trace manager's archive: an FXT archive that is
 * not a standalone run's file. */
static int manager_archive(int fd, const struct stat *st)
{
	_Alignas(64) uint64_t page[FXT_BUF_HDR_SIZE / 8] = { 0 }, magic;
	fxt_magic_write(&magic);
	size_t len = st->st_size < FXT_BUF_HDR_SIZE ? (size_t)st->st_size : FXT_BUF_HDR_SIZE;
	if (len < 8 || pread(fd, page, len, 0) != (ssize_t)len || page[0] != magic)
		return 0;
	return !fxt_outfile_header(page) && errno != EPROTONOSUPPORT;
}

int fxt_recover_file(const char *path, const char *out)
{
	struct stat st;
	if (!strcmp(path, "-") || (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)))
		return fail(path, "not a regular file (a killed run's file is repaired in place)",
			    CMD_EXIT_ERROR);
	int fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0)
		return fail(path, strerror(errno), CMD_EXIT_ERROR);
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return fail(path, "not a regular file", CMD_EXIT_ERROR);
	}
	if (manager_archive(fd, &st)) {
		int status = fxt_recover_manager_file(path, fd, out);
		close(fd);
		return status;
	}
	int status = prepare(path, fd, &st);
	if (status != CMD_EXIT_OK) {
		close(fd);
		return status;
	}
	size_t size = (size_t)st.st_size;
	/* Padding is written into what may be holes: reserve them now (a full disk is then an
	 * error here, not a SIGBUS). */
	if (fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, (off_t)size) < 0 && errno != EOPNOTSUPP) {
		int err = errno;
		close(fd);
		return fail(path, strerror(err), CMD_EXIT_ERROR);
	}
	void *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		int err = errno;
		close(fd);
		return fail(path, strerror(err), CMD_EXIT_ERROR);
	}
	struct fxt_buf b;
	struct fxt_outfile o;
	int rc = fxt_outfile_attach(&b, &o, m, size);
	if (rc < 0) {
		munmap(m, size);
		close(fd);
		return fail(path, rc == -EPROTONOSUPPORT
					  ? "written by another fxtauto version (layout)"
					  : "not the file of a standalone fxtauto run",
			    CMD_EXIT_INVALID);
	}
	const struct fxt_buf_hdr *h = b.hdr;
	uint64_t room = size > h->chunks_off ? (size - h->chunks_off) / h->chunk_size : 0;
	uint64_t chunks = __atomic_load_n(&h->next_chunk, __ATOMIC_RELAXED);
	if (chunks > room)
		chunks = room;
	if (chunks > h->nchunks)
		chunks = h->nchunks;
	/* Takes cut short by the kill may have left chunks the open-chunk table does not list:
	 * visit every chunk (the running process only visits the table). */
	__atomic_store_n(&b.hdr->open_overflow, 1, __ATOMIC_RELEASE);
	int measured = !h->ticks_per_second;
	if (measured)
		fxt_outfile_set_tps(&b, measure_tps(), NULL);
	uint64_t stop = h->stop_ticks;
	/* Killed before its exit flush: its open calls and pending flows were never ended; the
	 * archive says so (as a drop report, so readers excuse what is unpaired), and is marked
	 * finished: recovering it again changes nothing. A finished file has its report. */
	uint64_t end;
	if (__atomic_load_n(&h->state, __ATOMIC_ACQUIRE) != FXT_BUF_STOPPED) {
		fxt_buf_drop_reason(&b, FXT_DROP_KILLED);
		end = fxt_outfile_seal(&b, chunks, 0, stop ? stop : h->start_ticks, 0);
		__atomic_store_n(&b.hdr->state, FXT_BUF_STOPPED, __ATOMIC_RELEASE);
	} else {
		end = fxt_outfile_finish(&b, chunks, 0, 0);
	}
	uint64_t dropped = __atomic_load_n(&h->dropped, __ATOMIC_RELAXED);
	/* What was written is checked as fxt check would: what it rejects is padded or cut. */
	struct fxt_recover_cut cut;
	int bad = fxt_recover_verify(m, &end, h, o.provider_id, &cut);
	rc = bad < 0 ? bad : msync(m, size, MS_SYNC) < 0 ? -errno : 0;
	munmap(m, size);
	if (!rc && !bad && end < size && ftruncate(fd, (off_t)end) < 0)
		rc = -errno;
	if (close(fd) < 0 && !rc)
		rc = -errno;
	if (!rc && !bad && out && rename(path, out) < 0)
		rc = -errno;
	if (rc < 0)
		return fail(path, strerror(-rc), CMD_EXIT_ERROR);
	if (bad)
		return fail(path, "its first record is not an archive's: nothing to keep",
			    CMD_EXIT_INVALID);
	if (cut.padded || cut.cut_at)
		printf("fxt recover: %s: offset %" PRIu64 " (0x%" PRIx64 "): %s: %" PRIu64
		       " bytes in %" PRIu64 " place%s replaced by padding%s", path, cut.first.offset,
		       cut.first.offset, cut.first.msg, cut.padded_bytes, cut.padded,
		       cut.padded == 1 ? "" : "s", cut.cut_at ? ", the archive cut at offset " : "\n");
	if (cut.cut_at)
		printf("%" PRIu64 " (%" PRIu64 " bytes)\n", cut.cut_at, cut.cut_bytes);
	printf("fxt recover: %s: %" PRIu64 " chunks, %.1f MB%s%s; written to %s\n", path, chunks,
	       (double)end / 1e6, measured ? ", clock rate measured now" : "",
	       dropped ? ", records dropped before the kill are counted" : "", out ? out : path);
	return CMD_EXIT_OK;
}
