/*
 * tests/unit/test_specs.c - configs/specs.yaml and "% of spec".
 *
 * The real table from the repository is read (run from the repository
 * root), so a broken shipped file fails here; malformed files are written
 * to a temporary directory and must be refused with FILE:LINE:COL.
 */
#include "core/error.h"
#include "core/specs.h"

#include "ax_test.h"

#include <math.h>
#include <stdlib.h>
#include <unistd.h>

static char dir[] = "/tmp/ax_test_specs_XXXXXX";

static const char good_entry[] = "  - name: Test GPU\n"
				 "    vendor_id: 0x1234\n"
				 "    device_ids: [0x0001, 0x0002]\n"
				 "    fp32_tflops: 10\n"
				 "    memory_gbps: 500\n"
				 "    source: test datasheet\n";

static void test_real_file_h200(void)
{
	struct ax_specs *s;
	char err[512] = "";
	int rc = ax_specs_load("configs/specs.yaml", &s, err, sizeof(err));
	AX_CHECK_INT(rc, 0);
	if (rc) {
		fprintf(stderr, "# %s\n", err);
		return;
	}
	const struct ax_spec *h200 = ax_specs_find(s, 0x10de, 0x2335);
	AX_CHECK(h200 != NULL);
	if (h200) {
		AX_CHECK(strstr(h200->name, "H200") != NULL);
		AX_CHECK(strstr(h200->source, "H200") != NULL);
		AX_CHECK_NEAR(h200->memory_gbps, 4800, 1e-9);
		AX_CHECK(h200->fp16_kind != NULL);
		AX_CHECK_NEAR(h200->fp64_tflops, 34, 1e-9);
	}
	/* One product with several ids, each found; every required model
	 * is there. */
	static const unsigned ids[][2] = {{0x10de, 0x2330}, {0x10de, 0x2331},
					  {0x10de, 0x20b0}, {0x10de, 0x20f1},
					  {0x10de, 0x20b2}, {0x10de, 0x20b5},
					  {0x1002, 0x740c}, {0x1002, 0x74a1},
					  {0x10de, 0x2684}, {0x10de, 0x2204}};
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		AX_CHECK(ax_specs_find(s, ids[i][0], ids[i][1]) != NULL);
	/* The vendor id is part of the key: NVIDIA's 0x2335 is not AMD's. */
	AX_CHECK(ax_specs_find(s, 0x1002, 0x2335) == NULL);
	ax_specs_free(s);
}

static void test_unknown_device(void)
{
	struct ax_specs *s;
	char err[512];
	AX_CHECK_INT(ax_specs_load("configs/specs.yaml", &s, err, sizeof(err)),
		     0);
	/* lavapipe's ids: never a guess. */
	AX_CHECK(ax_specs_find(s, 0x10005, 0) == NULL);
	json_t *p = json_pack("{s:s}", "dtype", "f32");
	struct ax_spec_cmp c =
	    ax_specs_compare(s, 0x10005, 0, "GFLOP/s", p, false, 100);
	AX_CHECK_INT(c.status, AX_SPEC_UNKNOWN);
	char buf[64];
	AX_CHECK_STR(ax_spec_cmp_text(&c, buf, sizeof(buf)), "spec unknown");
	/* No file at all: unknown too. */
	c = ax_specs_compare(NULL, 0x10de, 0x2335, "GFLOP/s", p, false, 100);
	AX_CHECK_INT(c.status, AX_SPEC_UNKNOWN);
	json_decref(p);
	ax_specs_free(s);
}

static void test_units(void)
{
	struct ax_specs *s;
	char err[512], text[1024];
	snprintf(text, sizeof(text), "devices:\n%s", good_entry);
	AX_CHECK_INT(
	    ax_specs_parse(text, strlen(text), "t.yaml", &s, err, sizeof(err)),
	    0);
	json_t *f32 = json_pack("{s:s}", "dtype", "f32");
	json_t *f16 = json_pack("{s:s}", "type", "f16");
	json_t *none = json_object();
	struct ax_spec_cmp c =
	    ax_specs_compare(s, 0x1234, 2, "GFLOP/s", f32, false, 2500);
	AX_CHECK_INT(c.status, AX_SPEC_COMPARED);
	AX_CHECK_NEAR(c.percent, 25, 1e-9);
	c = ax_specs_compare(s, 0x1234, 1, "GB/s", none, true, 250);
	AX_CHECK_INT(c.figure, AX_SPEC_BANDWIDTH);
	AX_CHECK_NEAR(c.percent, 50, 1e-9);
	/* Transfer's GB/s are not memory bandwidth. */
	c = ax_specs_compare(s, 0x1234, 1, "GB/s", none, false, 250);
	AX_CHECK_INT(c.status, AX_SPEC_NOT_APPLICABLE);
	/* The entry has no fp16 figure; no precision stated; other units. */
	c = ax_specs_compare(s, 0x1234, 1, "GFLOP/s", f16, false, 250);
	AX_CHECK_INT(c.status, AX_SPEC_NOT_APPLICABLE);
	c = ax_specs_compare(s, 0x1234, 1, "GFLOP/s", none, false, 250);
	AX_CHECK_INT(c.status, AX_SPEC_NOT_APPLICABLE);
	c = ax_specs_compare(s, 0x1234, 1, "us", none, false, 250);
	AX_CHECK_INT(c.status, AX_SPEC_NOT_APPLICABLE);
	json_t *j = ax_spec_cmp_json(&c);
	AX_CHECK_STR(json_string_value(json_object_get(j, "status")),
		     "not_applicable");
	AX_CHECK(json_is_null(json_object_get(j, "percent")));
	json_decref(j);
	json_decref(f32);
	json_decref(f16);
	json_decref(none);
	ax_specs_free(s);
}

