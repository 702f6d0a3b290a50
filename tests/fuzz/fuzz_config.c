/*
 * tests/fuzz/fuzz_config.c - libFuzzer target for the YAML profile loader
 * (ax_config_parse) and the per-device defaults loader (ax_defaults_parse)
 * against the real suite parameter tables, and for the generic YAML ->
 * JSON bridge.  Any input must give a profile or an error
 * message, never a crash, a leak or undefined behaviour.
 */
#include "core/config.h"
#include "core/defaults.h"
#include "core/error.h"
#include "suites/registry.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static struct ax_config_schema schema[64];
static int n_schema;

static void init_schema(void)
{
	if (n_schema)
		return;
	for (int i = 0; i < ax_suite_count && i < 64; i++) {
		schema[i].suite = ax_suites[i]->name;
		schema[i].params = ax_suites[i]->params;
		schema[i].n_params = ax_suites[i]->n_params;
		n_schema++;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ax_config *cfg = NULL;
	json_t *doc = NULL;
	char err[1024];

	init_schema();
	err[0] = '\0';
	int rc = ax_config_parse((const char *)data, size, "fuzz.yaml", schema,
				 n_schema, &cfg, err, sizeof(err));
	/* The contract: a profile, or NULL and a message. */
	if (rc == 0 && !cfg)
		__builtin_trap();
	if (rc != 0 && (cfg || !err[0]))
		__builtin_trap();
	if (cfg) {
		json_t *j = ax_config_to_json(cfg);
		json_decref(j);
	}
	ax_config_destroy(cfg);
	struct ax_defaults *defaults = NULL;
	err[0] = '\0';
	rc = ax_defaults_parse((const char *)data, size, "fuzz.yaml", schema,
			       n_schema, &defaults, err, sizeof(err));
	if ((rc == 0) != (defaults != NULL) || (rc != 0 && !err[0]))
		__builtin_trap();
	ax_defaults_free(defaults);
	rc = ax_config_parse_yaml_json((const char *)data, size, "fuzz.yaml",
				       &doc, err, sizeof(err));
	if (rc == 0 && doc) {
		char *yaml = NULL;
		if (ax_config_emit_yaml_string(doc, &yaml) == 0)
			free(yaml);
	}
	json_decref(doc);
	return 0;
}
