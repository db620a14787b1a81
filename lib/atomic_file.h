/* atomic_file.h - create an output file atomically: write a temporary file beside it and
 * rename it into place only when everything was written. Inputs are never touched.
 * A path that exists and is not a regular file (/dev/null, a FIFO, a terminal) is written
 * directly: renaming over it would replace the device with a file. */
#ifndef PAGESLEUTH_ATOMIC_FILE_H
#define PAGESLEUTH_ATOMIC_FILE_H

#include <stdbool.h>
#include <stdio.h>

struct atomic_file {
	FILE *fp;   /* what the caller writes: RAW, or a stream compressing into it */
	FILE *raw;  /* the file; compressed when PATH ends in .zst or .gz (compress_out.h) */
	char *path, *tmp_path; /* tmp_path NULL: writing PATH itself (not a regular file) */
	char *buf;  /* RAW's buffer (glibc ignores setvbuf's size without one: 4 KiB writes) */
};

/* The files this run reads: every output is checked against them (the same device and
 * inode, so also through symbolic and hard links) before it is created, and refused if it
 * is one: evidence is never written over. A path that cannot be stat'ed is not noted (its
 * reader fails on it with its own message). */
void ps_input_note(const char *path);
/* 0 if PATH may be written; -1 with *err set (malloc'd "PATH: is the input INPUT: refusing
 * to write over it") if it is a noted input. */
int ps_output_check(const char *path, char **err);
/* ps_output_check for each non-NULL of OUTPUTS (N of them), and two outputs naming one
 * file; prints "PROG: reason" on stderr and returns -1 at the first conflict, else 0. */
int ps_outputs_check(const char *prog, const char *const *outputs, size_t n);

/* Records written to standard output when no -o was given (OUTPUT NULL) and standard output
 * is a terminal would flood it with lines meant for `pagesleuth report`: prints one line
 * saying so (with -o - to insist) and returns -1; else 0. */
int ps_refuse_records_to_terminal(const char *prog, const char *output);

/* Refuses a noted input (ps_output_check). Returns 0, or -1 with *err set (malloc'd "PATH:
 * cannot create: reason"). */
int atomic_open(struct atomic_file *af, const char *path, char **err);
/* Flush and rename into place (commit) or remove the temporary file (!commit).
 * Returns 0, or -1 with *err set if committing failed (the target is then untouched). */
int atomic_close(struct atomic_file *af, bool commit, char **err);

#endif
