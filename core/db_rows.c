/* core/db_rows.c - the listings of the store, read into the structs of
 * core/db_rows.h straight from their statements. */
#include "core/db_rows.h"

#include "core/db_internal.h"
#include "core/error.h"
#include "core/params.h"
#include "core/text.h"

#include <inttypes.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NCOLS(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* ---- what a row owns ---------------------------------------------------- */

/* Texts and arrays are carved from chunks freed together; documents are
 * released with the row. */
struct ax_db_chunk {
	struct ax_db_chunk *next;
	size_t used, size;
	_Alignas(max_align_t) unsigned char data[];
};

struct ax_db_mem {
	struct ax_db_chunk *head;
	json_t **docs;
	size_t n_docs, cap_docs;
	bool oom; /* an allocation failed: the row is incomplete */
};

static struct ax_db_mem *mem_new(void)
{
	return calloc(1, sizeof(struct ax_db_mem));
}

static void *mem_alloc(struct ax_db_mem *m, size_t size)
{
	size = (size + sizeof(max_align_t) - 1) & ~(sizeof(max_align_t) - 1);
	struct ax_db_chunk *c = m->head;
	if (!c || c->size - c->used < size) {
		size_t want = size > 2048 ? size : 2048;
		c = malloc(sizeof(*c) + want);
		if (!c) {
			m->oom = true;
			return NULL;
		}
		c->next = m->head;
		c->used = 0;
		c->size = want;
		m->head = c;
	}
	void *p = c->data + c->used;
	c->used += size;
	return p;
}

static const char *mem_strdup(struct ax_db_mem *m, const char *s)
{
	if (!s)
		return NULL;
	size_t n = strlen(s) + 1;
	char *p = mem_alloc(m, n);
	if (p)
		memcpy(p, s, n);
	return p;
}

/* Keep doc (taken) until the row is freed; returns it. */
static json_t *mem_keep(struct ax_db_mem *m, json_t *doc)
{
	if (!doc)
		return NULL;
	if (m->n_docs == m->cap_docs) {
		size_t cap = m->cap_docs ? 2 * m->cap_docs : 4;
		json_t **grown = realloc(m->docs, cap * sizeof(*grown));
		if (!grown) {
			m->oom = true;
			json_decref(doc);
			return NULL;
		}
		m->docs = grown;
		m->cap_docs = cap;
	}
	m->docs[m->n_docs++] = doc;
	return doc;
}

static void mem_free(struct ax_db_mem *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n_docs; i++)
		json_decref(m->docs[i]);
	free(m->docs);
	while (m->head) {
		struct ax_db_chunk *next = m->head->next;
		free(m->head);
		m->head = next;
	}
	free(m);
}

/* ---- columns ------------------------------------------------------------ */

/* The reading of one statement's row into a row's memory: where warnings
 * name the field ("the stored device name"). */
struct cols {
	sqlite3_stmt *st;
	struct ax_db_mem *mem;
	const char *table;
};

static bool col_null(const struct cols *c, int i)
{
	return sqlite3_column_type(c->st, i) == SQLITE_NULL;
}

/* Text column i, repaired when it is not valid UTF-8; NULL when NULL. */
static const char *col_text(const struct cols *c, int i, const char *key)
{
	const char *s = (const char *)sqlite3_column_text(c->st, i);
	char what[96], *fixed;
	if (!s)
		return NULL;
	snprintf(what, sizeof(what), "the stored %s %s", c->table, key);
	const char *valid = ax_text_repaired(s, what, &fixed);
	const char *kept = mem_strdup(c->mem, valid);
	free(fixed);
	return kept;
}

/* A real column as a figure: NAN when NULL or not finite. */
static double col_num(const struct cols *c, int i)
{
	if (col_null(c, i))
		return NAN;
	double v = sqlite3_column_double(c->st, i);
	return isfinite(v) ? v : NAN;
}

/* An integer column; AX_DB_NONE when NULL. */
static int64_t col_int(const struct cols *c, int i)
{
	return col_null(c, i) ? AX_DB_NONE : sqlite3_column_int64(c->st, i);
}

/* An id column; 0 when NULL. */
static int64_t col_id(const struct cols *c, int i)
{
	return col_null(c, i) ? 0 : sqlite3_column_int64(c->st, i);
}

/* A column holding JSON text, parsed and kept by the row; NULL when NULL
 * or not JSON.  Invalid UTF-8 inside is repaired with the warning. */
static json_t *col_doc(const struct cols *c, int i, const char *key)
{
	const char *text = (const char *)sqlite3_column_text(c->st, i);
	if (!text)
		return NULL;
	json_t *j = json_loads(text, JSON_DECODE_ANY, NULL);
	if (!j) {
		char what[96];
		snprintf(what, sizeof(what), "the stored %s %s", c->table, key);
		j = ax_text_json_loads(text, JSON_DECODE_ANY, what);
	}
	if (json_is_null(j)) {
		json_decref(j);
		return NULL;
	}
	return mem_keep(c->mem, j);
}

/* ---- parameters --------------------------------------------------------- */

static void param_of(struct ax_db_mem *m, const char *name, const json_t *v,
		     struct ax_db_param *p)
{
	memset(p, 0, sizeof(*p));
	p->name = name;
	p->num = NAN;
	if (json_is_integer(v)) {
		p->type = AX_DB_VALUE_INT;
		p->i = json_integer_value(v);
		p->num = (double)p->i;
	} else if (json_is_real(v)) {
		p->type = AX_DB_VALUE_REAL;
		p->num = json_real_value(v);
	} else if (json_is_string(v)) {
		p->type = AX_DB_VALUE_TEXT;
		p->text = json_string_value(v);
	} else if (json_is_boolean(v)) {
		p->type = AX_DB_VALUE_BOOL;
		p->num = json_is_true(v);
	} else if (json_is_null(v)) {
		p->type = AX_DB_VALUE_NULL;
	} else {
		p->type = AX_DB_VALUE_OTHER;
		char *text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
		p->text = mem_strdup(m, text);
		free(text);
	}
}

/* The typed view of a stored parameter object (names and texts point
 * into doc, which the row keeps). */
static struct ax_db_params params_of(struct ax_db_mem *m, const json_t *doc)
{
	struct ax_db_params p = {NULL, 0};
	size_t n = json_is_object(doc) ? json_object_size(doc) : 0;
	if (!n || !(p.v = mem_alloc(m, n * sizeof(*p.v))))
		return p;
	const char *name;
	const json_t *v;
	json_object_foreach((json_t *)doc, name, v)
	    param_of(m, name, v, &p.v[p.n++]);
	return p;
}

const struct ax_db_param *ax_db_param_find(const struct ax_db_params *p,
					   const char *name)
{
	for (int i = 0; p && name && i < p->n; i++)
		if (strcmp(p->v[i].name, name) == 0)
			return &p->v[i];
	return NULL;
}

