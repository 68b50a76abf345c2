/* Unit tests of sim-capture's --config reader (cmd/sim-capture/config.c):
 * a JSON kernel description translated to kernel_config.bin.  A bad
 * description ends the process (one line, exit status 2), so each case
 * runs config_translate in a child and looks at its status, its message
 * and the file it wrote.
 *
 *   make build/liboptrace.a
 *   cc -std=c11 -D_GNU_SOURCE -Ilib -Icmd/sim-capture -g -o /tmp/test_config \
 *       test/unit/test_config.c cmd/sim-capture/config.c build/liboptrace.a -lcjson -llz4 -lm
 *
 * Works in a private directory under $TMPDIR (or /tmp), removed at the end. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "capture.h"
#include "unit.h"

/* config_translate over text in a child: its exit status (-1 if it did
 * not exit); its stderr in msg, kernel_config.bin in bin ("" if none). */
static int translate(const char *text, char *msg, size_t msgcap, char *bin, size_t bincap)
{
	const char *json = unit_path("c.json"), *err = unit_path("stderr"), *out = unit_path("kernel_config.bin");
	char path[1200];
	pid_t pid;
	int st;
	size_t n;
	char *b;

	unit_write_file(json, text, strlen(text));
	unlink(out);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		exit(2);
	}
	if (pid == 0) {
		int fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(fd, 2);
		_exit(config_translate(json, unit_dir, path, sizeof path));
	}
	if (waitpid(pid, &st, 0) != pid)
		exit(2);
	b = unit_read_file(err, &n);
	snprintf(msg, msgcap, "%.*s", b ? (int)n : 0, b ? b : "");
	free(b);
	b = unit_read_file(out, &n);
	snprintf(bin, bincap, "%.*s", b ? (int)n : 0, b ? b : "");
	free(b);
	unlink(err);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

#define DESC(shape)                                                                                 \
	"{\"kernel_name\":\"k\",\"kernel_path\":\"c.json\",\"mode\":\"ca\","                          \
	"\"magic\":\"RT_DEV_BINARY_MAGIC_ELF\",\"test_cases\":[{\"param_desc\":[{\"param_type\":"     \
	"\"output\",\"name\":\"o\",\"type\":\"uint8\",\"shape\":" shape "}]}]}"

/* blockdim and device_id past an int: refused before the conversion
 * (found by fuzz_config: device_id 066666666666). */
static void test_ints(void)
{
	char msg[512], bin[4096];
	CHECK_INT(translate("{\"kernel_name\":\"k\",\"kernel_path\":\"c.json\",\"mode\":\"ca\",\"device_id\":066666666666,"
	                    "\"magic\":\"RT_DEV_BINARY_MAGIC_ELF\",\"test_cases\":[{\"param_desc\":[{\"param_type\":"
	                    "\"output\",\"name\":\"o\",\"type\":\"uint8\",\"shape\":[8]}]}]}", msg, sizeof msg, bin, sizeof bin), 2);
	CHECK_MSG(strstr(msg, "\"device_id\" should be an integer from 0 to 65535") != NULL, "message: %s", msg);
	CHECK_INT(translate("{\"kernel_name\":\"k\",\"kernel_path\":\"c.json\",\"mode\":\"ca\",\"blockdim\":1e300,"
	                    "\"magic\":\"RT_DEV_BINARY_MAGIC_ELF\",\"test_cases\":[{\"param_desc\":[{\"param_type\":"
	                    "\"output\",\"name\":\"o\",\"type\":\"uint8\",\"shape\":[8]}]}]}", msg, sizeof msg, bin, sizeof bin), 2);
	CHECK_MSG(strstr(msg, "\"blockdim\" should be an integer from 1 to 65535") != NULL, "message: %s", msg);
	CHECK_MSG(bin[0] == 0, "nothing written: %s", bin);
}

