/* core/suggest.c - "did you mean" by edit distance. */
#include "core/suggest.h"

#include <stdio.h>
#include <string.h>

/* Edit distance with transpositions (optimal string alignment): "rnu"
 * is one edit from "run", as a typo is. */
static int edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 64 || lb > 64)
		return 99;
	int d[65][65];
	for (size_t i = 0; i <= la; i++)
		d[i][0] = (int)i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		for (size_t j = 1; j <= lb; j++) {
			int best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	}
	return d[la][lb];
}

void ax_suggest_init(struct ax_suggest *s, const char *typed)
{
	s->typed = typed;
	s->best = NULL;
	s->distance = 99;
}

void ax_suggest_add(struct ax_suggest *s, const char *candidate)
{
	int len = (int)strlen(s->typed);
	int limit = len / 3 < 1 ? 1 : len / 3 > 3 ? 3 : len / 3;
	int d = edit_distance(s->typed, candidate);
	if (d > 0 && d <= limit && d < s->distance) {
		s->best = candidate;
		s->distance = d;
	}
}

const char *ax_suggest_text(const struct ax_suggest *s, char *buf, size_t len)
{
	if (!s->best)
		return "";
	snprintf(buf, len, "; did you mean '%s'?", s->best);
	return buf;
}
