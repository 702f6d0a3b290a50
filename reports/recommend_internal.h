/*
 * reports/recommend_internal.h - what the files of `axbench recommend`
 * share: a list of borrowed result rows, a row's role parameters as
 * typed fields, the {value, basis, confidence, reason} setting and its
 * citation of a result, and the ingest rules (recommend_ingest.c) that
 * recommend.c calls.  Not a public interface; only reports/recommend*.c
 * include it.
 *
 * The helpers are static inline so that each file keeps the short names
 * it had when there was one file, and no link-level name is added for
 * them.
 */
#ifndef AX_RECOMMEND_INTERNAL_H
#define AX_RECOMMEND_INTERNAL_H

#include "core/db_rows.h"
#include "core/params.h"

#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Rows borrowed from the caller's struct ax_db_results (the list frees
 * only its array). */
struct ax_rec_rows {
	const struct ax_db_result_row **v;
	size_t n, cap;
};

/* Append r; false when out of memory (the rule then sees fewer rows). */
static inline bool rows_add(struct ax_rec_rows *l,
			    const struct ax_db_result_row *r)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		const struct ax_db_result_row **v =
		    realloc(l->v, cap * sizeof(*v));
		if (!v)
			return false;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = r;
	return true;
}

static inline void rows_free(struct ax_rec_rows *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static inline double median(const struct ax_db_result_row *r)
{
	return r->median;
}

/* Do a and b store the same parameters, but for key (NULL: none)? */
static inline bool same_params_but(const struct ax_db_result_row *a,
				   const struct ax_db_result_row *b,
				   const char *key)
{
	const struct ax_db_params *pa = &a->params, *pb = &b->params;
	int na = 0, nb = 0;
	for (int i = 0; i < pa->n; i++) {
		if (key && !strcmp(pa->v[i].name, key))
			continue;
		const struct ax_db_param *w =
		    ax_db_param_find(pb, pa->v[i].name);
		if (!w || !ax_db_param_equal(&pa->v[i], w))
			return false;
		na++;
	}
	for (int i = 0; i < pb->n; i++)
		nb += !(key && !strcmp(pb->v[i].name, key));
	return na == nb;
}

/* {value, basis, confidence, reason}; steals value and basis. */
static inline json_t *setting(json_t *value, json_t *basis, const char *conf,
			      const char *reason)
{
	return json_pack("{s:o, s:o, s:s?, s:s?}", "value",
			 value ? value : json_null(), "basis",
			 basis ? basis : json_null(), "confidence", conf,
			 "reason", reason);
}

/* A setting that nothing measured: null value and basis, and why. */
static inline json_t *unmeasured(const char *reason)
{
	return setting(NULL, NULL, NULL, reason);
}

/* A text as the document shows it: null when not stored. */
static inline json_t *text_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

/* A figure as the document shows it: null when not measured. */
static inline json_t *num_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* A stored result as a basis cites it: id, suite, value, unit and
 * parameters, as `results --json` shows them (core/db_json.c). */
static inline json_t *cite(const struct ax_db_result_row *r)
{
	return json_pack("{s:I, s:o, s:o, s:o, s:o}", "result_id",
			 (json_int_t)r->id, "suite", text_or_null(r->suite),
			 "value", num_or_null(r->median), "unit",
			 text_or_null(r->unit), "params",
			 ax_db_params_json(&r->params, r->params_doc));
}

/*
 * The data-loading settings of one device from its ingest-role results
 * (ok results with a number; any list, empty too): a new object with
 * loader_threads, prefetch_depth, read_chunk, io_mode (settings) and
 * storage (the note of which stage bounds loading), in that order.  Where
 * no ingest result counts, every one is null with the ingest run to do as
 * its reason and *measured is false, so that the caller falls back to its
 * transfer rules for loader_threads and prefetch_depth.
 */
json_t *ax_rec_ingest_loading(const struct ax_rec_rows *ingest, bool *measured);

/*
 * Zero-copy or staging (recommend_zerocopy.c), from zerocopy-role results
 * (any list): an array with one verdict per access pattern and size
 * (pattern, size, choice: a setting "zero-copy" / "staged", path: the
 * winning path, speedup: winner over loser), or an unmeasured setting
 * with the run to do when there are none.
 */
json_t *ax_rec_zerocopy(const struct ax_rec_rows *zc);

#endif