double ax_db_param_num(const struct ax_db_params *p, const char *name)
{
	const struct ax_db_param *v = ax_db_param_find(p, name);
	return v ? v->num : NAN;
}

const char *ax_db_param_text(const struct ax_db_params *p, const char *name)
{
	const struct ax_db_param *v = ax_db_param_find(p, name);
	return v && v->type == AX_DB_VALUE_TEXT ? v->text : NULL;
}

const char *ax_db_param_value_text(const struct ax_db_param *v, char *buf,
				   size_t len)
{
	switch (v->type) {
	case AX_DB_VALUE_INT:
		snprintf(buf, len, "%" PRId64, v->i);
		break;
	case AX_DB_VALUE_REAL:
		snprintf(buf, len, "%g", v->num);
		break;
	case AX_DB_VALUE_BOOL:
		snprintf(buf, len, "%s", v->num != 0 ? "true" : "false");
		break;
	case AX_DB_VALUE_NULL:
		snprintf(buf, len, "null");
		break;
	default:
		snprintf(buf, len, "%s", v->text ? v->text : "");
	}
	return buf;
}

bool ax_db_param_equal(const struct ax_db_param *a, const struct ax_db_param *b)
{
	if (a->type != b->type)
		return false;
	switch (a->type) {
	case AX_DB_VALUE_INT:
		return a->i == b->i;
	case AX_DB_VALUE_REAL:
	case AX_DB_VALUE_BOOL:
		return a->num == b->num;
	case AX_DB_VALUE_TEXT:
	case AX_DB_VALUE_OTHER:
		return a->text && b->text ? !strcmp(a->text, b->text)
					  : a->text == b->text;
	default:
		return true;
	}
}

int ax_db_params_point(struct ax_params *p, const struct ax_param_def *defs,
		       int n, const struct ax_db_params *src, char *err,
		       size_t errlen)
{
	ax_params_init(p, defs, n);
	for (int i = 0; i < src->n; i++) {
		const struct ax_db_param *v = &src->v[i];
		char text[AX_PARAM_TEXT_MAX + 1] = "";
		if (v->type == AX_DB_VALUE_INT)
			snprintf(text, sizeof(text), "%" PRId64, v->i);
		else if (v->type == AX_DB_VALUE_TEXT && v->text)
			snprintf(text, sizeof(text), "%s", v->text);
		else if (v->type == AX_DB_VALUE_BOOL)
			snprintf(text, sizeof(text), "%s",
				 v->num != 0 ? "true" : "false");
		int rc = ax_params_set(p, v->name, text, err, errlen);
		if (rc)
			return rc;
	}
	return 0;
}

void ax_db_role_point(unsigned role, const struct ax_db_params *p, void *out)
{
	int nc;
	const struct ax_role_param *c = ax_role_params(role, &nc);
	for (int i = 0; i < nc; i++) {
		const struct ax_db_param *v = ax_db_param_find(p, c[i].name);
		char *at = (char *)out + c[i].offset;
		if (c[i].type == AX_PT_INT) {
			int64_t x = v && v->type == AX_DB_VALUE_INT ? v->i : 0;
			memcpy(at, &x, sizeof(x));
		} else {
			const char *t =
			    v && v->type == AX_DB_VALUE_TEXT ? v->text : NULL;
			memcpy(at, &t, sizeof(t));
		}
	}
}

/* ---- the suite's facts -------------------------------------------------- */

/* The member of doc at a dotted path, or NULL. */
static const json_t *at_path(const json_t *doc, const char *path)
{
	char key[64];
	while (doc && path && *path) {
		size_t n = strcspn(path, ".");
		if (n >= sizeof(key))
			return NULL;
		memcpy(key, path, n);
		key[n] = '\0';
		doc = json_object_get(doc, key);
		path += n + (path[n] == '.');
	}
	return doc;
}

