/* core/vk_pipeline.c - compute pipelines from embedded or a caller's
 * SPIR-V. */
#include "core/error.h"
#include "core/hash.h"
#include "core/vk_internal.h"

#include "shaders/table.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

static const struct ax_shader *find_shader(const char *name)
{
	for (size_t i = 0; i < ax_shader_count; i++)
		if (strcmp(ax_shaders[i].name, name) == 0)
			return &ax_shaders[i];
	return NULL;
}

void ax_vk_shader_hash(const char *shader, char hex[17])
{
	const struct ax_shader *s = shader ? find_shader(shader) : NULL;
	hex[0] = '\0';
	if (s)
		ax_hash_hex(s->code, s->size, hex);
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static VkDescriptorType binding_type(const struct ax_vk_pipeline *p, uint32_t i)
{
	return p->texel_mask >> i & 1 ? VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER
				      : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
}

static VkResult create_layouts(struct ax_vk_ctx *ctx, struct ax_vk_pipeline *p)
{
	VkDescriptorSetLayoutBinding b[16];
	for (uint32_t i = 0; i < p->n_bindings; i++)
		b[i] = (VkDescriptorSetLayoutBinding){
		    .binding = i,
		    .descriptorType = binding_type(p, i),
		    .descriptorCount = 1,
		    .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
		};
	VkDescriptorSetLayoutCreateInfo dl = {
	    .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
	    .bindingCount = p->n_bindings,
	    .pBindings = b,
	};
	VkResult r =
	    vkCreateDescriptorSetLayout(ctx->dev, &dl, NULL, &p->set_layout);
	if (r != VK_SUCCESS)
		return r;
	VkPushConstantRange pr = {
	    .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
	    .size = p->push_size,
	};
	VkPipelineLayoutCreateInfo pl = {
	    .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
	    .setLayoutCount = 1,
	    .pSetLayouts = &p->set_layout,
	    .pushConstantRangeCount = p->push_size ? 1 : 0,
	    .pPushConstantRanges = &pr,
	};
	r = vkCreatePipelineLayout(ctx->dev, &pl, NULL, &p->layout);
	if (r != VK_SUCCESS || p->n_bindings == 0)
		return r;
	uint32_t n_texel = (uint32_t)__builtin_popcount(p->texel_mask);
	VkDescriptorPoolSize ps[2] = {
	    {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, p->n_bindings - n_texel},
	    {VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER, n_texel},
	};
	/* A pool size of 0 descriptors is not allowed. */
	uint32_t first = ps[0].descriptorCount ? 0 : 1;
	uint32_t count = n_texel && ps[0].descriptorCount ? 2 : 1;
	VkDescriptorPoolCreateInfo dp = {
	    .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
	    .maxSets = 1,
	    .poolSizeCount = count,
	    .pPoolSizes = ps + first,
	};
	r = vkCreateDescriptorPool(ctx->dev, &dp, NULL, &p->pool);
	if (r != VK_SUCCESS)
		return r;
	VkDescriptorSetAllocateInfo ai = {
	    .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
	    .descriptorPool = p->pool,
	    .descriptorSetCount = 1,
	    .pSetLayouts = &p->set_layout,
	};
	return vkAllocateDescriptorSets(ctx->dev, &ai, &p->set);
}

static VkResult create_compute(struct ax_vk_ctx *ctx, struct ax_vk_pipeline *p,
			       const uint32_t *code, size_t size,
			       const char *entry, const struct ax_vk_spec *spec,
			       int n_spec)
{
	VkShaderModuleCreateInfo mi = {
	    .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
	    .codeSize = size,
	    .pCode = code,
	};
	VkResult r = vkCreateShaderModule(ctx->dev, &mi, NULL, &p->module);
	if (r != VK_SUCCESS)
		return r;
	VkSpecializationMapEntry map[AX_VK_MAX_SPEC];
	uint32_t data[AX_VK_MAX_SPEC];
	uint32_t n = 0, subgroup_size = 0;
	for (int i = 0; i < n_spec; i++) {
		if (spec[i].id == AX_VK_SPEC_SUBGROUP_SIZE) {
			subgroup_size = spec[i].value;
			continue;
		}
		map[n] = (VkSpecializationMapEntry){
		    .constantID = spec[i].id,
		    .offset = n * 4,
		    .size = 4,
		};
		data[n++] = spec[i].value;
	}
	VkSpecializationInfo si = {
	    .mapEntryCount = n,
	    .pMapEntries = map,
	    .dataSize = (size_t)n * 4,
	    .pData = data,
	};
	VkPipelineShaderStageRequiredSubgroupSizeCreateInfo required = {
	    .sType =
		VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO,
	    .requiredSubgroupSize = subgroup_size,
	};
	VkComputePipelineCreateInfo ci = {
	    .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
	    .stage =
		{
		    .sType =
			VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
		    .pNext = subgroup_size ? &required : NULL,
		    .stage = VK_SHADER_STAGE_COMPUTE_BIT,
		    .module = p->module,
		    .pName = entry,
		    .pSpecializationInfo = n ? &si : NULL,
		},
	    .layout = p->layout,
	};
	double t0 = now_ms();
	r = vkCreateComputePipelines(ctx->dev, ctx->cache, 1, &ci, NULL,
				     &p->pipeline);
	p->compile_ms = now_ms() - t0;
	ctx->compile_ms_total += p->compile_ms;
	return r;
}

/* What both entry points share: `what` names the shader in messages. */
static int create_pipeline(struct ax_vk_ctx *ctx, const char *what,
			   const uint32_t *code, size_t size, const char *entry,
			   uint32_t n_bindings, uint32_t texel_mask,
			   uint32_t push_size, const struct ax_vk_spec *spec,
			   int n_spec, struct ax_vk_pipeline *out)
{
	/* create_layouts and ax_vk_pipeline_bind hold bindings in arrays of
	 * 16, create_compute the constants in arrays of AX_VK_MAX_SPEC. */
	if (n_bindings > 16)
		return ax_errf(ctx->err, sizeof(ctx->err), AX_EINVAL,
			       "%s: %u storage-buffer bindings, at most 16 "
			       "are supported; pack buffers together",
			       what, n_bindings);
	if (n_spec < 0 || n_spec > AX_VK_MAX_SPEC || (n_spec && !spec))
		return ax_errf(ctx->err, sizeof(ctx->err), AX_EINVAL,
			       "%s: %d specialization constants, at most %d "
			       "are supported",
			       what, n_spec, AX_VK_MAX_SPEC);
	for (int i = 0; i < n_spec; i++)
		if (spec[i].id == AX_VK_SPEC_SUBGROUP_SIZE && spec[i].value &&
		    !ax_vk_subgroup_size_ok(ctx->info, spec[i].value))
			return ax_errf(ctx->err, sizeof(ctx->err), AX_EINVAL,
				       "%s: %s cannot require subgroup size "
				       "%u (it can: %u..%u, powers of two%s)",
				       what, ctx->info->name, spec[i].value,
				       ctx->info->subgroup_size_min,
				       ctx->info->subgroup_size_max,
				       ctx->info->subgroup_size_control
					   ? ""
					   : "; it has no "
					     "VK_EXT_subgroup_size_control, "
					     "so only 0");
	out->n_bindings = n_bindings;
	out->texel_mask = texel_mask & ((1u << n_bindings) - 1);
	out->push_size = push_size;
	ax_hash_hex(code, size, out->shader_hash);
	VkResult r = create_layouts(ctx, out);
	bool compiling = r == VK_SUCCESS;
	if (compiling)
		r = create_compute(ctx, out, code, size, entry ? entry : "main",
				   spec, n_spec);
	if (r != VK_SUCCESS) {
		snprintf(ctx->err, sizeof(ctx->err),
			 "creating the compute pipeline for %s: %s", what,
			 ax_vk_result_name(r));
		ax_vk_pipeline_destroy(ctx, out);
		/* The module or the pipeline: this point cannot be built
		 * (a tuner's trial status), as opposed to a layout or pool
		 * that any pipeline would need. */
		return compiling ? AX_ECOMPILE : ax_vk_error_from(r);
	}
	return 0;
}

int ax_vk_pipeline_create(struct ax_vk_ctx *ctx, const char *shader,
			  uint32_t n_bindings, uint32_t push_size,
			  const struct ax_vk_spec *spec, int n_spec,
			  struct ax_vk_pipeline *out)
{
	return ax_vk_pipeline_create_texel(ctx, shader, n_bindings, 0,
					   push_size, spec, n_spec, out);
}

int ax_vk_pipeline_create_texel(struct ax_vk_ctx *ctx, const char *shader,
				uint32_t n_bindings, uint32_t texel_mask,
				uint32_t push_size,
				const struct ax_vk_spec *spec, int n_spec,
				struct ax_vk_pipeline *out)
{
	memset(out, 0, sizeof(*out));
	const struct ax_shader *s = find_shader(shader);
	if (!s) {
		snprintf(ctx->err, sizeof(ctx->err),
			 "no embedded shader '%s' (a build problem)", shader);
		return AX_ENOTFOUND;
	}
	return create_pipeline(ctx, shader, s->code, s->size, "main",
			       n_bindings, texel_mask, push_size, spec, n_spec,
			       out);
}

int ax_vk_pipeline_create_spirv(struct ax_vk_ctx *ctx, const uint32_t *code,
				size_t size, const char *entry,
				uint32_t n_bindings, uint32_t push_size,
				const struct ax_vk_spec *spec, int n_spec,
				struct ax_vk_pipeline *out)
{
	memset(out, 0, sizeof(*out));
	/* Vulkan requires a whole number of words (validation would say so
	 * only when it is on); the driver gets nothing shorter than the
	 * 5-word header. */
	if (!code || size < 20 || size % 4 != 0)
		return ax_errf(ctx->err, sizeof(ctx->err), AX_EINVAL,
			       "SPIR-V of %zu bytes: a module is a whole "
			       "number of 4-byte words, at least the 20-byte "
			       "header",
			       code ? size : 0);
	char what[64];
	char hash[17];
	ax_hash_hex(code, size, hash);
	snprintf(what, sizeof(what), "SPIR-V %s (entry %s)", hash,
		 entry ? entry : "main");
	return create_pipeline(ctx, what, code, size, entry, n_bindings, 0,
			       push_size, spec, n_spec, out);
}

/* Bytes per texel of the formats a texel binding may use. */
static VkDeviceSize texel_bytes(VkFormat f)
{
	switch (f) {
	case VK_FORMAT_R16_SFLOAT:
		return 2;
	case VK_FORMAT_R32_SFLOAT:
		return 4;
	case VK_FORMAT_R16G16B16A16_SFLOAT:
		return 8;
	case VK_FORMAT_R32G32B32A32_SFLOAT:
		return 16;
	default:
		return 0;
	}
}

/* (Re)make the view of texel binding i over b. */
static int texel_view(struct ax_vk_ctx *ctx, struct ax_vk_pipeline *p,
		      uint32_t i, const struct ax_vk_binding *b,
		      VkDeviceSize range)
{
	VkDeviceSize tb = texel_bytes(b->format);
	uint32_t max_texels = ctx->info->limits.maxTexelBufferElements;
	if (!tb)
		return ax_errf(ctx->err, sizeof(ctx->err), AX_EINVAL,
			       "binding %u: format %d is not one a texel "
			       "binding takes (a bug)",
			       i, (int)b->format);
	if (range / tb > max_texels)
		return ax_errf(ctx->err, sizeof(ctx->err), AX_EINVAL,
			       "binding %u: %llu texels, more than "
			       "maxTexelBufferElements %u",
			       i, (unsigned long long)(range / tb), max_texels);
	if (p->views[i])
		vkDestroyBufferView(ctx->dev, p->views[i], NULL);
	p->views[i] = VK_NULL_HANDLE;
	VkBufferViewCreateInfo vi = {
	    .sType = VK_STRUCTURE_TYPE_BUFFER_VIEW_CREATE_INFO,
	    .buffer = b->buffer->buf,
	    .format = b->format,
	    .offset = b->offset,
	    .range = range / tb * tb,
	};
	VkResult r = vkCreateBufferView(ctx->dev, &vi, NULL, &p->views[i]);
	if (r != VK_SUCCESS)
		return ax_errf(ctx->err, sizeof(ctx->err), ax_vk_error_from(r),
			       "binding %u: creating a texel view: %s", i,
			       ax_vk_result_name(r));
	return 0;
}

int ax_vk_pipeline_bind(struct ax_vk_ctx *ctx, struct ax_vk_pipeline *p,
			const struct ax_vk_binding *b, uint32_t n)
{
	VkDescriptorBufferInfo bi[16];
	VkWriteDescriptorSet w[16];
	VkDeviceSize max_range = ctx->info->limits.maxStorageBufferRange;
	if (n != p->n_bindings || n > 16)
		return AX_EINVAL;
	for (uint32_t i = 0; i < n; i++) {
		VkDeviceSize range =
		    b[i].range ? b[i].range : b[i].buffer->size - b[i].offset;
		bool texel = p->texel_mask >> i & 1;
		if (!texel && range > max_range) {
			snprintf(ctx->err, sizeof(ctx->err),
				 "binding %u covers %llu bytes, more than "
				 "maxStorageBufferRange %llu",
				 i, (unsigned long long)range,
				 (unsigned long long)max_range);
			return AX_EINVAL;
		}
		if (texel) {
			int rc = texel_view(ctx, p, i, &b[i], range);
			if (rc)
				return rc;
		}
		bi[i] = (VkDescriptorBufferInfo){
		    .buffer = b[i].buffer->buf,
		    .offset = b[i].offset,
		    .range = range,
		};
		w[i] = (VkWriteDescriptorSet){
		    .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
		    .dstSet = p->set,
		    .dstBinding = i,
		    .descriptorCount = 1,
		    .descriptorType = binding_type(p, i),
		    .pBufferInfo = texel ? NULL : &bi[i],
		    .pTexelBufferView = texel ? &p->views[i] : NULL,
		};
	}
	vkUpdateDescriptorSets(ctx->dev, n, w, 0, NULL);
	return 0;
}

void ax_vk_pipeline_destroy(struct ax_vk_ctx *ctx, struct ax_vk_pipeline *p)
{
	if (!p || ctx->lost)
		return;
	if (p->pipeline)
		vkDestroyPipeline(ctx->dev, p->pipeline, NULL);
	if (p->pool)
		vkDestroyDescriptorPool(ctx->dev, p->pool, NULL);
	for (uint32_t i = 0; i < 16; i++)
		if (p->views[i])
			vkDestroyBufferView(ctx->dev, p->views[i], NULL);
	if (p->layout)
		vkDestroyPipelineLayout(ctx->dev, p->layout, NULL);
	if (p->set_layout)
		vkDestroyDescriptorSetLayout(ctx->dev, p->set_layout, NULL);
	if (p->module)
		vkDestroyShaderModule(ctx->dev, p->module, NULL);
	memset(p, 0, sizeof(*p));
}

void ax_vk_cmd_dispatch(VkCommandBuffer cb, const struct ax_vk_pipeline *p,
			const void *push, uint32_t gx, uint32_t gy, uint32_t gz)
{
	vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, p->pipeline);
	if (p->n_bindings)
		vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE,
					p->layout, 0, 1, &p->set, 0, NULL);
	if (push && p->push_size)
		vkCmdPushConstants(cb, p->layout, VK_SHADER_STAGE_COMPUTE_BIT,
				   0, p->push_size, push);
	vkCmdDispatch(cb, gx, gy, gz);
}
