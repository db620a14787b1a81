/* run.c - one `pagesleuth` command inside crash: crash's bytes through the shared walker.
 *
 * The walk is the walker core's (walker/), exactly what `pagesleuth extract` runs; only the
 * back-end differs (crash_backend.c). The header is built by ps_walker_write_header from the
 * same facts, so the records equal extract's for the same dump apart from source=crash.
 *
 * Output goes to crash's output stream (so `| grep` and `> file` work) or, with -o, to a
 * file written atomically through a 1 MiB buffer. Either way records leave through the
 * record tee's stdio buffer in 8 KiB writes, so crash's unbuffered redirection costs
 * nothing measurable; messages go to stderr, never into the records.
 * `pagesleuth summary` writes the same records (the processes only) to an unlinked temporary
 * file and hands it to the analyzer (summary.c), whose tables go to crash's output.
 * If crash abandons the command (an error, ^C, a closed pipe) it longjmps past this code and
 * calls the abort hook, possibly from a signal handler: the hook only unlinks the unfinished
 * file (async-signal-safe) and the memory is released at the start of the next command.
 */
#include "crash_run.h"

#include "atomic_file.h"
#include "crash_backend.h"
#include "errmsg.h"
#include "record_tee.h"
#include "walker.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_MESSAGES 20
#define OUTPUT_BUFFER (1u << 20)
#define RECORDS_NAME "<the summary's temporary records>"

/* Everything one command holds, so an abandoned command can be cleaned up later. */
struct crash_run {
	struct ps_walker *walker;
	struct ps_writer *writer;
	struct ps_record_tee tee; /* here, not on the stack: an abandoned command's stream
				   * outlives the frame that made it */
	FILE *tee_fp, *trace;
	struct atomic_file file;
	bool file_open;
	FILE *tmp;         /* summary: the records, in an unlinked temporary file */
	struct ps_crash_summary_state *summary;
	char *buffer;
	volatile sig_atomic_t abandoned;
	uint64_t messages;
};

/* The type information crash gave, filled once per session (hundreds of gdb lookups). */
static struct ps_kinfo session_kinfo;
static bool session_kinfo_ok;
static char session_namelist[4096];

/* A command crash abandoned, freed when the next one starts. */
static struct crash_run *abandoned_run;

/* Each field is cleared before what it holds is closed, so a command abandoned in the middle
 * of this never closes anything twice. */
static void release(struct crash_run *r, bool commit_file)
{
	struct ps_writer *w = r->writer;
	r->writer = NULL;
	if (w)
		ps_writer_close(w, true, NULL);
	FILE *tf = r->tee_fp;
	r->tee_fp = NULL;
	if (tf)
		fclose(tf);
	if (r->file_open) {
		r->file_open = false;
		char *e = NULL;
		atomic_close(&r->file, commit_file, &e);
		free(e);
	}
	FILE *trace = r->trace;
	r->trace = NULL;
	if (trace)
		fclose(trace);
	FILE *tmp = r->tmp;
	r->tmp = NULL;
	if (tmp)
		fclose(tmp);
	struct ps_crash_summary_state *summary = r->summary;
	r->summary = NULL;
	ps_crash_summary_free(summary);
	ps_walker_close(r->walker);
	free(r->buffer);
	free(r);
}

/* Free a command crash abandoned. Its records stream no longer writes anywhere (on_abort
 * cut it off): crash's output of that command may be closed or reused by now. */
static void release_abandoned(void)
{
	struct crash_run *r = abandoned_run;
	abandoned_run = NULL;
	if (!r)
		return;
	/* The file was unlinked when the command was abandoned; nothing is committed. */
	r->file_open = r->file_open && r->file.tmp_path;
	release(r, false);
}

void ps_crash_run_cleanup(void)
{
	release_abandoned();
}

/* crash's abort hook: see the top of the file. */
static void on_abort(void *arg)
{
	struct crash_run *r = arg;
	ps_crash_on_abort(NULL, NULL);
	if (r->file_open && r->file.tmp_path)
		unlink(r->file.tmp_path);
	r->tee.out = NULL; /* plain stores: this may run in a signal handler */
	r->tee.warn = NULL;
	r->abandoned = 1;
	abandoned_run = r;
}

