#version 450
/*
 * peak_matrix.comp - the tensor-core ceiling through VK_NV_cooperative_
 * matrix: each subgroup keeps ACC accumulator matrices (CM_M x CM_N,
 * fp32) and multiplies-adds fp16 A (CM_M x CM_K) and B (CM_K x CM_N)
 * fragments into them, a dependent chain per accumulator, with no memory
 * traffic inside the loop (suites/peak.c, type=matrix).
 *
 * A alternates between +a and -a, so a pair of steps adds and takes back
 * K * a * b; one last step with +a leaves every element at c0 + K*a*b,
 * exactly in fp16 and fp32 for the small integers the host passes
 * (a = b = 1, c0 = 3): the closed form the host checks, element by
 * element.  Built for Vulkan 1.2 (SPIR-V 1.5), as gemm_coopmat.comp.
 */
/* Each constant_id is written here and in the parameter table of
 * suites/peak.c (AX_KNOB), the only two places; test_registry checks that
 * every id the table binds is one this shader declares (or another of
 * the suite's). */
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_control_flow_attributes : require

/* Invocations: a whole number of subgroups (the host checks). */
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint ACC = 4;    /* accumulator matrices */
layout(constant_id = 2) const uint UNROLL = 8; /* steps per trip, even */
layout(constant_id = 3) const int CM_M = 16;
layout(constant_id = 4) const int CM_N = 16;
layout(constant_id = 5) const int CM_K = 16;

layout(std430, binding = 0) writeonly buffer O_ { float o[]; };

layout(push_constant) uniform P {
	uint trips; /* chain length = trips * UNROLL + 1 */
	int a, b;   /* a: the multiplier of A, b: the start value c0 */
} pc;

#define MAT_A fcoopmatNV<16, gl_ScopeSubgroup, CM_M, CM_K>
#define MAT_B fcoopmatNV<16, gl_ScopeSubgroup, CM_K, CM_N>
#define MAT_C fcoopmatNV<32, gl_ScopeSubgroup, CM_M, CM_N>
#define MAX_ACC 16

void main()
{
	MAT_A ap = MAT_A(float16_t(pc.a));
	MAT_A an = MAT_A(float16_t(-pc.a));
	MAT_B mb = MAT_B(float16_t(1.0));
	MAT_C c[MAX_ACC];
	[[unroll]] for (uint j = 0; j < ACC; j++)
		c[j] = MAT_C(float(pc.b));
	for (uint i = 0; i < pc.trips; i++) {
		[[unroll]] for (uint u = 0; u < UNROLL; u += 2) {
			[[unroll]] for (uint j = 0; j < ACC; j++)
				c[j] = coopMatMulAddNV(ap, mb, c[j]);
			[[unroll]] for (uint j = 0; j < ACC; j++)
				c[j] = coopMatMulAddNV(an, mb, c[j]);
		}
	}
	uint sg = gl_WorkGroupID.x * gl_NumSubgroups + gl_SubgroupID;
	uint tile = uint(CM_M * CM_N);
	[[unroll]] for (uint j = 0; j < ACC; j++) {
		c[j] = coopMatMulAddNV(ap, mb, c[j]);
		coopMatStoreNV(c[j], o, (sg * ACC + j) * tile, uint(CM_N),
			       false);
	}
}
