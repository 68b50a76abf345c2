/* Vector add through the runtime API directly (the "kernel direct call"
 * path): rtDevBinaryRegister + rtFunctionRegister + rtKernelLaunch.
 *
 *   add_rt [-n LOOPS] [-b BLOCKDIM] [-e ELEMENTS_PER_BLOCK] [-k KERNEL.o]
 *
 * LOOPS repeats the whole computation inside the kernel, which scales the
 * dump linearly.  Exit 0 when z == x + y. */
#include "runtime/rt.h"
#include "../common/host.h"

static char stub;   /* the host-side handle of the kernel */

int main(int argc, char **argv)
{
	unsigned long loops = 1, blocks = 2, elems = 8192;
	const char *kpath = NULL;
	int c;
	prog_name = "add_rt";
	while ((c = getopt(argc, argv, "n:b:e:k:")) != -1) {
		switch (c) {
		case 'n': loops = num_arg("-n", optarg); break;
		case 'b': blocks = num_arg("-b", optarg); break;
		case 'e': elems = num_arg("-e", optarg); break;
		case 'k': kpath = optarg; break;
		default:
			fprintf(stderr, "usage: add_rt [-n LOOPS] [-b BLOCKDIM] [-e ELEMENTS_PER_BLOCK] [-k KERNEL]\n");
			return 2;
		}
	}
	if (!blocks || !elems || elems % 2048) {
		fprintf(stderr, "add_rt: -b must be > 0 and -e a multiple of 2048\n");
		return 2;
	}
	size_t klen;
	void *kbin = read_file(kpath ? kpath : kernel_path("add_custom.o"), &klen);
	size_t n = blocks * elems, bytes = n * sizeof(float);
	float *x = malloc(bytes), *y = malloc(bytes), *z = malloc(bytes);
	if (!x || !y || !z) return 1;
	fill(x, n, 1);
	fill(y, n, 2);

	rtStream_t stream;
	void *hdl, *dx, *dy, *dz, *dt;
	uint32_t tiling[2] = { (uint32_t)elems, (uint32_t)loops };
	rtDevBinary_t bin = { RT_DEV_BINARY_MAGIC_ELF_AIVEC, 0, kbin, klen };
	CHECK(rtSetDevice(0));
	CHECK(rtStreamCreate(&stream, 0));
	CHECK(rtDevBinaryRegister(&bin, &hdl));
	CHECK(rtFunctionRegister(hdl, &stub, "add_custom", "add_custom", 0));
	CHECK(rtMalloc(&dx, bytes, RT_MEMORY_HBM, 0));
	CHECK(rtMalloc(&dy, bytes, RT_MEMORY_HBM, 0));
	CHECK(rtMalloc(&dz, bytes, RT_MEMORY_HBM, 0));
	CHECK(rtMalloc(&dt, sizeof tiling, RT_MEMORY_HBM, 0));
	CHECK(rtMemcpy(dx, bytes, x, bytes, RT_MEMCPY_HOST_TO_DEVICE));
	CHECK(rtMemcpy(dy, bytes, y, bytes, RT_MEMCPY_HOST_TO_DEVICE));
	CHECK(rtMemcpy(dt, sizeof tiling, tiling, sizeof tiling, RT_MEMCPY_HOST_TO_DEVICE));
	void *args[4] = { dx, dy, dz, dt };
	CHECK(rtKernelLaunch(&stub, (uint32_t)blocks, args, sizeof args, NULL, stream));
	CHECK(rtStreamSynchronize(stream));
	CHECK(rtMemcpy(z, bytes, dz, bytes, RT_MEMCPY_DEVICE_TO_HOST));
	size_t bad = 0;
	for (size_t i = 0; i < n; i++)
		if (z[i] != x[i] + y[i]) bad++;
	CHECK(rtFree(dx));
	CHECK(rtFree(dy));
	CHECK(rtFree(dz));
	CHECK(rtFree(dt));
	CHECK(rtDevBinaryUnRegister(hdl));
	CHECK(rtStreamDestroy(stream));
	CHECK(rtDeviceReset(0));
	if (bad) {
		fprintf(stderr, "add_rt: %zu of %zu results wrong\n", bad, n);
		return 1;
	}
	printf("add_rt: %zu elements on %lu blocks, %lu loops: ok\n", n, blocks, loops);
	return 0;
}
