/*
 * reports/html_devices.c - several devices (issue 38): the device x device
 * copy matrix as a heat map (d2d-role results), a job shared by the
 * devices against the best of them alone (run --split: extra.split), and
 * zero-copy against staging per access pattern (zerocopy-role results).
 * Each part appears only where such results were selected.
 */
#include "reports/html_internal.h"

#include "core/db_rows.h"
#include "core/params.h"
#include "core/roles.h"
#include "reports/html_escape.h"
#include "reports/suite_doc.h"
#include "reports/svg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct ax_db_result_row row_t;

#define DEV_MAX 16

static bool has_role(const struct ax_html_ctx *c, const row_t *r, unsigned role)
{
	return r->ok && isfinite(r->median) &&
	       ax_suite_info_row_has_role(c->d->suites, r, role);
}

/* ---- the device x device matrix ---------------------------------------- */

/* A device of the matrix: by fingerprint, so twins stay apart. */
struct mdev {
	const char *fp, *name;
};

static int mdev_of(struct mdev *v, int *n, const char *fp, const char *name)
{
	for (int i = 0; i < *n; i++)
		if (!strcmp(v[i].fp, fp))
			return i;
	if (*n == DEV_MAX)
		return -1;
	v[*n] = (struct mdev){fp, name ? name : "?"};
	return (*n)++;
}

static void mdev_label(FILE *f, const struct mdev *d, int i)
{
	fprintf(f, "%d: ", i);
	ax_html_escape(f, d->name);
	fputs(" <small>[", f);
	ax_html_escape(f, d->fp);
	fputs("]</small>", f);
}

/* One matrix of path at size: the newest result per cell, coloured by
 * its share of the best (or of the slowest, for a latency). */
