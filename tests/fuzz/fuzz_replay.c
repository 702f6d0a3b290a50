/*
 * tests/fuzz/fuzz_replay.c - libFuzzer target for the Kernel Tuner cache
 * reader.  ax_replay_load takes a path (it gunzips through zlib), so each
 * input is written to a private temporary file first; a landscape that
 * loads is then replayed for a few evaluations with each strategy, since
 * the loader's output feeds the tuner.
 */
#include "core/error.h"
#include "tuner/replay.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char path[64];

static int write_input(const uint8_t *data, size_t size)
{
	if (!path[0]) {
		snprintf(path, sizeof(path), "/tmp/ax-fuzz-replay-%d.json",
			 (int)getpid());
	}
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	size_t put = fwrite(data, 1, size, f);
	return fclose(f) == 0 && put == size ? 0 : -1;
}

static void replay(const struct ax_landscape *l)
{
	static const char *const strategies[] = {"random", "grid", "anneal",
						 "bo"};
	char err[512];
	struct ax_tuner_options opt;
	ax_tuner_options_init(&opt);
	opt.budget = 6;
	for (size_t s = 0; s < sizeof(strategies) / sizeof(*strategies); s++) {
		struct ax_replay_result res;
		double trace[6];
		ax_replay_run(l, strategies[s], 1, &opt, trace, 6, &res, err,
			      sizeof(err));
	}
	double e, m, p;
	ax_replay_random_stats(l, 3, &e, &m, &p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ax_landscape *l = NULL;
	char err[1024];

	if (write_input(data, size))
		return 0;
	err[0] = '\0';
	int rc = ax_replay_load(path, &l, err, sizeof(err));
	if (rc != 0 && (l || !err[0]))
		__builtin_trap();
	if (rc == 0) {
		/* A loaded landscape keeps its promises. */
		if (!l || l->n == 0 || !isfinite(l->optimum) ||
		    l->opt_index >= l->n || l->nfailed >= l->n)
			__builtin_trap();
		if (l->n <= 4096)
			replay(l);
	}
	ax_landscape_destroy(l);
	return 0;
}
