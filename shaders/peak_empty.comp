#version 450
/*
 * peak_empty.comp - the latency probe: a dispatch that does almost
 * nothing.  Invocation 0 writes the push-constant token so the host can
 * verify that every timed dispatch really ran (suites/latency.c).
 */
layout(local_size_x = 1) in;
layout(std430, binding = 0) writeonly buffer O_ { uint o[]; };
layout(push_constant) uniform P { uint token; } pc;

void main()
{
	if (gl_WorkGroupID.x == 0)
		o[0] = pc.token;
}
