// The console's auto-rate page through HTTP: every setting of the field
// table is a labelled control of its kind; the form saves through the
// API's path (the values as `aqueuectl autorate show` reads them, an
// autorate_update audit row with the console user as the actor); a bad
// value answers 422 with the field marked and changes nothing (no audit
// row either); a change without the session's CSRF token is refused
// 403; enabling is refused until a test passed; the test shows its
// status, time and metrics; enable, dry run and disable; the decision
// log on the page and in the dashboard's live JSON, as the API's log.
//
// Promises: the page touches no visitor request.  The one it could
// reach is "serving never goes backward" (it turns on what moves the
// admission rate): serving, sampled while the worker steers the rate of
// a queue with visitors waiting, never decreases.  "Failed leaves
// nothing" for the operator's side: every refused form leaves the
// settings and the audit log as they were.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';

import { ctl, createQueue, dbSQL, env, joinMany, sampleServing, show,
    waitFor } from './lib.mjs';
import { Client, addUser, csrfOf } from './console.mjs';

// The shop's health endpoint, on a port of its own.
const shop = { body: '{"metrics":{"cpuLoad":0.2}}', server: null, url: '',
    delayMs: 0 };

before(() => new Promise((resolve) => {
	shop.server = http.createServer((req, res) => setTimeout(() => {
		res.writeHead(200, { 'content-type': 'application/json' });
		res.end(shop.body);
	}, shop.delayMs));
	shop.server.listen(0, '127.0.0.1', () => {
		shop.url = `http://127.0.0.1:${shop.server.address().port}` +
		    '/health';
		resolve();
	});
}));
after(() => new Promise((resolve) => {
	shop.server.closeAllConnections?.();
	shop.server.close(resolve);
}));

const u = addUser();
const c = new Client();

async function loggedIn() {
	if (!c.jar.has('aq_session'))
		assert.equal((await c.login(u.name, u.password)).status, 303);
	return c;
}

const arShow = (slug) => JSON.parse(ctl('autorate', 'show', slug));
const audits = (slug) => dbSQL('SELECT actor_kind, actor_name, action ' +
    `FROM audit_log WHERE queue_slug = '${slug}' AND action LIKE ` +
    "'autorate%' ORDER BY id");

// A full form of good values (the checkboxes sent only when on).
function goodForm(csrf, extra = {}) {
	return { csrf, op: 'save', 'health-url': shop.url,
	    'allow-private': 'on', interval: '2',
	    rules: 'responseTimeMs<2000;metrics.cpuLoad \u2264 0.8',
	    min: '20', max: '300', step: '10', cut: '20', cooldown: '0',
	    band: '10', failures: '3', ...extra };
}