double ax_db_extra_num(const struct ax_db_result_row *r, const char *path)
{
	const json_t *v = at_path(r->extra_doc, path);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

const char *ax_db_extra_text(const struct ax_db_result_row *r, const char *path)
{
	return json_string_value(at_path(r->extra_doc, path));
}

/* The facts every reader shares, from the stored extra. */
static void extra_facts(struct ax_db_result_row *r)
{
	r->bytes = ax_db_extra_num(r, "bytes");
	r->input_bytes = ax_db_extra_num(r, "input_bytes");
	r->sustained = json_is_true(json_object_get(r->extra_doc, "sustained"));
	const json_t *ts = json_object_get(r->extra_doc, "tune_session");
	r->tune_session = json_is_integer(ts) ? json_integer_value(ts) : 0;
	r->tune_role = ax_db_extra_text(r, "role");
	if (ts && !r->tune_session)
		r->tune_session = AX_DB_NONE; /* named, but not as an id */
}

/* ---- the joined device, host, power and CPU rows ------------------------ */

/*
 * The device and host columns every listing joins in.  The driver's
 * version as text is the one `devices` wrote into the device's properties
 * (decoded by the vendor's packing rule, which only core/vk knows); a row
 * whose properties lack it or are not JSON reads NULL.  json_valid first:
 * json_extract on bad text would fail the whole query, and a damaged row
 * must not hide every result.
 */
#define DEV_COLS                                                               \
	"d.id, d.fingerprint, d.name, d.vendor, d.type, d.driver_name,"        \
	" d.driver_info, d.api_version, d.pci_bus_id, d.device_uuid,"          \
	" d.vendor_id, d.device_id, d.driver_version,"                         \
	" CASE WHEN json_valid(d.properties_json) THEN"                        \
	" json_extract(d.properties_json, '$.driver_version') END"
#define N_DEV_COLS 14
#define HOST_COLS "h.id, h.hostname, h.cpu_model, h.cores"
#define N_HOST_COLS 4

/* The Vulkan API version as "X.Y.Z": 3-bit variant, 7-bit major, 10-bit
 * minor, 12-bit patch. */
static const char *api_text(struct ax_db_mem *m, int64_t v)
{
	char text[32];
	snprintf(text, sizeof(text), "%lld.%lld.%lld",
		 (long long)((v >> 22) & 0x7f), (long long)((v >> 12) & 0x3ff),
		 (long long)(v & 0xfff));
	return mem_strdup(m, text);
}

static void device_cols(struct cols c, int at, struct ax_db_device_row *d)
{
	memset(d, 0, sizeof(*d));
	if (col_null(&c, at))
		return;
	c.table = "device";
	d->id = sqlite3_column_int64(c.st, at);
	d->fingerprint = col_text(&c, at + 1, "fingerprint");
	d->name = col_text(&c, at + 2, "name");
	d->vendor = col_text(&c, at + 3, "vendor");
	d->type = col_text(&c, at + 4, "type");
	d->driver_name = col_text(&c, at + 5, "driver_name");
	d->driver_info = col_text(&c, at + 6, "driver_info");
	d->api_version_packed = col_int(&c, at + 7);
	d->pci_bus_id = col_text(&c, at + 8, "pci_bus_id");
	d->device_uuid = col_text(&c, at + 9, "device_uuid");
	d->vendor_id = col_int(&c, at + 10);
	d->device_id = col_int(&c, at + 11);
	d->driver_version_packed = col_int(&c, at + 12);
	if (sqlite3_column_type(c.st, at + 13) == SQLITE_TEXT)
		d->driver_version = col_text(&c, at + 13, "driver_version");
	if (sqlite3_column_type(c.st, at + 7) == SQLITE_INTEGER)
		d->api_version = api_text(c.mem, d->api_version_packed);
}

static void host_cols(struct cols c, int at, struct ax_db_host_row *h)
{
	memset(h, 0, sizeof(*h));
	h->cores = AX_DB_NONE;
	if (col_null(&c, at))
		return;
	c.table = "host";
	h->id = sqlite3_column_int64(c.st, at);
	h->hostname = col_text(&c, at + 1, "hostname");
	h->cpu_model = col_text(&c, at + 2, "cpu_model");
	h->cores = col_int(&c, at + 3);
}

/* The result's power row (result_power p) and CPU baseline (c). */
#define POWER_SELECT(name) " p." #name ","
#define POWER_COLS                                                             \
	"p.result_id, p.source, p.reason, p.readings," AX_DB_POWER_FIGURES(    \
	    POWER_SELECT) " p.perf_per_w_unit, p.throttled,"                   \
			  " p.throttle_evidence, p.series_id"
#define POWER_ONE(name) +1
enum { N_POWER_FIGURES = 0 AX_DB_POWER_FIGURES(POWER_ONE) };
#define N_POWER_COLS (N_POWER_FIGURES + 8)
#define POWER_NAN(name) p->name = NAN;
#define POWER_READ(name) p->name = col_num(&c, k++);

static void power_cols(struct cols c, int at, struct ax_db_power_row *p)
{
	memset(p, 0, sizeof(*p));
	AX_DB_POWER_FIGURES(POWER_NAN)
	p->readings = p->throttled = AX_DB_NONE;
	if (col_null(&c, at))
		return;
	c.table = "result_power";
	p->present = true;
	p->source = col_text(&c, at + 1, "source");
	p->reason = col_text(&c, at + 2, "reason");
	p->readings = col_int(&c, at + 3);
	int k = at + 4;
	AX_DB_POWER_FIGURES(POWER_READ)
	p->perf_per_w_unit = col_text(&c, k, "perf_per_w_unit");
	if (!col_null(&c, k + 1))
		p->throttled = sqlite3_column_int64(c.st, k + 1) != 0;
	p->throttle_evidence = col_text(&c, k + 2, "throttle_evidence");
	p->series_id = col_id(&c, k + 3);
}

#define CPU_COLS                                                               \
	"c.id, c.library, c.version, c.corename, c.threads, c.note,"           \
	" c.median, c.ci_lo, c.ci_hi, c.n, c.unit, c.created_at,"              \
	" c.rel_noise, c.stop_reason, c.load_1m, c.busy_other,"                \
	" c.online_cpus"
#define N_CPU_COLS 17

static void cpu_cols(struct cols c, int at, struct ax_db_cpu_row *b)
{
	memset(b, 0, sizeof(*b));
	b->threads = b->n = b->online_cpus = AX_DB_NONE;
	b->median = b->ci_lo = b->ci_hi = b->rel_noise = NAN;
	b->load_1m = b->busy_other = NAN;
	if (col_null(&c, at))
		return;
	c.table = "cpu_baseline";
	b->id = sqlite3_column_int64(c.st, at);
	b->library = col_text(&c, at + 1, "library");
	b->version = col_text(&c, at + 2, "version");
	b->corename = col_text(&c, at + 3, "corename");
	b->threads = col_int(&c, at + 4);
	b->note = col_text(&c, at + 5, "note");
	b->median = col_num(&c, at + 6);
	b->ci_lo = col_num(&c, at + 7);
	b->ci_hi = col_num(&c, at + 8);
	b->n = col_int(&c, at + 9);
	b->unit = col_text(&c, at + 10, "unit");
	b->created_at = col_text(&c, at + 11, "created_at");
	b->rel_noise = col_num(&c, at + 12);
	b->stop_reason = col_text(&c, at + 13, "stop_reason");
	b->load_1m = col_num(&c, at + 14);
	b->busy_other = col_num(&c, at + 15);
	b->online_cpus = col_int(&c, at + 16);
}

enum ax_db_cpu_fit ax_db_cpu_fit(const struct ax_db_cpu_row *c,
				 double noise_target)
{
	if (!isfinite(c->busy_other) || c->online_cpus < 1)
		return AX_DB_CPU_LOAD_UNKNOWN;
	if (c->busy_other > AX_DB_CPU_BUSY_MAX * (double)c->online_cpus)
		return AX_DB_CPU_LOADED;
	/* A NAN rel_noise (never summarised) is as wide as can be. */
	if (isfinite(noise_target) &&
	    !(isfinite(c->rel_noise) && c->rel_noise <= noise_target))
		return AX_DB_CPU_NOISY;
	return AX_DB_CPU_CLEAN;
}

const char *ax_db_cpu_fit_name(enum ax_db_cpu_fit f)
{
	static const char *const names[] = {"clean", "load-unknown",
					    "under-load", "noisy"};
	return (unsigned)f < NCOLS(names) ? names[f] : "unknown";
}

const char *ax_db_cpu_fit_why(const struct ax_db_cpu_row *c,
			      double noise_target, char *buf, size_t len)
{
	switch (ax_db_cpu_fit(c, noise_target)) {
	case AX_DB_CPU_LOAD_UNKNOWN:
		snprintf(buf, len,
			 "its machine load is unknown (stored before axbench "
			 "kept it)");
		break;
	case AX_DB_CPU_LOADED:
		snprintf(buf, len,
			 "it was taken under load: other processes kept "
			 "%.2f of %" PRId64 " CPUs busy, above %.2f",
			 c->busy_other, c->online_cpus,
			 AX_DB_CPU_BUSY_MAX * (double)c->online_cpus);
		break;
	case AX_DB_CPU_NOISY:
		snprintf(buf, len,
			 "its interval is wider than the noise target "
			 "(+-%.1f %% against %.1f %%)",
			 100 * c->rel_noise, 100 * noise_target);
		break;
	default:
		snprintf(buf, len, "%s", "");
	}
	return buf;
}

int ax_db_cpu_baselines_each(struct ax_db *db,
			     const struct ax_db_cpu_baseline *key,
			     ax_db_cpu_row_fn fn, void *ctx)
{
	char sh[17];
	sqlite3_stmt *st;
	int rc = ax_dbi_prepare(
	    db,
	    "SELECT " CPU_COLS " FROM cpu_baseline c WHERE host_id = ? AND"
	    " suite = ? AND shape_hash = ? AND shape_json = ? AND"
	    " threads = ? AND library = ? AND version IS ? AND"
	    " corename IS ? AND status = 'ok' AND median > 0"
	    " ORDER BY id DESC",
	    &st);
	if (rc)
		return rc;
	ax_dbi_hash_hex(key->shape_json, sh);
	sqlite3_bind_int64(st, 1, key->host_id);
	ax_dbi_bind_text(st, 2, key->suite);
	ax_dbi_bind_text(st, 3, sh);
	ax_dbi_bind_text(st, 4, key->shape_json);
	sqlite3_bind_int(st, 5, key->threads);
	ax_dbi_bind_text(st, 6, key->library);
	ax_dbi_bind_text(st, 7, key->version);
	ax_dbi_bind_text(st, 8, key->corename);
	int stop = 0;
	bool oom = false;
	while (!stop && !oom && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct cols c = {st, mem_new(), "cpu_baseline"};
		struct ax_db_cpu_row row;
		if (c.mem)
			cpu_cols(c, 0, &row);
		oom = !c.mem || c.mem->oom;
		if (!oom)
			stop = fn(ctx, &row);
		mem_free(c.mem);
	}
	sqlite3_finalize(st);
	if (oom)
		return ax_dbi_fail(db, AX_ENOMEM, "out of memory");
	if (stop)
		return stop;
	return rc == SQLITE_DONE
		   ? 0
		   : ax_dbi_fail_sql(db, rc, "looking up a CPU baseline");
}

/* ---- filters ------------------------------------------------------------ */

/*
 * The WHERE clause shared by the listings.  Only fixed fragments are
 * concatenated (sqlite3_str_appendall, never a format); every value is
 * bound: run ids travel as one JSON array read back by json_each.
 */
struct where {
	sqlite3_str *sql;
	const char *args[4];
	int nargs;
	char *ids_json;
};

/* The run ids of f as a JSON array, for json_each. */
static char *ids_json(const struct ax_db_filter *f)
{
	json_t *a = json_array();
	for (int i = 0; a && i < f->n_run_ids; i++)
		json_array_append_new(a, json_integer(f->run_ids[i]));
	char *text = a ? json_dumps(a, JSON_COMPACT) : NULL;
	json_decref(a);
	return text;
}

/* The statement's head, " WHERE 1" and one " AND" per filter, with its
 * argument: the caller may add more before prepare_where. */
static int build_where(struct where *w, const char *head,
		       const struct ax_db_filter *f, const char *time_col,
		       bool runs)
{
	w->sql = sqlite3_str_new(NULL);
	sqlite3_str_appendall(w->sql, head);
	sqlite3_str_appendall(w->sql, " WHERE 1");
	w->nargs = 0;
	w->ids_json = NULL;
	if (!f)
		return 0;
	if (runs && f->n_run_ids > 0) {
		if (!(w->ids_json = ids_json(f)))
			return AX_ENOMEM;
		/* The unary + keeps SQLite from looking the runs up by id:
		 * it walks them in start order instead (run_started), so
		 * the results come sorted with no sort in memory. */
		sqlite3_str_appendall(w->sql,
				      " AND +r.id IN"
				      " (SELECT value FROM json_each(?))");
		w->args[w->nargs++] = w->ids_json;
	}
	if (f->suite) {
		/* As above: filtered on the way, never sorted. */
		sqlite3_str_appendall(w->sql, " AND +x.suite = ?");
		w->args[w->nargs++] = f->suite;
	}
	if (f->device_fingerprint) {
		sqlite3_str_appendall(w->sql, " AND d.fingerprint = ?");
		w->args[w->nargs++] = f->device_fingerprint;
	}
	if (f->since) {
		sqlite3_str_appendall(w->sql, " AND ");
		sqlite3_str_appendall(w->sql, time_col);
		sqlite3_str_appendall(w->sql, " >= ?");
		w->args[w->nargs++] = f->since;
	}
	return 0;
}

static void where_free(struct where *w)
{
	sqlite3_free(sqlite3_str_finish(w->sql));
	w->sql = NULL;
	free(w->ids_json);
	w->ids_json = NULL;
}

/* Ends the statement with tail, prepares it and binds its arguments
 * (copied: SQLITE_TRANSIENT); w is freed either way. */
static int prepare_where(struct ax_db *db, struct where *w, const char *tail,
			 sqlite3_stmt **st)
{
	sqlite3_str_appendall(w->sql, tail);
	int oom = sqlite3_str_errcode(w->sql) != SQLITE_OK;
	char *sql = sqlite3_str_finish(w->sql);
	int rc = oom || !sql ? ax_dbi_fail(db, AX_ENOMEM, "out of memory")
			     : ax_dbi_prepare(db, sql, st);

	sqlite3_free(sql);
	w->sql = NULL;
	for (int i = 0; !rc && i < w->nargs; i++)
		ax_dbi_bind_text(*st, i + 1, w->args[i]);
	where_free(w);
	return rc;
}

/* build_where then prepare_where, or the failure. */
static int prepare_listing(struct ax_db *db, const char *head,
			   const struct ax_db_filter *f, const char *time_col,
			   bool runs, const char *tail, sqlite3_stmt **st)
{
	struct where w;
	if (build_where(&w, head, f, time_col, runs)) {
		where_free(&w);
		return ax_dbi_fail(db, AX_ENOMEM, "out of memory");
	}
	return prepare_where(db, &w, tail, st);
}

/* ---- results ------------------------------------------------------------ */

/* The noise target the result's run asked for (the runner's max_noise, a
 * fraction), from the run's stored settings: compare calls a change
 * between results that missed it "noisy".  NULL for runs that keep none
 * (a tuning session, a monitor run) and for settings that are not JSON. */
#define NOISE_TARGET_SQL                                                       \
	"CASE WHEN json_valid(r.config_json) THEN"                             \
	" json_extract(r.config_json, '$.max_noise') END"

/* The listing of results.  Ordered by run start, run and result id, which
 * the run_started and result_run indices give in that order: SQLite steps
 * through them with no sort, so the first row comes at once and memory
 * holds one row, whatever the history (checked with EXPLAIN QUERY PLAN in
 * tests/unit/test_db_plan.c). */
#define RESULTS_SQL                                                            \
	"SELECT x.id, x.uuid, x.run_id, r.uuid, r.started_at,"                 \
	" x.suite, x.case_label, x.params_json, x.params_hash,"                \
	" x.shader_hash, x.unit, x.higher_is_better, x.work,"                  \
	" x.timing_mode, x.stop_reason, x.status, x.error_text, x.n,"          \
	" x.median, x.min, x.max, x.mean, x.stddev, x.q1, x.q3,"               \
	" x.mad, x.ci_lo, x.ci_hi, x.rel_noise, x.extra_json,"                 \
	" " AX_RUN_STATUS_SQL(                                                 \
	    "r") ", x.speedup_vs_cpu, " NOISE_TARGET_SQL                       \
		 ", r.label, " DEV_COLS ", " HOST_COLS ", " POWER_COLS         \
		 ", " CPU_COLS " FROM run r JOIN result x ON x.run_id = r.id"  \
		 " LEFT JOIN device d ON d.id = r.device_id"                   \
		 " LEFT JOIN host h ON h.id = r.host_id"                       \
		 " LEFT JOIN result_power p ON p.result_id = x.id"             \
		 " LEFT JOIN cpu_baseline c ON c.id = x.cpu_baseline_id"
#define N_RESULT_COLS 34
#define RESULTS_ORDER " ORDER BY r.started_at, r.id, x.id"

/* The statement that reads one result's raw samples, prepared once per
 * listing and reset for each result: a listing of 10 000 results would
 * otherwise compile it 10 000 times. */
#define SAMPLES_SQL                                                            \
	"SELECT value, seconds FROM sample WHERE result_id = ? ORDER BY idx"

/* The listing as each filter makes it, and the samples' query: the
 * history queries whose plans tests/unit/test_db_plan.c checks. */
const struct ax_dbi_query ax_dbi_history_queries[] = {
    {"results", RESULTS_SQL " WHERE 1" RESULTS_ORDER},
    {"results of some runs", RESULTS_SQL
     " WHERE 1 AND +r.id IN (SELECT value FROM json_each(?))" RESULTS_ORDER},
    {"results since a date",
     RESULTS_SQL " WHERE 1 AND r.started_at >= ?" RESULTS_ORDER},
    {"results of one suite",
     RESULTS_SQL " WHERE 1 AND +x.suite = ?" RESULTS_ORDER},
    {"samples of a result", SAMPLES_SQL},
    {NULL, NULL},
};

/* The summary of columns 18..28, kept only for an ok result: a failed
 * result has no figure (DESIGN), whatever older rows stored for it. */
static void summary_cols(const struct cols *c, struct ax_db_result_row *r)
{
	double *figures[] = {
	    &r->median, &r->min, &r->max,   &r->mean,  &r->stddev,    &r->q1,
	    &r->q3,	&r->mad, &r->ci_lo, &r->ci_hi, &r->rel_noise,
	};
	for (int k = 0; k < NCOLS(figures); k++)
		*figures[k] = r->ok ? col_num(c, 18 + k) : NAN;
}

static void result_texts(const struct cols *c, struct ax_db_result_row *r)
{
	r->uuid = col_text(c, 1, "uuid");
	r->run_uuid = col_text(c, 3, "run_uuid");
	r->started_at = col_text(c, 4, "started_at");
	r->suite = col_text(c, 5, "suite");
	r->case_label = col_text(c, 6, "case");
	r->params_hash = col_text(c, 8, "params_hash");
	r->shader_hash = col_text(c, 9, "shader_hash");
	r->unit = col_text(c, 10, "unit");
	r->timing_mode = col_text(c, 13, "timing_mode");
	r->stop_reason = col_text(c, 14, "stop_reason");
	r->status = col_text(c, 15, "status");
	r->error = col_text(c, 16, "error");
	r->run_status = col_text(c, 30, "run_status");
	r->run_label = col_text(c, 33, "run_label");
}

/* The result of st's current row (NULL when out of memory). */
static struct ax_db_result_row *result_row(sqlite3_stmt *st)
{
	struct ax_db_result_row *r = calloc(1, sizeof(*r));
	struct cols c = {st, r ? (r->mem = mem_new()) : NULL, "result"};
	if (!c.mem) {
		free(r);
		return NULL;
	}
	r->id = sqlite3_column_int64(st, 0);
	r->run_id = sqlite3_column_int64(st, 2);
	result_texts(&c, r);
	r->ok = r->status && strcmp(r->status, "ok") == 0;
	r->higher_is_better = sqlite3_column_int(st, 11) != 0;
	r->work = col_num(&c, 12);
	r->n = col_int(&c, 17);
	summary_cols(&c, r);
	r->speedup_vs_cpu = col_num(&c, 31);
	r->noise_target = col_num(&c, 32);
	r->params_doc = col_doc(&c, 7, "params");
	r->params = params_of(c.mem, r->params_doc);
	r->extra_doc = col_doc(&c, 29, "extra");
	extra_facts(r);
	int at = N_RESULT_COLS;
	device_cols(c, at, &r->device);
	host_cols(c, at += N_DEV_COLS, &r->host);
	power_cols(c, at += N_HOST_COLS, &r->power);
	cpu_cols(c, at + N_POWER_COLS, &r->cpu);
	if (c.mem->oom) {
		ax_db_result_row_free(r);
		return NULL;
	}
	return r;
}

/* The raw samples of r (st: SAMPLES_SQL), NAN where NULL. */
static int add_samples(struct ax_db *db, sqlite3_stmt *st,
		       struct ax_db_result_row *r)
{
	size_t cap = 0, n = 0;
	double *vals = NULL, *secs = NULL;
	int rc;
	struct cols c = {st, r->mem, "sample"};
	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, r->id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (n == cap) {
			/* n first; more than n says only in a damaged row. */
			size_t grown = cap	  ? 2 * cap
				       : r->n > 0 ? (size_t)r->n
						  : 16;
			double *v = mem_alloc(r->mem, 2 * grown * sizeof(*v));
			if (!v)
				return ax_dbi_fail(db, AX_ENOMEM,
						   "out of memory");
			if (n)
				memcpy(v, vals, n * sizeof(*v)),
				    memcpy(v + grown, secs, n * sizeof(*v));
			vals = v;
			secs = v + grown;
			cap = grown;
		}
		vals[n] = col_num(&c, 0);
		secs[n] = col_num(&c, 1);
		n++;
	}
	r->samples = vals;
	r->seconds = secs;
	r->n_samples = n;
	return rc == SQLITE_DONE ? 0
				 : ax_dbi_fail_sql(db, rc, "reading samples");
}

