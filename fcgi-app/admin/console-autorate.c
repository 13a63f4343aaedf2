/*
 * console-autorate.c - the console's page of a queue's auto-rate (see
 * console-autorate.h).  The form is drawn from the auto-rate field
 * table (autorate-ops.c); saving, the test, enabling and dry run go
 * through the auto-rate operations as the API's PATCH and test do
 * (ar_field_set(), arops_set(), arops_enable(), api_autorate_run_test():
 * the same checks, the same audit rows), as the logged-in user.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "admin-user.h"
#include "api-autorate.h"
#include "aqueue.h"
#include "autorate.h"
#include "console-autorate.h"
#include "console.h"
#include "extern.h"
#include "fields.h"
#include "log.h"
#include "page-console.h"

#define TEXT_MAX	2100	/* a field's text: the longest is 2048 */

/* Member key of o as text; "" when it is missing or null. */
static const char *
member(struct json_object *o, const char *key)
{
	struct json_object	*v;

	if (!json_object_object_get_ex(o, key, &v) || v == NULL)
		return "";
	return json_object_get_string(v);
}

/* Member key of o as an integer; none when it is missing or null. */
static int64_t
member_int(struct json_object *o, const char *key, int64_t none)
{
	struct json_object	*v;

	if (!json_object_object_get_ex(o, key, &v) || v == NULL)
		return none;
	return json_object_get_int64(v);
}

/* One entry e of the decision log as a table row, into b. */
static void
log_row(struct buf *b, struct json_object *e)
{
	struct json_object	*v;
	char			 t[40], num[80];
	int64_t			 ms;

	html_raw(b, "<tr><td>");
	console_utc_text(member_int(e, "atMs", 0), t, sizeof(t));
	html_text(b, t);
	html_raw(b, "</td><td>");
	html_text(b, member(e, "kind"));
	html_raw(b, "</td><td>");
	html_text(b, member(e, "action"));
	if (json_object_object_get_ex(e, "dryRun", &v) &&
	    json_object_get_boolean(v))
		html_text(b, " (dry run)");
	html_raw(b, "</td><td>");
	html_text(b, member(e, "rule")[0] != '\0' ? member(e, "rule") : "-");
	html_raw(b, "</td><td>");
	html_text(b, member(e, "state"));
	html_text(b, ": ");
	html_text(b, member(e, "reason"));
	html_raw(b, "</td><td class=\"num\">");
	snprintf(num, sizeof(num), "%lld \u2192 %lld",
	    (long long)member_int(e, "rateBefore", 0),
	    (long long)member_int(e, "rateAfter", 0));
	html_text(b, num);
	html_raw(b, "</td><td class=\"num\">");
	ms = member_int(e, "responseTimeMs", -1);
	if (ms >= 0)
		snprintf(num, sizeof(num), "%lld ms", (long long)ms);
	else
		snprintf(num, sizeof(num), "-");
	html_text(b, num);
	html_raw(b, "</td></tr>");
}

void
console_autorate_log_table(struct buf *b, struct json_object *log)
{
	size_t	 i, n = 0;

	if (log != NULL && json_object_is_type(log, json_type_array))
		n = json_object_array_length(log);
	html_raw(b, "<div class=\"scroll\" " SCROLL("Auto-rate decisions")
	    "><table id=\"autorate-log\"><caption>Auto-rate decisions and "
	    "tests, newest first</caption><thead><tr><th scope=\"col\">"
	    "Time</th><th scope=\"col\">Kind</th><th scope=\"col\">"
	    "Decision</th><th scope=\"col\">Rule</th><th scope=\"col\">"
	    "State</th><th scope=\"col\" class=\"num\">Rate (per minute)"
	    "</th><th scope=\"col\" class=\"num\">Response time</th></tr>"
	    "</thead><tbody>");
	for (i = 0; i < n; i++)
		log_row(b, json_object_array_get_idx(log, i));
	html_raw(b, "</tbody></table></div>");
}

/* A refusal of the auto-rate operations as a page (the database's 503). */
static void
failed(struct req *r, const struct ar_err *err)
{
	if (err->status == 503)
		http_app_err(r, ERR_DB_DOWN);
	else
		console_refusal(r, err->status, "Not done", err->message);
}

/*
 * The message of refusal err in words: the field's label in place of
 * its API key ("Cut: an integer from 1 to 90.").  Into buf of size n.
 */
