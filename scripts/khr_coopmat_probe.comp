#version 450
// The Makefile compiles this to learn whether $(GLSLC) knows
// GL_KHR_cooperative_matrix (shaderc 2023.2, Debian 12's, does not).
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
layout(local_size_x = 32) in;
layout(std430, binding = 0) buffer B { float16_t x[]; };
void main()
{
	coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> a;
	coopMatLoad(a, x, 0, 16, gl_CooperativeMatrixLayoutRowMajor);
	coopMatStore(a, x, 256, 16, gl_CooperativeMatrixLayoutRowMajor);
}
