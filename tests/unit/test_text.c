/* tests/unit/test_text.c - stored text for terminals and JSON
 * (core/text.h): escapes of control and bidirectional characters, and
 * invalid UTF-8 repaired rather than dropped. */
#include "ax_test.h"

#include "core/text.h"

#include <math.h>
#include <string.h>

static void term_plain_text_is_itself(void)
{
	char buf[64];
	const char *s = "llvmpipe (LLVM 15) \xc3\xa9t\xc3\xa9 \xe2\x82\xac";
	AX_CHECK(ax_text_term(s, buf, sizeof(buf)) == s);
	AX_CHECK_STR(ax_text_term(NULL, buf, sizeof(buf)), "");
}

static void term_escapes_controls(void)
{
	char buf[128];
	AX_CHECK_STR(ax_text_term("a\x1b[31mred\x07\r\n\x7f", buf, sizeof(buf)),
		     "a\\x1b[31mred\\x07\\x0d\\x0a\\x7f");
	/* C1 CSI (U+009B) as UTF-8. */
	AX_CHECK_STR(ax_text_term("x\xc2\x9by", buf, sizeof(buf)), "x\\u009by");
}

static void term_escapes_bidi(void)
{
	char buf[128];
	/* U+202E RIGHT-TO-LEFT OVERRIDE, U+2066 LRI, U+2069 PDI, U+202A. */
	AX_CHECK_STR(ax_text_term("gemm\xe2\x80\xae"
				  "exe.txt",
				  buf, sizeof(buf)),
		     "gemm\\u202eexe.txt");
	AX_CHECK_STR(ax_text_term("\xe2\x81\xa6x\xe2\x81\xa9\xe2\x80\xaa", buf,
				  sizeof(buf)),
		     "\\u2066x\\u2069\\u202a");
	/* U+2028 (not bidi) stays. */
	AX_CHECK_STR(ax_text_term("a\xe2\x80\xa8", buf, sizeof(buf)),
		     "a\xe2\x80\xa8");
}

static void term_escapes_invalid_utf8(void)
{
	char buf[128];
	AX_CHECK_STR(ax_text_term("a\xff\xc3(\xed\xa0\x80", buf, sizeof(buf)),
		     "a\\xff\\xc3(\\xed\\xa0\\x80");
}

static void term_cuts_short_between_escapes(void)
{
	char buf[8];
	/* "ab\x1b" is 6 bytes, "\x1b" again would need 10: cut before it. */
	AX_CHECK_STR(ax_text_term("ab\x1b\x1b", buf, sizeof(buf)), "ab\\x1b");
	AX_CHECK_STR(ax_text_term("abcdefghij", buf, sizeof(buf)), "abcdefg");
}

static void repair_replaces_each_bad_byte(void)
{
	size_t bad = 0;
	char *s = ax_text_utf8_repair("ok\xff\xfe \xc3\xa9 \xe2\x82", &bad);
	AX_CHECK_STR(s, "ok\xef\xbf\xbd\xef\xbf\xbd \xc3\xa9 "
			"\xef\xbf\xbd\xef\xbf\xbd");
	AX_CHECK_INT(bad, 4);
	free(s);
	/* Overlong "/" and a UTF-16 surrogate are invalid too. */
	s = ax_text_utf8_repair("\xc0\xaf\xed\xa0\x80", &bad);
	AX_CHECK_INT(bad, 5);
	free(s);
}

static void json_string_never_dropped(void)
{
	json_t *j = ax_text_json_string("dev\xff", "test text");
	AX_CHECK(json_is_string(j));
	AX_CHECK_STR(json_string_value(j), "dev\xef\xbf\xbd");
	json_decref(j);
	j = ax_text_json_string(NULL, "test");
	AX_CHECK(json_is_null(j));
	json_decref(j);
}

static void json_loads_repairs(void)
{
	json_t *j = ax_text_json_loads("{\"tile\":\"a\xff\"}", 0, "params");
	AX_CHECK(json_is_object(j));
	AX_CHECK_STR(json_string_value(json_object_get(j, "tile")),
		     "a\xef\xbf\xbd");
	json_decref(j);
	j = ax_text_json_loads("{not json", 0, "params");
	AX_CHECK(json_is_null(j));
	json_decref(j);
}

/* Plain text: the limit counts characters, not bytes; every character
 * ax_text_term would escape is refused, named with its place. */