static void
refusal_text(const struct ar_err *err, char *buf, size_t n)
{
	const struct fld	*f;
	const char		*m = err->message;
	size_t			 k;

	if (err->field < 0 || err->field >= AR_F__MAX) {
		snprintf(buf, n, "%s", m);
		return;
	}
	f = ar_field((enum ar_field)err->field);
	k = strlen(f->key);
	if (strncmp(m, f->key, k) == 0 && m[k] == ':') {
		m += k + 1;
		while (*m == ' ')
			m++;
	}
	snprintf(buf, n, "%s: %s", f->label, m);
}

/*
 * The control of field f with value text (fld_text()'s form: flags
 * "on"/"off"), marked when bad, into b.
 */
static void
control(struct buf *b, const struct fld *f, const char *text, int bad)
{
	char	 num[96];

	html_raw(b, "<input id=\"ar-");
	html_attr(b, f->opt);
	html_raw(b, "\" name=\"");
	html_attr(b, f->opt);
	html_raw(b, "\" aria-describedby=\"h-ar-");
	html_attr(b, f->opt);
	html_raw(b, "\"");
	if (bad)
		html_raw(b, " aria-invalid=\"true\"");
	switch (f->ctl) {
	case FLD_CTL_CHECKBOX:
		html_raw(b, " type=\"checkbox\" value=\"on\"");
		if (strcmp(text, "on") == 0)
			html_raw(b, " checked");
		html_raw(b, ">");
		return;
	case FLD_CTL_NUMBER:
		snprintf(num, sizeof(num), " type=\"number\" min=\"%lld\" "
		    "max=\"%lld\" step=\"1\" required", (long long)f->min,
		    (long long)f->max);
		html_raw(b, num);
		break;
	case FLD_CTL_URL:
		html_raw(b, " type=\"url\" spellcheck=\"false\"");
		break;
	default:
		html_raw(b, " spellcheck=\"false\"");
		break;
	}
	if (f->max > 0 && f->type == FLD_BUF) {
		snprintf(num, sizeof(num), " maxlength=\"%lld\"",
		    (long long)f->max);
		html_raw(b, num);
	}
	html_raw(b, " value=\"");
	html_attr(b, text);
	html_raw(b, "\">");
}

/*
 * The rule of field f as the form's help: a checkbox's without the
 * API's "true or false" (the box is that), "on or off" when nothing is
 * left.  Static.  Can't fail.
 */
static const char *
rule_text(const struct fld *f)
{
	static const char	 tf[] = "true or false";
	const char		*m = f->rule;

	if (f->ctl != FLD_CTL_CHECKBOX || strncmp(m, tf, sizeof(tf) - 1) != 0)
		return m;
	m += sizeof(tf) - 1;
	while (*m == ';' || *m == ' ')
		m++;
	return *m != '\0' ? m : "on or off";
}

/* Whether a checkbox's sent value v reads as on (as fld_parse()). */
static int
box_on(const char *v)
{
	return v != NULL && (strcmp(v, "on") == 0 || strcmp(v, "1") == 0 ||
	    strcmp(v, "true") == 0 || strcmp(v, "yes") == 0);
}

/*
 * The value of field i in the form into *given (NULL: not sent; the
 * caller frees it).  Returns APP_OK, or APP_INVALID with *err filled
 * (422, the field marked) when it was sent but cannot be read: twice,
 * with a bad escape or a NUL byte.  Such a field is never taken as not
 * sent: for a checkbox that would mean off.
 */
static enum app_err
form_field(struct req *r, int i, char **given, struct ar_err *err)
{
	const struct fld	*f = ar_field((enum ar_field)i);

	if ((*given = req_form(r, f->opt)) != NULL ||
	    !req_form_given(r, f->opt))
		return APP_OK;
	memset(err, 0, sizeof(*err));
	err->code = "invalid_value";
	err->field = i;
	err->status = 422;
	snprintf(err->message, sizeof(err->message), "%s: sent twice, or "
	    "with a bad escape or a NUL byte.", f->key);
	return APP_INVALID;
}

/*
 * The settings form: one control per field of the table, holding the
 * submitted values when use_form (else those of s), the field bad
 * (-1: none) marked with its rule.
 */
