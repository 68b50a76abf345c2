#include "chip.h"

#include <string.h>
#include <strings.h>

/* The names are spelled as the reference's SoC table spells them (a few
 * A5 names end in a lower-case letter); they are looked up without regard
 * to case.  Clocks from the reference's CLOCK_SPEED_SERIES_MAP; entries
 * without a listed clock (A3, 910B4-1, ...) use the 1850 MHz default, as it
 * does. */
static const struct chip table[] = {
	{ "Ascend910B1", CHIP_A2, 1850 },
	{ "Ascend910B2", CHIP_A2, 1800 },
	{ "Ascend910B2C", CHIP_A2, 1800 },
	{ "Ascend910B3", CHIP_A2, 1800 },
	{ "Ascend910B4", CHIP_A2, 1650 },
	{ "Ascend910B4-1", CHIP_A2, 1850 },
	{ "Ascend910_9391", CHIP_A3, 1850 },
	{ "Ascend910_9392", CHIP_A3, 1850 },
	{ "Ascend910_9381", CHIP_A3, 1850 },
	{ "Ascend910_9382", CHIP_A3, 1850 },
	{ "Ascend910_9372", CHIP_A3, 1850 },
	{ "Ascend910_9362", CHIP_A3, 1850 },
	/* Newer than the reference's table, a sibling of 9362 in CANN's. */
	{ "Ascend910_9363", CHIP_A3, 1850 },
	{ "Ascend310P1", CHIP_310P, 1060 },
	{ "Ascend310P2", CHIP_310P, 1060 },
	{ "Ascend310P3", CHIP_310P, 1060 },
	{ "Ascend310P4", CHIP_310P, 1060 },
	{ "Ascend310P5", CHIP_310P, 800 },
	{ "Ascend310P7", CHIP_310P, 550 },
	{ "Ascend310B1", CHIP_310B, 1224 },
	{ "Ascend310B2", CHIP_310B, 1224 },
	{ "Ascend310B3", CHIP_310B, 1224 },
	{ "Ascend310B4", CHIP_310B, 500 },
	{ "Ascend950DT_950x", CHIP_A5, 1650 },
	{ "Ascend950DT_950y", CHIP_A5, 1650 },
	{ "Ascend950PR_950z", CHIP_A5, 1650 },
	{ "Ascend950DT_9571", CHIP_A5, 1650 },
	{ "Ascend950DT_9572", CHIP_A5, 1650 },
	{ "Ascend950DT_9573", CHIP_A5, 1650 },
	{ "Ascend950DT_9574", CHIP_A5, 1650 },
	{ "Ascend950DT_9575", CHIP_A5, 1650 },
	{ "Ascend950DT_9576", CHIP_A5, 1650 },
	{ "Ascend950DT_9577", CHIP_A5, 1650 },
	{ "Ascend950DT_9578", CHIP_A5, 1650 },
	{ "Ascend950PR_9579", CHIP_A5, 1650 },
	{ "Ascend950PR_957b", CHIP_A5, 1650 },
	{ "Ascend950PR_957c", CHIP_A5, 1650 },
	{ "Ascend950PR_957d", CHIP_A5, 1650 },
	{ "Ascend950DT_9581", CHIP_A5, 1650 },
	{ "Ascend950DT_9582", CHIP_A5, 1650 },
	{ "Ascend950DT_9583", CHIP_A5, 1650 },
	{ "Ascend950DT_9584", CHIP_A5, 1650 },
	{ "Ascend950DT_9585", CHIP_A5, 1650 },
	{ "Ascend950DT_9586", CHIP_A5, 1650 },
	{ "Ascend950DT_9587", CHIP_A5, 1650 },
	{ "Ascend950DT_9588", CHIP_A5, 1650 },
	{ "Ascend950PR_9589", CHIP_A5, 1650 },
	{ "Ascend950PR_958b", CHIP_A5, 1650 },
	{ "Ascend950DT_9591", CHIP_A5, 1800 },
	{ "Ascend950DT_9592", CHIP_A5, 1800 },
	{ "Ascend950DT_9595", CHIP_A5, 1800 },
	{ "Ascend950DT_9596", CHIP_A5, 1800 },
	{ "Ascend950PR_9599", CHIP_A5, 1800 },
	{ "Ascend950DT_95A1", CHIP_A5, 1800 },
	{ "Ascend950DT_95A2", CHIP_A5, 1800 },
	/* The simulator directory name of the A5 family. */
	{ "dav_3510", CHIP_A5, 1850 },
};

const struct chip *chip_find(const char *soc)
{
	static const struct chip unknown = { "unknown", CHIP_UNKNOWN, 1850 };
	size_t i;
	if (!soc)
		soc = CHIP_DEFAULT_SOC;
	for (i = 0; i < sizeof table / sizeof table[0]; i++)
		if (!strcasecmp(table[i].soc, soc))
			return &table[i];
	return &unknown;
}

const char *chip_family_name(enum chip_family f)
{
	static const char *const names[] = { "A2", "A3", "A5", "310P", "310B", "unknown" };
	return names[f];
}
