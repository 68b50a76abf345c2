/* The sample operators through ACL (the single-operator API path):
 *
 *   op_acl [-s SAMPLE] [-n LOOPS] [-b BLOCKDIM] [-m config|hostargs|launch]
 *          [-r LAUNCHES] [-z] [-k KERNEL.o]
 *
 * aclrtBinaryLoadFromFile (kernel type from the .json beside the kernel) +
 * aclrtBinaryGetFunction, then
 * -m config:   aclrtKernelArgsInit/Append/AppendPlaceHolder/Finalize +
 *              aclrtLaunchKernelWithConfig (tiling in a placeholder);
 * -m hostargs: aclrtLaunchKernelWithHostArgs (tiling as a placeholder);
 * -m launch:   aclrtLaunchKernel with the pointer list in device memory. */
#include "acl/acl.h"
#include "../common/samples.h"

int main(int argc, char **argv)
{
	const char *sample = "add", *mode = "config", *kpath = NULL;
	unsigned long loops = 1, blocks = 0, reps = 1;
	int zero = 0, c;
	prog_name = "op_acl";
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
			fprintf(stderr, "usage: op_acl [-s SAMPLE] [-n LOOPS] [-b BLOCKDIM] [-m config|hostargs|launch] "
			                "[-r LAUNCHES] [-z] [-k KERNEL]\nsamples: " SAMPLE_NAMES "\n");
			return 2;
		}
	}
	int m = !strcmp(mode, "config") ? 0 : !strcmp(mode, "hostargs") ? 1 : !strcmp(mode, "launch") ? 2 : -1;
	struct spec s;
	if (m < 0 || sample_setup(sample, loops, blocks, zero, &s) != 0) {
		fprintf(stderr, "op_acl: unknown %s (samples: " SAMPLE_NAMES "; modes: config hostargs launch)\n",
		        m < 0 ? "mode" : "sample");
		return 2;
	}
	aclrtStream stream;
	aclrtBinHandle bh;
	aclrtFuncHandle fh;
	void *dev[MAXBUF];
	CHECK(aclInit(NULL));
	CHECK(aclrtSetDevice(0));
	CHECK(aclrtCreateStream(&stream));
	CHECK(aclrtBinaryLoadFromFile(kpath ? kpath : kernel_path(s.kernel), NULL, &bh));
	CHECK(aclrtBinaryGetFunction(bh, s.entry, &fh));
	for (int i = 0; i < s.nb; i++) {
		CHECK(aclrtMalloc(&dev[i], s.b[i].size, ACL_MEM_MALLOC_HUGE_FIRST));
		if (!s.b[i].out)
			CHECK(aclrtMemcpy(dev[i], s.b[i].size, s.b[i].host, s.b[i].size, ACL_MEMCPY_HOST_TO_DEVICE));
	}
	int tiling = !strcmp(s.b[s.nb - 1].name, "tiling");
	int np = s.nb - tiling;
	for (unsigned long r = 0; r < reps; r++) {
		if (m == 0) {
			aclrtArgsHandle ah;
			aclrtParamHandle ph;
			CHECK(aclrtKernelArgsInit(fh, &ah));
			for (int i = 0; i < np; i++) CHECK(aclrtKernelArgsAppend(ah, &dev[i], sizeof(void *), &ph));
			if (tiling) {
				void *buf;
				CHECK(aclrtKernelArgsAppendPlaceHolder(ah, &ph));
				CHECK(aclrtKernelArgsGetPlaceHolderBuffer(ah, ph, s.b[np].size, &buf));
				memcpy(buf, s.b[np].host, s.b[np].size);
			}
			CHECK(aclrtKernelArgsFinalize(ah));
			CHECK(aclrtLaunchKernelWithConfig(fh, s.blocks, stream, NULL, ah, NULL));
		} else if (m == 1) {
			size_t tsz = tiling ? s.b[np].size : 0, n = (size_t)s.nb;
			unsigned char *args = zalloc(n * 8 + tsz);
			memcpy(args, dev, (size_t)np * 8);
			aclrtPlaceHolderInfo ph = { (uint32_t)(np * 8), (uint32_t)(n * 8) };
			if (tiling) memcpy(args + n * 8, s.b[np].host, tsz);
			CHECK(aclrtLaunchKernelWithHostArgs(fh, s.blocks, stream, NULL, args, n * 8 + tsz,
			                                    tiling ? &ph : NULL, tiling ? 1 : 0));
			free(args);
		} else {
			void *dargs;
			CHECK(aclrtMalloc(&dargs, (size_t)s.nb * 8, ACL_MEM_MALLOC_HUGE_FIRST));
			CHECK(aclrtMemcpy(dargs, (size_t)s.nb * 8, dev, (size_t)s.nb * 8, ACL_MEMCPY_HOST_TO_DEVICE));
			CHECK(aclrtLaunchKernel(fh, s.blocks, dargs, (size_t)s.nb * 8, stream));
			CHECK(aclrtSynchronizeStream(stream));
			CHECK(aclrtFree(dargs));
		}
		CHECK(aclrtSynchronizeStream(stream));
	}
	for (int i = 0; i < s.nb; i++) {
		if (s.b[i].out)
			CHECK(aclrtMemcpy(s.b[i].host, s.b[i].size, dev[i], s.b[i].size, ACL_MEMCPY_DEVICE_TO_HOST));
		CHECK(aclrtFree(dev[i]));
	}
	CHECK(aclrtBinaryUnLoad(bh));
	CHECK(aclrtDestroyStream(stream));
	CHECK(aclrtResetDevice(0));
	CHECK(aclFinalize());
	int bad = s.verify(&s);
	if (bad) {
		fprintf(stderr, "op_acl: %s: %d results wrong\n", s.name, bad);
		return 1;
	}
	printf("op_acl: %s on %u blocks, %lu loops, %lu launches (%s): ok\n", s.name, s.blocks, loops, reps, mode);
	return 0;
}