test('the form: a labelled control of its kind per setting; a save ' +
    'is the API\'s (values, audit row)', async () => {
	await loggedIn();
	const q = createQueue({ rate: 100 });
	const page = await c.get(`/admin/queue/${q.slug}/autorate`);
	assert.equal(page.status, 200);
	for (const [opt, label, kind] of [
		['health-url', 'Health URL', 'url'],
		['allow-private', 'Allow a private network', 'checkbox'],
		['interval', 'Poll interval (seconds)', 'number'],
		['min', 'Lowest rate (visitors per minute)', 'number'],
		['max', 'Highest rate (visitors per minute)', 'number'],
		['step', 'Raise step (visitors per minute)', 'number'],
		['cut', 'Cut (percent)', 'number'],
		['cooldown', 'Cool-down (seconds)', 'number'],
		['band', 'Hysteresis band (percent)', 'number'],
		['failures', 'Failures before the lowest rate', 'number'],
		['dry-run', 'Dry run', 'checkbox']]) {
		assert.match(page.text, new RegExp(`<label for="ar-${opt}">` +
		    `${label.replace(/[()]/g, '\\$&')}</label>`), opt);
		assert.match(page.text, new RegExp(`id="ar-${opt}" ` +
		    `name="${opt}"[^>]* type="${kind}"`), opt);
	}
	assert.match(page.text, /id="ar-interval"[^>]* min="2" max="3600"/);
	assert.match(page.text, /id="ar-rules" name="rules"/);
	assert.match(page.text, /Auto-rate is off\./);
	// The dashboard links the page.
	const dash = await c.get(`/admin/queue/${q.slug}`);
	assert.ok(dash.text.includes(`href="/admin/queue/${q.slug}/autorate"`));
	assert.match(dash.text, /<table id="autorate-log">/);

	const r = await c.post(`/admin/queue/${q.slug}/autorate`,
	    goodForm(csrfOf(page.text)));
	assert.equal(r.status, 200, r.text);
	assert.match(r.text, /id="autorate-done">The settings were saved\./);
	const s = arShow(q.slug);
	assert.equal(s.healthUrl, shop.url);
	assert.equal(s.allowPrivateNetwork, true);
	assert.equal(s.intervalSeconds, 2);
	assert.equal(s.rules, 'responseTimeMs < 2000, metrics.cpuLoad <= 0.8');
	assert.equal(s.minRate, 20);
	assert.equal(s.maxRate, 300);
	assert.equal(s.cooldownSeconds, 0);
	assert.equal(s.dryRun, false);
	assert.equal(s.enabled, false);
	// The page shows the stored values (rules in their normal form).
	assert.match(r.text, new RegExp('id="ar-rules" name="rules"[^>]* ' +
	    'value="responseTimeMs &lt; 2000, metrics.cpuLoad &lt;= 0.8"'));
	assert.match(r.text, /id="ar-allow-private"[^>]* checked/);
	assert.doesNotMatch(r.text, /id="ar-dry-run"[^>]* checked/);
	assert.deepEqual(audits(q.slug), [['user', u.name, 'autorate_update']]);
});

test('bad input: 422 with the field marked, the values kept in the ' +
    'form; nothing changed, no audit row', async () => {
	await loggedIn();
	const q = createQueue({ rate: 100 });
	const page = await c.get(`/admin/queue/${q.slug}/autorate`);
	const csrf = csrfOf(page.text);
	assert.equal((await c.post(`/admin/queue/${q.slug}/autorate`,
	    goodForm(csrf))).status, 200);
	const before = arShow(q.slug);
	const n = audits(q.slug).length;
	for (const [extra, field, msg] of [
		[{ cut: '95' }, 'cut', 'Cut: an integer from 1 to 90.'],
		[{ interval: '' }, 'interval', 'Poll interval: an integer'],
		[{ min: '400' }, 'min', 'Lowest rate: must not be above'],
		[{ rules: 'cpu = 1' }, 'rules', 'Rules: '],
		[{ 'health-url': 'file:///etc/passwd' }, 'health-url',
		    'Health URL: '],
		[{ 'health-url': 'http://169.254.169.254/',
		    'allow-private': undefined }, 'health-url',
		    'Health URL: '],
	]) {
		const form = goodForm(csrf, extra);
		for (const k of Object.keys(form))
			if (form[k] === undefined)
				delete form[k];
		const r = await c.post(`/admin/queue/${q.slug}/autorate`, form);
		assert.equal(r.status, 422, `${field}: ${r.text}`);
		assert.match(r.text, new RegExp(`id="ar-${field}"[^>]* ` +
		    'aria-invalid="true"'), field);
		assert.ok(r.text.includes(msg), `${field}: ${msg}`);
		assert.match(r.text, /Nothing was changed\./);
		// The submitted value is in the form again.
		const v = Object.values(extra)[0];
		if (v !== undefined && v !== '')
			assert.ok(r.text.includes(`value="${v.replace(/"/g,
			    '&quot;')}"`), field);
		assert.deepEqual(arShow(q.slug), before, field);
		assert.equal(audits(q.slug).length, n, field);
	}
	// A value with markup in it is written escaped, never as markup.
	const evil = 'http://shop.example/h?x="><script>alert(1)</script>';
	const r = await c.post(`/admin/queue/${q.slug}/autorate`,
	    goodForm(csrf, { 'health-url': evil, cut: '0' }));
	assert.equal(r.status, 422);
	assert.ok(!r.text.includes('"><script>alert(1)'));
	assert.ok(r.text.includes('&quot;&gt;&lt;script&gt;alert(1)'));
	assert.deepEqual(arShow(q.slug), before);
	// An unknown action changes nothing either.
	const x = await c.post(`/admin/queue/${q.slug}/autorate`,
	    { csrf, op: 'explode' });
	assert.equal(x.status, 422);
	assert.deepEqual(arShow(q.slug), before);
	assert.equal(audits(q.slug).length, n);
});

