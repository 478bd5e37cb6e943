/* SPDX-License-Identifier: MIT */
/* The dispatcher: which subcommand runs. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"

static const struct {
    const char *name;
    int (*run)(int, char **);
    const char *summary;
} commands[] = {
    {"decode", gcev_cmd_decode, "decode one GC event payload given in hex, print JSON"},
    {"schema", gcev_cmd_schema, "list the compiled events, versions and fields"},
    {"count", gcev_cmd_count, "count the events of a trace per provider/id/version"},
    {"dump", gcev_cmd_dump, "print every event of a trace (text, jsonl, csv)"},
    {"stats", gcev_cmd_stats, "GC analysis: pauses, generations, heap sizes, lifetimes"},
    {"ps", gcev_cmd_ps, "list the running .NET processes this user can attach to"},
    {"watch", gcev_cmd_watch, "attach to a running .NET process, print each GC as it ends"},
    {"record", gcev_cmd_record, "attach to a running .NET process, write its GC events to a .nettrace"},
    {"report", gcev_cmd_report, "one self-contained HTML page of a trace's GC behaviour"},
    {"allocs", gcev_cmd_allocs, "who allocates: types, call stacks, threads; flame graphs"},
    {"heap", gcev_cmd_heap, "heap snapshots: types, retained sizes, paths to roots, diffs"},
    {"serve", gcev_cmd_serve, "Prometheus exporter of per-GC metrics of every .NET process"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: gcev <command> [options]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
    }
    fprintf(f, "\noptions:\n"
               "  --help     this list ('gcev <command> --help' describes a command's options)\n"
               "  --version  print the version\n"
               "\nOptions take their value as '--name value' or '--name=value'; '--' ends the options.\n"
               "Exit status: 0 success, 1 a trace error after partial output or a write error,\n"
               "2 bad input or usage; live sessions: 3 no such process, 4 not a .NET process,\n"
               "5 permission denied, 6 the runtime refused, 7 timed out, 8 the process died\n"
               "during the session.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(argc < 2 ? stderr : stdout);
        return gcev_cli_finish_output(NULL, argc < 2 ? GCEV_EXIT_USAGE : GCEV_EXIT_OK);
    }
    if (!strcmp(argv[1], "--version")) {
        printf("gcev %s\n", GCEV_CLI_VERSION);
        return gcev_cli_finish_output(NULL, GCEV_EXIT_OK);
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        if (!strcmp(argv[1], commands[i].name)) {
            /* every command's output is checked here: writes, the final flush and close */
            return gcev_cli_finish_output(commands[i].name, commands[i].run(argc - 1, argv + 1));
        }
    }
    fprintf(stderr, "gcev: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return GCEV_EXIT_USAGE;
}
