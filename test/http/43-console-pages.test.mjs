// The console's queue pages through HTTP: create (fields from the field
// table, shop domains normalised, the secret shown once), edit (422 for
// a bad field, nothing changed), state actions, API keys (shown once,
// usable, revocable), the audit log with filters (the console user as
// the actor), the dashboard's live JSON from queue_stats and instance,
// and a console session on the admin API (X-CSRF-Token for changes).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
	show, uniqueSlug, join, req, dbSQL, waitFor, createQueue,
} from './lib.mjs';
import { Client, addUser, csrfOf } from './console.mjs';

const u = addUser();
const c = new Client();

async function loggedIn() {
	if (!c.jar.has('aq_session'))
		assert.equal((await c.login(u.name, u.password)).status, 303);
	return c;
}

test('create a queue: every field of the table is a labelled input; ' +
    'the secret is shown once; domains normalised', async () => {
	await loggedIn();
	const form = await c.get('/admin/queues/new');
	assert.equal(form.status, 200);
	for (const opt of ['name', 'target', 'domains', 'rate', 'burst',
	    'token-ttl', 'claim-window']) {
		assert.match(form.text, new RegExp(`<label for="f-${opt}">`));
		assert.match(form.text, new RegExp(`name="${opt}"`));
	}
	const slug = uniqueSlug('cp');
	const r = await c.post('/admin/queues', { csrf: csrfOf(form.text),
	    slug, name: 'Console <Sale>', target: 'https://Shop.Example/x',
	    domains: 'HTTPS://Shop.Example:443, shop.example',
	    rate: '120', burst: '', 'token-ttl': '300',
	    'claim-window': '' });
	assert.equal(r.status, 201, r.text);
	const m = /<code id="secret" class="secret">([^<]+)<\/code>/
	    .exec(r.text);
	assert.ok(m, r.text);
	assert.match(m[1], /^[A-Za-z0-9_-]{43}$/);
	assert.match(r.text, /Console &lt;Sale&gt;|Queue created/);
	const s = show(slug);
	assert.equal(s.name, 'Console <Sale>');
	assert.equal(s.shopDomains, 'shop.example');
	assert.equal(s.ratePerMinute, 120);
	assert.equal(s.tokenTtlSeconds, 300);
	// The secret is never shown again.
	const again = await c.get(`/admin/queue/${slug}/edit`);
	assert.equal(again.status, 200);
	assert.ok(!again.text.includes(m[1]));
	const dash = await c.get(`/admin/queue/${slug}`);
	assert.ok(!dash.text.includes(m[1]));
	// A taken slug: 409, the form again.
	const dup = await c.post('/admin/queues', { csrf: csrfOf(form.text),
	    slug, name: 'x', rate: '5' });
	assert.equal(dup.status, 409);
	assert.match(dup.text, /a queue with this slug exists/);
});

test('edit: 422 names the field and changes nothing; a good save shows ' +
    'the saved values', async () => {
	await loggedIn();
	const q = createQueue({ rate: 60 });
	const page = await c.get(`/admin/queue/${q.slug}/edit`);
	assert.match(page.text, /id="f-rate"[^>]* value="60"/);
	const csrf = csrfOf(page.text);
	let r = await c.post(`/admin/queue/${q.slug}/edit`, { csrf,
	    name: q.name, rate: '0', 'token-ttl': '600' });
	assert.equal(r.status, 422);
	assert.match(r.text, /id="f-rate"[^>]*aria-invalid="true"/);
	assert.equal(show(q.slug).ratePerMinute, 60);
	r = await c.post(`/admin/queue/${q.slug}/edit`, { csrf,
	    name: 'Renamed', rate: '90', domains: 'Shop.Example:443' });
	assert.equal(r.status, 200, r.text);
	assert.match(r.text, /Saved\./);
	const s = show(q.slug);
	assert.deepEqual([s.name, s.ratePerMinute, s.shopDomains],
	    ['Renamed', 90, 'shop.example']);
});

