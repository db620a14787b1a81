/* frame_span.h - the bytes of a test program's own stack frame, for the frame page count
 * the Valgrind tests compare (ws_ramp.c, ws_threads.c): SPAN(v) widens [lo, hi] (locals the
 * caller declares) by a variable, FRAME_TOP() is the frame's top where the ABI puts it. */
#ifndef PS_TEST_FRAME_SPAN_H
#define PS_TEST_FRAME_SPAN_H

#include <stdint.h>

/* The frame's top: on x86 the return address above the saved frame pointer; elsewhere (arm64,
 * arm, ppc: the frame record is at the frame's bottom) the highest byte of its own locals
 * and spilled arguments, which SPAN() takes in. */
#if defined(__x86_64__) || defined(__i386__)
#define FRAME_TOP() ((uintptr_t)__builtin_frame_address(0) + 15)
#else
#define FRAME_TOP() ((uintptr_t)0)
#endif
#define SPAN(v) do { if ((uintptr_t)&(v) < lo) lo = (uintptr_t)&(v); \
		     if ((uintptr_t)&(v) + sizeof(v) - 1 > hi) hi = (uintptr_t)&(v) + sizeof(v) - 1; } while (0)

#endif
