#version 450
/*
 * gemm_coopmat.comp - C = op(A) * op(B) on tensor cores through
 * VK_NV_cooperative_matrix: A and B float16, C stored as float16, the
 * products accumulated in fp32 (or in fp16 with -DAX_ACC16).  Row-major,
 * batched over gl_WorkGroupID.z, like gemm.comp, so suites/gemm.c binds the
 * same buffers and checks C with the same reference.
 *
 * Why GL_NV_cooperative_matrix: Debian 12's glslc (shaderc 2023.2) cannot
 * compile GL_KHR_cooperative_matrix, and NVIDIA drivers expose both.  The NV
 * extension allows specialization-constant matrix dimensions, so the tile
 * shape (CM_M x CM_N x CM_K, one of the shapes the device lists) is chosen
 * at pipeline creation like every other knob, one module for all.
 *
 * Tiling, from the top:
 * - A workgroup computes a BM x BN tile of C, BM = WG_SM * SG_M * CM_M and
 *   BN = WG_SN * SG_N * CM_N: WG_SM x WG_SN subgroups, each holding an
 *   SG_M x SG_N block of accumulator matrices (CM_M x CM_N each).  Several
 *   accumulators per subgroup reuse each loaded A tile SG_N times and each
 *   B tile SG_M times: tensor cores are fast enough that loads, not
 *   multiplies, bound a one-tile-per-subgroup kernel.
 * - K is walked in slices BK = KS * CM_K deep.  Each slice of A (BM x BK)
 *   and B (BK x BN) is copied into shared memory by the whole workgroup,
 *   16 bytes (8 halves) per invocation and step, so global reads are wide
 *   and coalesced and every element is read from global memory once per
 *   workgroup instead of once per subgroup.  The subgroups then load their
 *   tiles from shared memory with coopMatLoadNV; each shared row is padded
 *   by 16 bytes so the rows of one tile do not share banks.
 * - Shared slices keep the layout of the global matrix (A's rows or, with
 *   trans_a, A's columns contiguous), so the copy is a plain block copy
 *   and transposition costs nothing: coopMatLoadNV reads a transposed
 *   operand with colMajor = true.
 * - The fp32 accumulators are converted to float16 once, at the end, and
 *   stored straight to C.
 *
 * No bounds checks: suites/gemm.c only builds this for m % BM == 0,
 * n % BN == 0, k % BK == 0 and CM_M, CM_N, CM_K multiples of 8, so every
 * 16-byte vector is whole and every cooperative-matrix row starts 16-byte
 * aligned (the alignment cooperative-matrix loads and stores want).
 *
 * Bindings: 0-2 A, B, C, all viewed as uvec4 (8 halves); offsets and
 * strides given to coopMatLoadNV / coopMatStoreNV are in those units.
 */
/* Each constant_id is written here and in the parameter table of
 * suites/gemm.c (AX_KNOB), the only two places; test_registry checks that
 * every id the table binds is one this shader declares. */
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_control_flow_attributes : require

#ifdef AX_ACC16
#define ACC_BITS 16
#else
#define ACC_BITS 32
#endif

/* Invocations: WG_SM * WG_SN * the subgroup size (set by the host). */
layout(local_size_x_id = 20, local_size_y = 1,
       local_size_z = 1) in;

layout(constant_id = 20) const uint WG = 128;
layout(constant_id = 21) const int CM_M = 16;
layout(constant_id = 22) const int CM_N = 16;
layout(constant_id = 23) const int CM_K = 16;
layout(constant_id = 24) const uint SG_M = 2;
layout(constant_id = 25) const uint SG_N = 2;
layout(constant_id = 26) const uint WG_SM = 2;
layout(constant_id = 27) const uint WG_SN = 2;
layout(constant_id = 28) const uint KS = 2;
layout(constant_id = 9) const uint TRANS_A = 0;
layout(constant_id = 10) const uint TRANS_B = 0;

layout(std430, binding = 0) readonly buffer A_ { uvec4 a[]; };
layout(std430, binding = 1) readonly buffer B_ { uvec4 b[]; };
layout(std430, binding = 2) writeonly buffer C_ { uvec4 c[]; };

layout(push_constant) uniform P {
	uint M, N, K;
} pc;

const uint HV = 8; /* halves per uvec4 */
const uint BM = WG_SM * SG_M * uint(CM_M);
const uint BN = WG_SN * SG_N * uint(CM_N);
const uint BK = KS * uint(CM_K);
/* Row strides of the shared slices, in uvec4 (one of padding). */
const uint SA = (TRANS_A == 0 ? BK : BM) / HV + 1;
const uint SB = (TRANS_B == 0 ? BN : BK) / HV + 1;