test('API keys page: a key is shown once, works on its queue, and is ' +
    'revoked from the page', async () => {
	await loggedIn();
	const q = createQueue({ rate: 60 });
	const page = await c.get(`/admin/queue/${q.slug}/keys`);
	assert.equal(page.status, 200);
	const r = await c.post(`/admin/queue/${q.slug}/keys`,
	    { csrf: csrfOf(page.text), name: 'github-actions' });
	assert.equal(r.status, 201, r.text);
	const key = /<code id="new-key" class="secret">(qak_[^<]+)</
	    .exec(r.text)[1];
	const list = await c.get(`/admin/queue/${q.slug}/keys`);
	assert.ok(!list.text.includes(key), 'shown only once');
	assert.match(list.text, /github-actions/);
	const id = Number(dbSQL('SELECT k.id FROM api_key k JOIN queue q ' +
	    `ON q.id = k.queue_id WHERE q.slug = '${q.slug}'`)[0][0]);
	const auth = { headers: { authorization: `Bearer ${key}` } };
	const sites = await req('/api/admin/queue/sites', auth);
	assert.equal(sites.status, 200, sites.text);
	assert.deepEqual(sites.json.sites.map((s) => s.slug), [q.slug]);
	const rv = await c.post(`/admin/keys/${id}/revoke`,
	    { csrf: csrfOf(list.text) });
	assert.equal(rv.status, 303);
	assert.equal(rv.location, `/admin/queue/${q.slug}/keys`);
	const after = await req('/api/admin/queue/sites', auth);
	assert.equal(after.status, 401);
	assert.equal(after.json.error, 'invalid_api_key');
	assert.match((await c.get(`/admin/queue/${q.slug}/keys`)).text,
	    /revoked/);
});

test('state actions are audited as the console user; the audit page ' +
    'filters by queue, actor and action', async () => {
	await loggedIn();
	const q = createQueue({ rate: 60 });
	const csrf = await c.csrf();
	assert.equal((await c.post(`/admin/queue/${q.slug}/rate`,
	    { csrf, rate: '300' })).status, 303);
	assert.equal((await c.post(`/admin/queue/${q.slug}/pause`,
	    { csrf })).status, 303);
	assert.equal((await c.post(`/admin/queue/${q.slug}/resume`,
	    { csrf })).status, 303);
	const s = show(q.slug);
	assert.deepEqual([s.ratePerMinute, s.active], [300, true]);
	const rows = dbSQL('SELECT actor_kind, actor_name, action, ' +
	    "client_addr FROM audit_log a JOIN queue q ON q.id = a.queue_id " +
	    `WHERE q.slug = '${q.slug}' ORDER BY a.id`);
	assert.deepEqual(rows.map((x) => x[2]),
	    ['create', 'set_rate', 'pause', 'resume']);
	for (const x of rows.slice(1))
		assert.deepEqual([x[0], x[1], x[3]],
		    ['user', u.name, '127.0.0.1']);
	let a = await c.get(`/admin/audit?queue=${q.slug}&action=set_rate`);
	assert.equal(a.status, 200);
	const trs = a.text.split('<tbody>')[1].split('</tbody>')[0]
	    .split('<tr>').slice(1);
	assert.equal(trs.length, 1);
	assert.match(trs[0], /set_rate/);
	assert.match(trs[0], /<code>{"ratePerMinute":60}<\/code>/);
	assert.match(trs[0], /<code>{"ratePerMinute":300}<\/code>/);
	assert.match(trs[0],
	    new RegExp(`user: <span dir="auto">${u.name}</span>`));
	a = await c.get(`/admin/audit?queue=${q.slug}&actor=nobody-else`);
	assert.match(a.text, /No changes match/);
});