test('CSRF: a change without the session token, or with a wrong one, ' +
    'is refused with 403 and changes nothing', async () => {
	await loggedIn();
	const q = createQueue({ rate: 100 });
	const before = arShow(q.slug);
	const form = goodForm('');
	delete form.csrf;
	let r = await c.post(`/admin/queue/${q.slug}/autorate`, form);
	assert.equal(r.status, 403);
	assert.match(r.text, /CSRF/);
	r = await c.post(`/admin/queue/${q.slug}/autorate`,
	    goodForm('B'.repeat(43)));
	assert.equal(r.status, 403);
	const other = new Client();
	await other.login(u.name, u.password);
	for (const op of ['save', 'test', 'enable', 'dry-run-on']) {
		r = await c.post(`/admin/queue/${q.slug}/autorate`,
		    goodForm(await other.csrf(), { op }));
		assert.equal(r.status, 403, op);
	}
	assert.deepEqual(arShow(q.slug), before);
	assert.deepEqual(audits(q.slug), []);
	// Not logged in: 401, as every console POST.
	r = await new Client().post(`/admin/queue/${q.slug}/autorate`,
	    goodForm('B'.repeat(43)));
	assert.equal(r.status, 401);
	assert.deepEqual(arShow(q.slug), before);
});

test('test, enable (only after a passing test), dry run, disable; the ' +
    'log on the page and in the live JSON; serving never backward',
    async () => {
	await loggedIn();
	const q = createQueue({ rate: 100 });
	const page = await c.get(`/admin/queue/${q.slug}/autorate`);
	const csrf = csrfOf(page.text);
	const at = `/admin/queue/${q.slug}/autorate`;
	// The test without a URL: 422, nothing logged.
	let r = await c.post(at, { csrf, op: 'test' });
	assert.equal(r.status, 422);
	assert.match(r.text, /Health URL: set the health URL first\./);
	assert.equal((await c.post(at, goodForm(csrf))).status, 200);
	// Enabling before a test: 409, still off.
	r = await c.post(at, { csrf, op: 'enable' });
	assert.equal(r.status, 409);
	assert.match(r.text, /needs a passing test/);
	assert.equal(arShow(q.slug).enabled, false);

	// A failing test (a metric missing) is shown and allows nothing.
	shop.body = '{"other":1}';
	r = await c.post(at, { csrf, op: 'test' });
	assert.equal(r.status, 200);
	assert.match(r.text, /<dd id="test-passed">failed<\/dd>/);
	assert.match(r.text, /<dd id="test-state">unknown \(missing_path\)/);
	assert.equal((await c.post(at, { csrf, op: 'enable' })).status, 409);

	shop.body = '{"metrics":{"cpuLoad":0.2}}';
	r = await c.post(at, { csrf, op: 'test' });
	assert.equal(r.status, 200, r.text);
	assert.match(r.text, /<dd id="test-passed">passed<\/dd>/);
	assert.match(r.text, /<dd id="test-state">healthy \(ok\)<\/dd>/);
	assert.match(r.text, /<dd id="test-status">200<\/dd>/);
	assert.match(r.text, /<dd id="test-time">\d+ ms<\/dd>/);
	assert.ok(r.text.includes('<th scope="row">metrics.cpuLoad</th>' +
	    '<td class="num">0.2</td>'));
	assert.match(r.text, /id="autorate-tested">Last passing test/);
	// The log's newest entry is that test, on the page as in the API.
	const apiLog = JSON.parse(ctl('autorate', 'log', q.slug, '--limit',
	    '1'));
	assert.deepEqual([apiLog[0].kind, apiLog[0].action], ['test', 'pass']);
	assert.match(r.text, new RegExp('<table id="autorate-log">.*<tbody>' +
	    '<tr><td>\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC</td>' +
	    '<td>test</td><td>pass</td>', 's'));

	// Visitors waiting, then enable: the worker steers; serving is
	// sampled meanwhile.
	await joinMany(q.slug, 30, 5);
	r = await c.post(at, { csrf, op: 'enable' });
	assert.equal(r.status, 200, r.text);
	assert.match(r.text, /Auto-rate is on: it moves the admission rate/);
	assert.equal(arShow(q.slug).enabled, true);
	const samples = sampleServing(q.slug, 5000, 200);
	await waitFor(async () => {
		const live = (await c.get(`/admin/queue/${q.slug}/live`)).json;
		return live.autorateLog.some((e) => e.kind === 'poll');
	}, 15000, 300, 'a poll in the live JSON');
	const xs = await samples;
	for (let i = 1; i < xs.length; i++)
		assert.ok(xs[i].serving >= xs[i - 1].serving,
		    `serving went from ${xs[i - 1].serving} to ` +
		    `${xs[i].serving}`);
	// The live JSON's log is the API's (entries never change once
	// written: each one is among the API's, read after it).
	const live = (await c.get(`/admin/queue/${q.slug}/live`)).json;
	const api = JSON.parse(ctl('autorate', 'log', q.slug, '--limit',
	    '1000'));
	assert.ok(live.autorateLog.length >= 2 &&
	    live.autorateLog.length <= 20);
	for (const e of live.autorateLog)
		assert.ok(api.some((a) => JSON.stringify(a) ===
		    JSON.stringify(e)), JSON.stringify(e));
	assert.ok(api.some((e) => e.kind === 'poll'));

	r = await c.post(at, { csrf, op: 'dry-run-on' });
	assert.equal(r.status, 200);
	assert.match(r.text, /Auto-rate is on, in dry run/);
	assert.equal(arShow(q.slug).dryRun, true);
	r = await c.post(at, { csrf, op: 'disable' });
	assert.equal(r.status, 200);
	assert.match(r.text, /Auto-rate is off\./);
	assert.equal(arShow(q.slug).enabled, false);
	assert.deepEqual(audits(q.slug).map((a) => a[2]), ['autorate_update',
	    'autorate_enable', 'autorate_update', 'autorate_disable']);
	assert.ok(audits(q.slug).every((a) => a[0] === 'user' &&
	    a[1] === u.name));
});

