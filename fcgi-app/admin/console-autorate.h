/*
 * console-autorate.h - the console's page of a queue's auto-rate
 * (autorate.h): the settings form, the one-time test, enabling,
 * disabling and dry run, and the decision log, which the dashboard
 * shows too.
 */
#ifndef CONSOLE_AUTORATE_H
#define CONSOLE_AUTORATE_H

struct buf;
struct json_object;
struct req;

/* Entries of the decision log the page and the dashboard show. */
#define CONSOLE_AR_LOG_ROWS	20

/*
 * GET /admin/queue/<slug>/autorate: the settings, the last test and
 * the decision log.  POST with op "save" (the form's settings, as the
 * API's PATCH: 422 and nothing changed on a bad value), "test" (the
 * one-time test, its result shown), "enable", "disable", "dry-run-on",
 * "dry-run-off"; each answers the page with what was done or why not.
 */
void	 console_queue_autorate(struct req *);

/*
 * The decision log table (#autorate-log) of log, a JSON array of
 * arops_log() entries (NULL: none), into b; cell for cell as console.js
 * redraws it from the dashboard's live JSON.  Can't fail.
 */
void	 console_autorate_log_table(struct buf *b, struct json_object *log);

#endif /* CONSOLE_AUTORATE_H */