test('dashboard: figures and series from queue_stats, instances from ' +
    'instance; the page refreshes through the live JSON', async () => {
	await loggedIn();
	const q = createQueue({ rate: 1, burst: 1 });
	for (let i = 0; i < 3; i++)
		assert.equal((await join(q.slug)).status, 200);
	// The stack's pool samples every 5 s.
	const live = await waitFor(async () => {
		const r = await c.get(`/admin/queue/${q.slug}/live`);
		assert.equal(r.status, 200, r.text);
		return r.json.issued === 3 ? r.json : null;
	}, 15000, 500);
	assert.equal(live.slug, q.slug);
	assert.equal(live.waiting, 2);
	assert.equal(live.serving, 1);
	assert.equal(live.ratePerMinute, 1);
	assert.equal(live.active, true);
	assert.equal(live.rateCap, null, 'no auto-rate: no cap');
	assert.equal(live.estimatedWaitSeconds, 120);
	assert.equal(live.series.t.length, live.series.waiting.length);
	assert.equal(live.series.waiting.at(-1), 2);
	const pools = live.instances.filter((i) => i.kind === 'pool');
	assert.ok(pools.length >= 1);
	assert.ok(pools[0].workers >= 1);
	const page = await c.get(`/admin/queue/${q.slug}`);
	assert.equal(page.status, 200);
	assert.match(page.text, /<dd id="waiting">2<\/dd>/);
	// 120 s in words, as console.js writes it live.
	assert.match(page.text, /<dd id="wait">2 min<\/dd>/);
	assert.match(page.text, new RegExp(`data-live="/admin/queue/` +
	    `${q.slug}/live"`));
	assert.match(page.text, /uPlot\.iife\.min\.js/);
	// Stale instances are dropped: one last seen long ago is not shown.
	dbSQL("INSERT INTO instance (id, kind, host, pid, started_ms, " +
	    "seen_ms) VALUES ('pool:gone-host:1', 'pool', 'gone-host', 1, " +
	    "1000, 1000) ON DUPLICATE KEY UPDATE seen_ms = 1000");
	const r2 = await c.get(`/admin/queue/${q.slug}/live`);
	assert.ok(!r2.json.instances.some((i) => i.host === 'gone-host'));
	// Auto-rate on (a dry run here, so the stack's worker changes
	// nothing): the cap is its maximum, on the JSON and the page.
	dbSQL('INSERT INTO queue_autorate (queue_id, enabled, dry_run, ' +
	    "health_url, rate_max) SELECT id, 1, 1, 'http://127.0.0.1:9/', " +
	    `900 FROM queue WHERE slug = '${q.slug}'`);
	const r3 = await c.get(`/admin/queue/${q.slug}/live`);
	assert.equal(r3.json.rateCap, 900);
	assert.match((await c.get(`/admin/queue/${q.slug}`)).text,
	    /<dd id="rate-cap">900<\/dd>/);
	dbSQL('UPDATE queue_autorate SET enabled = 0 WHERE queue_id = ' +
	    `(SELECT id FROM queue WHERE slug = '${q.slug}')`);
	assert.equal((await c.get(`/admin/queue/${q.slug}/live`)).json
	    .rateCap, null, 'off: no cap');
});

test('uPlot is shipped from static/, the pinned npm copy, no CDN',
    async () => {
	const { readFileSync } = await import('node:fs');
	const root = process.env.AQ_ROOT;
	const pkg = JSON.parse(readFileSync(`${root}/package.json`, 'utf8'));
	assert.match(pkg.dependencies.uplot, /^\d+\.\d+\.\d+$/);
	for (const f of ['uPlot.iife.min.js', 'uPlot.min.css'])
		assert.ok(readFileSync(`${root}/static/${f}`).equals(
		    readFileSync(`${root}/node_modules/uplot/dist/${f}`)), f);
	const r = await req('/queue-static/uPlot.iife.min.js');
	assert.equal(r.status, 200);
});

test('a console session on the admin API: reads with the cookie, ' +
    'changes only with X-CSRF-Token', async () => {
	await loggedIn();
	const q = createQueue({ rate: 60 });
	const cookie = { cookie: c.cookieHeader() };
	const id = Number(dbSQL('SELECT id FROM queue WHERE slug = ' +
	    `'${q.slug}'`)[0][0]);
	let r = await req(`/api/admin/queue/sites/${id}`, { headers: cookie });
	assert.equal(r.status, 200, r.text);
	assert.equal(r.json.slug, q.slug);
	r = await req('/api/admin/queue/sites', { headers: cookie });
	assert.equal(r.status, 200, r.text);
	assert.ok(Array.isArray(r.json.sites));
	r = await req(`/api/admin/queue/sites/${id}/pause`,
	    { method: 'POST', headers: cookie });
	assert.equal(r.status, 403);
	assert.equal(r.json.error, 'csrf_failed');
	assert.equal(show(q.slug).active, true);
	r = await req(`/api/admin/queue/sites/${id}/pause`, { method: 'POST',
	    headers: { ...cookie, 'x-csrf-token': await c.csrf() } });
	assert.equal(r.status, 200, r.text);
	assert.equal(show(q.slug).active, false);
	const who = dbSQL('SELECT actor_kind, actor_name FROM audit_log ' +
	    `WHERE queue_id = ${id} ORDER BY id DESC LIMIT 1`)[0];
	assert.deepEqual(who, ['user', u.name]);
});
