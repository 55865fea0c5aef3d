/* <fxt/trace.h> at the format's limits and across fork: a string argument longer than a record
 * holds (cut to fit, on a UTF-8 boundary), bytes that are not UTF-8 (replaced by '?'), a blob
 * larger than one record (split into records of the same name), a log message longer than the
 * format allows (cut), and a child process whose events, from call sites whose caches the parent
 * filled, land in the child's own archive (FXT_OUTPUT.<pid>). Checked by tests/api/api-check
 * against api-limits.expect and api-limits-child.expect. stdout is the same untraced. */
/* SPDX-License-Identifier: MIT */
#include <fxt/trace.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define LONG_LEN 40000

static void event(int who)
{
	TRACE_DURATION("api", "event", "who", TA_INT32(who));
	TRACE_INSTANT("api", "mark", TRACE_SCOPE_THREAD, "who", TA_INT32(who), "utf8",
		      TA_STRING("h\xc3\xa9 \xe2\x82\xac"));
}

int main(void)
{
	static char text[LONG_LEN + 1];
	static unsigned char blob[100000];
	pid_t pid;
	int status = 0;

	/* "é" (2 bytes) repeated: any cut must keep whole characters. */
	for (int i = 0; i + 1 < LONG_LEN; i += 2)
		memcpy(text + i, "\xc3\xa9", 2);
	for (size_t i = 0; i < sizeof blob; i++)
		blob[i] = (unsigned char)(i * 7);
	event(0);
	TRACE_INSTANT("api", "long", TRACE_SCOPE_THREAD, "text", TA_STRING(text));
	TRACE_INSTANT("api", "bad-utf8", TRACE_SCOPE_THREAD, "s",
		      TA_STRING("a\xff" "b\xc3" "c\xed\xa0\x80"));
	TRACE_BLOB(TRACE_BLOB_TYPE_DATA, "api-big", blob, sizeof blob);
	TRACE_BLOB(TRACE_BLOB_TYPE_PERFETTO, "api-empty", blob, 0);
	TRACE_LOG("api-long %s", text);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		event(1);
		TRACE_INSTANT("api", "child-only", TRACE_SCOPE_PROCESS);
		_exit(0);
	}
	if (pid > 0)
		waitpid(pid, &status, 0);
	event(2);
	printf("api-limits: child %s\n",
	       pid > 0 && WIFEXITED(status) && !WEXITSTATUS(status) ? "ok" : "failed");
	return 0;
}
