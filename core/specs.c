/*
 * core/specs.c - looking a device up in the specs table and setting a
 * result against one of its figures (the reader is core/config_specs.c).
 */
#include "core/specs.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ax_specs_free(struct ax_specs *s)
{
	if (!s)
		return;
	for (int i = 0; i < s->n; i++) {
		free(s->v[i].name);
		free(s->v[i].device_ids);
		free(s->v[i].fp16_kind);
		free(s->v[i].source);
		free(s->v[i].note);
	}
	free(s->v);
	free(s->path);
	free(s);
}

const struct ax_spec *ax_specs_find(const struct ax_specs *s,
				    uint32_t vendor_id, uint32_t device_id)
{
	for (int i = 0; s && i < s->n; i++) {
		if (s->v[i].vendor_id != vendor_id)
			continue;
		for (int j = 0; j < s->v[i].n_device_ids; j++)
			if (s->v[i].device_ids[j] == device_id)
				return &s->v[i];
	}
	return NULL;
}

const char *ax_spec_figure_name(enum ax_spec_figure f)
{
	switch (f) {
	case AX_SPEC_FP32:
		return "fp32";
	case AX_SPEC_FP16:
		return "fp16";
	case AX_SPEC_FP64:
		return "fp64";
	case AX_SPEC_BANDWIDTH:
		return "memory bandwidth";
	default:
		return NULL;
	}
}

/* The precision a result's parameters state: gemm, conv and attention
 * call it dtype, peak calls it type.  Only typed (text) values count. */
static const char *precision(const json_t *params)
{
	const char *s = json_string_value(json_object_get(params, "dtype"));
	return s ? s : json_string_value(json_object_get(params, "type"));
}

enum ax_spec_figure ax_spec_figure_for(const char *unit, const json_t *params,
				       bool bandwidth_peak, const char **why)
{
	const char *dummy;
	why = why ? why : &dummy;
	*why = NULL;
	if (unit && !strcmp(unit, "GB/s")) {
		if (bandwidth_peak)
			return AX_SPEC_BANDWIDTH;
		*why = "GB/s of a suite that does not measure memory "
		       "bandwidth";
		return AX_SPEC_NONE;
	}
	if (!unit || strcmp(unit, "GFLOP/s")) {
		*why = "no spec figure for this unit";
		return AX_SPEC_NONE;
	}
	const char *p = precision(params);
	if (p && !strcmp(p, "f32"))
		return AX_SPEC_FP32;
	if (p && !strcmp(p, "f16"))
		return AX_SPEC_FP16;
	if (p && !strcmp(p, "f64"))
		return AX_SPEC_FP64;
	/* peak type=matrix: fp16 tensor cores, fp32 accumulation, dense */
	if (p && !strcmp(p, "matrix"))
		return AX_SPEC_FP16;
	*why = p ? "no spec figure for this precision"
		 : "the parameters state no precision (dtype or type)";
	return AX_SPEC_NONE;
}

double ax_spec_value(const struct ax_spec *sp, enum ax_spec_figure f)
{
	switch (f) {
	case AX_SPEC_FP32:
		return sp->fp32_tflops * 1000;
	case AX_SPEC_FP16:
		return sp->fp16_tflops * 1000;
	case AX_SPEC_FP64:
		return sp->fp64_tflops * 1000;
	case AX_SPEC_BANDWIDTH:
		return sp->memory_gbps;
	default:
		return NAN;
	}
}

struct ax_spec_cmp ax_specs_compare(const struct ax_specs *s, int64_t vendor_id,
				    int64_t device_id, const char *unit,
				    const json_t *params, bool bandwidth_peak,
				    double median)
{
	struct ax_spec_cmp c = {
	    .status = AX_SPEC_NOT_APPLICABLE, .value = NAN, .percent = NAN};
	c.figure = ax_spec_figure_for(unit, params, bandwidth_peak, &c.why);
	if (c.figure == AX_SPEC_NONE)
		return c;
	if (!s)
		c.why = "no specs file";
	else if (vendor_id < 0 || device_id < 0)
		c.why = "the device's PCI ids were not stored";
	else if (!(c.spec = ax_specs_find(s, (uint32_t)vendor_id,
					  (uint32_t)device_id)))
		c.why = "device not in the specs file";
	if (!c.spec) {
		c.status = AX_SPEC_UNKNOWN;
		return c;
	}
	c.value = ax_spec_value(c.spec, c.figure);
	if (!isfinite(c.value)) {
		c.why = "the specs entry gives no such figure";
		return c;
	}
	if (!isfinite(median)) {
		c.why = "the result has no figure";
		return c;
	}
	c.status = AX_SPEC_COMPARED;
	c.percent = 100 * median / c.value;
	return c;
}

/* An integer member, or -1 where there is none. */
static int64_t id_of(const json_t *dev, const char *key)
{
	const json_t *v = json_object_get(dev, key);
	return json_is_integer(v) ? (int64_t)json_integer_value(v) : -1;
}

struct ax_spec_cmp ax_specs_compare_result(const struct ax_specs *s,
					   const json_t *r, bool bandwidth_peak)
{
	const json_t *dev = json_object_get(r, "device");
	const json_t *m = json_object_get(r, "median");
	const char *status = json_string_value(json_object_get(r, "status"));
	double median = json_is_number(m) && status && !strcmp(status, "ok")
			    ? json_number_value(m)
			    : NAN;
	return ax_specs_compare(
	    s, id_of(dev, "vendor_id"), id_of(dev, "device_id"),
	    json_string_value(json_object_get(r, "unit")),
	    json_object_get(r, "params"), bandwidth_peak, median);
}

static json_t *num_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

json_t *ax_spec_cmp_json(const struct ax_spec_cmp *c)
{
	static const char *const status[] = {"compared", "unknown",
					     "not_applicable"};
	const struct ax_spec *sp = c->spec;
	json_t *o = json_object();
	json_object_set_new(o, "status", json_string(status[c->status]));
	json_object_set_new(o, "figure",
			    str_or_null(ax_spec_figure_name(c->figure)));
	json_object_set_new(o, "value", num_or_null(c->value));
	json_object_set_new(o, "percent", num_or_null(c->percent));
	json_object_set_new(o, "product", str_or_null(sp ? sp->name : NULL));
	json_object_set_new(o, "source", str_or_null(sp ? sp->source : NULL));
	json_object_set_new(o, "reason", str_or_null(c->why));
	return o;
}

const char *ax_spec_cmp_text(const struct ax_spec_cmp *c, char *buf, size_t len)
{
	if (c->status == AX_SPEC_COMPARED)
		snprintf(buf, len, "%.1f%% of spec (%s)", c->percent,
			 ax_spec_figure_name(c->figure));
	else if (c->status == AX_SPEC_UNKNOWN)
		snprintf(buf, len, "spec unknown");
	else
		snprintf(buf, len, "no spec figure");
	return buf;
}
