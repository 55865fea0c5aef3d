/* Log capture: what the program writes to stderr and stdout (write, writev, and the stdio
 * calls a program makes through the PLT: printf family with their _chk forms, puts, fputs,
 * fwrite, fputc, putc, putchar) and its syslog messages become FXT log records (type 9) on the
 * writing thread, one per line, at the call that completes the line, each followed by an
 * instant event (category `log`, name the stream, the line as its `message` argument) that
 * Perfetto shows. A line continued across calls waits in a per-thread buffer (PEND_MAX bytes;
 * a longer partial line is recorded in pieces). Lines are cut to what one record holds
 * (32000 bytes at most); bytes that are not UTF-8 become '?'. The program's output itself goes
 * through the real functions untouched (bytes, return values, errno). FXT_LOG=stderr,stdout,
 * syslog picks the streams (default stderr,syslog; none: off); FXT_LOG_EVENTS=0 drops the
 * instant events. glibc's own stderr writers (perror, error, error_at_line, err.h, dprintf)
 * write through internal paths no wrapper sees: they are wrapped too and log the same text;
 * so are the _unlocked stdio calls. Buffered stdio flushes are not seen. */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <err.h>
#include <errno.h>
#include <error.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <syslog.h>
#include <unistd.h>

#include "preload/base/real.h"
#include "preload/events/record.h"
#include "preload/events/log.h"
#include "writer/fields.h"

enum stream { S_STDERR, S_STDOUT, S_SYSLOG, S_COUNT };
#define PEND_MAX 1024u
#define FMT_STACK 1024u

static unsigned enabled = 1u << S_STDERR | 1u << S_SYSLOG;	/* bit per enum stream */
static int events_off;
static struct fxtp_cstr s_log = FXTP_CSTR("log"), s_message = FXTP_CSTR("message");
static struct fxtp_cstr s_names[S_COUNT] = { FXTP_CSTR("stderr"), FXTP_CSTR("stdout"),
					     FXTP_CSTR("syslog") };

/* The partial line each thread has written to each stream so far. */
struct pend {
	uint32_t len;
	char buf[PEND_MAX];
};
static FXTP_TLS struct pend pend[S_COUNT];

void fxtp_log_line(struct fxtp_thread *t, const struct fxtp_log_names *n, const char *a,
		   uint32_t alen, const char *b, uint32_t blen, uint64_t ts)
{
	uint32_t fixed = 2 + (t->thread_index ? 0 : 2);
	uint32_t room = (fxtp_rec_max_words() - fixed - 4) * 8;	/* the event's arg fits too */
	uint32_t len = alen + blen;

	if (len > FXT_STRING_MAX_LEN)
		len = FXT_STRING_MAX_LEN;
	if (len > room)
		len = room;
	if (alen > len)
		alen = len;
	blen = len - alen;
	struct fxt_log l = { .thread = fxtp_thread_ref(t), .ts = ts, .msg = a, .len = alen };
	uint64_t *r = fxt_chunk_reserve(&t->w, fxt_log_text_words(&l, blen));
	if (!r)
		return;
	fxt_log_text_write(r, &l, b, blen);
	const char *msg = (const char *)(r + fixed);	/* the record's bytes, repaired */
	if (events_off)
		return;
	struct fxt_warg arg = fxt_arg_string(n->argument, fxt_str_inl(msg, len));
	struct fxt_event e = fxt_ev_instant(fxtp_thread_ref(t), n->category, n->stream, ts);
	e.args = &arg;
	e.nargs = 1;
	fxtp_rec_event(t, &e);
}

/* Bytes the calling thread wrote to stream s: every line they complete is recorded, the rest
 * waits for the next call. Keeps errno. */
static void log_bytes(enum stream s, const char *buf, size_t n)
{
	uint64_t ts = fxtp_now();
	int saved = errno;
	struct fxtp_thread *t = fxtp_rec_enter();

	if (!t) {
		errno = saved;
		return;
	}
	struct pend *pd = &pend[s];
	while (n > 0) {
		const char *nl = memchr(buf, '\n', n);
		size_t seg = nl ? (size_t)(nl - buf) : n;
		if (nl || pd->len + seg > PEND_MAX) {
			/* complete line, or a partial one too long to keep: recorded now */
			uint32_t cut = seg > UINT32_MAX - PEND_MAX ? UINT32_MAX - PEND_MAX
								   : (uint32_t)seg;
			struct fxtp_log_names n = { fxtp_cstr(&s_log), fxtp_cstr(&s_names[s]),
						    fxtp_cstr(&s_message) };
			fxtp_log_line(t, &n, pd->buf, pd->len, buf, cut, ts);
			pd->len = 0;
		} else {
			memcpy(pd->buf + pd->len, buf, seg);
			pd->len += (uint32_t)seg;
		}
		seg += nl != NULL;
		buf += seg;
		n -= seg;
	}
	fxtp_leave(t);
	errno = saved;
}

