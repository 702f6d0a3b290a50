/* core/text.c - stored text for terminals and JSON (see text.h). */
#include "core/text.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/*
 * The length (1-4) of the valid UTF-8 sequence at s, storing its code
 * point in *cp; 0 when the byte at s does not start one (a stray
 * continuation byte, an overlong form, a surrogate, past U+10FFFF, or a
 * sequence cut short).  The ranges are RFC 3629's table.
 */
static int utf8_next(const unsigned char *s, uint32_t *cp)
{
	unsigned char c = s[0];
	int n;
	unsigned char lo = 0x80, hi = 0xbf; /* allowed second byte */
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, *cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, *cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, *cp = c & 0x07;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	for (int i = 1; i < n; i++) {
		unsigned char b = s[i];
		if (i == 1 ? (b < lo || b > hi) : (b & 0xc0) != 0x80)
			return 0;
		*cp = (*cp << 6) | (b & 0x3f);
	}
	return n;
}

/* Code points a terminal must not receive raw. */
static bool needs_escape(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0x061c ||
	       cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069);
}

/* The terminal form of the character at p into piece: its bytes, or an
 * escape.  Sets *n to the bytes consumed; returns the piece's length, and
 * whether it was escaped in *escaped. */
static size_t term_piece(const unsigned char *p, char piece[16], int *n,
			 bool *escaped)
{
	uint32_t cp;
	*n = utf8_next(p, &cp);
	*escaped = true;
	if (*n == 0) {
		*n = 1;
		return (size_t)snprintf(piece, 16, "\\x%02x", *p);
	}
	if (needs_escape(cp))
		return (size_t)snprintf(
		    piece, 16, cp < 0x80 ? "\\x%02x" : "\\u%04x", (unsigned)cp);
	*escaped = false;
	memcpy(piece, p, (size_t)*n);
	return (size_t)*n;
}

const char *ax_text_term(const char *s, char *buf, size_t len)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t used = 0;
	bool changed = false;
	if (len == 0)
		return "";
	buf[0] = '\0';
	while (*p) {
		char piece[16];
		int n;
		bool escaped;
		size_t plen = term_piece(p, piece, &n, &escaped);
		if (used + plen >= len)
			break; /* cut short, never inside an escape */
		memcpy(buf + used, piece, plen);
		used += plen;
		buf[used] = '\0';
		changed |= escaped;
		p += n;
	}
	return changed || *p ? buf : (s ? s : "");
}

const char *ax_term(const char *s)
{
	enum { N_BUFS = 8, BUF_LEN = 1024 };
	static char bufs[N_BUFS][BUF_LEN];
	static int next;
	char *buf = bufs[next];
	next = (next + 1) % N_BUFS;
	return ax_text_term(s, buf, BUF_LEN);
}

int ax_text_check_plain(const char *s, size_t max_chars, char *why, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t chars = 0;
	while (*p) {
		uint32_t cp;
		int n = utf8_next(p, &cp);
		chars++;
		if (n == 0) {
			snprintf(why, len,
				 "is not valid UTF-8 (byte 0x%02x at byte %zu)",
				 *p,
				 (size_t)(p - (const unsigned char *)s) + 1);
			return -1;
		}
		if (needs_escape(cp)) {
			snprintf(why, len,
				 cp < 0x80 ? "holds the control character "
					     "\\x%02x (character %zu)"
					   : "holds the control character "
					     "\\u%04x (character %zu)",
				 (unsigned)cp, chars);
			return -1;
		}
		p += n;
	}
	if (chars == 0) {
		snprintf(why, len, "is empty");
		return -1;
	}
	if (chars > max_chars) {
		snprintf(why, len, "has %zu characters", chars);
		return -1;
	}
	return 0;
}

size_t ax_text_chars(const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t chars = 0;
	while (*p) {
		uint32_t cp;
		int n = utf8_next(p, &cp);
		p += n ? n : 1;
		chars++;
	}
	return chars;
}

