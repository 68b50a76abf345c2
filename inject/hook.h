/* The shape of a hook that only records a span: resolve the original,
 * forward when nested or off, else time the call and record it.  a0..a2
 * and text are evaluated after the call (they may read its outputs); post
 * runs after a successful call. */
#ifndef OPTRACE_INJECT_HOOK_H
#define OPTRACE_INJECT_HOOK_H

#include "inject.h"

#define ORIG(lib, fn, cache) ((__typeof__(&fn))inj_orig(lib, #fn, &cache, (void *)&fn))

#define SPAN_CALL(lib, fn, err, args, a0, a1, a2, text, post)                      \
	static void *o_;                                                           \
	__typeof__(&fn) f_ = ORIG(lib, fn, o_);                                    \
	struct inj_span sp_;                                                       \
	char tb_[INJ_ARGS_MAX];                                                    \
	__typeof__(f_ args) r_;                                                    \
	if (!f_)                                                                   \
		return err;                                                        \
	if (!inj_span_begin(&sp_))                                                 \
		return f_ args;                                                    \
	r_ = f_ args;                                                              \
	if (r_ == 0) {                                                             \
		post;                                                              \
	}                                                                          \
	inj_span_end(&sp_, #fn, (int64_t)r_, (uint64_t)(a0), (uint64_t)(a1),       \
	             (uint64_t)(a2), text);                                        \
	return r_;

/* The text arguments of a span-only hook (its buffer is SPAN_CALL's);
 * nothing is formatted when spans are off. */
#define ARGS(...) (inj.spans ? inj_args(tb_, sizeof tb_, __VA_ARGS__) : NULL)
#define U(v) ((uint64_t)(v))
#define I(v) ((int64_t)(v))
#define X(v) ((uint64_t)(uintptr_t)(v))
#define XO(pp) ((pp) ? (uint64_t)(uintptr_t)*(pp) : REC_NONE)

#define PTR(p) ((uint64_t)(uintptr_t)(p))

/* Eight bytes of the application's, wherever they are aligned. */
static inline uint64_t inj_u64_at(const void *p)
{
	uint64_t v;
	__builtin_memcpy(&v, p, 8);
	return v;
}
#define OUTPTR(pp) ((pp) ? (uint64_t)(uintptr_t)*(pp) : REC_NONE)
#define NONE REC_NONE

#endif