static void
settings_form(struct req *r, struct buf *b, const struct ar_settings *s,
    int bad, int use_form)
{
	const struct fld	*f;
	char			 text[TEXT_MAX], *given;
	const char		*val;
	int			 i;

	html_raw(b, "<h2 id=\"settings-h\">Settings</h2><form method=\"post\" "
	    "action=\"/admin/queue/");
	html_url_arg(b, r->arg);
	html_raw(b, "/autorate\" class=\"settings\" "
	    "aria-labelledby=\"settings-h\">");
	console_csrf_field(r, b);
	for (i = 0; i < AR_F__MAX; i++) {
		f = ar_field((enum ar_field)i);
		given = use_form ? req_form(r, f->opt) : NULL;
		/* As sent, whatever its length (no cut in a character). */
		val = given;
		if (f->ctl == FLD_CTL_CHECKBOX && use_form)
			val = box_on(given) ? "on" : "off";
		else if (given == NULL) {
			(void)fld_text(f, s, FLD_AT_ROW, text, sizeof(text));
			val = text;
		}
		html_raw(b, f->ctl == FLD_CTL_CHECKBOX ?
		    "<p class=\"field check\">" : "<p class=\"field\">");
		if (f->ctl == FLD_CTL_CHECKBOX)
			control(b, f, val, i == bad);
		console_field_label(b, "ar-", f);
		if (f->ctl != FLD_CTL_CHECKBOX)
			control(b, f, val, i == bad);
		html_raw(b, "<small id=\"h-ar-");
		html_attr(b, f->opt);
		html_raw(b, i == bad ? "\" class=\"error\">Invalid: must be " :
		    "\">");
		html_text(b, rule_text(f));
		html_raw(b, "</small></p>");
		free(given);
	}
	html_raw(b, "<p><button type=\"submit\" name=\"op\" value=\"save\">"
	    "Save settings</button></p></form>");
}

/* The result of the test just run: status, time taken, metrics read. */
static void
test_result(struct buf *b, const struct ar_eval *ev)
{
	struct json_object	*sample;
	char			 num[80];

	html_raw(b, "<section id=\"test-result\" aria-labelledby=\"test-h\">"
	    "<h2 id=\"test-h\">Test result</h2><dl class=\"figures\">");
	console_figure(b, "test-passed", "Result", ev->state != AR_UNKNOWN ?
	    "passed" : "failed", NULL);
	snprintf(num, sizeof(num), "%s (%s)", ar_state_name(ev->state),
	    ev->reason);
	console_figure(b, "test-state", "State", num, NULL);
	if (ev->http_status > 0)
		snprintf(num, sizeof(num), "%d", ev->http_status);
	else
		snprintf(num, sizeof(num), "no answer");
	console_figure(b, "test-status", "HTTP status", num, NULL);
	if (ev->response_ms >= 0)
		snprintf(num, sizeof(num), "%lld ms",
		    (long long)ev->response_ms);
	else
		snprintf(num, sizeof(num), "-");
	console_figure(b, "test-time", "Time taken", num, NULL);
	console_figure(b, "test-rule", "Deciding rule", ev->rule[0] != '\0' ?
	    ev->rule : "-", NULL);
	html_raw(b, "</dl><div class=\"scroll\" " SCROLL("Metrics read")
	    "><table id=\"test-metrics\"><caption>Metrics read</caption>"
	    "<thead><tr><th scope=\"col\">Metric</th><th scope=\"col\" "
	    "class=\"num\">Value</th></tr></thead><tbody>");
	sample = json_tokener_parse(ev->sample);
	if (sample != NULL && json_object_is_type(sample, json_type_object)) {
		json_object_object_foreach(sample, key, val) {
			html_raw(b, "<tr><th scope=\"row\">");
			html_text(b, key);
			html_raw(b, "</th><td class=\"num\">");
			html_text(b, val != NULL ?
			    json_object_to_json_string(val) : "null");
			html_raw(b, "</td></tr>");
		}
	}
	json_object_put(sample);
	html_raw(b, "</tbody></table></div></section>");
}

/* A form of the controls: one button sending op. */
static void
op_button(struct req *r, struct buf *b, const char *op, const char *label)
{
	html_raw(b, "<form method=\"post\" action=\"/admin/queue/");
	html_url_arg(b, r->arg);
	html_raw(b, "/autorate\">");
	console_csrf_field(r, b);
	html_raw(b, "<button type=\"submit\" name=\"op\" value=\"");
	html_attr(b, op);
	html_raw(b, "\">");
	html_text(b, label);
	html_raw(b, "</button></form>");
}

/*
 * The page of the route's queue's auto-rate with status: the refusal
 * msg (NULL: none) of field bad (-1: none), or the note done (NULL:
 * none); the test just run (ev, NULL: none); the form holding the
 * submitted values when use_form, else the stored ones.
 */
