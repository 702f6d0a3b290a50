/*
 * reports/recommend_zerocopy.c - zero-copy or staging, per access pattern
 * and size, from zerocopy-role results (core/roles.h: AX_ROLE_ZEROCOPY).
 *
 * Results are grouped by every parameter but the path (the pattern, the
 * size, and reads or stride where the pattern has them); in each group
 * the best staged result is set against the best in-place one (path=host
 * or path=import), and the faster wins.  The verdict is "high" confidence
 * when the two medians' confidence intervals do not overlap, else "low"
 * with that said: a tie on this device is a tie, not a winner.
 */
#include "core/roles.h"
#include "reports/recommend_internal.h"

#include <stdio.h>

typedef struct ax_db_result_row row_t;

#define ZC_MAX_GROUPS 64

struct zc_group {
	const row_t *first;	    /* names the group (its params) */
	const row_t *staged, *zero; /* the best of each side */
	json_t *candidates;
};

static struct ax_zerocopy_point zp(const row_t *r)
{
	struct ax_zerocopy_point z;
	ax_db_role_point(AX_ROLE_ZEROCOPY, &r->params, &z);
	return z;
}

static bool faster(const row_t *a, const row_t *b)
{
	return !b || (a->higher_is_better ? a->median > b->median
					  : a->median < b->median);
}

static struct zc_group *group_of(struct zc_group *g, int *n, const row_t *r)
{
	for (int i = 0; i < *n; i++)
		if (same_params_but(g[i].first, r, "path"))
			return &g[i];
	if (*n == ZC_MAX_GROUPS)
		return NULL;
	g[*n] = (struct zc_group){.first = r, .candidates = json_array()};
	return &g[(*n)++];
}

/* The group's verdict: which path, by how much, on what basis. */
static json_t *verdict(const struct zc_group *g)
{
	struct ax_zerocopy_point z = zp(g->first);
	json_t *o = json_pack("{s:s?, s:I}", "pattern", z.pattern, "size",
			      (json_int_t)z.size);
	json_t *basis = json_pack("{s:s, s:O}", "rule",
				  "the faster of the best staged and the "
				  "best in-place (host or import) result",
				  "candidates", g->candidates);
	if (!g->staged || !g->zero) {
		json_object_set_new(
		    o, "choice",
		    setting(NULL, basis, NULL,
			    g->staged ? "no in-place result (path=host or "
					"path=import) at this point"
				      : "no path=staged result at this point"));
		return o;
	}
	bool zero_wins = faster(g->zero, g->staged);
	const row_t *win = zero_wins ? g->zero : g->staged;
	const row_t *lose = zero_wins ? g->staged : g->zero;
	double ratio = win->higher_is_better ? win->median / lose->median
					     : lose->median / win->median;
	bool apart = win->higher_is_better ? win->ci_lo > lose->ci_hi
					   : win->ci_hi < lose->ci_lo;
	const char *path = zp(win).path;
	json_object_set_new(basis, "speedup", num_or_null(ratio));
	json_object_set_new(
	    o, "choice",
	    setting(json_string(zero_wins ? "zero-copy" : "staged"), basis,
		    apart ? "high" : "low",
		    apart ? NULL
			  : "the two results' confidence "
			    "intervals overlap: a tie on "
			    "this device"));
	json_object_set_new(o, "path", text_or_null(path));
	json_object_set_new(o, "speedup", num_or_null(ratio));
	return o;
}

json_t *ax_rec_zerocopy(const struct ax_rec_rows *zc)
{
	struct zc_group g[ZC_MAX_GROUPS];
	int n = 0;
	for (size_t i = 0; i < zc->n; i++) {
		const row_t *r = zc->v[i];
		struct ax_zerocopy_point z = zp(r);
		struct zc_group *gr = z.path ? group_of(g, &n, r) : NULL;
		if (!gr)
			continue;
		json_array_append_new(gr->candidates, cite(r));
		bool staged = !strcmp(z.path, "staged");
		const row_t **side = staged ? &gr->staged : &gr->zero;
		if (faster(r, *side))
			*side = r;
	}
	if (n == 0)
		return unmeasured("no zerocopy results stored; run axbench "
				  "run zerocopy -p pattern=once,reuse,sparse "
				  "-p path=staged,host,import");
	json_t *a = json_array();
	for (int i = 0; i < n; i++) {
		json_array_append_new(a, verdict(&g[i]));
		json_decref(g[i].candidates);
	}
	return a;
}