char *ax_text_utf8_repair(const char *s, size_t *n_bad)
{
	static const char fffd[] = "\xef\xbf\xbd";
	const unsigned char *p = (const unsigned char *)s;
	size_t bad = 0, len = strlen(s);
	/* Each invalid byte grows to three. */
	char *out = malloc(3 * len + 1), *o = out;
	if (!out)
		return NULL;
	while (*p) {
		uint32_t cp;
		int n = utf8_next(p, &cp);
		if (n == 0) {
			memcpy(o, fffd, 3);
			o += 3;
			p++;
			bad++;
			continue;
		}
		memcpy(o, p, (size_t)n);
		o += n;
		p += n;
	}
	*o = '\0';
	if (n_bad)
		*n_bad = bad;
	return out;
}

/* The warning, for the first few repairs of the process only: a database
 * full of such text would otherwise bury the output. */
static void warn_repaired(const char *what, size_t n_bad)
{
	enum { MAX_WARNINGS = 5 };
	static int warned;
	if (warned < MAX_WARNINGS)
		fprintf(stderr,
			"axbench: warning: %s is not valid UTF-8; %zu byte%s "
			"replaced by U+FFFD\n",
			what ? what : "stored text", n_bad,
			n_bad == 1 ? "" : "s");
	else if (warned == MAX_WARNINGS)
		fprintf(stderr, "axbench: warning: more stored text is not "
				"valid UTF-8; replaced by U+FFFD without "
				"further warnings\n");
	warned++;
}

static bool utf8_valid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		uint32_t cp;
		int n = utf8_next(p, &cp);
		if (n == 0)
			return false;
		p += n;
	}
	return true;
}

const char *ax_text_repaired(const char *s, const char *what, char **fixed)
{
	*fixed = NULL;
	if (!s || utf8_valid(s))
		return s;
	size_t bad = 0;
	*fixed = ax_text_utf8_repair(s, &bad);
	if (!*fixed)
		return NULL; /* out of memory */
	warn_repaired(what, bad);
	return *fixed;
}

json_t *ax_text_json_string(const char *s, const char *what)
{
	if (!s)
		return json_null();
	json_t *j = json_string(s);
	if (j)
		return j;
	size_t bad = 0;
	char *fixed = ax_text_utf8_repair(s, &bad);
	j = fixed ? json_string(fixed) : NULL;
	free(fixed);
	if (!j)
		return json_null(); /* out of memory */
	warn_repaired(what, bad);
	return j;
}

json_t *ax_text_json_loads(const char *s, size_t flags, const char *what)
{
	if (!s)
		return json_null();
	json_error_t e;
	json_t *j = json_loads(s, flags, &e);
	if (j)
		return j;
	size_t bad = 0;
	char *fixed = ax_text_utf8_repair(s, &bad);
	if (fixed && bad)
		j = json_loads(fixed, flags, &e);
	free(fixed);
	if (!j)
		return json_null();
	warn_repaired(what, bad);
	return j;
}

const char *ax_text_percent(double p, int decimals, char *buf, size_t len)
{
	/* Rounded as printed: 999.96 is "1000%", not "1000.0%". */
	if (!isfinite(p) || p < 0)
		snprintf(buf, len, "-");
	else if (decimals > 0 && p < 999.95)
		snprintf(buf, len, "%.1f%%", p);
	else if (p < 99999.5)
		snprintf(buf, len, "%.0f%%", p);
	else
		snprintf(buf, len, ">99999%%");
	return buf;
}

int ax_text_columns(int fd)
{
	struct winsize ws;
	if (isatty(fd) && ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	const char *env = getenv("COLUMNS");
	char *end;
	long cols = env && *env ? strtol(env, &end, 10) : 0;
	return cols > 0 && cols < 100000 && !*end ? (int)cols : 0;
}

void ax_text_fit(char *s, int cols)
{
	if (cols <= 0 || !s)
		return;
	unsigned char *p = (unsigned char *)s;
	int chars = 0;
	unsigned char *last = p; /* where the cols-th character starts */
	while (*p) {
		if (chars == cols - 1)
			last = p;
		uint32_t cp;
		int n = utf8_next(p, &cp);
		p += n ? n : 1;
		if (++chars > cols) {
			last[0] = '~';
			last[1] = '\0';
			return;
		}
	}
}
