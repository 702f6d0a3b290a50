/*
 * suites/kernel_run.c - one case of a user kernel: compile (core/glsl.h),
 * buffers with their initial data, the pipeline, the dispatch the runner
 * times, and verification against the reference configuration's outputs
 * or the buffers' expect files.
 *
 * Verification runs its own dispatch on freshly uploaded inputs rather
 * than reading what the warm-up left: an inout buffer changes with every
 * repetition, and the reference ran exactly once on the same inputs.
 */
#include "core/error.h"
#include "core/glsl.h"
#include "core/infile.h"
#include "suites/kernel_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct kstate {
	struct ax_kernel *k;
	struct ax_vk_ctx *vk;
	struct ax_params p;
	int n_buf;
	struct ax_vk_buffer buf[AX_KERNEL_MAX_BUFFERS];
	uint32_t *init[AX_KERNEL_MAX_BUFFERS]; /* initial words */
	uint64_t words[AX_KERNEL_MAX_BUFFERS];
	struct ax_vk_pipeline pipe;
	uint32_t push[AX_KERNEL_MAX_PUSH];
	uint32_t groups[3];
	struct ax_glsl_spirv spirv;
	/* expected outputs: the kernel's reference cache or expect files
	 * (owned when from a file); NULL: the case is the reference */
	const uint32_t *expect[AX_KERNEL_MAX_BUFFERS];
	uint32_t *expect_file[AX_KERNEL_MAX_BUFFERS];
	bool is_reference;
	char against[640]; /* what verify compares with, for describe */
};

/* ---- initial data ----------------------------------------------------- */

/* The first `words` 4-byte words of a data file (what: "init file" or
 * "expect file"); raw little-endian, as a GPU reads them.  A shorter file
 * is an error; a FIFO or a device is refused, never waited on
 * (core/infile.h). */
static int read_words(const char *path, const char *what, uint64_t words,
		      uint32_t **out, char *err, size_t errlen)
{
	struct stat st;
	int fd = ax_infile_open(path, what, &st, err, errlen);
	if (fd < 0)
		return fd;
	FILE *f = fdopen(fd, "rb");
	if (!f) {
		close(fd);
		return AX_ENOMEM;
	}
	uint32_t *w = malloc(words * 4);
	size_t got = w ? fread(w, 4, words, f) : 0;
	int rc = !w ? AX_ENOMEM : 0;
	if (!rc && got < words)
		rc = ferror(f) ? ax_errf(err, errlen, AX_EIO, "%s: %s", path,
					 strerror(errno))
			       : ax_errf(err, errlen, AX_ECONFIG,
					 "%s holds %zu 4-byte words; the "
					 "buffer needs %" PRIu64,
					 path, got, words);
	fclose(f);
	if (rc)
		free(w);
	else
		*out = w;
	return rc;
}

/* A buffer's initial words: iota or random as its type reads them
 * (zeros are what calloc gave). */
static void fill(const struct ax_kernel_buffer *b, uint32_t *w, uint64_t n)
{
	bool iota = b->init == AX_KINIT_IOTA;
	if (b->init == AX_KINIT_RANDOM)
		ax_vk_fill_random_words(w, n, b->seed);
	else if (!iota)
		return;
	for (uint64_t i = 0; i < n; i++) {
		if (b->type != AX_KTYPE_FLOAT) {
			w[i] = iota ? (uint32_t)i : w[i] % 1000;
			continue;
		}
		float f = iota ? (float)i
			       : (float)((double)w[i] / 2147483648.0 - 1.0);
		memcpy(&w[i], &f, 4);
	}
}

static int initial_data(struct kstate *s, char *err, size_t errlen)
{
	const struct ax_kernel_desc *d = s->k->desc;
	for (int i = 0; i < d->n_buffers; i++) {
		const struct ax_kernel_buffer *b = &d->buffers[i];
		int64_t n;
		int rc = ax_kernel_eval(s->k, &b->elements, "elements", &s->p,
					s->vk->info, &n, err, errlen);
		if (rc)
			return rc;
		s->words[i] = (uint64_t)n;
		if (b->init == AX_KINIT_FILE) {
			rc = read_words(b->file, "init file", s->words[i],
					&s->init[i], err, errlen);
			if (rc)
				return rc;
			continue;
		}
		if (!(s->init[i] = calloc(s->words[i], 4)))
			return AX_ENOMEM;
		fill(b, s->init[i], s->words[i]);
	}
	return 0;
}

