/* The custom dot names of the AI-Core timeline (--custom-input JSON; see
 * aicts.h).  Apart from aicts.c so that only the tools that read the file
 * link cJSON. */
#include "aicts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "mem.h"

static void skip(unsigned *skipped, char *msg, size_t size, const char *fmt, const char *key)
{
	if (!(*skipped)++)
		snprintf(msg, size, fmt, key);
}

int aicts_names_parse(struct aicts_names *c, const char *text, size_t len, unsigned *skipped, char *msg,
                      size_t size)
{
	cJSON *root = cJSON_ParseWithLength(text, len), *cfg, *bt, *map, *it;
	size_t count = 0;
	*skipped = 0;
	if (!root || !cJSON_IsObject(root)) {
		snprintf(msg, size, "not a JSON object");
		cJSON_Delete(root);
		return -1;
	}
	cfg = cJSON_GetObjectItemCaseSensitive(root, "mc2_trace_config");
	if (!cfg) {
		cJSON_Delete(root);
		return 0;
	}
	if ((bt = cJSON_GetObjectItemCaseSensitive(cfg, "enable_block_time"))) {
		if (cJSON_IsBool(bt))
			c->block_time = cJSON_IsTrue(bt);
		else
			skip(skipped, msg, size, "%s must be a boolean (true kept)", "enable_block_time");
	}
	map = cJSON_GetObjectItemCaseSensitive(cfg, "descid_display");
	if (map && !cJSON_IsObject(map)) {
		skip(skipped, msg, size, "%s must be an object", "descid_display");
		map = NULL;
	}
	cJSON_ArrayForEach(it, map)
		count++;
	if (count > AICTS_NAMES_MAX) {
		skip(skipped, msg, size, "%s has more than 1024 entries: none taken", "descid_display");
		map = NULL;
	}
	cJSON_ArrayForEach(it, map) {
		struct aicts_name *e = NULL;
		uint64_t id;
		size_t i;
		if (aicts_desc_key(it->string, &id)) {
			skip(skipped, msg, size, "descid_display key \"%s\" is not a decimal or 0x hex number", it->string);
			continue;
		}
		if (!cJSON_IsString(it)) {
			skip(skipped, msg, size, "descid_display \"%s\": the name must be a string", it->string);
			continue;
		}
		if (!aicts_name_ok(it->valuestring)) {
			skip(skipped, msg, size,
			     "descid_display \"%s\": the name must be 1 to 64 of letters, digits, '-', '_' and space",
			     it->string);
			continue;
		}
		/* one id named twice ("16" and "0x10"): the reference takes its
		 * entries in key order, the last one staying */
		for (i = 0; i < c->n; i++)
			if (c->v[i].id == id)
				e = &c->v[i];
		if (e && strcmp(it->string, e->key) < 0)
			continue;
		if (!e) {
			c->v = xreallocarray(c->v, c->n + 1, sizeof *c->v);
			e = &c->v[c->n++];
		}
		e->id = id;
		snprintf(e->name, sizeof e->name, "%s", it->valuestring);
		snprintf(e->key, sizeof e->key, "%.23s", it->string);
	}
	cJSON_Delete(root);
	return 0;
}