void ax_db_result_row_free(struct ax_db_result_row *r)
{
	if (!r)
		return;
	mem_free(r->mem);
	free(r);
}

/* The next row of a results listing, with its samples when asked. */
static int next_result(struct ax_db *db, sqlite3_stmt *st,
		       sqlite3_stmt *samples, struct ax_db_result_row **out)
{
	*out = result_row(st);
	if (!*out)
		return ax_dbi_fail(db, AX_ENOMEM, "out of memory");
	int err = samples ? add_samples(db, samples, *out) : 0;
	if (err) {
		ax_db_result_row_free(*out);
		*out = NULL;
	}
	return err;
}

int ax_db_result_rows_each(struct ax_db *db, const struct ax_db_filter *f,
			   ax_db_result_row_fn fn, void *ctx)
{
	sqlite3_stmt *st, *samples = NULL;
	int rc = prepare_listing(db, RESULTS_SQL, f, "r.started_at", true,
				 RESULTS_ORDER, &st);
	if (rc)
		return rc;
	if (f && f->with_samples &&
	    (rc = ax_dbi_prepare(db, SAMPLES_SQL, &samples))) {
		sqlite3_finalize(st);
		return rc;
	}
	const volatile int *stop = f ? f->stop : NULL;
	int err = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct ax_db_result_row *r;
		if (stop && *stop) {
			err = ax_dbi_fail(db, AX_EINTR, "interrupted");
			break;
		}
		if ((err = next_result(db, st, samples, &r)))
			break;
		err = fn(ctx, &r);
		ax_db_result_row_free(r);
		if (err)
			break;
	}
	if (!err && rc != SQLITE_DONE)
		err = ax_dbi_fail_sql(db, rc, "reading results");
	sqlite3_finalize(samples);
	sqlite3_finalize(st);
	return err;
}