static int create_buffers(struct kstate *s, char *err, size_t errlen)
{
	for (int i = 0; i < s->k->desc->n_buffers; i++) {
		int rc = ax_vk_buffer_create(s->vk, s->words[i] * 4,
					     VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
					     AX_MEM_DEVICE, &s->buf[i]);
		if (rc)
			return ax_errf(err, errlen, rc, "%s: buffer %s: %s",
				       s->k->suite_name,
				       s->k->desc->buffers[i].name, s->vk->err);
		s->n_buf = i + 1;
	}
	return 0;
}

static int upload_all(struct kstate *s, char *err, size_t errlen)
{
	for (int i = 0; i < s->n_buf; i++) {
		int rc = ax_vk_upload(s->vk, &s->buf[i], 0, s->init[i],
				      s->words[i] * 4);
		if (rc)
			return ax_errf(err, errlen, rc, "%s: uploading %s: %s",
				       s->k->suite_name,
				       s->k->desc->buffers[i].name, s->vk->err);
	}
	return 0;
}

/* ---- the pipeline ----------------------------------------------------- */

static int push_and_grid(struct kstate *s, const struct ax_params *p, char *err,
			 size_t errlen)
{
	const struct ax_kernel_desc *d = s->k->desc;
	for (int i = 0; i < d->n_push; i++) {
		int64_t v;
		int rc =
		    ax_kernel_eval(s->k, &d->push[i].value, "push constant", p,
				   s->vk->info, &v, err, errlen);
		if (rc)
			return rc;
		if (d->push[i].type == AX_KTYPE_FLOAT) {
			float f = (float)v;
			memcpy(&s->push[i], &f, 4);
		} else {
			s->push[i] = (uint32_t)v;
		}
	}
	for (int a = 0; a < 3; a++) {
		int64_t v = 1;
		int rc = d->dispatch[a].e
			     ? ax_kernel_eval(s->k, &d->dispatch[a], "dispatch",
					      p, s->vk->info, &v, err, errlen)
			     : 0;
		if (rc)
			return rc;
		s->groups[a] = (uint32_t)v;
	}
	return 0;
}

/* Compile p's configuration: fixed defines, then each parameter with a
 * define as NAME=value. */
static int compile(const struct ax_kernel *k, const struct ax_params *p,
		   struct ax_glsl_spirv *out, char *err, size_t errlen)
{
	const struct ax_kernel_desc *d = k->desc;
	struct ax_glsl_define defs[AX_KERNEL_MAX_DEFINES + AX_MAX_PARAMS];
	char values[AX_MAX_PARAMS][24];
	int n = 0;
	for (int i = 0; i < d->n_defines; i++)
		defs[n++] = (struct ax_glsl_define){d->defines[i].name,
						    d->defines[i].value};
	for (int i = 0; i < d->n_params; i++) {
		if (!d->params[i].define)
			continue;
		snprintf(values[i], sizeof(values[i]), "%" PRId64, p->v[i]);
		defs[n++] =
		    (struct ax_glsl_define){d->params[i].define, values[i]};
	}
	char msg[3072];
	int rc = ax_glsl_compile(d->shader_path, k->source, k->source_len,
				 d->entry, defs, n, out, msg, sizeof(msg));
	if (rc) {
		char label[256];
		ax_params_label(p, 0, label, sizeof(label));
		return ax_errf(err, errlen, rc, "%s at %s: %s", k->suite_name,
			       label, msg);
	}
	return 0;
}

