/* SPDX-License-Identifier: MIT */
/* The subcommands, one file each (cmd_<name>.c); main.c dispatches to them. */
#ifndef GCEV_COMMANDS_H
#define GCEV_COMMANDS_H

/* Each takes argv[0] = the subcommand name and returns the exit status. */
int gcev_cmd_decode(int argc, char **argv);
int gcev_cmd_schema(int argc, char **argv);
int gcev_cmd_count(int argc, char **argv);
int gcev_cmd_dump(int argc, char **argv);
int gcev_cmd_stats(int argc, char **argv);
int gcev_cmd_ps(int argc, char **argv);
int gcev_cmd_watch(int argc, char **argv);
int gcev_cmd_record(int argc, char **argv);
int gcev_cmd_report(int argc, char **argv);
int gcev_cmd_allocs(int argc, char **argv);
int gcev_cmd_heap(int argc, char **argv);
int gcev_cmd_serve(int argc, char **argv);

#endif
