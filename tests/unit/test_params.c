/* tests/unit/test_params.c - sweeps: one range rule for every integer
 * parameter (LO..HI doubles, :xF multiplies, :STEP adds); text
 * parameters: interned values, the canonical JSON, the refusals; the
 * documents' form of a value (booleans as JSON booleans) beside the
 * canonical text, which keeps "true" / "false". */
#include "ax_test.h"

#include "core/error.h"
#include "core/params.h"

static const struct ax_param_def plain = {
    "m", AX_PT_INT, 1, 1 << 20, NULL, 512, AX_PARAM_SHAPE, "rows"};
static const struct ax_param_def pow2 = {
    "bm",  AX_PT_INT, 4, 256, NULL, 64, AX_PARAM_TUNABLE | AX_PARAM_POW2,
    "tile"};
static const struct ax_param_def bytes = {"size",
					  AX_PT_INT,
					  1 << 10,
					  1 << 30,
					  NULL,
					  1 << 20,
					  AX_PARAM_SHAPE | AX_PARAM_BYTES |
					      AX_PARAM_POW2,
					  "bytes"};
static const struct ax_param_def chunk = {"chunk",
					  AX_PT_INT,
					  1 << 10,
					  1 << 30,
					  NULL,
					  1 << 20,
					  AX_PARAM_SHAPE | AX_PARAM_BYTES,
					  "bytes"};

/* The values of text as "a b c", or the error. */
static void sweep(const struct ax_param_def *d, const char *text, char *out,
		  size_t len)
{
	int64_t *v;
	int n;
	char err[512];
	if (ax_param_parse_list(d, text, &v, &n, err, sizeof(err))) {
		snprintf(out, len, "error: %s", err);
		return;
	}
	size_t used = 0;
	out[0] = '\0';
	for (int i = 0; i < n && used < len; i++)
		used += (size_t)snprintf(out + used, len - used, "%s%lld",
					 i ? " " : "", (long long)v[i]);
	free(v);
}

static void test_plain_range_doubles(void)
{
	char got[4096];
	/* Before: 64..1024 was every integer, 961 values. */
	sweep(&plain, "64..1024", got, sizeof(got));
	AX_CHECK_STR(got, "64 128 256 512 1024");
	sweep(&plain, "3..100", got, sizeof(got));
	AX_CHECK_STR(got, "3 6 12 24 48 96");
	sweep(&pow2, "4..256", got, sizeof(got));
	AX_CHECK_STR(got, "4 8 16 32 64 128 256");
	sweep(&bytes, "4K..64K", got, sizeof(got));
	AX_CHECK_STR(got, "4096 8192 16384 32768 65536");
	sweep(&chunk, "4K..16K", got, sizeof(got));
	AX_CHECK_STR(got, "4096 8192 16384");
}

static void test_step_and_factor(void)
{
	char got[4096];
	sweep(&plain, "64..320:64", got, sizeof(got));
	AX_CHECK_STR(got, "64 128 192 256 320");
	sweep(&plain, "64..1024:x4", got, sizeof(got));
	AX_CHECK_STR(got, "64 256 1024");
	sweep(&plain, "64..1024:x2", got, sizeof(got));
	AX_CHECK_STR(got, "64 128 256 512 1024");
	sweep(&chunk, "4K..12K:4K", got, sizeof(got));
	AX_CHECK_STR(got, "4096 8192 12288");
	sweep(&plain, "1..3:1", got, sizeof(got));
	AX_CHECK_STR(got, "1 2 3");
}

static void test_bad_ranges(void)
{
	char got[4096];
	sweep(&pow2, "4..64:4", got, sizeof(got));
	AX_CHECK(strstr(got, "bm must be a power of two") != NULL);
	AX_CHECK(strstr(got, "got 12") != NULL);
	AX_CHECK(strstr(got, "in range 4..64:4") != NULL);
	sweep(&plain, "64..1024:x1", got, sizeof(got));
	AX_CHECK(strstr(got, "factor after ':x'") != NULL);
	sweep(&plain, "64..1024:0", got, sizeof(got));
	AX_CHECK(strstr(got, "step after ':'") != NULL);
	sweep(&plain, "64..1024:x", got, sizeof(got));
	AX_CHECK(strncmp(got, "error:", 6) == 0);
	sweep(&plain, "1024..64", got, sizeof(got));
	AX_CHECK(strstr(got, "low end first") != NULL);
	sweep(&plain, "1..1000000:1", got, sizeof(got));
	AX_CHECK(strstr(got, "more than 4096 values") != NULL);
}

static const char *const auto_text[] = {"auto", NULL};
static const struct ax_param_def file_def = {
    "file", AX_PT_TEXT, 0, 0, auto_text, 0, AX_PARAM_SHAPE, "a path"};
static const struct ax_param_def both[] = {
    {"file", AX_PT_TEXT, 0, 0, auto_text, 0, AX_PARAM_SHAPE, "a path"},
    {"m", AX_PT_INT, 1, 1 << 20, NULL, 512, AX_PARAM_SHAPE, "rows"}};

