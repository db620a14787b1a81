/* fuzz_patch.h - the walker fuzzers' patch log. An input's byte patches over the synthetic
 * memory are logged with the bytes they replace and undone after the run, so the memory is
 * built once and never copied per input. */
#ifndef PAGESLEUTH_FUZZ_PATCH_H
#define PAGESLEUTH_FUZZ_PATCH_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define FZ_MAX_PATCHES 64
#define FZ_MAX_PATCH_LEN 32

struct fz_patch_log {
	unsigned n;
	struct { uint8_t *at; uint8_t len, old[FZ_MAX_PATCH_LEN]; } e[FZ_MAX_PATCHES];
};

static inline bool fz_patch_full(const struct fz_patch_log *log)
{
	return log->n == FZ_MAX_PATCHES;
}

/* Write LEN (at most FZ_MAX_PATCH_LEN) bytes at AT, remembering what was there. */
static inline void fz_patch(struct fz_patch_log *log, uint8_t *at, const uint8_t *bytes, unsigned len)
{
	log->e[log->n].at = at, log->e[log->n].len = (uint8_t)len;
	memcpy(log->e[log->n].old, at, len);
	memcpy(at, bytes, len);
	log->n++;
}

/* Undo every patch, last first. */
static inline void fz_unpatch_all(struct fz_patch_log *log)
{
	while (log->n) {
		log->n--;
		memcpy(log->e[log->n].at, log->e[log->n].old, log->e[log->n].len);
	}
}

#endif