static int make_pipeline(struct kstate *s, const struct ax_params *p,
			 const struct ax_glsl_spirv *spv,
			 struct ax_vk_pipeline *pipe, char *err, size_t errlen)
{
	const struct ax_kernel_desc *d = s->k->desc;
	struct ax_vk_spec spec[AX_MAX_PARAMS];
	struct ax_vk_binding bind[AX_KERNEL_MAX_BUFFERS];
	int n_spec = ax_suite_spec(p, spec);
	int rc = ax_vk_pipeline_create_spirv(
	    s->vk, spv->code, spv->size, d->entry, (uint32_t)d->n_buffers,
	    (uint32_t)d->n_push * 4, spec, n_spec, pipe);
	for (int i = 0; !rc && i < d->n_buffers; i++)
		bind[i] = (struct ax_vk_binding){&s->buf[i], 0, 0};
	if (!rc)
		rc = ax_vk_pipeline_bind(s->vk, pipe, bind,
					 (uint32_t)d->n_buffers);
	if (rc)
		return ax_errf(err, errlen, rc, "%s: pipeline: %s",
			       s->k->suite_name, s->vk->err);
	return 0;
}

/* Upload the initial data, dispatch pipe once, wait. */
static int dispatch_once(struct kstate *s, const struct ax_vk_pipeline *pipe,
			 char *err, size_t errlen)
{
	VkCommandBuffer cb;
	int rc = upload_all(s, err, errlen);
	if (!rc)
		rc = ax_vk_cmd_begin(s->vk, false, &cb);
	if (rc)
		return rc == AX_EVK ? ax_errf(err, errlen, rc, "%s", s->vk->err)
				    : rc;
	ax_vk_cmd_dispatch(cb, pipe, s->k->desc->n_push ? s->push : NULL,
			   s->groups[0], s->groups[1], s->groups[2]);
	rc = ax_vk_cmd_submit_wait(s->vk, cb, false, s->vk->timeout_ns);
	if (rc)
		return ax_errf(err, errlen, rc, "%s: dispatch: %s",
			       s->k->suite_name, s->vk->err);
	return 0;
}

/* ---- the reference ---------------------------------------------------- */

void ax_kernel_ref_clear(struct ax_kernel_ref *r)
{
	free(r->key);
	for (int i = 0; i < AX_KERNEL_MAX_BUFFERS; i++)
		free(r->words[i]);
	memset(r, 0, sizeof(*r));
}

/* Run the reference point ref on this case's buffers and keep its
 * outputs in the kernel's cache. */
static int run_reference(struct kstate *s, const struct ax_params *ref,
			 char *key, char *err, size_t errlen)
{
	struct ax_kernel *k = s->k;
	struct ax_glsl_spirv spv = {0};
	struct ax_vk_pipeline pipe = {0};
	double c0 = s->vk->compile_ms_total;
	int rc = compile(k, ref, &spv, err, errlen);
	if (!rc)
		rc = make_pipeline(s, ref, &spv, &pipe, err, errlen);
	/* The reference's build is verification, not this case's. */
	s->vk->compile_ms_total = c0;
	uint32_t push[AX_KERNEL_MAX_PUSH], groups[3];
	memcpy(push, s->push, sizeof(push));
	memcpy(groups, s->groups, sizeof(groups));
	if (!rc)
		rc = push_and_grid(s, ref, err, errlen);
	if (!rc)
		rc = dispatch_once(s, &pipe, err, errlen);
	memcpy(s->push, push, sizeof(push));
	memcpy(s->groups, groups, sizeof(groups));
	ax_kernel_ref_clear(&k->ref);
	for (int i = 0; !rc && i < k->desc->n_buffers; i++) {
		if (k->desc->buffers[i].role == AX_KROLE_IN)
			continue;
		if (!(k->ref.words[i] = malloc(s->words[i] * 4)))
			rc = AX_ENOMEM;
		else if (ax_vk_download(s->vk, &s->buf[i], 0, k->ref.words[i],
					s->words[i] * 4))
			rc = ax_errf(err, errlen, AX_EVK, "%s: %s",
				     k->suite_name, s->vk->err);
	}
	ax_vk_pipeline_destroy(s->vk, &pipe);
	ax_glsl_spirv_free(&spv);
	if (rc) {
		ax_kernel_ref_clear(&k->ref);
		free(key);
	} else {
		k->ref.key = key;
	}
	return rc;
}