/* The captured stream a file descriptor or FILE writes to, or -1. */
static int fd_stream(int fd)
{
	int s = fd == 2 ? S_STDERR : fd == 1 ? S_STDOUT : -1;
	return s >= 0 && (enabled >> s & 1) && fxtp_running() ? s : -1;
}

static int file_stream(FILE *f)
{
	int s = f == stderr ? S_STDERR : f == stdout ? S_STDOUT : -1;
	return s >= 0 && (enabled >> s & 1) && fxtp_running() ? s : -1;
}

/* Formats what a printf-like call printed (ap1, ap2: two copies of its arguments, both
 * consumed here) and logs it. */
static void log_format(enum stream s, const char *fmt, va_list ap1, va_list ap2)
{
	char small[FMT_STACK], *big = NULL;
	int saved = errno;	/* %m prints the caller's errno */
	int n = vsnprintf(small, sizeof small, fmt, ap1);

	if (n >= (int)sizeof small && (big = malloc((size_t)n + 1))) {
		errno = saved;
		vsnprintf(big, (size_t)n + 1, fmt, ap2);
	}
	if (n > 0)
		log_bytes(s, big ? big : small, big || n < (int)sizeof small ? (size_t)n
									   : sizeof small - 1);
	free(big);
	errno = saved;
}

#define REAL(fn) (fxtp_real_init(), fxtp_real.fn)
/* The real fn, or return fail with errno ENOSYS from the wrapper (it cannot be found). */
#define NEED_REAL(fn, fail)                      \
	do {                                     \
		if (!REAL(fn)) {                 \
			errno = ENOSYS;          \
			return fail;             \
		}                                \
	} while (0)

/* A variadic call passed on to its va_list twin (FXTP_FORWARD in interposed.h): ret is int
 * or void (then rc is unused), last the last named parameter. */
#define FORWARD(ret, name, via, last, params, args) \
	FXTP_EXPORT ret name params                 \
	{                                           \
		va_list ap;                         \
		va_start(ap, last);                 \
		FORWARD_##ret(via args);            \
	}
#define FORWARD_int(call)         \
	int rc = call;            \
	va_end(ap);               \
	return rc
#define FORWARD_void(call) \
	call;              \
	va_end(ap)

/* ---- write, writev ---- */

FXTP_EXPORT ssize_t write(int fd, const void *buf, size_t n)
{
	NEED_REAL(write, -1);
	ssize_t rc = fxtp_real.write(fd, buf, n);
	int s;
	if (rc > 0 && (s = fd_stream(fd)) >= 0)
		log_bytes(s, buf, (size_t)rc);
	return rc;
}

FXTP_EXPORT ssize_t writev(int fd, const struct iovec *iov, int cnt)
{
	NEED_REAL(writev, -1);
	ssize_t rc = fxtp_real.writev(fd, iov, cnt);
	int s;
	if (rc > 0 && (s = fd_stream(fd)) >= 0)
		for (size_t left = (size_t)rc; left > 0 && cnt-- > 0; iov++) {
			size_t k = iov->iov_len < left ? iov->iov_len : left;
			log_bytes(s, iov->iov_base, k);
			left -= k;
		}
	return rc;
}

/* ---- printf-like calls: vfprintf, vdprintf, their _chk twins and what forwards to them ---- */

/* One va_list printer: the real call (args), then, when it writes to a captured stream (s),
 * its text formatted again from copies of ap and logged. */
#define PRINTER(name, stream, params, args)                 \
	FXTP_EXPORT int name params                         \
	{                                                   \
		int s = stream;                             \
		va_list a1, a2;                             \
		NEED_REAL(name, -1);                        \
		if (s < 0)                                  \
			return fxtp_real.name args;         \
		va_copy(a1, ap);                            \
		va_copy(a2, ap);                            \
		int rc = fxtp_real.name args;               \
		if (rc >= 0)                                \
			log_format(s, fmt, a1, a2);         \
		va_end(a1);                                 \
		va_end(a2);                                 \
		return rc;                                  \
	}

