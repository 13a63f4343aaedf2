/*
 * aqueuectl-template.c - "aqueuectl template ...": a queue's custom
 * waiting-room template (tmpl-ops.h) from the command line, audited as
 * the CLI.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aqueue.h"
#include "ctl.h"
#include "tmpl-ops.h"

/* Tell why on stderr; the exit status for err. */
static int
failed(const struct tops_err *err)
{
	if (err->line > 0)
		fprintf(stderr, "aqueuectl: %s (%s): %s\n", err->code,
		    err->reason, err->message);
	else
		fprintf(stderr, "aqueuectl: %s: %s\n", err->code,
		    err->message);
	return ctl_exit_of(err->status);
}

/*
 * Read file path ("-": standard input) whole, up to one byte beyond
 * ROOM_TMPL_MAX (so that a larger file shows as such).  Returns a new
 * buffer of *len bytes (NUL-terminated), or NULL with a message.
 */
static char *
slurp(const char *path, size_t *len)
{
	FILE	*f;
	char	*b;
	size_t	 n;

	if (strcmp(path, "-") == 0)
		f = stdin;
	else if ((f = fopen(path, "rb")) == NULL) {
		fprintf(stderr, "aqueuectl: %s: %s\n", path, strerror(errno));
		return NULL;
	}
	b = xmalloc(ROOM_TMPL_MAX + 2);
	n = fread(b, 1, ROOM_TMPL_MAX + 1, f);
	if (ferror(f)) {
		fprintf(stderr, "aqueuectl: %s: read error\n", path);
		free(b);
		b = NULL;
	} else {
		b[n] = '\0';
		*len = n;
	}
	if (f != stdin)
		fclose(f);
	return b;
}

int
ctl_template(struct db *db, int argc, char *argv[],
    const struct principal *who)
{
	struct tops_err	 err;
	char		*html = NULL;
	size_t		 len = 0;

	if (argc == 4 && strcmp(argv[1], "set") == 0) {
		if ((html = slurp(argv[3], &len)) == NULL)
			return 1;
		if (tops_put(db, argv[2], html, len, &err, who) != APP_OK) {
			free(html);
			return failed(&err);
		}
		free(html);
		printf("template of %s stored (%zu bytes)\n", argv[2], len);
		return 0;
	}
	if (argc != 3)
		return CTL_USAGE;
	if (strcmp(argv[1], "reset") == 0) {
		if (tops_reset(db, argv[2], &err, who) != APP_OK)
			return failed(&err);
		printf("%s shows the default page\n", argv[2]);
		return 0;
	}
	if (strcmp(argv[1], "show") != 0)
		return CTL_USAGE;
	if (tops_get(db, argv[2], &html, &len, &err, who) != APP_OK)
		return failed(&err);
	if (html == NULL) {
		fprintf(stderr, "aqueuectl: template_not_found: %s shows the "
		    "default page\n", argv[2]);
		return 4;
	}
	fwrite(html, 1, len, stdout);
	free(html);
	return 0;
}