// A POST of the form's fields as a raw body (escapes as given).
async function rawPost(path, body) {
	const res = await fetch(env.base + path, { method: 'POST',
	    redirect: 'manual', body, headers: { cookie: c.cookieHeader(),
	    'content-type': 'application/x-www-form-urlencoded' } });
	return { status: res.status, text: await res.text() };
}

test('a form the page did not send: a checkbox is read as the API ' +
    'reads it ("off" is off), a field sent twice or badly escaped and ' +
    'a missing op are refused with 422; nothing changed', async () => {
	// Promise "failed leaves nothing" (operator side): each refused
	// form below leaves the settings and the audit log as they were;
	// none of it reaches a visitor's request.
	await loggedIn();
	const q = createQueue({ rate: 100 });
	const at = `/admin/queue/${q.slug}/autorate`;
	const csrf = csrfOf((await c.get(at)).text);
	assert.equal((await c.post(at, goodForm(csrf,
	    { 'dry-run': 'on' }))).status, 200);
	assert.equal(arShow(q.slug).dryRun, true);
	// Sent as the API spells it: "off" and "false" are off, "on" on.
	for (const [v, want] of [['off', false], ['on', true],
	    ['false', false], ['true', true]]) {
		const r = await c.post(at, goodForm(csrf, { 'dry-run': v }));
		assert.equal(r.status, 200, `${v}: ${r.text}`);
		assert.equal(arShow(q.slug).dryRun, want, v);
	}
	const before = arShow(q.slug);
	const n = audits(q.slug).length;
	assert.equal(before.allowPrivateNetwork, true);
	assert.equal(before.dryRun, true);
	const refusals = [
		// "off" never widens: the loopback shop is refused.
		[new URLSearchParams(goodForm(csrf,
		    { 'allow-private': 'off' })).toString(), 'health-url',
		    'Health URL: '],
		[new URLSearchParams(goodForm(csrf,
		    { 'dry-run': 'maybe' })).toString(), 'dry-run',
		    'Dry run: true or false.'],
		// Twice: not taken as unchecked (off), nor as not sent.
		[new URLSearchParams([...Object.entries(goodForm(csrf)),
		    ['dry-run', 'on'], ['dry-run', 'on']]).toString(),
		    'dry-run', 'Dry run: sent twice, or with a bad escape or ' +
		    'a NUL byte.'],
		[new URLSearchParams([...Object.entries(goodForm(csrf)),
		    ['cut', '30']]).toString(), 'cut', 'Cut: sent twice'],
		[`${new URLSearchParams(goodForm(csrf))}&dry-run=%00`,
		    'dry-run', 'Dry run: sent twice'],
		[`${new URLSearchParams(goodForm(csrf))}&dry-run=%zz`,
		    'dry-run', 'Dry run: sent twice'],
	];
	for (const [body, field, msg] of refusals) {
		const r = await rawPost(at, body);
		assert.equal(r.status, 422, `${body}: ${r.text}`);
		assert.match(r.text, new RegExp(`id="ar-${field}"[^>]* ` +
		    'aria-invalid="true"'), body);
		assert.ok(r.text.includes(msg), `${body}: ${msg}`);
		assert.match(r.text, /Nothing was changed\./);
		assert.deepEqual(arShow(q.slug), before, body);
		assert.equal(audits(q.slug).length, n, body);
	}
	// No op (or two): no action, not a save of the boxes as off.
	for (const form of [{ csrf, 'allow-private': 'on' },
	    [...Object.entries(goodForm(csrf)), ['op', 'save']]]) {
		const r = await c.post(at, form);
		assert.equal(r.status, 422, r.text);
		assert.ok(r.text.includes('id="autorate-error">No action ' +
		    '(op) was sent, or more than one. Nothing was ' +
		    'changed.<'), r.text);
		assert.deepEqual(arShow(q.slug), before);
		assert.equal(audits(q.slug).length, n);
	}
	// A value longer than the field is shown again whole: no
	// character cut in two.
	const long = '\u00e9'.repeat(1100);
	const r = await c.post(at, goodForm(csrf, { rules: long }));
	assert.equal(r.status, 422);
	assert.match(r.text, /id="ar-rules"[^>]* aria-invalid="true"/);
	assert.ok(r.text.includes(`value="${long}"`));
	assert.ok(!r.text.includes('\ufffd'));
	assert.deepEqual(arShow(q.slug), before);
});

