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
 *                    prefetch_depth, read_chunk, io_mode,
 *                    storage {bound, gbps, raw_read_gbps, ratio_to_raw,
 *                             verdict, advice, cache, basis, reason}}}]
 *   workloads: {one per suite with the workload role (gemm, conv,
 *               attention, bandwidth): the device to use}
 *
 * Rules: chunk size = smallest chunk whose host-to-device bandwidth is
 * >= 90 % of the best path's peak, cross-checked by a least-squares fit
 * of T(n) = alpha + n / beta (n_half = alpha * beta; the fit's 90 % chunk
 * is 9 * n_half).  Buffers in flight = fewest reaching 95 % of the best
 * over an `inflight` sweep.  Pinned = pinned/pageable peak gain >= 5 %.
 * Batch size = smallest batch reaching 90 % of the best throughput of a
 * sweep of a suite's declared batch parameter (conv n, attention batch).
 *
 * Loading from storage (recommend_ingest.c) reads the results of suites
 * with the ingest role first: the cold-cache results where any exist (a
 * loader reads from storage), else the warm ones, as basis.cache says.
 * loader_threads (PyTorch num_workers) = the fewest readers reaching
 * 95 % of the fastest among the results differing from it only in
 * readers (basis.chosen), prefetch_depth = ceil(inflight / those
 * readers), at least 1 (prefetch_factor); the fastest gives read_chunk =
 * its chunk in bytes and io_mode = its io (pread, mmap or direct).  storage is
 * a note, not a setting: the fastest result's bound stage (extra.bound), its
 * GB/s against the raw sequential read of the same file (extra.raw_read_gbps),
 * and a verdict with advice.  Storage-bound (read): the fastest at the most
 * readers against the fastest at the fewest, among results differing only in
 * readers; under a 5 % gain more readers do not help (with one reader
 * count measured it says so, and reason names the sweep to run) and the
 * advice is to keep the data in RAM or warm the page cache, quoting a
 * warm result where one is stored (warm results only: compare I/O modes
 * instead); else it says what more readers gave and recommends them
 * (more still where the most readers were the fastest).  Upload-bound:
 * pinned staging memory, larger chunks, more buffers in flight.
 * Compute-bound: the loader keeps up; the fewest readers within 5 % of
 * the fastest suffice.  Figures quoted are stored ones, cited in the
 * note's basis; a figure not stored is null and reason says so.
 *
 * Only where a device has no ingest result: loader threads and prefetch
 * depth by Little's law: in flight = transfer time of one batch / step
 * time of one batch, threads capped by the device's local cores; then
 * read_chunk and io_mode are null and the reason names the ingest run.
 */
#ifndef AX_RECOMMEND_H
#define AX_RECOMMEND_H

#include <jansson.h>
#include <stdio.h>

struct ax_db_results;
struct ax_suite_doc;

#define AX_RECOMMEND_SCHEMA "axbench.recommend/v1"

/*
 * Build the document.  results: the stored results (core/db_rows.h, all
 * devices; the caller has filled their byte counts and typed their
 * parameters: app/suite_doc.h), read, never changed.  suites: the typed
 * suite document (app/suite_doc.h: ax_app_suites()): which suites are
 * transfers, ingest, workload classes to place, and their batch
 * parameters; NULL knows none.  host: ax_topo_host_json() or NULL.
 * localities: an object mapping a device fingerprint to
 * ax_topo_locality_json() of that device, or NULL.  *out is a new
 * reference.  AX_EINVAL when results is NULL, AX_ENOMEM.
 */
int ax_recommend_build(const struct ax_db_results *results,
		       const struct ax_suite_doc *suites, const json_t *host,
		       const json_t *localities, const char *generator,
		       json_t **out, char *err, size_t errlen);

/*
 * Write doc in format: "yaml", "json", "env" (shell exports, with
 * AXBENCH_READ_CHUNK and AXBENCH_IO_MODE for a loader of one's own),
 * "numactl" (a command prefix), "slurm" (#SBATCH lines) or "torch"
 * (Python DataLoader kwargs with a worker-affinity hook, then the read
 * chunk, I/O mode and storage verdict as comments).  Views other than yaml
 * and json describe the first device of the document (filter the
 * results to one device to choose another).  Settings that are null show
 * as comments with their reason.  AX_EINVAL names the allowed formats;
 * AX_EIO when writing fails.
 */
int ax_recommend_write(const json_t *doc, const char *format, FILE *out,
		       char *err, size_t errlen);

/*
 * `recommend --slo-ms`: adds "latency_batch" to doc, one entry per
 * device, suite and shape with stored latency distributions
 * (extra.latency.p99_ms) at several batches: {suite, device, case,
 * slo_ms, curve [{result, batch, p50_ms, p99_ms, value, unit}], batch
 * (the largest whose p99 <= slo_ms, or null with reason), basis (the
 * sweep's result at it), verified (a later result at that batch: its
 * p99 and whether it met the SLO; null with reason until one is
 * stored)}.  AX_ENOMEM.
 */
int ax_recommend_add_latency(json_t *doc, const struct ax_db_results *results,
			     double slo_ms, char *err, size_t errlen);

/* The formats ax_recommend_write knows, NULL-terminated ("yaml" first). */
const char *const *ax_recommend_formats(void);

#endif