static int reference_outputs(struct kstate *s, char *err, size_t errlen)
{
	struct ax_kernel *k = s->k;
	struct ax_params ref;
	char label[512];
	ax_kernel_reference_point(k, &s->p, &ref);
	ax_params_label(&ref, 0, label, sizeof(label));
	if (!memcmp(ref.v, s->p.v, sizeof(ref.v[0]) * (size_t)ref.n)) {
		s->is_reference = true;
		return 0;
	}
	snprintf(s->against, sizeof(s->against), "reference %s", label);
	char *key = ax_params_to_json(&ref);
	if (!key)
		return AX_ENOMEM;
	int rc = 0;
	if (k->ref.key && !strcmp(k->ref.key, key))
		free(key);
	else if (k->suite.check &&
		 (rc = k->suite.check(&ref, s->vk->info, err, errlen)))
		free(key);
	else
		rc = run_reference(s, &ref, key, err, errlen);
	if (rc) {
		char why[768];
		snprintf(why, sizeof(why), "%s", err);
		return ax_errf(err, errlen, rc,
			       "%s: the reference configuration (%s) does "
			       "not run: %s",
			       k->suite_name, label, why);
	}
	for (int i = 0; i < k->desc->n_buffers; i++)
		s->expect[i] = k->ref.words[i];
	return 0;
}

static int expected_outputs(struct kstate *s, char *err, size_t errlen)
{
	const struct ax_kernel_desc *d = s->k->desc;
	int rc = d->has_reference ? reference_outputs(s, err, errlen) : 0;
	for (int i = 0; !rc && i < d->n_buffers; i++) {
		if (!d->buffers[i].expect)
			continue;
		rc = read_words(d->buffers[i].expect, "expect file",
				s->words[i], &s->expect_file[i], err, errlen);
		s->expect[i] = s->expect_file[i];
		s->is_reference = false;
	}
	if (!d->has_reference)
		snprintf(s->against, sizeof(s->against), "expect files");
	else if (s->is_reference)
		/* Said plainly: a wrong reference shader passes here (the
		 * others are then checked against it); kernel check adds
		 * how to check it (extra.reference_itself). */
		snprintf(s->against, sizeof(s->against),
			 "nothing independent: this is the reference "
			 "configuration itself");
	return rc;
}

/* ---- the suite's hooks ------------------------------------------------ */

static int setup_steps(struct kstate *s, char *err, size_t errlen)
{
	int rc = compile(s->k, &s->p, &s->spirv, err, errlen);
	if (rc)
		return rc;
	/* Compiling GLSL is this configuration's build, as creating the
	 * pipeline is: both count in the stored compile time. */
	s->vk->compile_ms_total += s->spirv.compile_ms;
	if (!rc)
		rc = initial_data(s, err, errlen);
	if (!rc)
		rc = create_buffers(s, err, errlen);
	if (!rc)
		rc = push_and_grid(s, &s->p, err, errlen);
	if (!rc)
		rc = expected_outputs(s, err, errlen);
	if (!rc)
		rc = make_pipeline(s, &s->p, &s->spirv, &s->pipe, err, errlen);
	if (!rc)
		rc = upload_all(s, err, errlen);
	return rc;
}

int ax_kernel_setup(struct ax_vk_ctx *vk, const struct ax_params *p,
		    void **state, char *err, size_t errlen)
{
	struct kstate *s = calloc(1, sizeof(*s));
	if (!s)
		return AX_ENOMEM;
	s->k = ax_kernel_of(p);
	s->vk = vk;
	s->p = *p;
	int rc = setup_steps(s, err, errlen);
	if (rc) {
		ax_kernel_teardown(vk, s);
		return rc;
	}
	*state = s;
	return 0;
}

