/*
 * reports/html_escape.h - escaping text for HTML, XML and embedded JSON.
 *
 * Every string that comes from the database (device names, error text,
 * parameters) passes through one of these before it lands in an HTML
 * report, a JUnit file or a Markdown table, so a device called
 * "<script>alert(1)</script>" is shown, never run.
 */
#ifndef AX_HTML_ESCAPE_H
#define AX_HTML_ESCAPE_H

#include <jansson.h>
#include <stdio.h>

/*
 * Write s to f with & < > " ' as character references and C0 control
 * characters other than tab, newline and carriage return (invalid in
 * XML 1.0) replaced by U+FFFD.  Safe in element text and in quoted
 * attribute values of HTML and XML.  NULL writes nothing.
 */
void ax_html_escape(FILE *f, const char *s);

/* The same escaping into a new string (the caller frees); NULL on
 * allocation failure.  s == NULL gives "". */
char *ax_html_escape_str(const char *s);

/*
 * Like ax_html_escape, and also | * _ ` [ ] \ as character references, so
 * the text can sit in a Markdown table cell without changing the table or
 * starting emphasis or links.
 */
void ax_md_escape(FILE *f, const char *s);

/*
 * Serialise doc (compact, sorted keys) for a <script type=
 * "application/json"> block: < > & are written as \u003c \u003e \u0026
 * and U+2028/U+2029 as \u2028/\u2029, so no string inside can close the
 * element or open a comment.  Returns a new string (caller frees) or NULL
 * on allocation failure.
 */
char *ax_json_for_html(const json_t *doc);

#endif
