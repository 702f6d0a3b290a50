/* reports/compare_paired.c - a paired measurement's verdict
 * (compare_paired.h). */
#include "reports/compare_paired.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void ax_compare_paired(const struct ax_compare_paired_in *in, double t,
		       double alpha, struct ax_compare_stat *out, double *mde)
{
	memset(out, 0, sizeof(*out));
	out->threshold = t;
	out->base_median = out->cand_median = out->shift = NAN;
	out->speedup = in->speedup;
	out->p_value = in->p_value;
	out->improvement = out->rel = in->speedup - 1;
	out->impr_lo = out->rel_lo = in->lo - 1;
	out->impr_hi = out->rel_hi = in->hi - 1;
	*mde = t + (in->hi - in->lo) / 2;
	if (!(in->rounds > 0) || !isfinite(in->lo) || !isfinite(in->hi)) {
		out->verdict = AX_VERDICT_AMBIGUOUS;
		*mde = NAN;
		snprintf(out->reason, sizeof(out->reason),
			 "no paired round was measured");
		return;
	}
	ax_compare_decide(out, alpha);
	size_t used = strlen(out->reason);
	snprintf(out->reason + used, sizeof(out->reason) - used,
		 " (%d paired rounds)", in->rounds);
}