static void warn_message(void *arg, const char *text)
{
	struct crash_run *r = arg;
	if (r->messages++ < MAX_MESSAGES)
		ps_crash_message("partial: %s", text);
}

/* An unlinked temporary file in $TMPDIR (default /tmp) for the records `pagesleuth summary`
 * analyses: the analyzer reads record files, and a file with no name is gone with its last
 * descriptor, whatever crash does to the command. */
static FILE *temporary_file(char **err)
{
	const char *dir = getenv("TMPDIR");
	if (!dir || !*dir)
		dir = "/tmp";
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
		/* a file system without O_TMPFILE: a named file, unlinked at once */
		char *path = NULL;
		if (asprintf(&path, "%s/pagesleuth-summary.XXXXXX", dir) < 0) {
			ps_set_err(err, "out of memory");
			return NULL;
		}
		fd = mkostemp(path, O_CLOEXEC);
		if (fd >= 0)
			unlink(path);
		free(path);
	}
	FILE *fp = fd >= 0 ? fdopen(fd, "w+") : NULL;
	if (!fp) {
		ps_set_err(err, "temporary file in %s: %s", dir, strerror(errno));
		if (fd >= 0)
			close(fd);
	}
	return fp;
}

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static const struct ps_kinfo *session_type_info(const struct ps_crash_facts *f, char **err)
{
	const char *name = f->namelist ? f->namelist : "";
	if (session_kinfo_ok && strcmp(session_namelist, name) == 0)
		return &session_kinfo;
	session_kinfo_ok = false;
	if (ps_crash_fill_kinfo(&session_kinfo, f, err) != 0)
		return NULL;
	snprintf(session_namelist, sizeof session_namelist, "%s", name);
	session_kinfo_ok = true;
	return &session_kinfo;
}