PRINTER(vfprintf, file_stream(f), (FILE *f, const char *fmt, va_list ap), (f, fmt, ap))
PRINTER(__vfprintf_chk, file_stream(f), (FILE *f, int flag, const char *fmt, va_list ap),
	(f, flag, fmt, ap))
PRINTER(vdprintf, fd_stream(fd), (int fd, const char *fmt, va_list ap), (fd, fmt, ap))
PRINTER(__vdprintf_chk, fd_stream(fd), (int fd, int flag, const char *fmt, va_list ap),
	(fd, flag, fmt, ap))

FXTP_EXPORT int vprintf(const char *fmt, va_list ap)
{
	return vfprintf(stdout, fmt, ap);
}

FXTP_EXPORT int __vprintf_chk(int flag, const char *fmt, va_list ap)
{
	return __vfprintf_chk(stdout, flag, fmt, ap);
}

FORWARD(int, fprintf, vfprintf, fmt, (FILE *f, const char *fmt, ...), (f, fmt, ap))
FORWARD(int, printf, vfprintf, fmt, (const char *fmt, ...), (stdout, fmt, ap))
FORWARD(int, __fprintf_chk, __vfprintf_chk, fmt, (FILE *f, int flag, const char *fmt, ...),
	(f, flag, fmt, ap))
FORWARD(int, __printf_chk, __vfprintf_chk, fmt, (int flag, const char *fmt, ...),
	(stdout, flag, fmt, ap))
FORWARD(int, dprintf, vdprintf, fmt, (int fd, const char *fmt, ...), (fd, fmt, ap))
FORWARD(int, __dprintf_chk, __vdprintf_chk, fmt, (int fd, int flag, const char *fmt, ...),
	(fd, flag, fmt, ap))

/* ---- stdio strings, items and bytes, locked and _unlocked (coreutils writes through the
 * latter) ---- */

/* fputs: the string. */
static int log_string(int rc, const char *str, FILE *f)
{
	int s;
	if (rc >= 0 && (s = file_stream(f)) >= 0)
		log_bytes(s, str, strlen(str));
	return rc;
}

/* fwrite: the items written. */
static size_t log_items(size_t rc, const void *p, size_t size, FILE *f)
{
	int s;
	if (rc > 0 && size > 0 && (s = file_stream(f)) >= 0)
		log_bytes(s, p, rc * size);
	return rc;
}

/* fputc, putc, putchar: one byte. */
static int log_char(int rc, FILE *f)
{
	int s;
	if (rc != EOF && (s = file_stream(f)) >= 0) {
		char c = (char)rc;
		log_bytes(s, &c, 1);
	}
	return rc;
}

/* One stdio wrapper: the real call, logged by log (which makes it), or fail when there is no
 * real function. */
#define STDIO(ret, name, fail, params, log) \
	FXTP_EXPORT ret name params         \
	{                                   \
		NEED_REAL(name, fail);      \
		return log;                 \
	}