test('a save that changes what the test read says so: the test no ' +
    'longer counts, and auto-rate, if on, was turned off', async () => {
	// Promise "serving never goes backward": the save only turns
	// auto-rate off, the admission rate stays where it was (checked
	// below); no visitor request is touched.
	await loggedIn();
	const q = createQueue({ rate: 100 });
	const at = `/admin/queue/${q.slug}/autorate`;
	const csrf = csrfOf((await c.get(at)).text);
	// Slow polls and a long cool-down: the worker leaves the rate be.
	const form = (extra) => goodForm(csrf, { interval: '3600',
	    cooldown: '86400', ...extra });
	const saved = 'id="autorate-done">The settings were saved.';
	assert.equal((await c.post(at, form())).status, 200);
	shop.body = '{"metrics":{"cpuLoad":0.2}}';
	assert.equal((await c.post(at, { csrf, op: 'test' })).status, 200);
	// A change of neither keeps the test.
	let r = await c.post(at, form({ step: '20' }));
	assert.equal(r.status, 200);
	assert.ok(r.text.includes(`${saved}</p>`), r.text);
	assert.notEqual(arShow(q.slug).testedMs, null);
	r = await c.post(at, form({ rules: 'metrics.cpuLoad < 0.9' }));
	assert.equal(r.status, 200);
	assert.ok(r.text.includes(`${saved} The health URL, the rules or ` +
	    'the private network setting changed, so the last test no ' +
	    'longer counts: run it again before turning auto-rate on.</p>'),
	    r.text);
	assert.equal(arShow(q.slug).testedMs, null);
	assert.equal((await c.post(at, { csrf, op: 'test' })).status, 200);
	assert.equal((await c.post(at, { csrf, op: 'enable' })).status, 200);
	const rate = show(q.slug).ratePerMinute;
	r = await c.post(at, form({ rules: 'metrics.cpuLoad < 0.7' }));
	assert.equal(r.status, 200);
	assert.ok(r.text.includes(`${saved} The health URL, the rules or ` +
	    'the private network setting changed, so auto-rate was turned ' +
	    'off: run the test, then turn it on again.</p>'), r.text);
	assert.match(r.text, /id="autorate-state">Auto-rate is off\./);
	assert.equal(arShow(q.slug).enabled, false);
	assert.equal(arShow(q.slug).testedMs, null);
	assert.equal(show(q.slug).ratePerMinute, rate);
});

