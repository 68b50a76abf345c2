/* lib/aicts.c and lib/aicnames.c: aic_timestamp.bin records, the block-id
 * formats, the custom dot names, and a small timeline. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aicts.h"
#include "io.h"
#include "json.h"
#include "unit.h"

static void put(unsigned char *p, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> 8 * i);
}

static void rec(unsigned char *p, uint64_t t, uint32_t block, uint32_t desc, uint64_t pc)
{
	put(p, t, 8);
	put(p + 8, block, 4);
	put(p + 12, desc, 4);
	put(p + 16, pc, 8);
}

/* The reference's examples: block id 0 is an AIC block, 1638400
 * (physical 25) and 1703937 (physical 26, logical 1) AIV blocks. */
static void test_block_ids(void)
{
	struct aicts_rec v[3];
	unsigned char b[24];
	rec(b, 100, 0, 0x10000, 0x10);
	aicts_decode(b, &v[0]);
	CHECK_INT(v[0].syscyc, 100);
	CHECK_INT(v[0].desc_id, 0x10000);
	CHECK_INT(v[0].pc, 0x10);
	rec(b, 101, 1638400, 0x10000, 0);
	aicts_decode(b, &v[1]);
	rec(b, 102, 1703937, 0x10000, 0);
	aicts_decode(b, &v[2]);
	CHECK(aicts_new_format(v, 3, 0, 0));
	aicts_classify(v, 3, CHIP_A2, 1);
	CHECK_INT(v[0].cube, 1);
	CHECK_INT(v[0].block, 0);
	CHECK_INT(v[1].cube, 0);
	CHECK_INT(v[1].block, 0);
	CHECK_INT(v[2].cube, 0);
	CHECK_INT(v[2].block, 1);
	/* A5: physical 17 cube, 18 vector, 54 cube, 72 vector */
	v[0].block_id = 17u << 16;
	v[1].block_id = 18u << 16;
	v[2].block_id = 54u << 16 | 3;
	aicts_classify(v, 3, CHIP_A5, 1);
	CHECK_INT(v[0].cube, 1);
	CHECK_INT(v[1].cube, 0);
	CHECK_INT(v[2].cube, 1);
	CHECK_INT(v[2].block, 3);
	/* old format: ids from 50 are cube blocks */
	v[0].block_id = 52;
	v[1].block_id = 3;
	CHECK(!aicts_new_format(v, 2, 2, 2));
	aicts_classify(v, 2, CHIP_A2, 0);
	CHECK_INT(v[0].cube, 1);
	CHECK_INT(v[0].block, 2);
	CHECK_INT(v[1].cube, 0);
	CHECK_INT(v[1].block, 3);
	/* one cube block alone: an id up to 50 means the new format */
	v[0].block_id = 50;
	CHECK(aicts_new_format(v, 1, 1, 0));
	v[0].block_id = 51;
	CHECK(!aicts_new_format(v, 1, 1, 0));
}

static void test_keys(void)
{
	uint64_t id = 0;
	CHECK_INT(aicts_desc_key("65536", &id), 0);
	CHECK_INT(id, 65536);
	CHECK_INT(aicts_desc_key("0x10", &id), 0);
	CHECK_INT(id, 16);
	CHECK_INT(aicts_desc_key("0x10001", &id), 0);
	CHECK_INT(id, 65537);
	CHECK_INT(aicts_desc_key("0X10002", &id), 0);
	CHECK_INT(id, 65538);
	CHECK_INT(aicts_desc_key("0x", &id), -1);
	CHECK_INT(aicts_desc_key("", &id), -1);
	CHECK_INT(aicts_desc_key("abc", &id), -1);
	CHECK_INT(aicts_desc_key("12a", &id), -1);
	CHECK_INT(aicts_desc_key("0xg", &id), -1);
	CHECK_INT(aicts_desc_key("99999999999999999999", &id), -1);
	CHECK(aicts_name_ok("matmul phase-1_x"));
	CHECK(!aicts_name_ok(""));
	CHECK(!aicts_name_ok("a.b"));
	CHECK(!aicts_name_ok("\"q\""));
	CHECK(aicts_name_ok("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"));   /* 64 */
	CHECK(!aicts_name_ok("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")); /* 65 */
}

