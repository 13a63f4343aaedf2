/*
 * fuzz-query.c - the query string of every request (req_parse_query():
 * declared fields, percent-decoding, repeats, NUL bytes, long values),
 * and the request's path as the web server passes it (req_route_path()),
 * and CONTENT_LENGTH (req_content_length()).
 */
#include "config.h"

#include "extern.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct field_val	 f[FIELD__MAX];
	struct req_paths	 p;
	char			*s = fuzz_str(data, size), *b;
	char			 path[512], base[REQ_BASE_MAX];
	int64_t			 len;
	int			 absent, i;

	memset(f, 0, sizeof(f));
	req_parse_query(s, f);
	for (i = 0; i < FIELD__MAX; i++) {
		if (f[i].state == FIELD_OK && strlen(f[i].val) != f[i].len)
			abort();	/* a field holds no NUL byte */
		free(f[i].val);
	}
	fuzz_split(s, size, &b);
	memset(&p, 0, sizeof(p));
	p.request_uri = s;
	p.path_info = b;
	(void)req_route_path(&p, b, path, sizeof(path), base, sizeof(base));
	(void)req_content_length(s, 65536, &len, &absent);
	free(s);
	return 0;
}
