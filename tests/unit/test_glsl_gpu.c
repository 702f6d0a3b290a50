/*
 * tests/unit/test_glsl_gpu.c - a user kernel end to end on the machine's
 * Vulkan device: GLSL with a #define compiled by core/glsl, a pipeline
 * from that SPIR-V (ax_vk_pipeline_create_spirv: two storage buffers and
 * a push constant), a dispatch whose output is checked element by element,
 * once with GLSL's main as "main" and once renamed; the new entry point's
 * refusals.  Validation-layer messages fail the test (AXBENCH_VALIDATE=1,
 * as tests/run.sh sets it); without a device each test skips with the
 * reason.  Kept apart from test_glsl so that `make valgrind`
 * (which leaves out *_gpu) still covers the compiler.
 */
#include "ax_gpu_test.h"

#include "core/error.h"
#include "core/glsl.h"

#include <stdint.h>

static char tmpdir[256];

static const char kernel[] =
    "#version 450\n"
    "layout(local_size_x = 64) in;\n"
    "layout(std430, binding = 0) readonly buffer In { float a[]; };\n"
    "layout(std430, binding = 1) writeonly buffer Out { float b[]; };\n"
    "layout(push_constant) uniform Push { uint n; } p;\n"
    "void main()\n"
    "{\n"
    "\tuint i = gl_GlobalInvocationID.x;\n"
    "\tif (i < p.n)\n"
    "\t\tb[i] = a[i] * FACTOR;\n"
    "}\n";

/* Before the device opens: its pipeline cache and the SPIR-V cache go
 * to a temporary directory, never the user's. */
static void setup(void)
{
	strcpy(tmpdir, "/tmp/ax_test_glsl_gpu.XXXXXX");
	if (!mkdtemp(tmpdir))
		abort();
	setenv("XDG_CACHE_HOME", tmpdir, 1);
	test_open();
}

/* out[i] = in[i] * factor for n elements (not a multiple of the
 * workgroup: the last group's idle invocations must write nothing). */
static void run_scale(const char *factor_text, float factor, const char *entry)
{
	enum { N = 1000 };
	struct ax_glsl_define d = {"FACTOR", factor_text};
	struct ax_glsl_spirv s;
	char err[2048];
	int rc = ax_glsl_compile("scale.comp", kernel, sizeof(kernel) - 1,
				 entry, &d, 1, &s, err, sizeof(err));
	AX_CHECK_INT(rc, 0);
	if (rc) {
		printf("#   %s\n", err);
		return;
	}
	struct ax_vk_pipeline p;
	rc = ax_vk_pipeline_create_spirv(vk, s.code, s.size, entry, 2,
					 sizeof(uint32_t), NULL, 0, &p);
	AX_CHECK_INT(rc, 0);
	if (rc) {
		printf("#   %s\n", vk->err);
		ax_glsl_spirv_free(&s);
		return;
	}
	AX_CHECK_STR(p.shader_hash, s.hash);
	ax_glsl_spirv_free(&s); /* the pipeline needs the code no more */

	static float in[N + 64], out[N + 64];
	for (int i = 0; i < N + 64; i++) {
		in[i] = (float)i * 0.5f - 100.0f;
		out[i] = -12345.0f;
	}
	struct ax_vk_buffer a = {0}, b = {0};
	VkBufferUsageFlags use = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
	AX_CHECK_INT(
	    ax_vk_buffer_create(vk, sizeof(in), use, AX_MEM_DEVICE, &a), 0);
	AX_CHECK_INT(
	    ax_vk_buffer_create(vk, sizeof(out), use, AX_MEM_DEVICE, &b), 0);
	AX_CHECK_INT(ax_vk_upload(vk, &a, 0, in, sizeof(in)), 0);
	AX_CHECK_INT(ax_vk_upload(vk, &b, 0, out, sizeof(out)), 0);
	struct ax_vk_binding bind[2] = {{&a, 0, 0}, {&b, 0, 0}};
	AX_CHECK_INT(ax_vk_pipeline_bind(vk, &p, bind, 2), 0);
	VkCommandBuffer cb;
	uint32_t n = N;
	AX_CHECK_INT(ax_vk_cmd_begin(vk, false, &cb), 0);
	ax_vk_cmd_dispatch(cb, &p, &n, (N + 63) / 64, 1, 1);
	AX_CHECK_INT(ax_vk_cmd_submit_wait(vk, cb, false, vk->timeout_ns), 0);
	AX_CHECK_INT(ax_vk_download(vk, &b, 0, out, sizeof(out)), 0);
	int wrong = 0;
	for (int i = 0; i < N + 64; i++) {
		float want = i < N ? in[i] * factor : -12345.0f;
		if (out[i] != want && wrong++ < 5)
			printf("#   out[%d] = %g, expected %g\n", i,
			       (double)out[i], (double)want);
	}
	AX_CHECK_INT(wrong, 0);
	ax_vk_buffer_destroy(vk, &a);
	ax_vk_buffer_destroy(vk, &b);
	ax_vk_pipeline_destroy(vk, &p);
}

static void test_define_kernel_runs(void)
{
	AX_NEED_DEVICE();
	run_scale("2.5", 2.5f, NULL);
}

static void test_renamed_entry_point_runs(void)
{
	AX_NEED_DEVICE();
	run_scale("(-1.5)", -1.5f, "scale_kernel");
}

/* Refused before the driver sees them (the layout holds at most 16
 * bindings; a module is whole words), each with a message. */
static void test_spirv_pipeline_refusals(void)
{
	AX_NEED_DEVICE();
	struct ax_glsl_define d = {"FACTOR", "1.0"};
	struct ax_glsl_spirv s;
	char err[2048];
	AX_CHECK_INT(ax_glsl_compile("scale.comp", kernel, sizeof(kernel) - 1,
				     NULL, &d, 1, &s, err, sizeof(err)),
		     0);
	struct ax_vk_pipeline p;
	AX_CHECK_INT(ax_vk_pipeline_create_spirv(vk, s.code, s.size, NULL, 17,
						 4, NULL, 0, &p),
		     AX_EINVAL);
	AX_CHECK(strstr(vk->err, "17 storage-buffer bindings") != NULL);
	AX_CHECK_INT(ax_vk_pipeline_create_spirv(vk, s.code, s.size - 2, NULL,
						 2, 4, NULL, 0, &p),
		     AX_EINVAL);
	AX_CHECK(strstr(vk->err, "whole number of 4-byte words") != NULL);
	AX_CHECK_INT(
	    ax_vk_pipeline_create_spirv(vk, NULL, 0, NULL, 2, 4, NULL, 0, &p),
	    AX_EINVAL);
	ax_glsl_spirv_free(&s);
}

static void cleanup(void)
{
	test_close();
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	AX_CHECK(system(cmd) == 0);
}

AX_TEST_MAIN(AX_TEST(setup), AX_TEST(test_define_kernel_runs),
	     AX_TEST(test_renamed_entry_point_runs),
	     AX_TEST(test_spirv_pipeline_refusals),
	     AX_TEST(test_no_validation_messages), AX_TEST(cleanup))