static void check_plain_counts_characters(void)
{
	char why[128] = "";
	/* 5 characters, 12 bytes: within 5. */
	AX_CHECK_INT(
	    ax_text_check_plain("h\xc3\xa9/\xe2\x82\xac\xf0\x9f\x98\x80", 5,
				why, sizeof(why)),
	    0);
	AX_CHECK_INT(ax_text_check_plain("abcde", 4, why, sizeof(why)), -1);
	AX_CHECK_STR(why, "has 5 characters");
	AX_CHECK_INT(ax_text_check_plain("", 4, why, sizeof(why)), -1);
	AX_CHECK_STR(why, "is empty");
	AX_CHECK_INT(ax_text_chars("h\xc3\xa9\xff"), 3);
	AX_CHECK_INT(ax_text_chars(NULL), 0);
}

static void check_plain_refuses_controls(void)
{
	char why[128] = "";
	AX_CHECK_INT(ax_text_check_plain("ab\tc", 100, why, sizeof(why)), -1);
	AX_CHECK_STR(why, "holds the control character \\x09 (character 3)");
	AX_CHECK_INT(ax_text_check_plain("a\nb", 100, why, sizeof(why)), -1);
	AX_CHECK_INT(ax_text_check_plain("x\x7f", 100, why, sizeof(why)), -1);
	AX_CHECK_INT(ax_text_check_plain("\xc2\x9b", 100, why, sizeof(why)),
		     -1); /* C1 CSI */
	AX_CHECK_INT(
	    ax_text_check_plain("main\xe2\x80\xae", 100, why, sizeof(why)), -1);
	AX_CHECK_STR(why, "holds the control character \\u202e (character 5)");
	AX_CHECK_INT(ax_text_check_plain("ok\xff", 100, why, sizeof(why)), -1);
	AX_CHECK_STR(why, "is not valid UTF-8 (byte 0xff at byte 3)");
	AX_CHECK_INT(ax_text_check_plain("a b", 100, why, sizeof(why)), 0);
}

/* Percentages fit a 7-character column whatever their size. */
static void percent_fits_its_column(void)
{
	static const struct {
		double p;
		const char *want;
	} cases[] = {
	    {0, "0.0%"},	  {42.34, "42.3%"},    {999.94, "999.9%"},
	    {999.96, "1000%"},	  {12345.4, "12345%"}, {99999.4, "99999%"},
	    {99999.6, ">99999%"}, {1e302, ">99999%"},  {-1, "-"},
	    {NAN, "-"},		  {INFINITY, "-"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[16];
		const char *got =
		    ax_text_percent(cases[i].p, 1, buf, sizeof(buf));
		AX_CHECK_STR(got, cases[i].want);
		AX_CHECK(strlen(got) <= AX_TEXT_PERCENT_MAX);
	}
	/* Whole percents, as the report writes them. */
	char buf[16];
	AX_CHECK_STR(ax_text_percent(42.34, 0, buf, sizeof(buf)), "42%");
	AX_CHECK_STR(ax_text_percent(1e302, 0, buf, sizeof(buf)), ">99999%");
}

/* A live line cut to the terminal: at most cols characters, "~" last
 * where it was cut, a multi-byte character never split. */
static void fit_cuts_to_columns(void)
{
	char a[] = "trial 3/30 (ETA 0:42)";
	ax_text_fit(a, 40);
	AX_CHECK_STR(a, "trial 3/30 (ETA 0:42)");
	ax_text_fit(a, 21);
	AX_CHECK_STR(a, "trial 3/30 (ETA 0:42)");
	ax_text_fit(a, 10);
	AX_CHECK_STR(a, "trial 3/3~");
	AX_CHECK_INT((int)ax_text_chars(a), 10);
	char b[] = "2\xc3\x97 slower"; /* "2x slower" with a U+00D7 */
	ax_text_fit(b, 3);
	AX_CHECK_STR(b, "2\xc3\x97~");
	char c[] = "2\xc3\x97 slower";
	ax_text_fit(c, 2);
	AX_CHECK_STR(c, "2~");
	char d[] = "abc";
	ax_text_fit(d, 0);
	AX_CHECK_STR(d, "abc");
	ax_text_fit(d, 1);
	AX_CHECK_STR(d, "~");
}

AX_TEST_MAIN(AX_TEST(term_plain_text_is_itself), AX_TEST(term_escapes_controls),
	     AX_TEST(term_escapes_bidi), AX_TEST(term_escapes_invalid_utf8),
	     AX_TEST(term_cuts_short_between_escapes),
	     AX_TEST(repair_replaces_each_bad_byte),
	     AX_TEST(json_string_never_dropped), AX_TEST(json_loads_repairs),
	     AX_TEST(check_plain_counts_characters),
	     AX_TEST(check_plain_refuses_controls),
	     AX_TEST(percent_fits_its_column), AX_TEST(fit_cuts_to_columns))
