/* Two sample operators launched through ACL (aclrtLaunchKernelWithHostArgs)
 * inside mstx ranges, for sim-capture --mstx=on --replay-mode=range.
 *
 *   mstx_acl [-p PLAN] [-s SAMPLE1] [-t SAMPLE2]
 *
 * PLAN is a list of steps separated by spaces, run in order:
 *   +MSG   mstxRangeStartA(MSG, stream)
 *   -      mstxRangeEnd of the range opened last
 *   A      one launch of SAMPLE1 (default add), not waited for
 *   B      one launch of SAMPLE2 (default count)
 * The stream is synchronised and every output checked only at the end, so
 * the launches of a range may run when the range ends.  The default,
 * "+step A B A -", makes three launches of two kernels in one range.
 * Exit 0 when every result is right. */
#include "acl/acl.h"
#include "mstx/ms_tools_ext.h"
#include "../common/samples.h"

struct op {
	struct spec s;
	aclrtBinHandle bh;
	aclrtFuncHandle fh;
	void *dev[MAXBUF];
};

static aclrtStream stream;

static void load(struct op *o, const char *name)
{
	if (sample_setup(name, 1, 0, 0, &o->s) != 0) {
		fprintf(stderr, "mstx_acl: unknown sample %s (samples: " SAMPLE_NAMES ")\n", name);
		exit(2);
	}
	CHECK(aclrtBinaryLoadFromFile(kernel_path(o->s.kernel), NULL, &o->bh));
	CHECK(aclrtBinaryGetFunction(o->bh, o->s.entry, &o->fh));
	for (int i = 0; i < o->s.nb; i++) {
		CHECK(aclrtMalloc(&o->dev[i], o->s.b[i].size, ACL_MEM_MALLOC_HUGE_FIRST));
		if (!o->s.b[i].out)
			CHECK(aclrtMemcpy(o->dev[i], o->s.b[i].size, o->s.b[i].host, o->s.b[i].size,
			                  ACL_MEMCPY_HOST_TO_DEVICE));
	}
}

static void launch(struct op *o)
{
	int tiling = !strcmp(o->s.b[o->s.nb - 1].name, "tiling");
	int np = o->s.nb - tiling;
	size_t tsz = tiling ? o->s.b[np].size : 0, n = (size_t)o->s.nb;
	unsigned char *args = zalloc(n * 8 + tsz);
	memcpy(args, o->dev, (size_t)np * 8);
	aclrtPlaceHolderInfo ph = { (uint32_t)(np * 8), (uint32_t)(n * 8) };
	if (tiling) memcpy(args + n * 8, o->s.b[np].host, tsz);
	CHECK(aclrtLaunchKernelWithHostArgs(o->fh, o->s.blocks, stream, NULL, args, n * 8 + tsz, tiling ? &ph : NULL,
	                                    tiling ? 1 : 0));
	free(args);
}

static int check(struct op *o)
{
	for (int i = 0; i < o->s.nb; i++)
		if (o->s.b[i].out)
			CHECK(aclrtMemcpy(o->s.b[i].host, o->s.b[i].size, o->dev[i], o->s.b[i].size,
			                  ACL_MEMCPY_DEVICE_TO_HOST));
	int bad = o->s.verify(&o->s);
	if (bad) fprintf(stderr, "mstx_acl: %s: %d results wrong\n", o->s.name, bad);
	return bad;
}

int main(int argc, char **argv)
{
	const char *plan = "+step A B A -", *n1 = "add", *n2 = "count";
	struct op a, b;
	mstxRangeId ids[64];
	int nids = 0, c;
	prog_name = "mstx_acl";
	while ((c = getopt(argc, argv, "p:s:t:")) != -1) {
		switch (c) {
		case 'p': plan = optarg; break;
		case 's': n1 = optarg; break;
		case 't': n2 = optarg; break;
		default:
			fprintf(stderr, "usage: mstx_acl [-p PLAN] [-s SAMPLE1] [-t SAMPLE2]\n");
			return 2;
		}
	}
	CHECK(aclInit(NULL));
	CHECK(aclrtSetDevice(0));
	CHECK(aclrtCreateStream(&stream));
	load(&a, n1);
	load(&b, n2);
	char *steps = strdup(plan), *save = NULL;
	if (!steps) return 1;
	for (char *s = strtok_r(steps, " ,", &save); s; s = strtok_r(NULL, " ,", &save)) {
		if (s[0] == '+' && nids < 64) {
			ids[nids++] = mstxRangeStartA(s + 1, stream);
		} else if (!strcmp(s, "-") && nids) {
			mstxRangeEnd(ids[--nids]);
		} else if (!strcmp(s, "A")) {
			launch(&a);
		} else if (!strcmp(s, "B")) {
			launch(&b);
		} else {
			fprintf(stderr, "mstx_acl: bad step '%s'\n", s);
			return 2;
		}
	}
	free(steps);
	CHECK(aclrtSynchronizeStream(stream));
	int bad = check(&a) + check(&b);
	CHECK(aclrtDestroyStream(stream));
	CHECK(aclrtResetDevice(0));
	CHECK(aclFinalize());
	if (bad) return 1;
	printf("mstx_acl: %s\n", plan);
	return 0;
}
