/* commands.h - the pagesleuth subcommands; each lives with the component it drives. */
#ifndef PAGESLEUTH_COMMANDS_H
#define PAGESLEUTH_COMMANDS_H

int ps_cmd_report(int argc, char **argv);  /* analyzer/cmd_report.c */
int ps_cmd_diff(int argc, char **argv);    /* analyzer/cmd_report.c */
int ps_cmd_snap(int argc, char **argv);    /* live/snap.c */
int ps_cmd_wss(int argc, char **argv);     /* live/wss.c */
int ps_cmd_extract(int argc, char **argv); /* coredump/cmd_extract.c */
int ps_cmd_profile(int argc, char **argv); /* coredump/cmd_profile.c */
int ps_cmd_log(int argc, char **argv);     /* coredump/cmd_log.c */
int ps_cmd_valgrind(int argc, char **argv); /* cli/cmd_valgrind.c */
int ps_cmd_lackey(int argc, char **argv);  /* trace/cmd_lackey.c */
int ps_cmd_db(int argc, char **argv);      /* db/cmd_db.c */

#endif
