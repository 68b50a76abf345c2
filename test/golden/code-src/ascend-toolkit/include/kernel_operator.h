/* A stand-in for a toolkit header: its frames are library frames (the
 * path contains ascend-toolkit). */
static inline __attribute__((always_inline)) int tk_scale(int x)
{
	return x * 3 + 1; /* TK_INLINE */
}

__attribute__((noinline)) static int tk_call(int x)
{
	return x ^ 0x55; /* TK_CALL */
}
