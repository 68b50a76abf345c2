/* The SoC table: which family a SoC string belongs to and its clock. */
#ifndef OPTRACE_CHIP_H
#define OPTRACE_CHIP_H

enum chip_family { CHIP_A2, CHIP_A3, CHIP_A5, CHIP_310P, CHIP_310B, CHIP_UNKNOWN };

struct chip {
	const char *soc;        /* as the user writes it, e.g. "Ascend910B1" */
	enum chip_family family;
	unsigned mhz;           /* AI Core clock used to turn ticks into time */
};

/* Look a SoC string up, without regard to case (NULL = CHIP_DEFAULT_SOC);
 * the entry's soc is the table's spelling.  Unknown strings give family
 * CHIP_UNKNOWN and the reference's default clock (1850 MHz).  Never NULL. */
const struct chip *chip_find(const char *soc);
const char *chip_family_name(enum chip_family f);
/* The SoC assumed when none is given. */
#define CHIP_DEFAULT_SOC "Ascend910B1"

#endif
