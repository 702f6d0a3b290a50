/*
 * core/suggest.h - "did you mean": the candidate nearest to what was
 * typed, by edit distance with transpositions ("rnu" is one edit from
 * "run"), when it is near enough to be a typo: at most a third of the
 * typed length, at least 1, at most 3 edits.  Used by option parsing,
 * suite and parameter names and every config reader's unknown keys.
 */
#ifndef AX_SUGGEST_H
#define AX_SUGGEST_H

#include <stddef.h>

/* Feed candidates with ax_suggest_add, then read best (NULL when none is
 * close). */
struct ax_suggest {
	const char *typed;
	const char *best;
	int distance;
};

void ax_suggest_init(struct ax_suggest *s, const char *typed);
void ax_suggest_add(struct ax_suggest *s, const char *candidate);
/* "; did you mean 'X'?" or "" (a static or borrowed string). */
const char *ax_suggest_text(const struct ax_suggest *s, char *buf, size_t len);

#endif