void ax_kernel_record(void *state, VkCommandBuffer cb, uint32_t reps)
{
	struct kstate *s = state;
	for (uint32_t r = 0; r < reps; r++) {
		/* A repetition may read what the last one wrote (inout). */
		if (r)
			ax_vk_cmd_barrier(cb);
		ax_vk_cmd_dispatch(cb, &s->pipe,
				   s->k->desc->n_push ? s->push : NULL,
				   s->groups[0], s->groups[1], s->groups[2]);
	}
}

static bool close_enough(enum ax_kernel_type t, uint32_t got, uint32_t want,
			 const struct ax_kernel_buffer *b, double *g, double *w)
{
	if (t == AX_KTYPE_FLOAT) {
		float fg, fw;
		memcpy(&fg, &got, 4);
		memcpy(&fw, &want, 4);
		*g = fg;
		*w = fw;
		if (isnan(fw))
			return isnan(fg);
	} else if (t == AX_KTYPE_INT) {
		*g = (int32_t)got;
		*w = (int32_t)want;
	} else {
		*g = got;
		*w = want;
	}
	return fabs(*g - *w) <= b->atol + b->rtol * fabs(*w);
}

static int compare_buffer(struct kstate *s, int i, const uint32_t *got,
			  char *why, size_t whylen)
{
	const struct ax_kernel_buffer *b = &s->k->desc->buffers[i];
	uint64_t bad = 0, first = 0;
	double g0 = 0, w0 = 0;
	for (uint64_t j = 0; j < s->words[i]; j++) {
		double g, w;
		if (close_enough(b->type, got[j], s->expect[i][j], b, &g, &w))
			continue;
		if (!bad++) {
			first = j;
			g0 = g;
			w0 = w;
		}
	}
	if (!bad)
		return 0;
	return ax_errf(why, whylen, AX_EVERIFY,
		       "%s: buffer %s[%" PRIu64 "] is %.9g, expected %.9g "
		       "(atol %g, rtol %g); %" PRIu64 " of %" PRIu64
		       " elements differ from the %s",
		       s->k->suite_name, b->name, first, g0, w0, b->atol,
		       b->rtol, bad, s->words[i], s->against);
}

int ax_kernel_verify(void *state, char *why, size_t whylen)
{
	struct kstate *s = state;
	if (s->is_reference)
		return 0;
	int rc = dispatch_once(s, &s->pipe, why, whylen);
	for (int i = 0; !rc && i < s->n_buf; i++) {
		if (!s->expect[i])
			continue;
		uint32_t *got = malloc(s->words[i] * 4);
		if (!got)
			return AX_ENOMEM;
		rc = ax_vk_download(s->vk, &s->buf[i], 0, got, s->words[i] * 4);
		if (rc)
			rc = ax_errf(why, whylen, rc, "%s: %s",
				     s->k->suite_name, s->vk->err);
		else
			rc = compare_buffer(s, i, got, why, whylen);
		free(got);
	}
	return rc;
}

json_t *ax_kernel_describe(void *state)
{
	struct kstate *s = state;
	return json_pack("{s:[i,i,i],s:s,s:b,s:f,s:s,s:b,s:s}", "workgroups",
			 (int)s->groups[0], (int)s->groups[1],
			 (int)s->groups[2], "spirv_key", s->spirv.key,
			 "spirv_cached", s->spirv.cached, "shaderc_ms",
			 s->spirv.compile_ms, "verified_against", s->against,
			 "reference_itself", s->is_reference, "kernel_file",
			 s->k->desc->path);
}

const char *ax_kernel_spirv_hash(void *state)
{
	return ((struct kstate *)state)->spirv.hash;
}

void ax_kernel_teardown(struct ax_vk_ctx *vk, void *state)
{
	struct kstate *s = state;
	if (!s)
		return;
	ax_vk_pipeline_destroy(vk, &s->pipe);
	for (int i = 0; i < s->n_buf; i++)
		ax_vk_buffer_destroy(vk, &s->buf[i]);
	for (int i = 0; i < AX_KERNEL_MAX_BUFFERS; i++) {
		free(s->init[i]);
		free(s->expect_file[i]);
	}
	ax_glsl_spirv_free(&s->spirv);
	free(s);
}
