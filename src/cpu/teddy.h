/*
 * teddy.h - what the teddy engine (teddy.c) shows beyond its hay_engine:
 * its limit and a test hook that forces one of its block loops.
 */
#ifndef HAY_TEDDY_H
#define HAY_TEDDY_H

#include "haystack.h"

/* The most literals teddy takes; a larger set is refused with
 * HAY_ERR_TOO_LARGE (use dfa or ac). */
#define HAY_TEDDY_MAX_LITERALS 64

/*
 * Test hook: makes a set compiled with algo "teddy" run the block loop
 * named `isa` ("avx2", "ssse3" or "scalar") from now on.  Call it before
 * any scan, never while one runs.  HAY_ERR_INVALID when the set is not a
 * teddy set or the name is unknown, HAY_ERR_UNSUPPORTED when this CPU
 * lacks the instructions.  hay_teddy_isa() names the loop in use.
 */
hay_status hay_teddy_select_isa(hay_patterns *set, const char *isa);
const char *hay_teddy_isa(const hay_patterns *set);

#endif
