#version 450
// Tiled matrix transpose, dst = src^T for an n x n float matrix.  A
// workgroup of TILE x ROWS invocations moves one TILE x TILE tile through
// shared memory, so both the read and the write are coalesced; PAD extra
// columns keep the column-wise reads of the tile off one bank.  TILE and
// PAD size the shared array, so they are defines; ROWS is a
// specialization constant.
layout(local_size_x = TILE, local_size_y_id = 1) in;
layout(constant_id = 2) const bool DIAGONAL = false;

layout(std430, binding = 0) readonly buffer Src { float src[]; };
layout(std430, binding = 1) writeonly buffer Dst { float dst[]; };
layout(push_constant) uniform Push {
	uint n;
} pc;

shared float tile[TILE][TILE + PAD];

void main()
{
	uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
	uint gx = gl_WorkGroupID.x, gy = gl_WorkGroupID.y;
	if (DIAGONAL) { // a bijection on the square grid of tiles
		gy = gl_WorkGroupID.x;
		gx = (gl_WorkGroupID.x + gl_WorkGroupID.y) % gl_NumWorkGroups.x;
	}
	uint bx = gx * TILE, by = gy * TILE;
	uint rows = gl_WorkGroupSize.y;
	for (uint j = ty; j < TILE; j += rows) {
		uint x = bx + tx, y = by + j;
		if (x < pc.n && y < pc.n)
			tile[j][tx] = src[y * pc.n + x];
	}
	barrier();
	for (uint j = ty; j < TILE; j += rows) {
		uint x = by + tx, y = bx + j;
		if (x < pc.n && y < pc.n)
			dst[y * pc.n + x] = tile[tx][j];
	}
}
