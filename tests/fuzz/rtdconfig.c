/*
 * Fuzz target: the .readthedocs.yaml reader (engine/src/rtdconfig.c), from
 * the file's bytes through the engine's YAML reader (yaml.c, on libyaml),
 * the schema checks and, for a file that passes, the build's `config` JSON
 * the API serves (rtdconfig_json.c).
 *
 * The file comes from any repository imported, so every byte of it is
 * hostile. Besides the sanitizers: a refused file gets LEC_EINVALID with a
 * message that is valid UTF-8 (it reaches the build log and the API's
 * JSON), and an accepted one renders as valid JSON.
 */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "lectern/errors.h"
#include "lectern/rtdconfig.h"

/* The name the file goes by in messages, as a checkout's default file. */
#define CONFIG_NAME ".readthedocs.yaml"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lec_rtd_config *cfg = NULL;
	const char *msg;
	char *json;
	cJSON *parsed;
	int rc;

	if (size > LEC_RTD_CONFIG_MAX_BYTES)
		return 0;
	rc = lec_rtd_config_parse((const char *)data, size, CONFIG_NAME, &cfg);
	if (rc < 0) {
		FUZZ_CHECK(rc == LEC_EINVALID || rc == LEC_ENOMEM,
			   "a bad file is LEC_EINVALID");
		msg = lec_error_last();
		FUZZ_CHECK(fuzz_utf8_valid(msg, strlen(msg)),
			   "the message is valid UTF-8");
		return 0;
	}
	FUZZ_CHECK(cfg != NULL, "LEC_OK gives a configuration");
	json = lec_rtd_config_json(cfg);
	FUZZ_CHECK(json != NULL, "an accepted file renders as JSON");
	parsed = cJSON_Parse(json);
	FUZZ_CHECK(parsed != NULL, "the JSON parses back");
	cJSON_Delete(parsed);
	free(json);
	lec_rtd_config_free(cfg);
	return 0;
}