int ax_db_results_push(struct ax_db_results *l, struct ax_db_result_row *r)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		struct ax_db_result_row **v = realloc(l->v, cap * sizeof(*v));
		if (!v)
			return AX_ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = r;
	return 0;
}

void ax_db_results_free(struct ax_db_results *l)
{
	for (size_t i = 0; l && i < l->n; i++)
		ax_db_result_row_free(l->v[i]);
	if (l) {
		free(l->v);
		memset(l, 0, sizeof(*l));
	}
}

static int keep_result(void *list, struct ax_db_result_row **r)
{
	if (ax_db_results_push(list, *r))
		return AX_ENOMEM;
	*r = NULL;
	return 0;
}

int ax_db_result_rows(struct ax_db *db, const struct ax_db_filter *f,
		      struct ax_db_results *out)
{
	memset(out, 0, sizeof(*out));
	int rc = ax_db_result_rows_each(db, f, keep_result, out);
	if (rc == AX_ENOMEM)
		ax_dbi_fail(db, rc, "out of memory");
	return rc;
}

/* ---- runs --------------------------------------------------------------- */

#define RUNS_SQL                                                               \
	"SELECT r.id, r.uuid, r.started_at, r.finished_at,"                    \
	" " AX_RUN_STATUS_SQL("r") ", " AX_RUN_KIND_SQL(                       \
	    "r") ","                                                           \
		 " r.profile, r.label, r.axbench_version, r.git_sha, "         \
		 "r.argv_json,"                                                \
		 " (SELECT count(*) FROM result x WHERE x.run_id = "           \
		 "r.id), " DEV_COLS ", " HOST_COLS                             \
		 " FROM run r LEFT JOIN device d ON d.id = r.device_id"        \
		 " LEFT JOIN host h ON h.id = r.host_id"