static void matrix(struct ax_html_ctx *c, const char *path, int64_t size,
		   bool latency)
{
	const struct ax_db_results *rs = c->d->results;
	struct mdev dev[DEV_MAX];
	int nd = 0;
	const row_t *cell[DEV_MAX][DEV_MAX] = {{0}};
	for (size_t i = 0; i < rs->n; i++) {
		const row_t *r = rs->v[i];
		struct ax_d2d_point pt;
		if (!has_role(c, r, AX_ROLE_D2D))
			continue;
		ax_db_role_point(AX_ROLE_D2D, &r->params, &pt);
		const char *peer = ax_db_extra_text(r, "peer.fingerprint");
		if (!pt.path || strcmp(pt.path, path) || pt.size != size ||
		    !peer || !r->device.fingerprint)
			continue;
		int a =
		    mdev_of(dev, &nd, r->device.fingerprint, r->device.name);
		int b =
		    mdev_of(dev, &nd, peer, ax_db_extra_text(r, "peer.name"));
		if (a >= 0 && b >= 0 && (!cell[a][b] || r->id > cell[a][b]->id))
			cell[a][b] = r;
	}
	double best = 0;
	for (int a = 0; a < nd; a++)
		for (int b = 0; b < nd; b++)
			if (cell[a][b] && cell[a][b]->median > best)
				best = cell[a][b]->median;
	FILE *f = c->f;
	char sz[32];
	snprintf(sz, sizeof(sz), "%lld", (long long)size);
	fprintf(f,
		"<h3>path=%s, %s bytes: %s</h3>\n<table class=\"heat\"><tr>"
		"<th>from \\ to</th>",
		path, sz,
		latency ? "latency, &micro;s per copy (lower is better)"
			: "bandwidth, GB/s (higher is better)");
	for (int b = 0; b < nd; b++) {
		fputs("<th>", f);
		mdev_label(f, &dev[b], b);
		fputs("</th>", f);
	}
	fputs("</tr>\n", f);
	for (int a = 0; a < nd; a++) {
		fputs("<tr><th>", f);
		mdev_label(f, &dev[a], a);
		fputs("</th>", f);
		for (int b = 0; b < nd; b++) {
			const row_t *r = cell[a][b];
			if (!r) {
				fputs("<td class=\"num\">" AX_HTML_DASH "</td>",
				      f);
				continue;
			}
			/* Lightness from the share of the best bandwidth:
			 * the fastest cell darkest, for latency too (the
			 * same copy, read as time). */
			double share = best > 0 ? r->median / best : 0;
			int light = 95 - (int)(45 * share);
			double v = latency
				       ? (double)size / (r->median * 1e9) * 1e6
				       : r->median;
			fprintf(f,
				"<td class=\"num\" style=\"background:hsl(210,"
				"70%%,%d%%);color:%s\" title=\"result %lld\">"
				"%.4g</td>",
				light, light < 60 ? "#fff" : "#111",
				(long long)r->id, v);
		}
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
}

/* The paths and the largest and smallest size of the d2d results. */
static void d2d_part(struct ax_html_ctx *c)
{
	static const char *const paths[] = {"staged", "direct"};
	const struct ax_db_results *rs = c->d->results;
	for (int p = 0; p < 2; p++) {
		int64_t lo = 0, hi = 0;
		for (size_t i = 0; i < rs->n; i++) {
			struct ax_d2d_point pt;
			if (!has_role(c, rs->v[i], AX_ROLE_D2D))
				continue;
			ax_db_role_point(AX_ROLE_D2D, &rs->v[i]->params, &pt);
			if (!pt.path || strcmp(pt.path, paths[p]))
				continue;
			if (!lo || pt.size < lo)
				lo = pt.size;
			if (pt.size > hi)
				hi = pt.size;
		}
		if (hi)
			matrix(c, paths[p], hi, false);
		if (lo && lo != hi)
			matrix(c, paths[p], lo, true);
	}
}

/* ---- a job shared by the devices ---------------------------------------- */

static bool is_split(const row_t *r)
{
	return r->ok && ax_db_extra_text(r, "split.phase") != NULL;
}

/* One chart per job (split.group and case): the job's rate per phase
 * against the best device alone, and each device's share. */
static void split_part(struct ax_html_ctx *c)
{
	const struct ax_db_results *rs = c->d->results;
	FILE *f = c->f;
	fputs("<p>A job of equal work items shared by the devices "
	      "(<code>run --split</code>): each device alone, a fixed even "
	      "split, and items taken from one queue as each device "
	      "finishes. Speed-up and efficiency are against the best "
	      "device alone.</p>\n<table><tr><th>job</th><th>phase</th>"
	      "<th>device</th><th>items done</th><th>share</th>"
	      "<th>job rate</th><th>speed-up</th><th>efficiency</th>"
	      "<th>re-queued</th></tr>\n",
	      f);
	struct ax_svg_bar bars[64];
	char labels[64][160];
	int nb = 0;
	for (size_t i = 0; i < rs->n; i++) {
		const row_t *r = rs->v[i];
		if (!is_split(r))
			continue;
		const char *phase = ax_db_extra_text(r, "split.phase");
		char job[120];
		snprintf(job, sizeof(job), "%s %.8s", r->suite,
			 ax_html_str(ax_db_extra_text(r, "split.group")));
		fputs("<tr><td>", f);
		ax_html_escape(f, job);
		fputs("</td><td>", f);
		ax_html_escape(f, phase);
		fputs("</td><td>", f);
		ax_html_escape(f, ax_html_str(r->device.name));
		fputs(" <small>[", f);
		ax_html_escape(f, ax_html_str(r->device.fingerprint));
		fputs("]</small>", f);
		fprintf(f,
			"</td><td class=\"num\">%.0f</td><td class=\"num\">"
			"%.0f%%</td><td class=\"num\">%.4g %s</td><td "
			"class=\"num\">%.2f&times;</td><td class=\"num\">"
			"%.0f%%</td><td class=\"num\">%.0f</td></tr>\n",
			ax_db_extra_num(r, "split.items_done"),
			100 * ax_db_extra_num(r, "split.share"),
			ax_db_extra_num(r, "split.job_rate"),
			ax_html_str(r->unit),
			ax_db_extra_num(r, "split.speedup"),
			100 * ax_db_extra_num(r, "split.efficiency"),
			ax_db_extra_num(r, "split.requeued"));
		/* One bar per job and shared phase: every device's row
		 * carries the job's figures, the first one's is drawn. */
		char key[160];
		snprintf(key, sizeof(key), "%s %s", job, phase);
		bool first = strcmp(phase, "alone") != 0;
		for (int b = 0; first && b < nb; b++)
			first = strcmp(labels[b], key) != 0;
		if (first && nb < 64) {
			snprintf(labels[nb], sizeof(labels[nb]), "%s", key);
			bars[nb] = (struct ax_svg_bar){
			    labels[nb],
			    0,
			    ax_db_extra_num(r, "split.speedup"),
			    NAN,
			    NAN,
			    NULL};
			nb++;
		}
	}
	fputs("</table>\n", f);
	if (nb)
		ax_svg_hbars(f,
			     "Scaling: the job's rate over the best device "
			     "alone (higher is better; 1 is no gain)",
			     "speed-up (x)", bars, nb, NULL, 0);
}

/* ---- zero-copy against staging ------------------------------------------ */

static void zerocopy_part(struct ax_html_ctx *c)
{
	const struct ax_db_results *rs = c->d->results;
	struct ax_svg_bar bars[96];
	char labels[96][200];
	int nb = 0;
	for (size_t i = 0; i < rs->n && nb < 96; i++) {
		const row_t *r = rs->v[i];
		struct ax_zerocopy_point z;
		if (!has_role(c, r, AX_ROLE_ZEROCOPY))
			continue;
		ax_db_role_point(AX_ROLE_ZEROCOPY, &r->params, &z);
		snprintf(labels[nb], sizeof(labels[nb]), "%s %lld B, %s - %s",
			 ax_html_str(z.pattern), (long long)z.size,
			 ax_html_str(z.path), ax_html_str(r->device.name));
		bool staged = z.path && !strcmp(z.path, "staged");
		bars[nb] =
		    (struct ax_svg_bar){labels[nb], staged ? 0 : 1, r->median,
					r->ci_lo,   r->ci_hi,	    NULL};
		nb++;
	}
	static const char *const legend[] = {"staged", "zero-copy"};
	ax_svg_hbars(c->f,
		     "Zero-copy against staging per access pattern, GB/s of "
		     "input read (higher is better)",
		     "GB/s", bars, nb, legend, 2);
}

void ax_html_section_devices(struct ax_html_ctx *c)
{
	const struct ax_db_results *rs = c->d->results;
	bool d2d = false, split = false, zc = false;
	for (size_t i = 0; i < rs->n; i++) {
		d2d |= has_role(c, rs->v[i], AX_ROLE_D2D);
		split |= is_split(rs->v[i]);
		zc |= has_role(c, rs->v[i], AX_ROLE_ZEROCOPY);
	}
	if (!d2d && !split && !zc)
		return;
	ax_html_h2(c, "devices", "Several devices, and zero-copy");
	if (d2d) {
		fputs("<p>Copies from the row's device into the column's "
		      "(<code>d2d</code>): staged through host memory, or "
		      "direct (within one device; between two, memory one "
		      "exports and the other imports). The newest result per "
		      "cell; hover for its id.</p>\n",
		      c->f);
		d2d_part(c);
	}
	if (split)
		split_part(c);
	if (zc)
		zerocopy_part(c);
}
