/* libFuzzer target: the preload library's ELF reader (inject/elf.c,
 * inj_elf_kernels), which reads the device binaries an application
 * registers.
 *
 * The input is a whole binary, in a block of exactly its length.  Every
 * kernel found has a name of 1 to 1023 bytes without NUL that occurs in
 * the input, and there are no more kernels than symbol-table entries could
 * hold. */
#include "fuzz.h"
#include "inject.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *p = (unsigned char *)fuzz_copy(data, size);
	struct inj_sym *v;
	size_t n = inj_elf_kernels(p, size, &v), i;

	CHECK(n <= size / 24);
	CHECK(n == 0 || v);
	for (i = 0; i < n; i++) {
		size_t nl = strlen(v[i].name);
		CHECK(nl > 0 && nl < 1024);
		CHECK(memmem(p, size, v[i].name, nl));
		free(v[i].name);
	}
	free(v);
	free(p);
	return 0;
}
