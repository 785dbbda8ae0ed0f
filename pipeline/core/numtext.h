/* numtext: numbers as text on the journal's hot path, faster than printf
 * and byte for byte what printf writes. */
#ifndef GPUDSE_NUMTEXT_H
#define GPUDSE_NUMTEXT_H

#include <stddef.h>

/* Room for any number these functions write, with its NUL. */
#define NUM_TEXT_MAX 32

/* v as printf("%.17g") writes it: 17 significant digits, which always read
 * back as the same double. Exact integer arithmetic for the magnitudes
 * results have (about 1e-6 to 1e22); other values go through snprintf.
 * Returns the length written to out (room for NUM_TEXT_MAX). */
size_t num_g17(double v, char *out);

/* v with the fewest significant digits (at most 17) that read back as
 * the same double (strtod), round half to even: laid out like %.17g (an
 * integer below 1e17 is written as an integer, plain decimals from 1e-4,
 * else d.ddde[+-]XX); NaN and infinities as printf's %g. Returns the
 * length written to out (room for NUM_TEXT_MAX). */
size_t num_short(double v, char *out);

/* i as printf("%d") writes it; returns the length. */
size_t num_int(int i, char *out);

#endif
