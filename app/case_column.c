/* app/case_column.c - the case column of a table (see case_column.h). */
#include "app/case_column.h"
#include "core/error.h"
#include "core/params.h"
#include "suites/registry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ax_case_column_init(struct ax_case_column *c, bool full)
{
	memset(c, 0, sizeof(*c));
	c->full = full;
}

/* The next space-separated token of *s as [*tok, *tok + returned len). */
static size_t next_token(const char **s, const char **tok)
{
	while (**s == ' ')
		(*s)++;
	*tok = *s;
	while (**s && **s != ' ')
		(*s)++;
	return (size_t)(*s - *tok);
}

/* Whether the token (len bytes) is NAME=VALUE with VALUE suite's current
 * default for NAME; false for anything it cannot tell. */
static bool at_default(const struct ax_suite *suite, const char *tok,
		       size_t len)
{
	const char *eq = memchr(tok, '=', len);
	if (!suite || !eq)
		return false;
	size_t name_len = (size_t)(eq - tok);
	for (int i = 0; i < suite->n_params; i++) {
		const struct ax_param_def *d = &suite->params[i];
		if (strlen(d->name) != name_len ||
		    strncmp(d->name, tok, name_len))
			continue;
		char def[64];
		ax_param_format(d, d->def, def, sizeof(def));
		size_t vlen = len - name_len - 1;
		return strlen(def) == vlen && !strncmp(def, eq + 1, vlen);
	}
	return false;
}

static bool is_shown(const struct ax_case_column *c, const char *suite,
		     const char *tok, size_t len)
{
	const char *eq = memchr(tok, '=', len);
	size_t name_len = eq ? (size_t)(eq - tok) : len;
	size_t slen = strlen(suite);
	for (int i = 0; i < c->n; i++)
		if (!strncmp(c->shown[i], suite, slen) &&
		    c->shown[i][slen] == ' ' &&
		    strlen(c->shown[i] + slen + 1) == name_len &&
		    !strncmp(c->shown[i] + slen + 1, tok, name_len))
			return true;
	return false;
}

static int show(struct ax_case_column *c, const char *suite, const char *tok,
		size_t len)
{
	if (is_shown(c, suite, tok, len))
		return 0;
	const char *eq = memchr(tok, '=', len);
	size_t name_len = eq ? (size_t)(eq - tok) : len;
	if (c->n == c->cap) {
		int cap = c->cap ? 2 * c->cap : 16;
		char **v = realloc(c->shown, (size_t)cap * sizeof(*v));
		if (!v)
			return AX_ENOMEM;
		c->shown = v;
		c->cap = cap;
	}
	char *e = malloc(strlen(suite) + name_len + 2);
	if (!e)
		return AX_ENOMEM;
	sprintf(e, "%s %.*s", suite, (int)name_len, tok);
	c->shown[c->n++] = e;
	return 0;
}

int ax_case_column_add(struct ax_case_column *c, const char *suite,
		       const char *label)
{
	if (c->full)
		return 0;
	const struct ax_suite *s = suite ? ax_suite_find(suite) : NULL;
	const char *p = label ? label : "", *tok;
	size_t len;
	while ((len = next_token(&p, &tok)) > 0)
		if (!at_default(s, tok, len) &&
		    show(c, suite ? suite : "", tok, len)) {
			c->full = true;
			return AX_ENOMEM;
		}
	return 0;
}

void ax_case_column_text(struct ax_case_column *c, const char *suite,
			 const char *label, char *buf, size_t len)
{
	if (!len)
		return;
	if (c->full || !suite) {
		snprintf(buf, len, "%s", label ? label : "");
		return;
	}
	const char *p = label ? label : "", *tok;
	size_t used = 0, n;
	buf[0] = '\0';
	while ((n = next_token(&p, &tok)) > 0) {
		if (!is_shown(c, suite, tok, n)) {
			c->cut = true;
			continue;
		}
		int w = snprintf(buf + used, len - used, "%s%.*s",
				 used ? " " : "", (int)n, tok);
		if (w < 0 || (size_t)w >= len - used)
			break;
		used += (size_t)w;
	}
	if (!buf[0] && label && *label)
		snprintf(buf, len, "defaults");
}

bool ax_case_column_cut(const struct ax_case_column *c) { return c->cut; }

void ax_case_column_free(struct ax_case_column *c)
{
	for (int i = 0; i < c->n; i++)
		free(c->shown[i]);
	free(c->shown);
	memset(c, 0, sizeof(*c));
}