int ps_crash_run(const struct ps_crash_request *rq, FILE *crash_out)
{
	release_abandoned();
	double t0 = now_seconds();
	char *err = NULL;
	int status = -1;
	struct crash_run *r = calloc(1, sizeof *r);
	if (!r) {
		ps_crash_message("out of memory");
		return -1;
	}
	ps_crash_on_abort(on_abort, r);

	struct ps_crash_facts facts;
	if (ps_crash_facts(&facts, &err) != 0)
		goto fail;
	/* Evidence first: no output may be crash's dump or vmlinux. */
	ps_input_note(facts.dumpfile);
	ps_input_note(facts.namelist);
	const char *outputs[] = { rq->output, rq->trace, rq->profile };
	for (size_t i = 0; i < sizeof outputs / sizeof outputs[0]; i++)
		if (ps_output_check(outputs[i], &err) != 0)
			goto fail;
	if (facts.zero_excluded && !ps_crash_has_page_map())
		ps_crash_message("crash runs with --zero_excluded and the dump's page map cannot be "
				 "read here: pages the dump level excluded read as zeros and are not "
				 "marked 'x'");
	struct ps_target target = {
		.ops = rq->crash_kvaddr ? &ps_crash_target_ops_kvaddr : &ps_crash_target_ops,
		.ctx = NULL,
		.arch = facts.arch,
		.big_endian = facts.big_endian,
		.ptr_size = facts.ptr_size,
		.page_size = facts.page_size,
	};
	const struct ps_kinfo *ki = session_type_info(&facts, &err);
	if (!ki)
		goto fail;
	if (rq->profile) {
		if (ps_profile_write(ki, rq->profile, &err) != 0)
			goto fail;
		ps_crash_message("type information written to %s (for pagesleuth extract --profile)",
				 rq->profile);
		status = 0;
		goto done;
	}
	if (!(r->walker = ps_walker_open(&target, &err)) || ps_walker_set_kinfo(r->walker, ki, &err) != 0)
		goto fail;
	if (rq->trace && !(r->trace = fopen(rq->trace, "w"))) {
		ps_set_err(&err, "%s: %s", rq->trace, strerror(errno));
		goto fail;
	}

	r->tee.out = crash_out;
	r->tee.warn = warn_message;
	r->tee.arg = r;
	if (rq->summary) {
		if (!(r->tmp = temporary_file(&err)))
			goto fail;
		if ((r->buffer = malloc(OUTPUT_BUFFER)))
			setvbuf(r->tmp, r->buffer, _IOFBF, OUTPUT_BUFFER);
		r->tee.out = r->tmp;
	} else if (rq->output) {
		if (atomic_open(&r->file, rq->output, &err) != 0)
			goto fail;
		r->file_open = true;
		if ((r->buffer = malloc(OUTPUT_BUFFER)))
			setvbuf(r->file.fp, r->buffer, _IOFBF, OUTPUT_BUFFER);
		r->tee.out = r->file.fp;
	}
	if (!(r->tee_fp = ps_record_tee_open(&r->tee)) ||
	    !(r->writer = ps_writer_open_stream(r->tee_fp, rq->output ? rq->output :
						 rq->summary ? RECORDS_NAME : "<crash output>"))) {
		ps_set_err(&err, "out of memory");
		goto fail;
	}
	/* A summary that chooses processes by name walks them all and chooses afterwards. */
	bool walk_all = rq->summary && rq->summary->ncomms;
	struct ps_header_facts hf = {
		.source = "crash",
		.dump_path = facts.dumpfile,
		.time = facts.header_time,
		.dump_level = facts.dump_level,
		.pids = walk_all ? NULL : rq->pids,
		.npids = walk_all ? 0 : rq->npids,
		.tags = rq->tags,
	};
	if (ps_walker_write_header(r->walker, r->writer, &hf, &err) != 0)
		goto fail;
	struct ps_walk_options wo = {
		.pids = hf.pids,
		.npids = hf.npids,
		.detail = rq->detail,
		.trace = r->trace,
		/* the summary's tables need the processes only: no pass over all of RAM */
		.no_counters = rq->summary != NULL,
		.no_frames = rq->summary != NULL,
		.no_log = rq->summary != NULL,
	};
	struct ps_walk_result res;
	int rc = ps_walker_run(r->walker, r->writer, &wo, &res, &err);
	if (rc < 0)
		goto fail;
	struct ps_writer *w = r->writer;
	r->writer = NULL;
	struct ps_writer_counts written;
	ps_writer_counts(w, &written); /* the runs of --stats */
	int close_rc = ps_writer_close(w, false, &err);
	FILE *tf = r->tee_fp;
	r->tee_fp = NULL;
	if (fclose(tf) != 0 && close_rc == 0) {
		ps_set_err(&err, "%s: write failed: %s", rq->output ? rq->output : "crash output",
			   strerror(errno));
		close_rc = -1;
	}
	if (close_rc != 0)
		goto fail;
	if (r->tmp) {
		if (fflush(r->tmp) != 0 || lseek(fileno(r->tmp), 0, SEEK_SET) != 0) {
			ps_set_err(&err, "%s: %s", RECORDS_NAME, strerror(errno));
			goto fail;
		}
		if (ps_crash_summary_print(fileno(r->tmp), RECORDS_NAME, rq, crash_out, &r->summary,
					   &err) != 0)
			goto fail;
	}
	if (r->file_open) {
		r->file_open = false;
		if (atomic_close(&r->file, true, &err) != 0)
			goto fail;
	}
	if (r->messages > MAX_MESSAGES)
		ps_crash_message("partial: %" PRIu64 " further warnings (see the warn records)",
				 r->messages - MAX_MESSAGES);
	else if (rc == 1 && r->messages == 0)
		ps_crash_message("partial: some of the dump could not be read");
	if (rq->stats) {
		double secs = now_seconds() - t0;
		ps_crash_message("%" PRIu64 " tasks, %" PRIu64 " mms, %" PRIu64 " vmas, %" PRIu64
				 " pages in %" PRIu64 " runs (%" PRIu64 " excluded, %" PRIu64
				 " swap, %" PRIu64 " unknown) in %.2f s, %.0f pages/s",
				 res.tasks, res.mms, res.vmas, res.pages, written.runs, res.excluded_pages,
				 res.swap_entries, res.unknown_pages, secs, secs > 0 ? res.pages / secs : 0.0);
	}
	if (rq->output)
		ps_crash_message("%" PRIu64 " processes written to %s%s", res.mms, rq->output,
				 rc == 1 ? " (partial)" : "");
	status = rc;
	goto done;
fail:
	ps_crash_message("%s", err ? err : "failed");
done:
	ps_crash_on_abort(NULL, NULL);
	release(r, false);
	free(err);
	return status;
}
