/*
 * reports/recommend_internal.h - what the files of `axbench recommend`
 * share: small accessors of a stored result, the {value, basis,
 * confidence, reason} setting and its citation of a result, and the
 * ingest rules (recommend_ingest.c) that recommend.c calls.  Not a public
 * interface; only reports/recommend*.c include it.
 *
 * The accessors are static inline so that each file keeps the short names
 * it had when there was one file, and no link-level name is added for
 * them.
 */
#ifndef AX_RECOMMEND_INTERNAL_H
#define AX_RECOMMEND_INTERNAL_H

#include <jansson.h>
#include <stdbool.h>

static inline const char *str_of(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static inline double median(const json_t *r)
{
	return json_number_value(json_object_get(r, "median"));
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

/* A stored result as a basis cites it: id, suite, value as stored. */
static inline json_t *cite(const json_t *r)
{
	return json_pack(
	    "{s:O?, s:O?, s:O?, s:O?, s:O?}", "result_id",
	    json_object_get(r, "id"), "suite", json_object_get(r, "suite"),
	    "value", json_object_get(r, "median"), "unit",
	    json_object_get(r, "unit"), "params", json_object_get(r, "params"));
}

/*
 * The data-loading settings of one device from its ingest-role results
 * (ok results with a number; any array, empty too): a new object with
 * loader_threads, prefetch_depth, read_chunk, io_mode (settings) and
 * storage (the note of which stage bounds loading), in that order.  Where
 * no ingest result counts, every one is null with the ingest run to do as
 * its reason and *measured is false, so that the caller falls back to its
 * transfer rules for loader_threads and prefetch_depth.
 */
json_t *ax_rec_ingest_loading(const json_t *ingest, bool *measured);

#endif