static void
autorate_page(struct req *r, int status, const char *msg, int bad,
    const char *done, const struct ar_eval *ev, int use_form)
{
	struct buf		 b = { NULL, 0, 0 }, head = { NULL, 0, 0 };
	struct ar_settings	 s;
	struct ar_err		 err;
	struct json_object	*log = NULL;
	char			 t[40];

	if (arops_get(r->db, r->arg, &s, &err) != APP_OK ||
	    arops_log(r->db, r->arg, CONSOLE_AR_LOG_ROWS, &log, &err) !=
	    APP_OK) {
		failed(r, &err);
		return;
	}
	html_raw(&head, "<script defer src=\"");
	req_static_url(&head, r);
	html_raw(&head, "/console.js\"></script>");
	if (msg != NULL) {
		html_raw(&b, "<p class=\"error\" role=\"alert\" "
		    "id=\"autorate-error\">");
		html_text(&b, msg);
		html_raw(&b, " Nothing was changed.</p>");
	} else if (done != NULL) {
		html_raw(&b, "<p class=\"done\" role=\"status\" "
		    "id=\"autorate-done\">");
		html_text(&b, done);
		html_raw(&b, "</p>");
	}
	html_raw(&b, "<p>Auto-rate of <strong>");
	html_text(&b, r->arg);
	html_raw(&b, "</strong> &middot; <a href=\"/admin/queue/");
	html_url_arg(&b, r->arg);
	html_raw(&b, "\">Dashboard</a>. The worker polls the shop's health "
	    "URL and moves the admission rate by the rules: any rule broken "
	    "cuts it at once; every rule holding for the cool-down raises "
	    "it by a step; always between the lowest and highest rate.</p>"
	    "<p id=\"autorate-state\">");
	html_text(&b, !s.enabled ? "Auto-rate is off." : s.dry_run ?
	    "Auto-rate is on, in dry run: it decides and logs, and leaves "
	    "the rate alone." : "Auto-rate is on: it moves the admission "
	    "rate.");
	html_raw(&b, "</p><p id=\"autorate-tested\">");
	if (s.tested_ms > 0) {
		console_utc_text(s.tested_ms, t, sizeof(t));
		html_text(&b, "Last passing test of the current health URL "
		    "and rules: ");
		html_text(&b, t);
		html_text(&b, ".");
	} else
		html_text(&b, "No passing test of the current health URL and "
		    "rules: auto-rate can be turned on only after one.");
	html_raw(&b, "</p>");
	if (ev != NULL)
		test_result(&b, ev);
	html_raw(&b, "<h2>Test and switch</h2><div class=\"actions\">");
	op_button(r, &b, "test", "Run the test");
	op_button(r, &b, s.enabled ? "disable" : "enable", s.enabled ?
	    "Turn auto-rate off" : "Turn auto-rate on");
	op_button(r, &b, s.dry_run ? "dry-run-off" : "dry-run-on", s.dry_run ?
	    "End dry run" : "Start dry run");
	html_raw(&b, "</div>");
	settings_form(r, &b, &s, bad, use_form);
	html_raw(&b, "<section id=\"autorate-live\" data-live=\"/admin/queue/");
	html_url_arg(&b, r->arg);
	html_raw(&b, "/live\" aria-labelledby=\"log-h\"><h2 id=\"log-h\">"
	    "Decision log</h2><p>Each automatic change with the rule that "
	    "caused it, and each test; updated every 3 s.</p>");
	console_autorate_log_table(&b, log);
	html_raw(&b, "</section>");
	/* Only a busy test answers 503: when to try again, as the API. */
	if (status == 503)
		http_header(r, "Retry-After", "%d", http_retry_jitter(
		    HTTP_BUSY_RETRY_MIN_S, HTTP_BUSY_RETRY_MAX_S));
	console_page(r, status, "Auto-rate", head.p, &b);
	json_object_put(log);
	buf_free(&b);
	buf_free(&head);
}

/* A refusal err of a change as the page (503 and 404 as their own). */
static void
refused(struct req *r, const struct ar_err *err, int use_form)
{
	char	 msg[400];

	if (err->status == 503 || err->status == 404) {
		failed(r, err);
		return;
	}
	refusal_text(err, msg, sizeof(msg));
	autorate_page(r, err->status, msg, err->field, NULL, NULL, use_form);
}

