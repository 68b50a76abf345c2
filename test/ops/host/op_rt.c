/* The sample operators through the runtime API (the "kernel direct call"
 * path, as <<<>>> programs do):
 *
 *   op_rt [-s SAMPLE] [-n LOOPS] [-b BLOCKDIM] [-m launch|flag|handle]
 *         [-r LAUNCHES] [-z] [-k KERNEL.o]
 *
 * -m launch: rtDevBinaryRegister + rtFunctionRegister + rtKernelLaunch
 *            (tiling as a device pointer argument);
 * -m flag:   rtKernelLaunchWithFlagV2 with rtArgsEx_t, tiling data inline;
 * -m handle: rtRegisterAllKernel + rtKernelLaunchWithHandleV2 (tiling key 1),
 *            tiling data inline.
 * -r runs the kernel that many times; -z zero-fills the count tensor.
 * Exit 0 when every launch synchronised without error and the results are
 * right. */
#include "runtime/rt.h"
#include "../common/samples.h"

static char stub;

int main(int argc, char **argv)
{
	const char *sample = "add", *mode = "launch", *kpath = NULL;
	unsigned long loops = 1, blocks = 0, reps = 1;
	int zero = 0, c;
	prog_name = "op_rt";
	while ((c = getopt(argc, argv, "s:n:b:m:r:zk:")) != -1) {
		switch (c) {
		case 's': sample = optarg; break;
		case 'n': loops = num_arg("-n", optarg); break;
		case 'b': blocks = num_arg("-b", optarg); break;
		case 'm': mode = optarg; break;
		case 'r': reps = num_arg("-r", optarg); break;
		case 'z': zero = 1; break;
		case 'k': kpath = optarg; break;
		default:
			fprintf(stderr, "usage: op_rt [-s SAMPLE] [-n LOOPS] [-b BLOCKDIM] [-m launch|flag|handle] "
			                "[-r LAUNCHES] [-z] [-k KERNEL]\nsamples: " SAMPLE_NAMES "\n");
			return 2;
		}
	}
	int m = !strcmp(mode, "launch") ? 0 : !strcmp(mode, "flag") ? 1 : !strcmp(mode, "handle") ? 2 : -1;
	struct spec s;
	if (m < 0 || sample_setup(sample, loops, blocks, zero, &s) != 0) {
		fprintf(stderr, "op_rt: unknown %s (samples: " SAMPLE_NAMES "; modes: launch flag handle)\n",
		        m < 0 ? "mode" : "sample");
		return 2;
	}
	size_t klen;
	void *kbin = read_file(kpath ? kpath : kernel_path(s.kernel), &klen);
	rtStream_t stream;
	void *hdl, *dev[MAXBUF];
	rtDevBinary_t bin = { s.magic, 0, kbin, klen };
	CHECK(rtSetDevice(0));
	CHECK(rtStreamCreate(&stream, 0));
	if (m == 2) {
		CHECK(rtRegisterAllKernel(&bin, &hdl));
	} else {
		CHECK(rtDevBinaryRegister(&bin, &hdl));
		CHECK(rtFunctionRegister(hdl, &stub, s.entry, s.entry, 0));
	}
	for (int i = 0; i < s.nb; i++) {
		CHECK(rtMalloc(&dev[i], s.b[i].size, RT_MEMORY_HBM, 0));
		if (!s.b[i].out)
			CHECK(rtMemcpy(dev[i], s.b[i].size, s.b[i].host, s.b[i].size, RT_MEMCPY_HOST_TO_DEVICE));
	}
	int tiling = !strcmp(s.b[s.nb - 1].name, "tiling");
	for (unsigned long r = 0; r < reps; r++) {
		if (m == 0 || !tiling) {
			if (m == 0)
				CHECK(rtKernelLaunch(&stub, s.blocks, dev, (uint32_t)(s.nb * sizeof(void *)), NULL, stream));
			else {
				rtArgsEx_t ai = { dev, NULL, (uint32_t)(s.nb * 8), 0, 0, 0, 0, 0, { 0 } };
				if (m == 1) CHECK(rtKernelLaunchWithFlagV2(&stub, s.blocks, &ai, NULL, stream, 0, NULL));
				else CHECK(rtKernelLaunchWithHandleV2(hdl, 1, s.blocks, &ai, NULL, stream, NULL));
			}
		} else {
			/* pointers, the tiling pointer slot, then the tiling data */
			size_t tsz = s.b[s.nb - 1].size, n = (size_t)s.nb;
			unsigned char *args = zalloc(n * 8 + tsz);
			memcpy(args, dev, (n - 1) * 8);
			memcpy(args + n * 8, s.b[s.nb - 1].host, tsz);
			rtArgsEx_t ai = { args, NULL, (uint32_t)(n * 8 + tsz), (uint32_t)((n - 1) * 8), (uint32_t)(n * 8),
			                  0, 1, 0, { 0 } };
			if (m == 1) CHECK(rtKernelLaunchWithFlagV2(&stub, s.blocks, &ai, NULL, stream, 0, NULL));
			else CHECK(rtKernelLaunchWithHandleV2(hdl, 1, s.blocks, &ai, NULL, stream, NULL));
			free(args);
		}
		CHECK(rtStreamSynchronize(stream));
	}
	for (int i = 0; i < s.nb; i++) {
		if (s.b[i].out)
			CHECK(rtMemcpy(s.b[i].host, s.b[i].size, dev[i], s.b[i].size, RT_MEMCPY_DEVICE_TO_HOST));
		CHECK(rtFree(dev[i]));
	}
	CHECK(rtDevBinaryUnRegister(hdl));
	CHECK(rtStreamDestroy(stream));
	CHECK(rtDeviceReset(0));
	int bad = s.verify(&s);
	if (bad) {
		fprintf(stderr, "op_rt: %s: %d results wrong\n", s.name, bad);
		return 1;
	}
	printf("op_rt: %s on %u blocks, %lu loops, %lu launches (%s): ok\n", s.name, s.blocks, loops, reps, mode);
	return 0;
}
