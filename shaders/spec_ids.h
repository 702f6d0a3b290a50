/*
 * shaders/spec_ids.h - the specialization-constant ids of every shader,
 * written once: the GLSL shaders use them in layout(constant_id = ...)
 * and the suites in struct ax_vk_spec, both by including this file.
 * Only #define lines and comments, which both languages read the same.
 */
#ifndef AX_SPEC_IDS_H
#define AX_SPEC_IDS_H

/* gemm.comp (suites/gemm.c) */
#define GEMM_SPEC_WG_X 0
#define GEMM_SPEC_WG_Y 1
#define GEMM_SPEC_BM 2
#define GEMM_SPEC_BN 3
#define GEMM_SPEC_BK 4
#define GEMM_SPEC_TM 5
#define GEMM_SPEC_TN 6
#define GEMM_SPEC_VEC 7
#define GEMM_SPEC_DBUF 8
#define GEMM_SPEC_TRANS_A 9
#define GEMM_SPEC_TRANS_B 10
#define GEMM_SPEC_SHARE 11
#define GEMM_SPEC_B_VEC4 12
#define GEMM_SPEC_COLMAJOR 13

/* gemm_coopmat.comp (suites/gemm.c, kernel=coopmat) */
#define GEMMCM_SPEC_WG 0    /* local_size_x: subgroups * subgroup size */
#define GEMMCM_SPEC_CM_M 1  /* cooperative-matrix tile M */
#define GEMMCM_SPEC_CM_N 2  /* tile N */
#define GEMMCM_SPEC_CM_K 3  /* tile K */
#define GEMMCM_SPEC_SG_M 4  /* tiles per subgroup along M */
#define GEMMCM_SPEC_SG_N 5  /* tiles per subgroup along N */
#define GEMMCM_SPEC_WG_SM 6 /* subgroups per workgroup along M */
#define GEMMCM_SPEC_WG_SN 7 /* subgroups per workgroup along N */
#define GEMMCM_SPEC_KS 8    /* k tiles per shared-memory slice */
#define GEMMCM_SPEC_TRANS_A 9
#define GEMMCM_SPEC_TRANS_B 10

/* conv.comp (suites/conv.c) */
#define CONV_SPEC_WG 0
#define CONV_SPEC_BM 1
#define CONV_SPEC_BN 2
#define CONV_SPEC_BK 3
#define CONV_SPEC_TM 4
#define CONV_SPEC_TN 5
#define CONV_SPEC_NHWC 6

/* attention.comp (suites/attention.c) */
#define ATT_SPEC_WG 0
#define ATT_SPEC_BR 1
#define ATT_SPEC_BC 2
#define ATT_SPEC_TPR 3
#define ATT_SPEC_D 4
#define ATT_SPEC_CAUSAL 5
#define ATT_SPEC_SHARE 6
#define ATT_SPEC_RPL 7

/* bandwidth.comp (suites/bandwidth.c) */
#define BW_SPEC_WG 0
#define BW_SPEC_VEC 1
#define BW_SPEC_EPI 2
#define BW_SPEC_OP 3

/* peak.comp (suites/peak.c) */
#define PEAK_SPEC_WG 0
#define PEAK_SPEC_ACC 1
#define PEAK_SPEC_UNROLL 2

/* reduce.comp (suites/reduce.c) */
#define REDUCE_SPEC_WG 0  /* local_size_x */
#define REDUCE_SPEC_EPI 1 /* uvec4 loads per invocation */

/* ingest.comp (suites/ingest.c) */
#define INGEST_SPEC_WG 0  /* local_size_x */
#define INGEST_SPEC_EPI 1 /* uvec4 loads per invocation */

#endif
