/* fxt: the trace client. Global flags (--help, --version), the subcommand table, dispatch.
 * Invoked as `fxtrun` (a link to this binary) it runs `fxt record`. Exit codes: the
 * subcommand's; 2 for usage errors. */
/* SPDX-License-Identifier: MIT */
#include <libgen.h>
#include <stdio.h>
#include <string.h>

#include "launcher/cmd/cmd.h"

#ifndef FXT_VERSION
#define FXT_VERSION "unknown"
#endif

static const struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
} commands[] = {
	{ "record", cmd_record, "trace a program (same as fxtrun)" },
	{ "report", cmd_report, "where did the time go: per-function table or call tree" },
	{ "flame", cmd_flame, "flame graph of the call tree: interactive SVG or folded stacks" },
	{ "json", cmd_json, "convert to Catapult JSON (chrome://tracing, Perfetto)" },
	{ "stats", cmd_stats, "counts, sizes, duration per provider and thread, drops" },
	{ "replay", cmd_replay, "what each thread did, in time order: nested calls, logs, events" },
	{ "dump", cmd_dump, "print one line per record" },
	{ "check", cmd_check, "validate an archive (exit 0 valid, 1 invalid, 2 cannot read)" },
	{ "manager", cmd_manager, "run the trace manager service (clients start it on demand)" },
	{ "list", cmd_list, "providers registered with the manager: pid, name, state, buffer" },
	{ "start", cmd_start, "start a trace of registered providers (flight recorder)" },
	{ "stop", cmd_stop, "stop the running trace and write its archive" },
	{ "snapshot", cmd_snapshot, "write what the running trace's buffers hold now" },
	{ "clean", cmd_clean, "remove session directories left by a killed fxtrun" },
	{ "recover", cmd_recover, "make the archive of a killed standalone run (FILE.part) valid" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: fxt [--help] [--version] COMMAND [ARGS...]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n`fxt COMMAND --help` describes a command. fxtrun PROGRAM = fxt record PROGRAM.\n");
}

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(name, commands[i].name) == 0)
			return &commands[i];
	return NULL;
}

int main(int argc, char **argv)
{
	const struct command *cmd;
	if (strcmp(basename(argv[0]), "fxtrun") == 0) {
		if ((cmd = find_command("record")))
			return cmd->run(argc, argv);
		fprintf(stderr, "fxtrun: this build of fxt has no record command\n");
		return 2;
	}
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("fxt (fxtauto) %s\n", FXT_VERSION);
		return 0;
	}
	if ((cmd = find_command(argv[1])))
		return cmd->run(argc - 1, argv + 1);
	fprintf(stderr, "fxt: unknown command '%s' (try fxt --help)\n", argv[1]);
	return 2;
}