static void test_shape(void)
{
	char msg[512], bin[4096];

	CHECK_INT(translate(DESC("[8,2048]"), msg, sizeof msg, bin, sizeof bin), 0);
	CHECK_MSG(strstr(bin, "\"output_size\":\"16384\"") != NULL, "output_size 16384 in %s", bin);

	/* 2^32 x 2^32 bytes wrapped to 0 in 64 bits and passed a size test */
	CHECK_INT(translate(DESC("[4294967296,4294967296]"), msg, sizeof msg, bin, sizeof bin), 2);
	CHECK_MSG(strstr(msg, "tensor o: its shape is larger than 1 GiB") != NULL, "message: %s", msg);
	CHECK_MSG(bin[0] == 0, "nothing written: %s", bin);
	/* 2^34 x 2^30 wraps to 0 too */
	CHECK_INT(translate(DESC("[17179869184,1073741824]"), msg, sizeof msg, bin, sizeof bin), 2);
	CHECK_MSG(strstr(msg, "larger than 1 GiB") != NULL, "message: %s", msg);
	/* 4 GiB of uint8 (8 GiB as float16) was taken, and the launcher then
	 * held it in memory and wrote it out: one line naming the file and
	 * the tensor, nothing written */
	CHECK_INT(translate(DESC("[2,2147483648]"), msg, sizeof msg, bin, sizeof bin), 2);
	CHECK_MSG(!strcmp(msg, "test_config: c.json: tensor o: its shape is larger than 1 GiB\n") ||
	              (strstr(msg, "c.json: tensor o: its shape is larger than 1 GiB\n") && !strchr(msg, '\n')[1]),
	          "one line naming the file and the tensor: %s", msg);
	CHECK_MSG(bin[0] == 0, "nothing written: %s", bin);
	/* the largest tensor allowed, and one byte more */
	CHECK_INT(translate(DESC("[1024,1024,1024]"), msg, sizeof msg, bin, sizeof bin), 0);
	CHECK_INT(translate(DESC("[1073741825]"), msg, sizeof msg, bin, sizeof bin), 2);
	CHECK_INT(translate(DESC("[2,536870913]"), msg, sizeof msg, bin, sizeof bin), 2);
}

/* A kernel_config.bin is taken as it is, once every value is a string. */
static void test_bin(void)
{
	static const char ok[] = "{\"bin_path\":\"/k.o\",\"block_dim\":\"8\",\"kernel_name\":\"add\"}";
	static const char num[] = "{\"bin_path\":\"/k.o\",\"device_id\": 0,\"kernel_name\":\"add\"}";
	static const char nest[] = "{\"bin_path\":\"/k.o\",\"kernel_name\":\"add\",\"x\":{}}";
	char msg[512], bin[4096];

	CHECK_INT(translate(ok, msg, sizeof msg, bin, sizeof bin), 0);
	CHECK_MSG(!strcmp(bin, ok), "copied as it is: %s", bin);
	CHECK_INT(translate(num, msg, sizeof msg, bin, sizeof bin), 2);
	CHECK_MSG(strstr(msg, "\"device_id\" should be a string") != NULL, "message: %s", msg);
	CHECK_MSG(bin[0] == 0, "nothing written: %s", bin);
	CHECK_INT(translate(nest, msg, sizeof msg, bin, sizeof bin), 2);
	CHECK_MSG(strstr(msg, "\"x\" should be a string") != NULL, "message: %s", msg);
	/* its sizes are held to the same cap as a description's */
	static const char big[] = "{\"bin_path\":\"/k.o\",\"kernel_name\":\"add\",\"input_path\":\"n;/i\","
	                          "\"input_size\":\"0;8589934592\"}";
	static const char bigw[] = "{\"bin_path\":\"/k.o\",\"kernel_name\":\"add\",\"workspace_size\":\"1073741825\"}";
	static const char badn[] = "{\"bin_path\":\"/k.o\",\"kernel_name\":\"add\",\"output_size\":\"8;x\"}";
	static const char fine[] = "{\"bin_path\":\"/k.o\",\"kernel_name\":\"add\",\"output_size\":\"8;1073741824\","
	                           "\"tiling_data_path\":\"/t.bin;8\"}";
	CHECK_INT(translate(big, msg, sizeof msg, bin, sizeof bin), 2);
	CHECK_MSG(strstr(msg, "c.json: \"input_size\": a size is larger than 1 GiB") != NULL, "message: %s", msg);
	CHECK_MSG(bin[0] == 0, "nothing written: %s", bin);
	CHECK_INT(translate(bigw, msg, sizeof msg, bin, sizeof bin), 2);
	CHECK_MSG(strstr(msg, "\"workspace_size\": a size is larger than 1 GiB") != NULL, "message: %s", msg);
	CHECK_INT(translate(badn, msg, sizeof msg, bin, sizeof bin), 2);
	CHECK_MSG(strstr(msg, "\"output_size\" should be sizes in bytes") != NULL, "message: %s", msg);
	CHECK_INT(translate(fine, msg, sizeof msg, bin, sizeof bin), 0);
}

int main(void)
{
	unit_workdir("test_config");
	test_ints();
	test_shape();
	test_bin();
	unlink(unit_path("c.json"));
	unlink(unit_path("kernel_config.bin"));
	rmdir(unit_dir);
	return unit_done();
}
