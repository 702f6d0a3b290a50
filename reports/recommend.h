/*
 * reports/recommend.h - placement and data-loading settings derived from
 * stored measurements (`axbench recommend`), and views of them for the
 * shell, numactl, Slurm and PyTorch.
 *
 * Every setting is an object {value, basis, confidence, reason}: basis
 * names the rule and cites the stored results (id and the value exactly
 * as stored) that produced the value; confidence is "high", "medium" or
 * "low"; where nothing was measured value, basis and confidence are null
 * and reason says what to run.  No number is invented.
 *
 * Document (schema axbench.recommend/v1):
 *   schema, generated_by, host {hostname, cores, cpuset}
 *   devices: [{key ("pci:BUS", "uuid:UUID" or "fingerprint:FP" - never a
 *              Vulkan index), fingerprint, name, vendor, type,
 *              pci_bus_id, device_uuid,
 *     locality: {numa_node, cpuset, local_cores},
 *     upload: {path, queue, memory_type, chunk_size (+ fit),
 *              buffers_in_flight},
 *     data_loading: {pinned_memory, batch_size, loader_threads,
 *                    prefetch_depth}}]
 *   workloads: {one per suite with the workload role (gemm, conv,
 *               attention, bandwidth): the device to use}
 *
 * Rules: chunk size = smallest chunk whose host-to-device bandwidth is
 * >= 90 % of the best path's peak, cross-checked by a least-squares fit
 * of T(n) = alpha + n / beta (n_half = alpha * beta; the fit's 90 % chunk
 * is 9 * n_half).  Buffers in flight = fewest reaching 95 % of the best
 * over an `inflight` sweep.  Pinned = pinned/pageable peak gain >= 5 %.
 * Batch size = smallest batch reaching 90 % of the best throughput of a
 * sweep of a suite's declared batch parameter (conv n, attention batch). Loader
 * threads and prefetch depth by Little's law: in flight = transfer time of one
 * batch / step time of one batch, threads capped by the device's local cores.
 */
#ifndef AX_RECOMMEND_H
#define AX_RECOMMEND_H

#include <jansson.h>
#include <stdio.h>

#define AX_RECOMMEND_SCHEMA "axbench.recommend/v1"

/*
 * Build the document.  results: ax_db_results' array (all devices).
 * suites: the suite document (cli/suite_doc.h): which suites are
 * transfers, which are workload classes to place, and their batch
 * parameters; NULL knows none.  host: ax_topo_host_json() or NULL.
 * localities: an object mapping a device fingerprint to
 * ax_topo_locality_json() of that device, or NULL.  *out is a new
 * reference.  AX_EINVAL when results is not an array.
 */
int ax_recommend_build(const json_t *results, const json_t *suites,
		       const json_t *host, const json_t *localities,
		       const char *generator, json_t **out, char *err,
		       size_t errlen);

/*
 * Write doc in format: "yaml", "json", "env" (shell exports), "numactl"
 * (a command prefix), "slurm" (#SBATCH lines) or "torch" (Python
 * DataLoader kwargs with a worker-affinity hook).  Views other than yaml
 * and json describe the first device of the document (filter the
 * results to one device to choose another).  Settings that are null show
 * as comments with their reason.  AX_EINVAL names the allowed formats;
 * AX_EIO when writing fails.
 */
int ax_recommend_write(const json_t *doc, const char *format, FILE *out,
		       char *err, size_t errlen);

/* The formats ax_recommend_write knows, NULL-terminated ("yaml" first). */
const char *const *ax_recommend_formats(void);

#endif