/* op "save": every field of the form, checked and stored as one. */
static void
save(struct req *r)
{
	struct ar_settings	 in, was, now;
	struct ar_err		 err;
	const struct fld	*f;
	const char		*done = "The settings were saved.";
	unsigned int		 bits = 0;
	char			*given;
	enum app_err		 er;
	int			 i;

	memset(&in, 0, sizeof(in));
	for (i = 0; i < AR_F__MAX; i++) {
		f = ar_field((enum ar_field)i);
		if (form_field(r, i, &given, &err) != APP_OK) {
			refused(r, &err, 1);
			return;
		}
		/*
		 * An unchecked box is not sent: it is off.  A sent one is
		 * read as the API reads it ("on", "off", "true", ...):
		 * "off" is never on, a value of neither is refused.
		 */
		if (f->ctl == FLD_CTL_CHECKBOX)
			er = ar_field_set(&in, &bits, (enum ar_field)i,
			    given != NULL ? given : "false", &err);
		else if (given != NULL)
			er = ar_field_set(&in, &bits, (enum ar_field)i, given,
			    &err);
		else
			er = APP_OK;
		free(given);
		if (er != APP_OK) {
			refused(r, &err, 1);
			return;
		}
	}
	/* Before and after: a new URL or rules drop the passing test. */
	if (arops_get(r->db, r->arg, &was, &err) != APP_OK ||
	    arops_set(r->db, r->arg, &in, bits, &err, &r->who) != APP_OK) {
		refused(r, &err, 1);
		return;
	}
	log_info("console: %s changed the auto-rate settings of %s",
	    r->session->user, r->arg);
	if (was.tested_ms > 0 && arops_get(r->db, r->arg, &now, &err) ==
	    APP_OK && now.tested_ms == 0)
		done = was.enabled ? "The settings were saved. The health "
		    "URL, the rules or the private network setting changed, "
		    "so auto-rate was turned off: run the test, then turn it "
		    "on again." : "The settings were saved. The health URL, "
		    "the rules or the private network setting changed, so "
		    "the last test no longer counts: run it again before "
		    "turning auto-rate on.";
	autorate_page(r, 200, NULL, -1, done, NULL, 0);
}

/* op "test": the one-time test, its result on the page. */
static void
run_test(struct req *r)
{
	struct ar_eval	 ev;
	struct ar_err	 err;
	enum app_err	 er;

	er = api_autorate_run_test(r, r->arg, &ev, &err);
	if (er == APP_BUSY) {
		autorate_page(r, 503, "Another test is running; try again in "
		    "a moment.", -1, NULL, NULL, 0);
		return;
	}
	if (er != APP_OK) {
		refused(r, &err, 0);
		return;
	}
	log_info("console: %s tested the health URL of %s", r->session->user,
	    r->arg);
	autorate_page(r, 200, NULL, -1, ev.state != AR_UNKNOWN ? "The test "
	    "passed: every rule's metric was read." : "The test failed: the "
	    "answer could not be read.", &ev, 0);
}

/* op "dry-run-on" and "dry-run-off": the one field, as a save. */
static void
dry_run(struct req *r, int on)
{
	struct ar_settings	 in;
	struct ar_err		 err;
	unsigned int		 bits = 0;

	memset(&in, 0, sizeof(in));
	if (ar_field_set(&in, &bits, AR_F_DRY_RUN, on ? "true" : "false",
	    &err) != APP_OK ||
	    arops_set(r->db, r->arg, &in, bits, &err, &r->who) != APP_OK) {
		refused(r, &err, 0);
		return;
	}
	log_info("console: %s turned dry run of %s %s", r->session->user,
	    r->arg, on ? "on" : "off");
	autorate_page(r, 200, NULL, -1, on ? "Dry run is on: decisions are "
	    "logged, the rate is left alone." : "Dry run is off.", NULL, 0);
}

void
console_queue_autorate(struct req *r)
{
	struct ar_err	 err;
	char		*op;
	int		 on;

	if (r->method != METHOD_POST) {
		autorate_page(r, 200, NULL, -1, NULL, NULL, 0);
		return;
	}
	/* Each button sends its op: none (or two) is no action. */
	op = req_form(r, "op");
	if (op == NULL)
		autorate_page(r, 422, "No action (op) was sent, or more than "
		    "one.", -1, NULL, NULL, 0);
	else if (strcmp(op, "save") == 0)
		save(r);
	else if (strcmp(op, "test") == 0)
		run_test(r);
	else if (strcmp(op, "enable") == 0 || strcmp(op, "disable") == 0) {
		on = strcmp(op, "enable") == 0;
		if (arops_enable(r->db, r->arg, on, &err, &r->who) != APP_OK)
			refused(r, &err, 0);
		else {
			log_info("console: %s turned auto-rate of %s %s",
			    r->session->user, r->arg, on ? "on" : "off");
			autorate_page(r, 200, NULL, -1, on ? "Auto-rate is "
			    "on." : "Auto-rate is off.", NULL, 0);
		}
	} else if (strcmp(op, "dry-run-on") == 0 ||
	    strcmp(op, "dry-run-off") == 0)
		dry_run(r, strcmp(op, "dry-run-on") == 0);
	else
		autorate_page(r, 422, "Unknown action.", -1, NULL, NULL, 0);
	free(op);
}
