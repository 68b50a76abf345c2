/* Unit tests of the SoC table (lib/chip.c): every name of the reference's
 * SoC table is found, in any case, and gives the table's own spelling, its
 * family and clock; unknown names are unknown.
 *
 * Prints one line per failing check, then "N passed, N failed"; exits 0 only
 * when nothing failed. */
#include "chip.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "unit.h"

/* The reference's SoC names the simulator flow supports, with the family
 * and clock it gives them, and Ascend910_9363 of newer CANN tables. */
static const struct chip want[] = {
	{ "Ascend910B1", CHIP_A2, 1850 }, { "Ascend910B2", CHIP_A2, 1800 },
	{ "Ascend910B2C", CHIP_A2, 1800 }, { "Ascend910B3", CHIP_A2, 1800 },
	{ "Ascend910B4", CHIP_A2, 1650 }, { "Ascend910B4-1", CHIP_A2, 1850 },
	{ "Ascend910_9391", CHIP_A3, 1850 }, { "Ascend910_9392", CHIP_A3, 1850 },
	{ "Ascend910_9381", CHIP_A3, 1850 }, { "Ascend910_9382", CHIP_A3, 1850 },
	{ "Ascend910_9372", CHIP_A3, 1850 }, { "Ascend910_9362", CHIP_A3, 1850 },
	{ "Ascend910_9363", CHIP_A3, 1850 },
	{ "Ascend310P1", CHIP_310P, 1060 }, { "Ascend310P2", CHIP_310P, 1060 },
	{ "Ascend310P3", CHIP_310P, 1060 }, { "Ascend310P4", CHIP_310P, 1060 },
	{ "Ascend310P5", CHIP_310P, 800 }, { "Ascend310P7", CHIP_310P, 550 },
	{ "Ascend310B1", CHIP_310B, 1224 }, { "Ascend310B2", CHIP_310B, 1224 },
	{ "Ascend310B3", CHIP_310B, 1224 }, { "Ascend310B4", CHIP_310B, 500 },
	{ "Ascend950DT_950x", CHIP_A5, 1650 }, { "Ascend950DT_950y", CHIP_A5, 1650 },
	{ "Ascend950DT_9571", CHIP_A5, 1650 }, { "Ascend950DT_9572", CHIP_A5, 1650 },
	{ "Ascend950DT_9573", CHIP_A5, 1650 }, { "Ascend950DT_9574", CHIP_A5, 1650 },
	{ "Ascend950DT_9575", CHIP_A5, 1650 }, { "Ascend950DT_9576", CHIP_A5, 1650 },
	{ "Ascend950DT_9577", CHIP_A5, 1650 }, { "Ascend950DT_9578", CHIP_A5, 1650 },
	{ "Ascend950DT_9581", CHIP_A5, 1650 }, { "Ascend950DT_9582", CHIP_A5, 1650 },
	{ "Ascend950DT_9583", CHIP_A5, 1650 }, { "Ascend950DT_9584", CHIP_A5, 1650 },
	{ "Ascend950DT_9585", CHIP_A5, 1650 }, { "Ascend950DT_9586", CHIP_A5, 1650 },
	{ "Ascend950DT_9587", CHIP_A5, 1650 }, { "Ascend950DT_9588", CHIP_A5, 1650 },
	{ "Ascend950DT_9591", CHIP_A5, 1800 }, { "Ascend950DT_9592", CHIP_A5, 1800 },
	{ "Ascend950DT_9595", CHIP_A5, 1800 }, { "Ascend950DT_9596", CHIP_A5, 1800 },
	{ "Ascend950DT_95A1", CHIP_A5, 1800 }, { "Ascend950DT_95A2", CHIP_A5, 1800 },
	{ "Ascend950PR_950z", CHIP_A5, 1650 }, { "Ascend950PR_9579", CHIP_A5, 1650 },
	{ "Ascend950PR_957b", CHIP_A5, 1650 }, { "Ascend950PR_957c", CHIP_A5, 1650 },
	{ "Ascend950PR_957d", CHIP_A5, 1650 }, { "Ascend950PR_9589", CHIP_A5, 1650 },
	{ "Ascend950PR_958b", CHIP_A5, 1650 }, { "Ascend950PR_9599", CHIP_A5, 1800 },
};

int main(void)
{
	size_t i, k;

	for (i = 0; i < sizeof want / sizeof want[0]; i++) {
		char up[32], low[32];
		const struct chip *c = chip_find(want[i].soc);
		for (k = 0; want[i].soc[k] && k < sizeof up - 1; k++) {
			up[k] = (char)toupper((unsigned char)want[i].soc[k]);
			low[k] = (char)tolower((unsigned char)want[i].soc[k]);
		}
		up[k] = low[k] = 0;
		CHECK(!strcmp(c->soc, want[i].soc));
		if (strcmp(c->soc, want[i].soc))
			printf("  %s -> %s\n", want[i].soc, c->soc);
		CHECK(c->family == want[i].family && c->mhz == want[i].mhz);
		CHECK(chip_find(up) == c);
		CHECK(chip_find(low) == c);
	}
	CHECK(chip_find("dav_3510")->family == CHIP_A5);
	CHECK(!strcmp(chip_find(NULL)->soc, CHIP_DEFAULT_SOC));
	CHECK(chip_find("")->family == CHIP_UNKNOWN);
	CHECK(chip_find("Ascend910B")->family == CHIP_UNKNOWN);
	CHECK(chip_find("Ascend910B1 ")->family == CHIP_UNKNOWN);
	CHECK(chip_find("Ascend910B1;touch x")->family == CHIP_UNKNOWN);
	CHECK(chip_find("Ascend910B1;touch x")->mhz == 1850);
	return unit_done();
}
