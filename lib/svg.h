/* A streaming SVG writer over a struct wr (lib/io.h): elements are written
 * as they are made, never held as a tree.
 *
 * Numbers are formatted here, not by printf, so a tool that sets a locale
 * still writes "1.5" and never "1,5"; texts are escaped for both element
 * content and attribute values. */
#ifndef OPTRACE_SVG_H
#define OPTRACE_SVG_H

#include <stdarg.h>
#include <stddef.h>

struct wr;

#define SVG_NUM_MAX 40

/* v rounded to at most decimals (0-9) places, trailing zeros dropped:
 * "12", "0.5", "-3.25"; "-0" prints as "0", NaN and infinities as "0";
 * magnitudes of 10^15 and more in the form "1.5e15".  Into buf
 * (SVG_NUM_MAX bytes); returns the length. */
size_t svg_fixed(char *buf, double v, int decimals);
/* v to sig (1-9) significant digits: "0.032", "1.2", "540", "1.2e6"
 * (exponent form from 10^6 up and below 10^-4). */
size_t svg_sig(char *buf, double v, int sig);

/* s with & < > " ' as character references. */
void svg_esc(struct wr *w, const char *s);

/* A formatted piece of SVG.  Conversions: %n a double as a coordinate
 * (svg_fixed, 2 places), %g a double to 3 significant digits (svg_sig),
 * %d an int, %s a text (escaped), %r a raw string (markup made by the
 * caller), %% a percent sign. */
void svg_put(struct wr *w, const char *fmt, ...);
void svg_vput(struct wr *w, const char *fmt, va_list ap);

/* The XML declaration and the root element of a width x height picture
 * (with a white background), and its end. */
void svg_begin(struct wr *w, double width, double height, const char *title);
void svg_end(struct wr *w);

/* A text element at (x, y) with the given raw attributes (class, anchor). */
void svg_text(struct wr *w, double x, double y, const char *attrs, const char *text);

/* A colour on a scale from light yellow (t = 0) to dark red (t = 1), as
 * "#rrggbb" into buf (8 bytes); whether text on it should be white. */
int svg_heat_colour(double t, char buf[8]);

#endif
