#include "svg.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "io.h"

/* Decimal digits of u into buf, returns the count. */
static size_t put_u64(char *buf, uint64_t u)
{
	char tmp[24];
	size_t n = 0, len;
	do {
		tmp[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	for (len = 0; len < n; len++)
		buf[len] = tmp[n - 1 - len];
	return len;
}

static size_t put_exp(char *buf, double v, int sig)
{
	int e = (int)floor(log10(fabs(v)));
	double m = v / pow(10, e);
	size_t n;
	char tmp[SVG_NUM_MAX];
	/* the mantissa may round up to 10 */
	svg_fixed(tmp, m, sig - 1);
	if (!strcmp(tmp, "10") || !strcmp(tmp, "-10")) {
		e++;
		m /= 10;
	}
	n = svg_fixed(buf, m, sig - 1);
	buf[n++] = 'e';
	if (e < 0) {
		buf[n++] = '-';
		e = -e;
	}
	n += put_u64(buf + n, (uint64_t)e);
	buf[n] = 0;
	return n;
}

size_t svg_fixed(char *buf, double v, int decimals)
{
	static const double pow10[] = { 1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9 };
	double scaled, ip;
	uint64_t whole, frac;
	size_t n = 0;
	if (!isfinite(v)) {
		memcpy(buf, "0", 2);
		return 1;
	}
	if (fabs(v) >= 1e15)
		return put_exp(buf, v, 6);
	if (decimals < 0)
		decimals = 0;
	if (decimals > 9)
		decimals = 9;
	scaled = round(fabs(v) * pow10[decimals]);
	if (scaled >= 9e18) { /* too many places for the integer: fewer */
		decimals = 0;
		scaled = round(fabs(v));
	}
	frac = (uint64_t)fmod(scaled, pow10[decimals]);
	ip = (scaled - (double)frac) / pow10[decimals];
	whole = (uint64_t)ip;
	while (decimals > 0 && frac % 10 == 0) {
		frac /= 10;
		decimals--;
	}
	if (v < 0 && (whole || frac))
		buf[n++] = '-';
	n += put_u64(buf + n, whole);
	if (decimals > 0) {
		char digits[24];
		size_t k = put_u64(digits, frac);
		buf[n++] = '.';
		for (size_t z = k; z < (size_t)decimals; z++)
			buf[n++] = '0';
		memcpy(buf + n, digits, k);
		n += k;
	}
	buf[n] = 0;
	return n;
}

size_t svg_sig(char *buf, double v, int sig)
{
	int e;
	if (sig < 1)
		sig = 1;
	if (sig > 9)
		sig = 9;
	if (!isfinite(v) || v == 0)
		return svg_fixed(buf, 0, 0);
	e = (int)floor(log10(fabs(v)));
	if (e >= 6 || e < -4)
		return put_exp(buf, v, sig);
	return svg_fixed(buf, v, sig - 1 - e > 0 ? sig - 1 - e : 0);
}

void svg_esc(struct wr *w, const char *s)
{
	const char *run = s;
	for (; *s; s++) {
		const char *ref;
		switch (*s) {
		case '&': ref = "&amp;"; break;
		case '<': ref = "&lt;"; break;
		case '>': ref = "&gt;"; break;
		case '"': ref = "&quot;"; break;
		case '\'': ref = "&#39;"; break;
		default:
			/* control characters other than tab and newline are not
			 * allowed in XML 1.0 at all */
			if ((unsigned char)*s < 0x20 && *s != '\t' && *s != '\n')
				ref = " ";
			else
				continue;
		}
		wr_put(w, run, (size_t)(s - run));
		wr_puts(w, ref);
		run = s + 1;
	}
	wr_put(w, run, (size_t)(s - run));
}

void svg_vput(struct wr *w, const char *fmt, va_list ap)
{
	char num[SVG_NUM_MAX];
	const char *run = fmt;
	for (; *fmt; fmt++) {
		if (*fmt != '%')
			continue;
		wr_put(w, run, (size_t)(fmt - run));
		switch (*++fmt) {
		case 'n':
			wr_put(w, num, svg_fixed(num, va_arg(ap, double), 2));
			break;
		case 'g':
			wr_put(w, num, svg_sig(num, va_arg(ap, double), 3));
			break;
		case 'd': {
			int d = va_arg(ap, int);
			wr_put(w, num, svg_fixed(num, d, 0));
			break;
		}
		case 's':
			svg_esc(w, va_arg(ap, const char *));
			break;
		case 'r':
			wr_puts(w, va_arg(ap, const char *));
			break;
		case '%':
			wr_putc(w, '%');
			break;
		default: /* a mistake of the caller's: shown, not hidden */
			wr_putc(w, '%');
			if (!*fmt)
				return;
			wr_putc(w, *fmt);
		}
		run = fmt + 1;
	}
	wr_put(w, run, (size_t)(fmt - run));
}

void svg_put(struct wr *w, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	svg_vput(w, fmt, ap);
	va_end(ap);
}

void svg_begin(struct wr *w, double width, double height, const char *title)
{
	svg_put(w,
	        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%n\" height=\"%n\" viewBox=\"0 0 %n %n\" "
	        "font-family=\"sans-serif\" font-size=\"12\">\n"
	        "<title>%s</title>\n"
	        "<rect x=\"0\" y=\"0\" width=\"%n\" height=\"%n\" fill=\"#ffffff\"/>\n",
	        width, height, width, height, title, width, height);
}

void svg_end(struct wr *w)
{
	wr_puts(w, "</svg>\n");
}

void svg_text(struct wr *w, double x, double y, const char *attrs, const char *text)
{
	svg_put(w, "<text x=\"%n\" y=\"%n\"%r%r>%s</text>\n", x, y, *attrs ? " " : "", attrs, text);
}

int svg_heat_colour(double t, char buf[8])
{
	/* yellow, orange, red, dark red */
	static const unsigned char stop[5][3] = {
		{ 255, 255, 204 }, { 254, 217, 118 }, { 253, 141, 60 }, { 227, 26, 28 }, { 128, 0, 38 },
	};
	static const char hex[] = "0123456789abcdef";
	double pos, f;
	unsigned i, c[3];
	if (!(t > 0))
		t = 0;
	if (t > 1)
		t = 1;
	pos = t * 4;
	i = pos >= 4 ? 3 : (unsigned)pos;
	f = pos - i;
	buf[0] = '#';
	for (int k = 0; k < 3; k++) {
		c[k] = (unsigned)lround(stop[i][k] + (stop[i + 1][k] - stop[i][k]) * f);
		buf[1 + 2 * k] = hex[c[k] >> 4];
		buf[2 + 2 * k] = hex[c[k] & 15];
	}
	buf[7] = 0;
	/* perceived brightness (ITU-R BT.601 weights) */
	return 299 * c[0] + 587 * c[1] + 114 * c[2] < 140000;
}