test('the test button pressed many times at once: one test runs, the ' +
    'others answer 503 with Retry-After and leave nothing', async () => {
	// Promise "failed leaves nothing" (operator side): a test refused
	// as busy writes no log row and changes no setting.
	await loggedIn();
	const q = createQueue({ rate: 100 });
	const at = `/admin/queue/${q.slug}/autorate`;
	const csrf = csrfOf((await c.get(at)).text);
	assert.equal((await c.post(at, goodForm(csrf))).status, 200);
	shop.body = '{"metrics":{"cpuLoad":0.2}}';
	shop.delayMs = 600;
	let rs;
	try {
		rs = await Promise.all(Array.from({ length: 6 }, () =>
		    c.post(at, { csrf, op: 'test' })));
	} finally {
		shop.delayMs = 0;
	}
	const ran = rs.filter((r) => r.status === 200);
	const busy = rs.filter((r) => r.status !== 200);
	assert.ok(ran.length >= 1, rs.map((r) => r.status).join());
	assert.ok(busy.length >= 1, rs.map((r) => r.status).join());
	for (const r of busy) {
		assert.equal(r.status, 503);
		assert.ok(['1', '2'].includes(r.h('retry-after')),
		    String(r.h('retry-after')));
		assert.ok(r.text.includes('id="autorate-error">Another test ' +
		    'is running; try again in a moment. Nothing was ' +
		    'changed.<'));
	}
	for (const r of ran)
		assert.match(r.text, /<dd id="test-passed">passed<\/dd>/);
	const tests = JSON.parse(ctl('autorate', 'log', q.slug, '--limit',
	    '100')).filter((e) => e.kind === 'test');
	assert.equal(tests.length, ran.length);
});