static void test_names(void)
{
	struct aicts_names c;
	unsigned skipped;
	char msg[300];
	const char *j = "{\"mc2_trace_config\":{\"enable_block_time\":false,\"descid_display\":{"
	                "\"65536\":\"first\",\"0x10\":\"sixteen\",\"0x10001\":\"second one\",\"0X10002\":\"third\","
	                "\"zz\":\"skipped\",\"0x\":\"skipped\",\"7\":\"bad.name\",\"8\":8}}}";
	aicts_names_init(&c);
	CHECK_INT(aicts_names_parse(&c, j, strlen(j), &skipped, msg, sizeof msg), 0);
	CHECK_INT(c.block_time, 0);
	CHECK_INT(c.n, 4);
	CHECK_INT(skipped, 4);
	CHECK_MSG(strstr(msg, "\"zz\"") != NULL, "msg: %s", msg);
	CHECK(!strcmp(aicts_name_of(&c, 65536), "first"));
	CHECK(!strcmp(aicts_name_of(&c, 16), "sixteen"));
	CHECK(!strcmp(aicts_name_of(&c, 65537), "second one"));
	CHECK(!strcmp(aicts_name_of(&c, 65538), "third"));
	CHECK(aicts_name_of(&c, 7) == NULL);
	aicts_names_free(&c);
	/* enable_block_time not a boolean: kept true, counted */
	j = "{\"mc2_trace_config\":{\"enable_block_time\":1}}";
	aicts_names_init(&c);
	CHECK_INT(aicts_names_parse(&c, j, strlen(j), &skipped, msg, sizeof msg), 0);
	CHECK_INT(c.block_time, 1);
	CHECK_INT(skipped, 1);
	aicts_names_free(&c);
	/* no mc2_trace_config: nothing */
	j = "{\"other\":1}";
	aicts_names_init(&c);
	CHECK_INT(aicts_names_parse(&c, j, strlen(j), &skipped, msg, sizeof msg), 0);
	CHECK_INT(c.n + skipped, 0);
	CHECK_INT(aicts_names_parse(&c, "[1", 2, &skipped, msg, sizeof msg), -1);
	aicts_names_free(&c);
}

/* A file cut short: whole records kept, the partial one named. */
static void test_file(void)
{
	unsigned char b[24 * 3 + 5];
	void *v;
	size_t n;
	uint64_t dropped;
	char msg[300];
	int rc;
	unit_workdir("aicts");
	rec(b, 10, 0, 0x10000, 0);
	rec(b + 24, 20, 0, 0x10000, 0);
	rec(b + 48, 5, 0, 0x10000, 0);
	unit_write_file(unit_path("a.bin"), b, sizeof b);
	rc = aicts_read(unit_path("a.bin"), AICTS_REC_SIZE, 8, &v, &n, &dropped, msg, sizeof msg);
	CHECK_INT(rc, 1);
	CHECK_INT(n, 2);
	CHECK_INT(dropped, 1);
	CHECK_MSG(strstr(msg, "record 3 (byte 72) cut short: 5 of 24 bytes") != NULL, "msg: %s", msg);
	free(v);
	CHECK_INT(aicts_read(unit_path("none.bin"), AICTS_REC_SIZE, 0, &v, &n, &dropped, msg, sizeof msg), -1);
	CHECK_MSG(strstr(msg, "cannot open") != NULL, "msg: %s", msg);
}

/* A cube block [100, 200] with a dot pair inside, one outside, one
 * unpaired; the MC2 API names. */
static void test_timeline(void)
{
	struct aicts_block blk = { 0, BOARD_CUBE, 0, 100, 200 };
	struct aicts_blocks b = { &blk, 1, 1, 1, 0 };
	struct aicts_rec v[5] = {
		{ 110, 0, 0x10000, 0x40, 0, 0 }, { 150, 0, 0x10000, 0x44, 0, 0 },
		{ 150, 0, 0x10001, 0x48, 0, 0 }, { 250, 0, 0x10001, 0x4c, 0, 0 },
		{ 160, 0, 0x10002, 0x50, 0, 0 },
	};
	struct aicts_run run = { .kind = AICTS_PLAIN, .min = 100, .task_start = 100, .task_us = 2.0f, .khz = 50000,
	                         .blocks = &b };
	struct aicts_stats st;
	struct json J;
	struct wr *w;
	char *text;
	size_t n;
	const char *cname;
	aicts_classify(v, 5, CHIP_A2, 1);
	w = wr_open(unit_path("t.json"), 0);
	json_init(&J, w);
	json_begin_array(&J);
	aicts_emit(&J, &run, v, 5, &st);
	json_close_all(&J);
	CHECK_INT(wr_close(w), 0);
	CHECK_INT(st.lanes, 1);
	CHECK_INT(st.dots, 1);
	CHECK_INT(st.outside, 1);
	CHECK_INT(st.unpaired, 1);
	text = unit_read_file(unit_path("t.json"), &n);
	CHECK_MSG(strstr(text, "\"dur\":2,\"name\":\"cube time\",\"ph\":\"X\",\"pid\":\"BLOCK\",\"tid\":\"core0.cubecore0\","
	                       "\"ts\":0}") != NULL, "%s", text);
	CHECK_MSG(strstr(text, "{\"args\":{\"code\":\"\",\"name\":\"65536\",\"pc_addr\":\"0x00000040\"},\"cname\":"
	                       "\"thread_state_runnable\",\"dur\":0.8,\"name\":\"65536\"") != NULL, "%s", text);
	CHECK_MSG(strstr(text, "\"name\":\"AI_CORE\"") != NULL, "%s", text);
	free(text);
	CHECK(!strcmp(aicts_mc2_api(0x1000, &cname), "INIT"));
	CHECK(!strcmp(cname, "thread_state_iowait"));
	CHECK(!strcmp(aicts_mc2_api(0x1141, NULL), "ALL_TO_ALL_V_PREPARE"));
	CHECK(!strcmp(aicts_mc2_api(0x1063, NULL), "GET_WINDOW_OUT"));
	CHECK(aicts_mc2_api(0x1070, NULL) == NULL);
	CHECK(aicts_mc2_api(0x10000, NULL) == NULL);
}

int main(void)
{
	test_block_ids();
	test_keys();
	test_names();
	test_file();
	test_timeline();
	return unit_done();
}