/*
 * One k slice of A and of B, in uvec4 units, in their global layouts:
 * As is BM rows of BK (trans_a: BK rows of BM), Bs is BK rows of BN
 * (trans_b: BN rows of BK).  Each row is padded by one uvec4: a
 * cooperative-matrix load reads 16-byte pieces of consecutive rows, and
 * with power-of-two row lengths those would fall in the same banks.
 * Sized for either orientation (rows * (len/8 + 1) <= len*rows/8 + BM +
 * BK); suites/gemm.c counts the same bytes.
 */
shared uvec4 As[BM * BK / HV + BM + BK];
shared uvec4 Bs[BK * BN / HV + BK + BN];

#define MAT_A fcoopmatNV<16, gl_ScopeSubgroup, CM_M, CM_K>
#define MAT_B fcoopmatNV<16, gl_ScopeSubgroup, CM_K, CM_N>
#define MAT_ACC fcoopmatNV<ACC_BITS, gl_ScopeSubgroup, CM_M, CM_N>
#define MAT_C fcoopmatNV<16, gl_ScopeSubgroup, CM_M, CM_N>

/*
 * Copy rows x len halves (len a multiple of 8) from global row-major
 * storage (row stride gstride halves, first element at gbase) into the
 * shared slice, rows len/8 + 1 uvec4 apart, all invocations together.  A macro, not a function,
 * because GLSL cannot pass a buffer or a shared array as a parameter.
 */
#define STAGE(dst, src, rows, len, gbase, gstride)                        \
	{                                                                 \
		const uint RV = (len) / HV;                               \
		const uint NV = (rows) * RV;                              \
		for (uint v = gl_LocalInvocationID.x; v < NV; v += WG) {  \
			uint r = v / RV, cv = v % RV;                     \
			dst[r * (RV + 1) + cv] =                          \
			    src[((gbase) + r * (gstride)) / HV + cv];     \
		}                                                         \
	}

void main()
{
	uint sg = gl_SubgroupID;
	uint sm = sg % WG_SM, sn = sg / WG_SM;
	uint m0 = gl_WorkGroupID.y * BM, n0 = gl_WorkGroupID.x * BN;
	uint z = gl_WorkGroupID.z;
	uint abase = z * pc.M * pc.K, bbase = z * pc.K * pc.N;
	uint cbase = z * pc.M * pc.N;

	MAT_ACC acc[SG_M][SG_N];
	[[unroll]] for (uint i = 0; i < SG_M; i++)
		[[unroll]] for (uint j = 0; j < SG_N; j++)
			acc[i][j] = MAT_ACC(0.0);

	for (uint k0 = 0; k0 < pc.K; k0 += BK) {
		/* Every subgroup is done reading the previous slice. */
		barrier();
		if (TRANS_A == 0)
			STAGE(As, a, BM, BK, abase + m0 * pc.K + k0, pc.K)
		else
			STAGE(As, a, BK, BM, abase + k0 * pc.M + m0, pc.M)
		if (TRANS_B == 0)
			STAGE(Bs, b, BK, BN, bbase + k0 * pc.N + n0, pc.N)
		else
			STAGE(Bs, b, BN, BK, bbase + n0 * pc.K + k0, pc.K)
		barrier();

		[[unroll]] for (uint kt = 0; kt < KS; kt++) {
			uint kk = kt * uint(CM_K);
			MAT_A ma[SG_M];
			MAT_B mb[SG_N];
			[[unroll]] for (uint i = 0; i < SG_M; i++) {
				uint mm = (sm * SG_M + i) * uint(CM_M);
				if (TRANS_A == 0)
					coopMatLoadNV(ma[i], As,
						      mm * SA + kk / HV, SA,
						      false);
				else
					coopMatLoadNV(ma[i], As,
						      kk * SA + mm / HV, SA,
						      true);
			}
			[[unroll]] for (uint j = 0; j < SG_N; j++) {
				uint nn = (sn * SG_N + j) * uint(CM_N);
				if (TRANS_B == 0)
					coopMatLoadNV(mb[j], Bs,
						      kk * SB + nn / HV, SB,
						      false);
				else
					coopMatLoadNV(mb[j], Bs,
						      nn * SB + kk / HV, SB,
						      true);
			}
			[[unroll]] for (uint i = 0; i < SG_M; i++)
				[[unroll]] for (uint j = 0; j < SG_N; j++)
					acc[i][j] = coopMatMulAddNV(
					    ma[i], mb[j], acc[i][j]);
		}
	}

	[[unroll]] for (uint i = 0; i < SG_M; i++) {
		uint row = m0 + (sm * SG_M + i) * uint(CM_M);
		[[unroll]] for (uint j = 0; j < SG_N; j++) {
			uint col = n0 + (sn * SG_N + j) * uint(CM_N);
#ifdef AX_ACC16
			/* Already float16: a same-type constructor here trips
			 * the SPIR-V optimizer of shaderc 2023.2. */
			MAT_C out16 = acc[i][j];
#else
			MAT_C out16 = MAT_C(acc[i][j]);
#endif
			coopMatStoreNV(out16, c,
				       (cbase + row * pc.N + col) / HV,
				       pc.N / HV, false);
		}
	}
}