#define N_RUN_COLS 12

/* The command line's words (pointing into doc, which the row keeps). */
static void argv_of(struct ax_db_run_row *r)
{
	size_t n =
	    json_is_array(r->argv_doc) ? json_array_size(r->argv_doc) : 0;
	const char **v = n ? mem_alloc(r->mem, n * sizeof(*v)) : NULL;
	if (!v)
		return;
	for (size_t i = 0; i < n; i++) {
		const char *s =
		    json_string_value(json_array_get(r->argv_doc, i));
		v[i] = s ? s : "";
	}
	r->argv = v;
	r->argc = (int)n;
}

static struct ax_db_run_row *run_row(sqlite3_stmt *st)
{
	struct ax_db_run_row *r = calloc(1, sizeof(*r));
	struct cols c = {st, r ? (r->mem = mem_new()) : NULL, "run"};
	if (!c.mem) {
		free(r);
		return NULL;
	}
	r->id = sqlite3_column_int64(st, 0);
	r->uuid = col_text(&c, 1, "uuid");
	r->started_at = col_text(&c, 2, "started_at");
	r->finished_at = col_text(&c, 3, "finished_at");
	r->status = col_text(&c, 4, "status");
	r->kind = col_text(&c, 5, "kind");
	r->profile = col_text(&c, 6, "profile");
	r->label = col_text(&c, 7, "label");
	r->axbench_version = col_text(&c, 8, "axbench_version");
	r->git_sha = col_text(&c, 9, "git_sha");
	r->argv_doc = col_doc(&c, 10, "argv");
	argv_of(r);
	r->n_results = col_int(&c, 11);
	device_cols(c, N_RUN_COLS, &r->device);
	host_cols(c, N_RUN_COLS + N_DEV_COLS, &r->host);
	if (c.mem->oom) {
		mem_free(r->mem);
		free(r);
		return NULL;
	}
	return r;
}

void ax_db_runs_free(struct ax_db_runs *l)
{
	for (size_t i = 0; l && i < l->n; i++) {
		mem_free(l->v[i]->mem);
		free(l->v[i]);
	}
	if (l) {
		free(l->v);
		memset(l, 0, sizeof(*l));
	}
}

/* Step st to its end, making a row of each with make() into a growing
 * array (*v, *n).  Stops with AX_EINTR when *stop (may be NULL) is set: a
 * reader of a large database answers Ctrl-C within one row. */
static int collect(struct ax_db *db, sqlite3_stmt *st,
		   void *(*make)(sqlite3_stmt *), const volatile int *stop,
		   void ***v, size_t *n)
{
	size_t cap = 0;
	int rc, err = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (stop && *stop) {
			err = ax_dbi_fail(db, AX_EINTR, "interrupted");
			break;
		}
		if (*n == cap) {
			cap = cap ? 2 * cap : 16;
			void **grown = realloc(*v, cap * sizeof(*grown));
			if (!grown) {
				err =
				    ax_dbi_fail(db, AX_ENOMEM, "out of memory");
				break;
			}
			*v = grown;
		}
		if (!((*v)[*n] = make(st))) {
			err = ax_dbi_fail(db, AX_ENOMEM, "out of memory");
			break;
		}
		(*n)++;
	}
	if (!err && rc != SQLITE_DONE)
		err = ax_dbi_fail_sql(db, rc, "reading");
	sqlite3_finalize(st);
	return err;
}

static void *make_run(sqlite3_stmt *st) { return run_row(st); }