static void test_text_values(void)
{
	char err[512], text[AX_PARAM_TEXT_MAX + 1];
	int64_t a, b, c, d;
	/* the default text is value 0; equal texts are equal values */
	AX_CHECK_INT(ax_param_parse(&file_def, "auto", &a, err, sizeof(err)),
		     0);
	AX_CHECK_INT(a, 0);
	AX_CHECK_INT(
	    ax_param_parse(&file_def, "/data/x.bin", &b, err, sizeof(err)), 0);
	AX_CHECK_INT(
	    ax_param_parse(&file_def, "/data/y.bin", &c, err, sizeof(err)), 0);
	AX_CHECK_INT(
	    ax_param_parse(&file_def, "/data/x.bin", &d, err, sizeof(err)), 0);
	AX_CHECK(b > 0 && c > 0 && b != c);
	AX_CHECK_INT(d, b);
	AX_CHECK_STR(ax_param_text(&file_def, b), "/data/x.bin");
	ax_param_format(&file_def, c, text, sizeof(text));
	AX_CHECK_STR(text, "/data/y.bin");
	/* the canonical JSON holds the text and gives the point back */
	struct ax_params p, q;
	ax_params_init(&p, both, 2);
	AX_CHECK_INT(ax_params_set(&p, "file", "/data/y.bin", err, sizeof(err)),
		     0);
	char *js = ax_params_to_json(&p);
	AX_CHECK_STR(js, "{\"file\":\"/data/y.bin\",\"m\":512}");
	AX_CHECK_INT(ax_params_from_json(&q, both, 2, js, err, sizeof(err)), 0);
	AX_CHECK_INT(q.v[0], p.v[0]);
	free(js);
	/* a sweep of texts */
	int64_t *v;
	int n;
	AX_CHECK_INT(ax_param_parse_list(&file_def, "auto,/a,/b", &v, &n, err,
					 sizeof(err)),
		     0);
	AX_CHECK_INT(n, 3);
	AX_CHECK_INT(v[0], 0);
	AX_CHECK_STR(ax_param_text(&file_def, v[2]), "/b");
	free(v);
}

static void test_text_refused(void)
{
	char err[512], big[AX_PARAM_TEXT_MAX + 2];
	int64_t v;
	AX_CHECK_INT(ax_param_parse(&file_def, "", &v, err, sizeof(err)),
		     AX_EINVAL);
	AX_CHECK(strstr(err, "file must be a text of 1 to 1024 bytes of "
			     "UTF-8 without control characters") != NULL);
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	AX_CHECK_INT(ax_param_parse(&file_def, big, &v, err, sizeof(err)),
		     AX_EINVAL);
	AX_CHECK_INT(ax_param_parse(&file_def, "/a\nb", &v, err, sizeof(err)),
		     AX_EINVAL);
	/* not UTF-8: the canonical JSON could not hold it */
	AX_CHECK_INT(
	    ax_param_parse(&file_def, "/a\xd2\xd2", &v, err, sizeof(err)),
	    AX_EINVAL);
	AX_CHECK_INT(
	    ax_param_parse(&file_def, "/caf\xc3\xa9", &v, err, sizeof(err)), 0);
}

static const char *const ops[] = {"read", "copy", NULL};
static const struct ax_param_def mixed[] = {
    {"flag", AX_PT_BOOL, 0, 1, NULL, 1, AX_PARAM_SHAPE, "a boolean"},
    {"op", AX_PT_ENUM, 0, 0, ops, 1, AX_PARAM_SHAPE, "an enum"},
    {"size", AX_PT_INT, 1 << 10, 1 << 30, NULL, 1 << 20,
     AX_PARAM_SHAPE | AX_PARAM_BYTES, "bytes"},
    {"file", AX_PT_TEXT, 0, 0, auto_text, 0, AX_PARAM_SHAPE, "a path"}};

static void test_document_values(void)
{
	struct ax_params p;
	ax_params_init(&p, mixed, 4);
	/* the canonical text, hashed into params_hash, is unchanged */
	char *canon = ax_params_to_json(&p);
	AX_CHECK_STR(canon, "{\"file\":\"auto\",\"flag\":\"true\","
			    "\"op\":\"copy\",\"size\":1048576}");
	/* documents: a boolean is a JSON boolean, bytes an integer */
	json_t *doc = ax_params_json(&p);
	char *text = json_dumps(doc, JSON_COMPACT | JSON_SORT_KEYS);
	AX_CHECK_STR(text, "{\"file\":\"auto\",\"flag\":true,"
			   "\"op\":\"copy\",\"size\":1048576}");
	free(text);
	json_decref(doc);
	/* the canonical text read back and retyped is the same document;
	 * a text or enum that reads "true" is never a boolean */
	json_t *back = json_loads(canon, 0, NULL);
	json_object_set_new(back, "file", json_string("true"));
	json_object_set_new(back, "other", json_string("false"));
	ax_params_json_retype(back, mixed, 4);
	AX_CHECK(json_is_true(json_object_get(back, "flag")));
	AX_CHECK_STR(json_string_value(json_object_get(back, "file")), "true");
	AX_CHECK_STR(json_string_value(json_object_get(back, "other")),
		     "false");
	/* and parses back into the same point */
	struct ax_params q;
	char err[256];
	json_object_set_new(back, "file", json_string("auto"));
	json_object_del(back, "other");
	text = json_dumps(back, JSON_COMPACT);
	AX_CHECK_INT(ax_params_from_json(&q, mixed, 4, text, err, sizeof(err)),
		     0);
	AX_CHECK(memcmp(q.v, p.v, sizeof(p.v[0]) * 4) == 0);
	free(text);
	json_decref(back);
	free(canon);
}

AX_TEST_MAIN(AX_TEST(test_plain_range_doubles), AX_TEST(test_step_and_factor),
	     AX_TEST(test_bad_ranges), AX_TEST(test_text_values),
	     AX_TEST(test_text_refused), AX_TEST(test_document_values))
