/* The application of the preload library's tests and benchmark: registers
 * its own executable as a "device binary" (its ELF symbol table names the
 * kernels add_custom and mul_custom) and launches them.
 *   inject-app [-n LAUNCHES] [-k add|mul|both] [-c CALLS] [-f] [-x] [-e STATUS] [ARG...]
 * -a launches add_custom through the ACL calls instead, -c makes CALLS rtGetDevice calls (the span benchmark), -f forks a child
 * that launches too, -x crashes after the launches, -e exits with STATUS;
 * -k long launches a kernel with a 300-character name; -F marks the binary
 * as compiled without a target (e_flags 0x810000, the A2 fix-up case).
 * -C FILE closes every descriptor above 2, writes FILE (likely on a number
 * the library used) and makes more calls: FILE must hold only "mine";
 * the remaining arguments are printed one per line (argv pass-through). */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct { uint32_t magic, version; const void *data; uint64_t length; } bin_t;
int32_t rtGetDevice(int32_t *);
int32_t rtSetDevice(int32_t);
int32_t rtStreamCreate(void **, int32_t);
int32_t rtStreamSynchronize(void *);
int32_t rtDevBinaryRegister(const bin_t *, void **);
int32_t rtFunctionRegister(void *, const void *, const char *, const void *, uint32_t);
int32_t rtKernelLaunch(const void *, uint32_t, void *, uint32_t, void *, void *);
int aclrtBinaryLoadFromData(const void *, size_t, const void *, void **);
int aclrtBinaryGetFunction(void *, const char *, void **);
int aclrtLaunchKernel(void *, uint32_t, const void *, size_t, void *);
int aclrtSynchronizeStream(void *);

#define LONGNAME \
	long_kernel_name_0123456789_0123456789_0123456789_0123456789_0123456789_0123456789_0123456789_\
0123456789_0123456789_0123456789_0123456789_0123456789_0123456789_0123456789_0123456789_0123456789_\
0123456789_0123456789_0123456789_0123456789_0123456789_0123456789_0123456789_0123456789_0123456789_end
#define STR_(x) #x
#define STR(x) STR_(x)
void add_custom(void);
void mul_custom(void);
void LONGNAME(void);
void add_custom(void) {}
void mul_custom(void) {}
void LONGNAME(void) {}
static char stub_add, stub_mul, stub_long;
static long calls;

static void *caller(void *arg)
{
	int32_t d;
	long k;
	(void)arg;
	for (k = 0; k < calls; k++)
		rtGetDevice(&d);
	return NULL;
}

int main(int argc, char **argv)
{
	int n = 1, opt, forkit = 0, crash = 0, status = 0, i, acl = 0, threads = 1;
	const char *closer = NULL;
	int noarch = 0;
	const char *which = "add";
	void *h, *s;
	bin_t bin;
	FILE *f;
	static char elf[1 << 22];
	while ((opt = getopt(argc, argv, "an:k:c:t:fxe:C:F")) != -1) {
		switch (opt) {
		case 'a': acl = 1; break;
		case 'n': n = atoi(optarg); break;
		case 'k': which = optarg; break;
		case 'c': calls = atol(optarg); break;
		case 't': threads = atoi(optarg); break;
		case 'C': closer = optarg; break;
		case 'F': noarch = 1; break;
		case 'f': forkit = 1; break;
		case 'x': crash = 1; break;
		case 'e': status = atoi(optarg); break;
		default: return 2;
		}
	}
	for (i = optind; i < argc; i++)
		printf("arg: %s\n", argv[i]);
	fflush(stdout);
	if (calls) {
		struct timespec a, b;
		pthread_t t[64];
		if (threads < 1 || threads > 64)
			return 2;
		clock_gettime(CLOCK_MONOTONIC, &a);
		for (i = 1; i < threads; i++)
			pthread_create(&t[i], NULL, caller, NULL);
		caller(NULL);
		for (i = 1; i < threads; i++)
			pthread_join(t[i], NULL);
		clock_gettime(CLOCK_MONOTONIC, &b);
		printf("%ld calls: %.1f ns per call\n", calls * threads,
		       ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / (double)(calls * threads));
		if (closer) {
			int fd;
			for (fd = 3; fd < 1024; fd++)
				close(fd);
			fd = open(closer, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (fd < 0 || write(fd, "mine\n", 5) != 5)
				return 6;
			caller(NULL);
			close(fd);
		}
		if (n == 0)
			return 0;
	}
	f = fopen("/proc/self/exe", "rb");
	if (!f)
		return 3;
	bin.length = fread(elf, 1, sizeof elf, f);
	fclose(f);
	if (noarch) {
		uint32_t fl = 0x810000;
		memcpy(elf + 48, &fl, 4);
	}
	bin.magic = 0x41415246u;
	bin.version = 0;
	bin.data = elf;
	if (acl) {
		void *bh, *fh;
		if (aclrtBinaryLoadFromData(elf, bin.length, NULL, &bh) || aclrtBinaryGetFunction(bh, "add_custom", &fh))
			return 5;
		for (i = 0; i < n; i++) {
			aclrtLaunchKernel(fh, 3, NULL, 0, NULL);
			aclrtSynchronizeStream(NULL);
		}
		return status;
	}
	rtSetDevice(0);
	rtStreamCreate(&s, 0);
	if (rtDevBinaryRegister(&bin, &h))
		return 4;
	rtFunctionRegister(h, &stub_add, "add_custom", "add_custom", 0);
	rtFunctionRegister(h, &stub_mul, "mul_custom", "mul_custom", 0);
	rtFunctionRegister(h, &stub_long, STR(LONGNAME), STR(LONGNAME), 0);
	if (forkit && fork() == 0) {
		rtKernelLaunch(&stub_mul, 2, NULL, 0, NULL, s);
		rtStreamSynchronize(s);
		_exit(0);
	}
	for (i = 0; i < n; i++) {
		if (!strcmp(which, "long")) {
			rtKernelLaunch(&stub_long, 1, NULL, 0, NULL, s);
			continue;
		}
		if (strcmp(which, "mul"))
			rtKernelLaunch(&stub_add, 2, NULL, 0, NULL, s);
		if (strcmp(which, "add"))
			rtKernelLaunch(&stub_mul, 1, NULL, 0, NULL, s);
		rtStreamSynchronize(s);
	}
	if (forkit)
		wait(NULL);
	if (crash)
		raise(SIGSEGV);
	return status;
}