int ax_db_run_rows(struct ax_db *db, const struct ax_db_filter *f,
		   struct ax_db_runs *out)
{
	struct ax_db_filter rf;
	struct where w;
	sqlite3_stmt *st;

	memset(out, 0, sizeof(*out));
	/* Runs have no suite; a suite filter keeps runs holding one. */
	if (f)
		rf = *f;
	else
		memset(&rf, 0, sizeof(rf));
	rf.suite = NULL;
	if (build_where(&w, RUNS_SQL, &rf, "r.started_at", true)) {
		where_free(&w);
		return ax_dbi_fail(db, AX_ENOMEM, "out of memory");
	}
	if (f && f->suite) {
		sqlite3_str_appendall(
		    w.sql, " AND EXISTS (SELECT 1 FROM result x WHERE"
			   " x.run_id = r.id AND x.suite = ?)");
		w.args[w.nargs++] = f->suite;
	}
	int rc = prepare_where(db, &w, " ORDER BY r.started_at DESC, r.id DESC",
			       &st);
	if (rc)
		return rc;
	return collect(db, st, make_run, f ? f->stop : NULL, (void ***)&out->v,
		       &out->n);
}

/* ---- tuning sessions ---------------------------------------------------- */

#define SESSION_SELECT                                                         \
	"SELECT x.id, x.uuid, x.suite, x.strategy, x.objective, x.seed,"       \
	" x.budget, x.stop_reason, x.best_trial_id, x.started_at,"             \
	" x.finished_at, x.shape_json, x.space_json, x.stop_rule,"             \
	" x.prior_session_id, x.mode, x.front_json, " DEV_COLS                 \
	" FROM tune_session x LEFT JOIN device d ON d.id = x.device_id"
#define N_SESSION_COLS 17

static void session_texts(const struct cols *c, struct ax_db_session_row *s)
{
	s->uuid = col_text(c, 1, "uuid");
	s->suite = col_text(c, 2, "suite");
	s->strategy = col_text(c, 3, "strategy");
	s->objective = col_text(c, 4, "objective");
	s->stop_reason = col_text(c, 7, "stop_reason");
	s->started_at = col_text(c, 9, "started_at");
	s->finished_at = col_text(c, 10, "finished_at");
	s->stop_rule = col_text(c, 13, "stop_rule");
	/* Sessions from before schema 9 were all sampled in batch mode. */
	s->mode = col_null(c, 15) ? "batch" : col_text(c, 15, "mode");
}

static struct ax_db_session_row *session_row(sqlite3_stmt *st)
{
	struct ax_db_session_row *s = calloc(1, sizeof(*s));
	struct cols c = {st, s ? (s->mem = mem_new()) : NULL, "session"};
	if (!c.mem) {
		free(s);
		return NULL;
	}
	s->id = sqlite3_column_int64(st, 0);
	session_texts(&c, s);
	s->has_seed = !col_null(&c, 5);
	s->seed = (uint64_t)sqlite3_column_int64(st, 5);
	s->budget = col_int(&c, 6);
	s->best_trial_id = col_id(&c, 8);
	s->shape_doc = col_doc(&c, 11, "shape");
	s->shape = params_of(c.mem, s->shape_doc);
	s->space_doc = col_doc(&c, 12, "space");
	s->front_doc = col_doc(&c, 16, "front");
	s->prior_session_id = col_id(&c, 14);
	device_cols(c, N_SESSION_COLS, &s->device);
	if (c.mem->oom) {
		ax_db_session_row_free(s);
		return NULL;
	}
	return s;
}

static void trial_cols(const struct cols *c, struct ax_db_trial_row *t)
{
	t->id = sqlite3_column_int64(c->st, 0);
	t->index = col_int(c, 1);
	t->params_doc = col_doc(c, 2, "params");
	t->params = params_of(c->mem, t->params_doc);
	t->status = col_text(c, 3, "status");
	t->value = col_num(c, 4);
	t->seconds = col_num(c, 5);
	t->compile_ms = col_num(c, 6);
	t->result_id = col_id(c, 7);
	t->error = col_text(c, 8, "error");
	t->created_at = col_text(c, 9, "created_at");
	t->objective_value = col_num(c, 10);
}

/* The session's trials, by index, into its memory. */
static int add_trials(struct ax_db *db, struct ax_db_session_row *s)
{
	sqlite3_stmt *st;
	int rc = ax_dbi_prepare(db,
				"SELECT id, idx, params_json, status, value,"
				" seconds, compile_ms, result_id, error_text,"
				" created_at, objective_value FROM trial"
				" WHERE session_id = ?"
				" ORDER BY idx",
				&st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, s->id);
	struct cols c = {st, s->mem, "trial"};
	size_t cap = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (s->n_trials == cap) {
			size_t grown = cap ? 2 * cap : 32;
			struct ax_db_trial_row *v =
			    mem_alloc(s->mem, grown * sizeof(*v));
			if (!v)
				break;
			if (s->n_trials)
				memcpy(v, s->trials, s->n_trials * sizeof(*v));
			s->trials = v;
			cap = grown;
		}
		trial_cols(&c, &s->trials[s->n_trials++]);
	}
	sqlite3_finalize(st);
	if (s->mem->oom)
		return ax_dbi_fail(db, AX_ENOMEM, "out of memory");
	return rc == SQLITE_DONE ? 0
				 : ax_dbi_fail_sql(db, rc, "reading trials");
}

void ax_db_session_row_free(struct ax_db_session_row *s)
{
	if (!s)
		return;
	mem_free(s->mem);
	free(s);
}

void ax_db_sessions_free(struct ax_db_sessions *l)
{
	for (size_t i = 0; l && i < l->n; i++)
		ax_db_session_row_free(l->v[i]);
	if (l) {
		free(l->v);
		memset(l, 0, sizeof(*l));
	}
}

static void *make_session(sqlite3_stmt *st) { return session_row(st); }

/* The trials of every session of l. */
static int add_all_trials(struct ax_db *db, struct ax_db_sessions *l)
{
	int rc = 0;
	for (size_t i = 0; !rc && i < l->n; i++)
		rc = add_trials(db, l->v[i]);
	return rc;
}

int ax_db_session_rows(struct ax_db *db, const struct ax_db_filter *f,
		       struct ax_db_sessions *out)
{
	sqlite3_stmt *st;
	memset(out, 0, sizeof(*out));
	int rc = prepare_listing(db, SESSION_SELECT, f, "x.started_at", false,
				 " ORDER BY x.started_at, x.id", &st);
	if (!rc)
		rc = collect(db, st, make_session, f ? f->stop : NULL,
			     (void ***)&out->v, &out->n);
	return rc ? rc : add_all_trials(db, out);
}

