/*
 * fuzz-health.c - the shop's health answer flattened and judged
 * (ar_judge(), CASES C19: dotted paths, collisions, depth, leaves,
 * non-finite and huge numbers), and an operator's rules text
 * (ar_rules_parse()).  Every verdict has a reason; an unreadable answer
 * is never healthy.
 */
#include "config.h"

#include "autorate.h"
#include "fuzz.h"

static struct ar_rules	 rules;
static int		 ready;

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ar_rules	 r;
	struct ar_eval	 ev;
	const char	*why;
	char		*s;

	if (!ready) {
		if (ar_rules_parse("db.latency_ms < 500, metrics.cpuLoad "
		    "< 0.8, responseTimeMs < 500, q.depth >= 0", &rules,
		    &why) == -1)
			abort();
		ready = 1;
	}
	ar_judge(&rules, 10, 12, (const char *)data, size, &ev);
	if (ev.reason == NULL || ev.state >= AR_STATE__MAX ||
	    (ev.state == AR_HEALTHY && strcmp(ev.reason, "ok") != 0))
		abort();
	s = fuzz_str(data, size);
	(void)ar_rules_parse(s, &r, &why);
	free(s);
	return 0;
}
