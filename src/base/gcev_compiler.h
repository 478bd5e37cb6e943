/* SPDX-License-Identifier: MIT */
/*
 * Inlining hints for the hot paths (the walk, the decode entry points): a slow path
 * kept out of line, so that the fast path needs no stack frame, and a small helper
 * forced inline where the compiler's size limits would otherwise keep a call.
 * Hints only: without GCC or Clang they expand to plain `static` / `static inline`.
 * GCEV_ASAN: 1 in an AddressSanitizer build (where buffers the sanitizer must watch stay
 * on the C heap).
 */
#ifndef GCEV_COMPILER_H
#define GCEV_COMPILER_H

#if defined(__GNUC__)
#define GCEV_NOINLINE __attribute__((noinline))
#define GCEV_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define GCEV_NOINLINE
#define GCEV_ALWAYS_INLINE inline
#endif

#if defined(__SANITIZE_ADDRESS__)
#define GCEV_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GCEV_ASAN 1
#endif
#endif
#ifndef GCEV_ASAN
#define GCEV_ASAN 0
#endif

#endif
