/* board-synth: write a consistent on-board dump directory (optrace-board(5)):
 * op_basic_info.txt, DeviceProf1..R.bin, duration.bin and (910B, 310P)
 * L2Cache.bin, for the tests and benchmarks of dump-split and
 * board-metrics.
 *
 *   board-synth [-b BLOCKS] [-k cube|vector|mix] [-r REPLAYS] [-n COUNT] SOC DIR
 *
 * SOC is 910B, 310P or A5.  Counter slot i of every record holds COUNT + i
 * (default 1001); cube records count 20000 cycles, vector ones 10000 (310P
 * and A5: 50000); the task runs from tick 30000 to 40000 on 910B, 60000 to
 * 70000 on the others.  Defaults: 1 block, mix (310P: AI Core), every
 * replay of the chip's list (910B 10, 310P 7, A5 6). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum fmt { A2, P310, A5 };

static void put16(unsigned char *p, unsigned v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
}

static void put64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void die(const char *what, const char *path)
{
	fprintf(stderr, "board-synth: %s: %s: %s\n", path, what, strerror(errno));
	exit(1);
}

static FILE *create(const char *dir, const char *name)
{
	char path[4096];
	FILE *f;
	snprintf(path, sizeof path, "%s/%s", dir, name);
	if (!(f = fopen(path, "wb")))
		die("cannot create", path);
	return f;
}

static void done(FILE *f, const char *name)
{
	if (fclose(f) != 0)
		die("cannot write", name);
}

/* One block PMU record. */
static void pmu_rec(unsigned char *p, enum fmt fmt, int vector, unsigned core, unsigned block, unsigned sub,
                    uint64_t count)
{
	unsigned i;
	memset(p, 0, 128);
	switch (fmt) {
	case A2:
		put16(p + 20, (unsigned)vector | (core & 0x7f) << 1);
		put16(p + 28, sub);
		put16(p + 30, block);
		put64(p + 32, vector ? 10000 : 20000);
		for (i = 0; i < 8; i++)
			put64(p + 48 + 8 * i, count + i);
		put64(p + 112, 30000);
		put64(p + 120, 40000);
		break;
	case P310:
		put64(p + 16, 50000);
		for (i = 0; i < 8; i++)
			put64(p + 32 + 8 * i, count + i);
		break;
	case A5:
		put16(p, 0x29);
		put64(p + 8, 50000);
		put16(p + 20, (unsigned)vector | (core & 0xff) << 8);
		put16(p + 24, sub);
		put16(p + 26, block);
		for (i = 0; i < 10; i++)
			put64(p + 32 + 8 * i, count + i);
		put64(p + 112, 60000);
		put64(p + 120, 70000);
		break;
	}
}

int main(int argc, char **argv)
{
	static unsigned char buf[1 << 16];
	const char *soc, *dir, *kind = "mix";
	unsigned long blocks = 1, replays = 0, b, k;
	uint64_t count = 1001;
	enum fmt fmt;
	char name[64];
	size_t n = 0;
	FILE *f;
	int c;

	while ((c = getopt(argc, argv, "b:k:r:n:")) != -1) {
		switch (c) {
		case 'b': blocks = strtoul(optarg, NULL, 10); break;
		case 'k': kind = optarg; break;
		case 'r': replays = strtoul(optarg, NULL, 10); break;
		case 'n': count = strtoull(optarg, NULL, 10); break;
		default:
			fprintf(stderr, "usage: board-synth [-b BLOCKS] [-k cube|vector|mix] [-r REPLAYS] [-n COUNT] SOC DIR\n");
			return 2;
		}
	}
	if (argc - optind != 2) {
		fprintf(stderr, "usage: board-synth [-b BLOCKS] [-k cube|vector|mix] [-r REPLAYS] [-n COUNT] SOC DIR\n");
		return 2;
	}
	soc = argv[optind];
	dir = argv[optind + 1];
	if (!strcmp(soc, "910B")) {
		fmt = A2;
		soc = "Ascend910B4";
	} else if (!strcmp(soc, "310P")) {
		fmt = P310;
		soc = "Ascend310P3";
	} else if (!strcmp(soc, "A5")) {
		fmt = A5;
		soc = "Ascend950PR_9589";
	} else {
		fprintf(stderr, "board-synth: SOC is 910B, 310P or A5\n");
		return 2;
	}
	if (!replays)
		replays = fmt == A2 ? 10 : fmt == P310 ? 7 : 6;
	if (mkdir(dir, 0777) < 0 && errno != EEXIST)
		die("cannot create", dir);

	f = create(dir, "op_basic_info.txt");
	fprintf(f, "Op Name=add\nBlock Dim=%lu\nRun Soc Version=%s\nDevice Id=0\nPid=4242\n"
	        "Current Freq=N/A\nRated Freq=%s\nIs MC2=0\nIs Lccl=0\nHas Simt=0\n", blocks, soc,
	        fmt == A2 ? "1650" : fmt == P310 ? "1060" : "1650");
	done(f, "op_basic_info.txt");

	for (k = 1; k <= replays; k++) {
		snprintf(name, sizeof name, "DeviceProf%lu.bin", k);
		f = create(dir, name);
		for (b = 0; b < blocks; b++) {
			int cube = fmt == P310 || strcmp(kind, "vector"), vec = fmt != P310 && strcmp(kind, "cube");
			int mix = vec && cube;
			if (n + 3 * 128 > sizeof buf) {
				if (fwrite(buf, 1, n, f) != n)
					die("cannot write", name);
				n = 0;
			}
			if (vec) {
				pmu_rec(buf + n, fmt, 1, (unsigned)b, (unsigned)b, 0, count);
				n += 128;
				if (mix) {
					pmu_rec(buf + n, fmt, 1, (unsigned)b, (unsigned)b, 1, count);
					n += 128;
				}
			}
			if (cube) {
				pmu_rec(buf + n, fmt, 0, (unsigned)b, (unsigned)b, 0, count);
				n += 128;
			}
		}
		if (fwrite(buf, 1, n, f) != n)
			die("cannot write", name);
		n = 0;
		done(f, name);
	}

	f = create(dir, "duration.bin");
	{
		size_t size = fmt == A5 ? 32 : 64;
		unsigned char s[64];
		for (k = 0; k < 2; k++) {
			memset(s, 0, sizeof s);
			if (fmt == P310)
				s[0] = (unsigned char)k;
			else
				put16(s, (unsigned)k);
			put64(s + 8, (fmt == A2 ? 30000 : 60000) + 10000 * k);
			if (fwrite(s, 1, size, f) != size)
				die("cannot write", "duration.bin");
		}
	}
	done(f, "duration.bin");

	if (fmt != A5) {
		unsigned char l2[72] = { 0 };
		for (k = 0; k < 8; k++)
			put64(l2 + 8 + 8 * k, count + k);
		f = create(dir, "L2Cache.bin");
		if (fwrite(l2, 1, sizeof l2, f) != sizeof l2)
			die("cannot write", "L2Cache.bin");
		done(f, "L2Cache.bin");
	}
	return 0;
}
