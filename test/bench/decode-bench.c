/* decode-bench FILE: decode every record of a binary record stream held in
 * memory, several times over, and report the decoding rate in MB/s of
 * stream per core (no I/O in the measured loop); then the same records
 * looked at where they lie (rec_view: every number read, the texts found),
 * the path of tools that patch records in place. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rec.h"

int main(int argc, char **argv)
{
	FILE *f;
	char *buf;
	long size;
	struct rec_dec d = { 0 };
	struct rec r;
	uint64_t records = 0, sum = 0;
	struct timespec t0, t1;
	int round, rounds = 5;
	double secs;

	if (argc != 2) {
		fprintf(stderr, "usage: decode-bench FILE\n");
		return 2;
	}
	f = fopen(argv[1], "rb");
	if (!f || fseek(f, 0, SEEK_END) || (size = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET)) {
		perror(argv[1]);
		return 3;
	}
	buf = malloc((size_t)size);
	if (!buf || fread(buf, 1, (size_t)size, f) != (size_t)size) {
		perror(argv[1]);
		return 4;
	}
	fclose(f);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (round = 0; round < rounds; round++) {
		const char *p = buf, *end = buf + size, *why;
		while (p < end) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
			if (rec_decode(&d, p, len, &r, &why) == DEC_OK) {
				records++;
				/* Touch a field so the work is not optimised away. */
				sum += r.n[0].u + (r.sc->nstr ? r.s[0].n : 0);
			}
			p += len + 1;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("decode: %.0f MB/s, %.1f M records/s (%llu records, checksum %llu)\n",
	       (double)size * rounds / secs / 1e6, (double)records / secs / 1e6,
	       (unsigned long long)records, (unsigned long long)(sum & 0xffff));
	records = sum = 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (round = 0; round < rounds; round++) {
		const char *p = buf, *end = buf + size;
		static struct rec_view v;
		while (p < end) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
			const struct rec_layout *l = len ? rec_layout((unsigned char)p[0]) : NULL;
			if (l && rec_view(&v, l, p, len, 1)) {
				int i;
				records++;
				for (i = 0; i < l->sc->nnum; i++)
					sum += rec_view_num(&v, i);
				sum += l->sc->nstr ? v.text_n[0] : 0;
			}
			p += len + 1;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("view:   %.0f MB/s, %.1f M records/s (%llu records, checksum %llu)\n",
	       (double)size * rounds / secs / 1e6, (double)records / secs / 1e6,
	       (unsigned long long)records, (unsigned long long)(sum & 0xffff));
	rec_dec_free(&d);
	free(buf);
	return 0;
}
