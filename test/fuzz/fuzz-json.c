/*
 * fuzz-json.c - every JSON body (jsonbody_parse(): one strict parser,
 * CASES C17, with the Unicode rules), and the members the visitor
 * endpoints read from it.
 */
#include "config.h"

#include <json-c/json.h>

#include "fuzz.h"
#include "jsonbody.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct json_object	*o;
	enum jsonbody_err	 why;
	const char		*t;
	int64_t			 n;
	size_t			 len;

	if ((o = jsonbody_parse((const char *)data, size, &why)) == NULL)
		return 0;
	(void)jsonbody_get_int(o, "number", 1, 9007199254740991LL, &n);
	t = jsonbody_get_str(o, "ticket", &len);
	if (t != NULL && len > size)
		abort();
	(void)jsonbody_get_str(o, "code", &len);
	json_object_put(o);
	return 0;
}