/* peak type=f64 is set against fp64_tflops; the integer types have no
 * figure. */
static void test_fp64(void)
{
	struct ax_specs *s;
	char err[512];
	const char *text = "devices:\n"
			   "  - name: Test GPU\n"
			   "    vendor_id: 0x1234\n"
			   "    device_ids: [0x0001]\n"
			   "    fp64_tflops: 2\n"
			   "    source: test datasheet\n";
	AX_CHECK_INT(
	    ax_specs_parse(text, strlen(text), "t.yaml", &s, err, sizeof(err)),
	    0);
	json_t *f64 = json_pack("{s:s}", "type", "f64");
	json_t *i64 = json_pack("{s:s}", "type", "i64");
	struct ax_spec_cmp c =
	    ax_specs_compare(s, 0x1234, 1, "GFLOP/s", f64, false, 500);
	AX_CHECK_INT(c.status, AX_SPEC_COMPARED);
	AX_CHECK_INT(c.figure, AX_SPEC_FP64);
	AX_CHECK_NEAR(c.percent, 25, 1e-9);
	AX_CHECK_STR(ax_spec_figure_name(c.figure), "fp64");
	c = ax_specs_compare(s, 0x1234, 1, "GFLOP/s", i64, false, 500);
	AX_CHECK_INT(c.status, AX_SPEC_NOT_APPLICABLE);
	json_decref(f64);
	json_decref(i64);
	ax_specs_free(s);
}

/* text written to DIR/bad.yaml must be refused with "bad.yaml:LINE:" and
 * a message holding want. */
static void refused(const char *text, int line, const char *want)
{
	char path[128], err[1024] = "", at[160];
	snprintf(path, sizeof(path), "%s/bad.yaml", dir);
	FILE *f = fopen(path, "w");
	AX_CHECK(f != NULL);
	if (!f)
		return;
	fputs(text, f);
	fclose(f);
	struct ax_specs *s = NULL;
	AX_CHECK_INT(ax_specs_load(path, &s, err, sizeof(err)), AX_ECONFIG);
	AX_CHECK(s == NULL);
	snprintf(at, sizeof(at), "%s:%d:", path, line);
	AX_CHECK(strncmp(err, at, strlen(at)) == 0);
	AX_CHECK(strstr(err, want) != NULL);
	if (strncmp(err, at, strlen(at)) || !strstr(err, want))
		fprintf(stderr, "# want %s... %s; got %s\n", at, want, err);
}

static void test_malformed(void)
{
	char text[2048];
	AX_CHECK(mkdtemp(dir) != NULL);
	snprintf(text, sizeof(text), "devices:\n%s    colour: green\n",
		 good_entry);
	refused(text, 8, "unknown key 'colour'");
	refused("devices:\n  - name: X\n    vendor_id: 0x10de\n"
		"    device_ids: 0x2330\n    fp32_tflops: 1\n"
		"    source: s\n",
		4, "device_ids must be a list");
	refused("devices:\n  - name: X\n    vendor_id: 0x10de\n"
		"    device_ids: [0x2330]\n    fp32_tflops: 1\n",
		2, "no source");
	refused("devices:\n  - name: X\n    vendor_id: 0x10de\n"
		"    device_ids: [0x2330]\n    fp32_tflops: 0\n"
		"    source: s\n",
		5, "from 0.0001 to 1000 (TFLOP/s)");
	/* Implausible figures: a typo, or a figure in the wrong unit, is
	 * refused naming the range (issue 34, item 11). */
	refused("devices:\n  - name: X\n    vendor_id: 0x10de\n"
		"    device_ids: [0x2330]\n    memory_gbps: 1e-300\n"
		"    source: s\n",
		5, "memory_gbps must be a number from 0.1 to 100000 (GB/s)");
	refused("devices:\n  - name: X\n    vendor_id: 0x10de\n"
		"    device_ids: [0x2330]\n    fp16_tflops: 30000\n"
		"    fp16_kind: dense\n    source: s\n",
		5, "from 0.0001 to 20000 (TFLOP/s)");
	refused("devices:\n  - name: X\n    vendor_id: 0x10de\n"
		"    device_ids: [0x2330]\n    memory_gbps: fast\n"
		"    source: s\n",
		5, "must be a number from");
	refused("devices:\n  - name: X\n    vendor_id: 0x10de\n"
		"    device_ids: [0x2330]\n    fp32_tflops: 1\n"
		"    source: s\n"
		"  - name: Y\n    vendor_id: 0x10de\n"
		"    device_ids: [0x2331, 0x2330]\n    fp32_tflops: 1\n"
		"    source: s\n",
		9, "listed twice");
	refused("devices:\n  - name: X\n    vendor_id: nvidia\n", 3,
		"must be a PCI id");
	refused("devices:\n  - name: X\n    vendor_id: 0x10de\n"
		"    device_ids: [0x2330]\n    fp16_tflops: 9\n"
		"    source: s\n",
		2, "without fp16_kind");
	refused("devices: [\n", 2, "syntax");
	char path[128];
	snprintf(path, sizeof(path), "%s/bad.yaml", dir);
	unlink(path);
	rmdir(dir);
}

AX_TEST_MAIN(AX_TEST(test_real_file_h200), AX_TEST(test_unknown_device),
	     AX_TEST(test_units), AX_TEST(test_fp64), AX_TEST(test_malformed))
