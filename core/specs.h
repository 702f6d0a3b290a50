/*
 * core/specs.h - vendor-published peak figures (configs/specs.yaml) and
 * "% of spec".
 *
 * A device is found by its PCI vendor and device id only: an id that no
 * entry lists is "spec unknown", never the closest name.  A result is set
 * against one figure by its unit (ax_specs_compare): GFLOP/s against
 * fp32, fp16 or fp64 by the precision its parameters state, GB/s of a
 * bandwidth-peak suite against memory bandwidth, anything else against
 * nothing.  The YAML reader is core/config_specs.c (yaml.h stays in
 * core/config*.c).
 */
#ifndef AX_SPECS_H
#define AX_SPECS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One product: figures are NAN where its vendor publishes none. */
struct ax_spec {
	char *name;
	uint32_t vendor_id;
	uint32_t *device_ids;
	int n_device_ids;
	double fp32_tflops, fp16_tflops, fp64_tflops, memory_gbps;
	char *fp16_kind, *source, *note; /* fp16_kind, note may be NULL */
	int line;			 /* of the entry, 1-based */
};

struct ax_specs {
	char *path; /* the file read, for messages */
	struct ax_spec *v;
	int n;
};

/* Read and check the specs file at path into *out (the caller's, freed
 * with ax_specs_free).  AX_EIO "PATH: reason" when it cannot be read
 * (a caller that treats a missing file as "every device unknown" checks
 * for it first), AX_ECONFIG "PATH:LINE:COL: what is
 * wrong; the fix" for unknown keys, bad types, a missing source or name,
 * figures outside their plausible ranges (fp32_tflops 0.0001..1000,
 * fp16_tflops 0.0001..20000, fp64_tflops 0.0001..1000 TFLOP/s, memory_gbps
 * 0.1..100000 GB/s) and ids
 * listed twice. */
int ax_specs_load(const char *path, struct ax_specs **out, char *err,
		  size_t errlen);
/* As ax_specs_load, from text[0..len); name is for messages. */
int ax_specs_parse(const char *text, size_t len, const char *name,
		   struct ax_specs **out, char *err, size_t errlen);
void ax_specs_free(struct ax_specs *s);

/* The entry listing (vendor_id, device_id), or NULL (also for s NULL):
 * borrowed from s. */
const struct ax_spec *ax_specs_find(const struct ax_specs *s,
				    uint32_t vendor_id, uint32_t device_id);

/* Which figure of a spec a result is set against. */
enum ax_spec_figure {
	AX_SPEC_NONE, /* the unit or precision has no spec figure */
	AX_SPEC_FP32,
	AX_SPEC_FP16,
	AX_SPEC_FP64,
	AX_SPEC_BANDWIDTH,
};

/* "fp32", "fp16", "memory bandwidth" (NULL for AX_SPEC_NONE). */
const char *ax_spec_figure_name(enum ax_spec_figure f);

/*
 * The figure a result of this unit is set against: "GFLOP/s" with a
 * precision parameter ("dtype", else "type") of "f32", "f16" or "f64" (text, or
 * the enum index the database stores before typing is not accepted:
 * params must be typed) -> fp32, fp16 or fp64; "GB/s" when bandwidth_peak (the
 * suite declares the bandwidth-peak role: transfer's GB/s cross PCIe, not
 * memory) -> bandwidth; anything else -> none, with why in *why (static
 * text, may be NULL).
 */
enum ax_spec_figure ax_spec_figure_for(const char *unit, const json_t *params,
				       bool bandwidth_peak, const char **why);

/* The spec's figure f in the result's unit (GFLOP/s or GB/s), or NAN
 * where the entry has none. */
double ax_spec_value(const struct ax_spec *sp, enum ax_spec_figure f);

/* Where a comparison ended. */
enum ax_spec_status {
	AX_SPEC_COMPARED,	/* percent is set */
	AX_SPEC_UNKNOWN,	/* the device is in no entry (or no file) */
	AX_SPEC_NOT_APPLICABLE, /* no figure for this unit, precision or
				   entry, or the result has no median */
};

/* A result set against its device's spec. */
struct ax_spec_cmp {
	enum ax_spec_status status;
	enum ax_spec_figure figure;
	const struct ax_spec *spec; /* NULL when unknown; borrowed */
	double value;		    /* the figure in the result's unit */
	double percent;		    /* 100 x median / value */
	const char *why;	    /* static text when not compared */
};

/* Compare median (NAN: none) of a result in unit with params on device
 * (vendor_id, device_id; a negative id: not stored) against s (NULL: no
 * specs file).  Never fails: the status says how far it got. */
struct ax_spec_cmp ax_specs_compare(const struct ax_specs *s, int64_t vendor_id,
				    int64_t device_id, const char *unit,
				    const json_t *params, bool bandwidth_peak,
				    double median);

/* ax_specs_compare on r, an ax_db_results() entry with typed params:
 * its device's vendor_id and device_id, unit, params and median (null
 * when the result is not ok).  bandwidth_peak as above: the caller reads
 * the suite's roles. */
struct ax_spec_cmp ax_specs_compare_result(const struct ax_specs *s,
					   const json_t *r,
					   bool bandwidth_peak);

/* The comparison as the "spec" object of `results --json` (owned by the
 * caller): status, figure, value, percent, product, source, reason. */
json_t *ax_spec_cmp_json(const struct ax_spec_cmp *c);

/* "12.3 % of spec (fp32)", "spec unknown" or "no spec figure" into buf
 * for text output; returns buf. */
const char *ax_spec_cmp_text(const struct ax_spec_cmp *c, char *buf,
			     size_t len);

#endif
