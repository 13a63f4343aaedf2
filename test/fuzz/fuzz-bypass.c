/*
 * fuzz-bypass.c - a bypass code as a visitor sends it: the body of POST
 * /queue/<slug>/bypass (jsonbody_parse(), then its "code") and the
 * gateway's ?code= (the query's field), hashed for the look-up
 * (bypass_hash()): any length, any bytes, the same 32-byte hash.
 */
#include "config.h"

#include <json-c/json.h>

#include "bypass.h"
#include "extern.h"
#include "fuzz.h"
#include "jsonbody.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct json_object	*o;
	struct field_val	 f[FIELD__MAX];
	uint8_t			 h[BYPASS_HASH_LEN];
	const char		*code;
	char			*s;
	size_t			 len;
	int			 i;

	if ((o = jsonbody_parse((const char *)data, size, NULL)) != NULL) {
		if ((code = jsonbody_get_str(o, "code", &len)) != NULL &&
		    bypass_hash(code, len, h) == -1)
			abort();
		json_object_put(o);
	}
	s = fuzz_str(data, size);
	memset(f, 0, sizeof(f));
	req_parse_query(s, f);
	if (f[FIELD_CODE].state == FIELD_OK &&
	    bypass_hash(f[FIELD_CODE].val, f[FIELD_CODE].len, h) == -1)
		abort();
	for (i = 0; i < FIELD__MAX; i++)
		free(f[i].val);
	free(s);
	return 0;
}
