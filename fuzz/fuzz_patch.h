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

/* The next patch of an input made of repeated [offset u32 LE][length u8][bytes], aimed at
 * REGION bytes (the BTF, a dump's first MiB): *OFF is the offset modulo REGION, *LEN the
 * length modulo FZ_MAX_PATCH_LEN + 1, cut to the bytes the input has left and to the
 * region's end, *BYTES the new bytes. Advances *DATA and *SIZE past it. false when no
 * whole [offset][length] is left, or REGION is empty. */
static inline bool fz_next_patch(const uint8_t **data, size_t *size, uint64_t region, uint32_t *off,
				 unsigned *len, const uint8_t **bytes)
{
	const uint8_t *p = *data;
	if (*size < 5 || region == 0)
		return false;
	uint32_t at = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
	unsigned n = p[4] % (FZ_MAX_PATCH_LEN + 1);
	size_t left = *size - 5;
	if (n > left)
		n = (unsigned)left;
	at = (uint32_t)(at % region);
	if (n > region - at)
		n = (unsigned)(region - at);
	*off = at, *len = n, *bytes = p + 5;
	*data = p + 5 + n, *size = left - n;
	return true;
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
