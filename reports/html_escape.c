/* reports/html_escape.c - escaping for HTML, XML, Markdown and JSON. */
#include "reports/html_escape.h"

#include <stdlib.h>
#include <string.h>

/* Reference for one byte, or NULL when it can be written as it is. */
static const char *html_ref(unsigned char c)
{
	switch (c) {
	case '&':
		return "&amp;";
	case '<':
		return "&lt;";
	case '>':
		return "&gt;";
	case '"':
		return "&quot;";
	case '\'':
		return "&#39;";
	case '\t':
	case '\n':
	case '\r':
		return NULL;
	}
	/* XML 1.0 forbids the other C0 controls even as references. */
	if (c < 0x20 || c == 0x7f)
		return "\xef\xbf\xbd";
	return NULL;
}

static const char *md_ref(unsigned char c)
{
	switch (c) {
	case '|':
		return "&#124;";
	case '*':
		return "&#42;";
	case '_':
		return "&#95;";
	case '`':
		return "&#96;";
	case '[':
		return "&#91;";
	case ']':
		return "&#93;";
	case '\\':
		return "&#92;";
	case '\n':
	case '\r':
		return " "; /* a newline would end the table row */
	}
	return html_ref(c);
}

void ax_html_escape(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		const char *r = html_ref((unsigned char)*s);
		if (r)
			fputs(r, f);
		else
			fputc(*s, f);
	}
}

void ax_md_escape(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		const char *r = md_ref((unsigned char)*s);
		if (r)
			fputs(r, f);
		else
			fputc(*s, f);
	}
}

char *ax_html_escape_str(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	ax_html_escape(f, s);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

char *ax_json_for_html(const json_t *doc)
{
	char *raw = json_dumps(doc, JSON_COMPACT | JSON_SORT_KEYS);
	if (!raw)
		return NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f) {
		free(raw);
		return NULL;
	}
	for (const unsigned char *p = (const unsigned char *)raw; *p; p++) {
		/* Outside strings these bytes never occur in compact JSON,
		 * so escaping every occurrence is always valid JSON. */
		if (*p == '<')
			fputs("\\u003c", f);
		else if (*p == '>')
			fputs("\\u003e", f);
		else if (*p == '&')
			fputs("\\u0026", f);
		else if (p[0] == 0xe2 && p[1] == 0x80 &&
			 (p[2] == 0xa8 || p[2] == 0xa9)) {
			fputs(p[2] == 0xa8 ? "\\u2028" : "\\u2029", f);
			p += 2;
		} else
			fputc(*p, f);
	}
	free(raw);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}