#define STDIO_ALL(suffix)                                                                      \
	STDIO(int, fputs##suffix, EOF, (const char *str, FILE *f),                              \
	      log_string(fxtp_real.fputs##suffix(str, f), str, f))                              \
	STDIO(size_t, fwrite##suffix, 0, (const void *p, size_t size, size_t n, FILE *f),      \
	      log_items(fxtp_real.fwrite##suffix(p, size, n, f), p, size, f))                   \
	STDIO(int, fputc##suffix, EOF, (int c, FILE *f), log_char(fxtp_real.fputc##suffix(c, f), f)) \
	STDIO(int, putc##suffix, EOF, (int c, FILE *f), log_char(fxtp_real.putc##suffix(c, f), f))   \
	STDIO(int, putchar##suffix, EOF, (int c), log_char(fxtp_real.putchar##suffix(c), stdout))

STDIO_ALL()

FXTP_EXPORT int puts(const char *str)
{
	NEED_REAL(puts, EOF);
	int rc = fxtp_real.puts(str), s;
	if (rc >= 0 && (s = file_stream(stdout)) >= 0) {
		log_bytes(s, str, strlen(str));
		log_bytes(s, "\n", 1);
	}
	return rc;
}

/* glibc's headers may make these macros or inlines; the exported functions are what we wrap. */
#undef fputs_unlocked
#undef fwrite_unlocked
#undef fputc_unlocked
#undef putc_unlocked
#undef putchar_unlocked

STDIO_ALL(_unlocked)

/* ---- perror, error(), err.h: glibc writes their text through its internal stdio, which no
 * wrapper sees: the same text is logged here, before the real call (error and err may exit) ---- */

/* fmt formatted into small (or *big, malloc'd, when longer): the message text. Keeps errno
 * (for %m). ap1, ap2: two copies of the arguments, consumed. */
static const char *format_msg(char small[FMT_STACK], char **big, const char *fmt, va_list ap1,
			      va_list ap2)
{
	int saved = errno;
	int n = vsnprintf(small, FMT_STACK, fmt, ap1);
	*big = NULL;
	if (n >= (int)FMT_STACK && (*big = malloc((size_t)n + 1))) {
		errno = saved;
		vsnprintf(*big, (size_t)n + 1, fmt, ap2);
	}
	errno = saved;
	return *big ? *big : n >= 0 ? small : "";
}

/* Logs "<a><b><msg>[: <strerror(errnum)>]\n" on stderr (any part may be NULL). */
static void log_error(const char *a, const char *b, const char *msg, int errnum)
{
	char eb[256];
	if (file_stream(stderr) != S_STDERR)
		return;
	const char *parts[] = { a, b, msg, errnum ? ": " : NULL,
				errnum ? strerror_r(errnum, eb, sizeof eb) : NULL, "\n" };
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		if (parts[i])
			log_bytes(S_STDERR, parts[i], strlen(parts[i]));
}

FXTP_EXPORT void perror(const char *str)
{
	int saved = errno;
	if (!REAL(perror))
		return;
	fxtp_real.perror(str);
	log_error(str && *str ? str : NULL, str && *str ? ": " : NULL, strerror_r(saved,
		  (char[256]){ 0 }, 256), 0);
	errno = saved;
}

/* error(3) and error_at_line(3): "<program>: " (unless error_print_progname prints its own),
 * "file:line: " for error_at_line, the message, ": strerror(errnum)". */
FXTP_EXPORT void error(int status, int errnum, const char *fmt, ...)
{
	char small[FMT_STACK], *big;
	va_list a1, a2;
	va_start(a1, fmt);
	va_copy(a2, a1);
	const char *msg = format_msg(small, &big, fmt, a1, a2);
	va_end(a1);
	va_end(a2);
	int saved = errno;
	log_error(error_print_progname ? NULL : program_invocation_name,
		  error_print_progname ? NULL : ": ", msg, errnum);
	errno = saved;
	if (REAL(error))
		fxtp_real.error(status, errnum, "%s", msg);
	free(big);
	errno = saved;
}

FXTP_EXPORT void error_at_line(int status, int errnum, const char *file, unsigned line,
			       const char *fmt, ...)
{
	static const char *old_file;
	static unsigned old_line;
	char small[FMT_STACK], *big, where[64];
	va_list a1, a2;
	int saved = errno;
	/* error_one_per_line: glibc prints nothing for the same file and line as last time */
	int quiet = error_one_per_line && old_line == line &&
		    (file == old_file || (file && old_file && !strcmp(file, old_file)));
	if (error_one_per_line) {
		old_file = file;
		old_line = line;
	}
	va_start(a1, fmt);
	va_copy(a2, a1);
	const char *msg = quiet ? "" : format_msg(small, &big, fmt, a1, a2);
	va_end(a1);
	va_end(a2);
	if (quiet)
		big = NULL;
	if (!quiet) {
		snprintf(where, sizeof where, ":%u: ", line);
		if (file_stream(stderr) == S_STDERR) {
			if (!error_print_progname) {
				log_bytes(S_STDERR, program_invocation_name,
					  strlen(program_invocation_name));
				log_bytes(S_STDERR, ":", 1);
			}
			if (file)
				log_bytes(S_STDERR, file, strlen(file));
			log_error(NULL, file ? where : " ", msg, errnum);
		}
	}
	errno = saved;
	if (REAL(error_at_line))
		fxtp_real.error_at_line(status, errnum, file, line, "%s", msg);
	free(big);
	errno = saved;
}

/* err.h: "<short program name>: ", the message if any, ": strerror(errno)" for warn/err. */
static void log_warn(int with_errno, const char *fmt, va_list ap)
{
	char small[FMT_STACK], *big = NULL;
	va_list a1, a2;
	int saved = errno;
	const char *msg = "";
	if (fmt) {
		va_copy(a1, ap);
		va_copy(a2, ap);
		msg = format_msg(small, &big, fmt, a1, a2);
		va_end(a1);
		va_end(a2);
	}
	if (with_errno) {	/* vwarn: "prog: msg: error" or, without fmt, "prog: error" */
		char eb[256];
		const char *e = strerror_r(saved, eb, sizeof eb);
		if (file_stream(stderr) == S_STDERR) {
			log_bytes(S_STDERR, program_invocation_short_name,
				  strlen(program_invocation_short_name));
			log_bytes(S_STDERR, ": ", 2);
			log_error(fmt ? msg : NULL, fmt ? ": " : NULL, e, 0);
		}
	} else {
		log_error(program_invocation_short_name, ": ", msg, 0);
	}
	free(big);
	errno = saved;
}

FXTP_EXPORT void vwarn(const char *fmt, va_list ap)
{
	log_warn(1, fmt, ap);
	if (REAL(vwarn))
		fxtp_real.vwarn(fmt, ap);
}

FXTP_EXPORT void vwarnx(const char *fmt, va_list ap)
{
	log_warn(0, fmt, ap);
	if (REAL(vwarnx))
		fxtp_real.vwarnx(fmt, ap);
}

FORWARD(void, warn, vwarn, fmt, (const char *fmt, ...), (fmt, ap))
FORWARD(void, warnx, vwarnx, fmt, (const char *fmt, ...), (fmt, ap))

FXTP_EXPORT void verr(int status, const char *fmt, va_list ap)
{
	log_warn(1, fmt, ap);
	if (REAL(verr))
		fxtp_real.verr(status, fmt, ap);
	exit(status);
}

FXTP_EXPORT void verrx(int status, const char *fmt, va_list ap)
{
	log_warn(0, fmt, ap);
	if (REAL(verrx))
		fxtp_real.verrx(status, fmt, ap);
	exit(status);
}

FXTP_EXPORT void err(int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	verr(status, fmt, ap);
}

FXTP_EXPORT void errx(int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	verrx(status, fmt, ap);
}

/* ---- syslog ---- */

/* Logs a syslog message (from copies of ap), keeping errno for the real call's %m. */
static void log_syslog(const char *fmt, va_list ap)
{
	if (!(enabled >> S_SYSLOG & 1) || !fxtp_running())
		return;
	va_list a1, a2;
	va_copy(a1, ap);
	va_copy(a2, ap);
	log_format(S_SYSLOG, fmt, a1, a2);
	va_end(a1);
	va_end(a2);
	log_bytes(S_SYSLOG, "\n", 1);	/* a message is a line */
}

FXTP_EXPORT void vsyslog(int pri, const char *fmt, va_list ap)
{
	log_syslog(fmt, ap);
	if (REAL(vsyslog))
		fxtp_real.vsyslog(pri, fmt, ap);
}

FXTP_EXPORT void __vsyslog_chk(int pri, int flag, const char *fmt, va_list ap)
{
	log_syslog(fmt, ap);
	if (REAL(__vsyslog_chk))
		fxtp_real.__vsyslog_chk(pri, flag, fmt, ap);
}

FORWARD(void, syslog, vsyslog, fmt, (int pri, const char *fmt, ...), (pri, fmt, ap))
FORWARD(void, __syslog_chk, __vsyslog_chk, fmt, (int pri, int flag, const char *fmt, ...),
	(pri, flag, fmt, ap))
/* FXT_LOG and FXT_LOG_EVENTS, as read by fxtp_init (common/options.c); called by it (log.h).
 * Captured only while tracing runs (fd_stream, file_stream): a registered process starts idle. */
void fxtp_log_init(void)
{
	/* bit i of FXT_LOG_* is enum stream i */
	_Static_assert(FXT_LOG_STDERR == 1u << S_STDERR && FXT_LOG_STDOUT == 1u << S_STDOUT &&
			       FXT_LOG_SYSLOG == 1u << S_SYSLOG, "stream bits");
	enabled = fxtp_settings.log_streams;
	events_off = !fxtp_settings.log_events;
}