int ax_db_session_row_get(struct ax_db *db, int64_t session_id,
			  struct ax_db_session_row **out)
{
	struct ax_db_sessions l = {NULL, 0};
	sqlite3_stmt *st;
	*out = NULL;
	int rc = ax_dbi_prepare(db, SESSION_SELECT " WHERE x.id = ?", &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, session_id);
	rc = collect(db, st, make_session, NULL, (void ***)&l.v, &l.n);
	if (!rc && l.n == 0)
		rc = ax_dbi_fail(db, AX_ENOTFOUND,
				 "%s: no tuning session with id %" PRId64
				 "; list sessions with `axbench tune --list`",
				 db->path, session_id);
	if (!rc)
		rc = add_all_trials(db, &l);
	if (!rc) {
		*out = l.v[0];
		l.v[0] = NULL;
		l.n = 0;
	}
	ax_db_sessions_free(&l);
	return rc;
}

/* ---- telemetry series --------------------------------------------------- */

/* The series' readings, NAN where not measured. */
static int series_samples(struct ax_db *db, struct ax_db_series_row *s)
{
#define SERIES_ARRAY(name) &s->name,
	double **cols[] = {&s->t, AX_TEL_STORED(SERIES_ARRAY)};
#undef SERIES_ARRAY
#define SERIES_COLUMN(name) " " #name ","
	sqlite3_stmt *st;
	int rc = ax_dbi_prepare(
	    db,
	    "SELECT t," AX_TEL_STORED(
		SERIES_COLUMN) " count(*) OVER () FROM telemetry_sample"
			       " WHERE series_id = ? ORDER BY idx",
	    &st);
#undef SERIES_COLUMN
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, s->id);
	struct cols c = {st, s->mem, "telemetry_sample"};
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (!s->t) {
			size_t total =
			    (size_t)sqlite3_column_int64(st, NCOLS(cols));
			for (int k = 0; k < NCOLS(cols); k++)
				if (!(*cols[k] = mem_alloc(
					  s->mem, total * sizeof(double))))
					break;
			if (s->mem->oom)
				break;
		}
		for (int k = 0; k < NCOLS(cols); k++)
			(*cols[k])[s->n] = col_num(&c, k);
		s->n++;
	}
	sqlite3_finalize(st);
	if (s->mem->oom)
		return ax_dbi_fail(db, AX_ENOMEM, "out of memory");
	return rc == SQLITE_DONE ? 0
				 : ax_dbi_fail_sql(db, rc, "reading telemetry");
}

void ax_db_series_row_free(struct ax_db_series_row *s)
{
	if (!s)
		return;
	mem_free(s->mem);
	free(s);
}

/* The series row of st, or NULL. */
static struct ax_db_series_row *series_row(sqlite3_stmt *st)
{
	struct ax_db_series_row *s = calloc(1, sizeof(*s));
	struct cols c = {st, s ? (s->mem = mem_new()) : NULL,
			 "telemetry_series"};
	if (!c.mem) {
		free(s);
		return NULL;
	}
	s->id = sqlite3_column_int64(st, 0);
	s->kind = col_text(&c, 1, "kind");
	s->source = col_text(&c, 2, "source");
	s->interval_s = col_num(&c, 3);
	s->timed_from_s = col_num(&c, 4);
	return s;
}

int ax_db_series_row_get(struct ax_db *db, int64_t result_id,
			 struct ax_db_series_row **out)
{
	sqlite3_stmt *st;
	*out = NULL;
	int rc = ax_dbi_prepare(db,
				"SELECT id, kind, source, interval_s,"
				" timed_from_s FROM telemetry_series WHERE"
				" result_id = ? ORDER BY id DESC LIMIT 1",
				&st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, result_id);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(st);
		return rc == SQLITE_DONE
			   ? ax_dbi_fail(db, AX_ENOTFOUND,
					 "%s: result %" PRId64
					 " has no telemetry series",
					 db->path, result_id)
			   : ax_dbi_fail_sql(db, rc, "reading telemetry");
	}
	struct ax_db_series_row *s = series_row(st);
	sqlite3_finalize(st);
	if (!s || s->mem->oom) {
		ax_db_series_row_free(s);
		return ax_dbi_fail(db, AX_ENOMEM, "out of memory");
	}
	if ((rc = series_samples(db, s))) {
		ax_db_series_row_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

/* ---- baselines ---------------------------------------------------------- */

/* The run ids of a baseline: the JSON array column i ("[3,4]"). */
static void baseline_runs(const struct cols *c, int i,
			  struct ax_db_baseline_row *b)
{
	json_t *ids =
	    json_loads((const char *)sqlite3_column_text(c->st, i), 0, NULL);
	size_t n = json_array_size(ids);
	int64_t *v = n ? mem_alloc(c->mem, n * sizeof(*v)) : NULL;
	for (size_t k = 0; v && k < n; k++)
		v[k] = json_integer_value(json_array_get(ids, k));
	json_decref(ids);
	b->run_ids = v;
	b->n_run_ids = v ? (int)n : 0;
}

int ax_db_baseline_rows(struct ax_db *db, struct ax_db_baselines *out)
{
	sqlite3_stmt *st;
	memset(out, 0, sizeof(*out));
	int rc = ax_dbi_prepare(db,
				"SELECT name, run_id, created_at,"
				" coalesce((SELECT CASE WHEN count(*) THEN"
				"  json_group_array(run_id) END"
				"  FROM (SELECT run_id FROM baseline_run"
				"   WHERE baseline_id = b.id ORDER BY run_id)),"
				"  json_array(run_id)),"
				" count(*) OVER ()"
				" FROM baseline b ORDER BY name",
				&st);
	if (rc)
		return rc;
	if (!(out->mem = mem_new())) {
		sqlite3_finalize(st);
		return ax_dbi_fail(db, AX_ENOMEM, "out of memory");
	}
	struct cols c = {st, out->mem, "baseline"};
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (!out->v &&
		    !(out->v = mem_alloc(out->mem,
					 (size_t)sqlite3_column_int64(st, 4) *
					     sizeof(*out->v))))
			break;
		struct ax_db_baseline_row *b = &out->v[out->n++];
		b->name = col_text(&c, 0, "name");
		b->run_id = col_id(&c, 1);
		b->created_at = col_text(&c, 2, "created_at");
		baseline_runs(&c, 3, b);
	}
	sqlite3_finalize(st);
	if (out->mem->oom)
		return ax_dbi_fail(db, AX_ENOMEM, "out of memory");
	return rc == SQLITE_DONE || rc == SQLITE_ROW
		   ? 0
		   : ax_dbi_fail_sql(db, rc, "reading baselines");
}

void ax_db_baselines_free(struct ax_db_baselines *l)
{
	if (!l)
		return;
	mem_free(l->mem);
	memset(l, 0, sizeof(*l));
}
