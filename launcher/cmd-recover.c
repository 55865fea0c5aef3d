/* `fxt recover FILE [-o OUT]`: makes the archive file of a killed standalone run (LD_PRELOAD
 * without fxtrun leaves "<FXT_OUTPUT>.part" when the process dies of SIGKILL) into a valid
 * archive of every record committed: chunks still open are finished in place (their records
 * up to the first unwritten one, then padding), the string area's tail is padded, the count of
 * dropped records is added, and the file is cut after the last chunk. In place; renamed to OUT
 * (default: FILE without ".part"). A finished archive is left as it was (recovering twice is
 * harmless). Exit status (launcher/cmd.h): 0 done; 1 not such a file (empty, too short, not
 * written by a standalone run); 2 usage, a file that cannot be read or written (missing, a
 * directory, a pipe: it is repaired in place), I/O error. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#include "common/clock.h"
#include "launcher/cmd.h"
#include "writer/outfile.h"

static const char usage[] =
	"usage: fxt recover FILE [-o OUT]\n"
	"Makes the archive a killed run left (FILE.part, written by LD_PRELOAD=libfxtauto.so\n"
	"without fxtrun) valid: every record committed before the kill is kept. In place, then\n"
	"renamed to OUT (default: FILE without its .part suffix). FILE must be a regular file.\n"
	"Exit 0 ok; 1 FILE is not such an archive (empty, too short, not a standalone run's);\n"
	"2 usage error, or FILE cannot be read or written (missing, a directory, a pipe).\n";

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

/* Whether the process that writes this file is alive and still maps it (its exit flush did not
 * run yet): a file that is recovered while its writer goes on would be corrupted. */
static int still_written(const struct fxt_buf_hdr *h, const struct stat *st)
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

/* Prints why and returns status (CMD_EXIT_INVALID: not such a file; CMD_EXIT_ERROR: cannot
 * read or write it). */
static int fail(const char *path, const char *why, int status)
{
	fprintf(stderr, "fxt recover: %s: %s\n", path, why);
	return status;
}

int cmd_recover(int argc, char **argv)
{
	static const struct option longs[] = { { "output", required_argument, NULL, 'o' },
					       { "help", no_argument, NULL, 'h' },
					       { NULL, 0, NULL, 0 } };
	const char *out = NULL;
	int c;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", longs, NULL)) != -1) {
		if (c == 'h') {
			fputs(usage, stdout);
			return 0;
		}
		if (c != 'o' || !*optarg) {
			fprintf(stderr, "fxt recover: bad option '%s'\n%s", argv[optind - 1], usage);
			return CMD_EXIT_ERROR;
		}
		out = optarg;
	}
	if (optind != argc - 1) {
		fputs(usage, stderr);
		return CMD_EXIT_ERROR;
	}
	const char *path = argv[optind];
	char dflt[PATH_MAX];
	size_t len = strlen(path);
	if (!out && len > 5 && !strcmp(path + len - 5, ".part") && len - 5 < sizeof(dflt)) {
		memcpy(dflt, path, len - 5);
		dflt[len - 5] = 0;
		out = dflt;
	}

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
	if (st.st_size < 4096) {
		close(fd);
		return fail(path, st.st_size ? "not an fxtauto archive file (too short)"
					     : "empty file, not an fxtauto archive file",
			    CMD_EXIT_INVALID);
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
	if (still_written(h, &st)) {
		munmap(m, size);
		close(fd);
		return fail(path, "still being written by a live process: recover it once that ends",
			    CMD_EXIT_ERROR);
	}
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
		fxt_outfile_set_tps(&b, measure_tps());
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
	rc = msync(m, size, MS_SYNC) < 0 ? -errno : 0;
	munmap(m, size);
	if (!rc && end < size && ftruncate(fd, (off_t)end) < 0)
		rc = -errno;
	if (close(fd) < 0 && !rc)
		rc = -errno;
	if (!rc && out && rename(path, out) < 0)
		rc = -errno;
	if (rc < 0)
		return fail(path, strerror(-rc), CMD_EXIT_ERROR);
	printf("fxt recover: %s: %" PRIu64 " chunks, %.1f MB%s%s; written to %s\n", path, chunks,
	       (double)end / 1e6, measured ? ", clock rate measured now" : "",
	       dropped ? ", records dropped before the kill are counted" : "", out ? out : path);
	return 0;
}
