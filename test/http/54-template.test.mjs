// A queue's custom waiting-room template (SPEC section 8, CASES C51)
// through the admin API, the CLI and the room page.  Promises these
// paths could break, and what shows they hold:
//   promise 4 (a refused request changes nothing): every refused
//     upload (413, 415, 422, another queue's key, a console form with a
//     bad line or without its CSRF token) leaves the stored
//     template, the room page and the audit log as they were;
//   promise 1 (the visitor's page works and keeps its place): the room
//     page with a custom template still carries the page's own script,
//     the proof of work's solver and its Content-Security-Policy, and
//     JSON mode answers as without a template.
// And escaping: a queue name that is markup comes out as text, once.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
	ctl, createQueue, dbSQL, env, navigateReq, req, waitFor, CACHE_MS,
} from './lib.mjs';
import { Client, addUser, ctlIn } from './console.mjs';

const SITES = '/api/admin/queue/sites';

// The id of queue slug and a new API key of it.
function site(slug) {
	const id = Number(dbSQL(`SELECT id FROM queue WHERE slug = '${slug}'`)
	    [0][0]);
	const out = ctl('key', 'create', slug, '--name', 'tmpl');
	return { id, key: /^key: (qak_\S+)$/m.exec(out)[1] };
}

function put(id, key, body, ctype = 'text/html; charset=utf-8') {
	return req(`${SITES}/${id}/template`, { method: 'PUT', headers: {
	    authorization: `Bearer ${key}`, 'content-type': ctype }, body });
}

function get(id, key) {
	return req(`${SITES}/${id}/template`, { headers: {
	    authorization: `Bearer ${key}` } });
}

function del(id, key) {
	return req(`${SITES}/${id}/template`, { method: 'DELETE', headers: {
	    authorization: `Bearer ${key}` } });
}

const audits = (id) => dbSQL('SELECT action, actor_kind, after_json, ' +
    `before_json FROM audit_log WHERE queue_id = ${id} AND action LIKE ` +
    "'template%' ORDER BY id");

const sha = (s) => createHash('sha256').update(s).digest('hex');

// The room page as a browser opens it.
const room = (slug) => navigateReq(`/queue/${slug}`,
    { headers: { accept: 'text/html' } });

test('PUT stores, GET returns it, the room page shows it filled and ' +
    'escaped; DELETE restores the default page', async () => {
	const name = '<img src=x onerror=alert(1)> ${serving}';
	const q = createQueue({ rate: 60, name });
	const { id, key } = site(q.slug);
	const html = '<section class="mine">\n<h1 id="t">${name}</h1>\n' +
	    '<p title="${name}">Number <b>${number}</b>, place ' +
	    '${position}, serving ${serving}, wait ${waitTime}, ' +
	    'entry ${eta}.</p>\n</section>\n';
	const csp = (await room(q.slug)).headers.get(
	    'content-security-policy');
	assert.match(csp, /script-src 'self'; style-src 'self'/);
	assert.equal((await get(id, key)).status, 404, 'none yet');
	assert.equal((await get(id, key)).json.error, 'template_not_found');
	const r = await put(id, key, html);
	assert.equal(r.status, 200, r.text);
	assert.deepEqual(r.json, { custom: true, bytes: Buffer.byteLength(
	    html), sha256: sha(html) });
	const g = await get(id, key);
	assert.equal(g.status, 200);
	assert.equal(g.text, html);
	assert.equal(g.headers.get('content-type'),
	    'text/html; charset=utf-8');
	assert.match(g.headers.get('content-security-policy'),
	    /, default-src 'none'; sandbox$/, 'inert in a browser');
	// Audit: who, size and hash, never the HTML.
	const a = audits(id);
	assert.equal(a.length, 1);
	assert.deepEqual(a[0].slice(0, 2), ['template_put', 'key']);
	assert.deepEqual(JSON.parse(a[0][2]), { bytes: Buffer.byteLength(html),
	    sha256: sha(html) });
	assert.equal(a[0][3], 'NULL');
	// The room page: within the row's cache time everywhere.
	const p = await waitFor(async () => {
		const x = await room(q.slug);
		return x.text.includes('class="mine"') ? x : null;
	}, 3 * CACHE_MS, 100, 'the custom page');
	assert.equal(p.status, 200);
	const esc = '&lt;img src=x onerror=alert(1)&gt; ${serving}';
	assert.ok(p.text.includes(`<h1 id="t">${esc}</h1>`), p.text);
	assert.ok(p.text.includes('<p title="&lt;img src=x ' +
	    'onerror=alert(1)&gt; ${serving}">'), p.text);
	assert.match(p.text, new RegExp('Number <b><span data-aq-live=' +
	    '"number">\u2013</span></b>, place <span data-aq-live=' +
	    '"position">\u2013</span>, serving <span data-aq-live=' +
	    '"serving">\\d+</span>, wait <span data-aq-live="wait">' +
	    '\u2013</span>, entry <span data-aq-live="entry">\u2013' +
	    '</span>\\.'));
	assert.ok(!p.text.includes('<img src=x'), 'the name never as markup');
	assert.ok(!p.text.includes('id="figures"') &&
	    !p.text.includes('class="figures"'), 'not the default figures');
	// The page's own parts stay: script, solver, status line, CSP.
	assert.match(p.text, /<script src="[^"]*\/pow\.js" defer><\/script>/);
	assert.match(p.text,
	    /<script src="[^"]*\/waiting-room\.js" defer><\/script>/);
	assert.match(p.text, /<main id="room" data-base="[^"]*" data-slug="/);
	assert.ok(p.text.includes('<p id="state" class="custom-state" ' +
	    'role="status" aria-live="polite">'));
	assert.equal(p.headers.get('content-security-policy'), csp,
	    'the Content-Security-Policy of the default page');
	// JSON mode is as without a template.
	const j = await req(`/queue/${q.slug}`, { headers: {
	    accept: 'application/json' } });
	assert.equal(j.status, 200, j.text);
	assert.equal(typeof j.json.WaitingRoom.inWaitingRoom, 'boolean');
	assert.equal(j.json.WaitingRoom.number, 1);
	// DELETE: 204, audited, the default page again.
	const d = await del(id, key);
	assert.equal(d.status, 204);
	const a2 = audits(id);
	assert.deepEqual(a2.map((x) => x[0]), ['template_put',
	    'template_reset']);
	assert.deepEqual(JSON.parse(a2[1][3]), { bytes: Buffer.byteLength(
	    html), sha256: sha(html) });
	assert.equal((await get(id, key)).status, 404);
	await waitFor(async () => {
		const x = await room(q.slug);
		return x.text.includes('class="figures"') &&
		    !x.text.includes('class="mine"');
	}, 3 * CACHE_MS, 100, 'the default page');
	// A second DELETE changes nothing and writes no row.
	assert.equal((await del(id, key)).status, 204);
	assert.equal(audits(id).length, 2);
});

test('promise 4: 413 at 51201 bytes and 200 at 51200, 415, 422 with ' +
    'the line and reason, 400 for bytes that are not UTF-8, another ' +
    "queue's key 403: nothing changed by a refusal", async () => {
	const q = createQueue({ rate: 60 });
	const other = createQueue({ rate: 60 });
	const { id, key } = site(q.slug);
	const { key: okey } = site(other.slug);
	const first = '<p>${name}</p>';
	assert.equal((await put(id, key, first)).status, 200);
	const pad = (n) => `<p>${'a'.repeat(n - 7)}</p>`;
	const big = await put(id, key, pad(51201));
	assert.equal(big.status, 413, big.text);
	assert.equal(big.json.error, 'template_too_large');
	// Three-byte characters: judged by bytes, not characters.
	const euro = `<p>${'\u20ac'.repeat(17064)}aa</p>`;
	assert.equal(Buffer.byteLength(euro), 51201);
	assert.equal((await put(id, key, euro)).status, 413);
	const bad = [
	    ['<p>\n\n${foo}</p>', 3, 'unknown_variable', /\$\{foo\}/],
	    ['<p>${waitTime</p>', 1, 'unterminated_variable', /"\$\{"/],
	    ['<p>ok</p>\n<script>var n="${name}";</script>', 2,
		'element_not_allowed', /<script>/],
	    ['<p>\n<a href="javascript:alert(1)">x</a>', 2,
		'url_not_allowed', /javascript/],
	    ['<a href="${name}">x</a>', 1, 'variable_context', /URL/],
	    ['<img src=x onerror=alert(1)>', 1, 'attribute_not_allowed',
		/onerror/],
	    ['<iframe src="https://a.example/"></iframe>', 1,
		'element_not_allowed', /iframe/],
	    ['<meta http-equiv="refresh" content="0">', 1,
		'element_not_allowed', /meta/],
	];
	for (const [t, line, reason, msg] of bad) {
		const r = await put(id, key, t);
		assert.equal(r.status, 422, `${t}: ${r.text}`);
		assert.equal(r.json.error, 'invalid_template');
		assert.equal(r.json.reason, reason, t);
		assert.equal(r.json.line, line, t);
		assert.match(r.json.message, new RegExp(`^line ${line}: `));
		assert.match(r.json.message, msg);
	}
	const ct = await put(id, key, '<p>x</p>', 'application/json');
	assert.equal(ct.status, 415);
	assert.equal((await put(id, key, '<p>x</p>', 'text/plain')).status,
	    415);
	assert.equal((await put(id, key, '<p>x</p>',
	    'text/html; charset=iso-8859-1')).status, 415);
	const u = await put(id, key, Buffer.from([0x3c, 0x70, 0x3e, 0xff]));
	assert.equal(u.status, 400);
	assert.equal(u.json.error, 'invalid_unicode');
	const f = await put(id, okey, '<p>other</p>');
	assert.equal(f.status, 403);
	assert.equal(f.json.error, 'forbidden');
	assert.equal((await del(id, okey)).status, 403);
	assert.equal((await get(id, okey)).status, 403);
	// Nothing of it changed anything.
	assert.equal((await get(id, key)).text, first);
	assert.equal(audits(id).length, 1);
	// Exactly 51200 bytes is taken.
	const max = pad(51200);
	assert.equal(Buffer.byteLength(max), 51200);
	const ok = await put(id, key, max);
	assert.equal(ok.status, 200, ok.text);
	assert.equal(ok.json.bytes, 51200);
	assert.equal((await get(id, key)).text, max);
	assert.equal(audits(id).length, 2);
});

test('aqueuectl template set, show and reset; a refusal names the line',
    async () => {
	const q = createQueue({ rate: 60 });
	const id = Number(dbSQL(`SELECT id FROM queue WHERE slug = ` +
	    `'${q.slug}'`)[0][0]);
	const html = '<p>Hello ${name}</p>\n';
	const s = ctlIn(html, 'template', 'set', q.slug, '-');
	assert.equal(s.status, 0, s.stderr);
	assert.equal(s.stdout, `template of ${q.slug} stored (21 bytes)\n`);
	assert.equal(ctl('template', 'show', q.slug), html);
	const bad = ctlIn('<p>\n${nope}</p>', 'template', 'set', q.slug, '-');
	assert.equal(bad.status, 2);
	assert.match(bad.stderr, /invalid_template \(unknown_variable\): line 2: unknown variable \$\{nope\}/);
	assert.equal(ctl('template', 'show', q.slug), html, 'unchanged');
	const empty = ctlIn('', 'template', 'set', q.slug, '-');
	assert.equal(empty.status, 2);
	assert.match(empty.stderr, /invalid_template: The template is empty/);
	assert.equal(ctl('template', 'show', q.slug), html, 'unchanged');
	assert.equal(ctl('template', 'reset', q.slug),
	    `${q.slug} shows the default page\n`);
	const none = ctlIn('', 'template', 'show', q.slug);
	assert.equal(none.status, 4);
	assert.match(none.stderr, /template_not_found/);
	const a = audits(id);
	assert.deepEqual(a.map((x) => [x[0], x[1]]), [['template_put', 'cli'],
	    ['template_reset', 'cli']]);

});

test('aqueuectl(8), the usage text and the OpenAPI document name the ' +
    'template commands and methods', () => {
	const man = readFileSync(`${env.root}/man/aqueuectl.8`, 'utf8');
	for (const c of ['template set', 'template reset', 'template show'])
		assert.ok(man.includes(`.B ${c} \\fISLUG\\fP`), c);
	const usage = ctlIn('', '--help');
	for (const c of ['template set SLUG FILE|-', 'template reset SLUG',
	    'template show SLUG'])
		assert.ok(`${usage.stdout}${usage.stderr}`.includes(c), c);
	const doc = JSON.parse(readFileSync(`${env.root}/static/openapi.json`,
	    'utf8'));
	assert.deepEqual(Object.keys(doc.paths[
	    '/api/admin/queue/sites/{id}/template']).filter((k) =>
	    ['get', 'put', 'delete'].includes(k)), ['get', 'put', 'delete']);
});

test('the console form takes a template of 51200 bytes even when its ' +
    'form encoding is beyond max-body, and a refusal there stores ' +
    'nothing (promise 4)', async () => {
	const q = createQueue({ rate: 60 });
	const id = Number(dbSQL(`SELECT id FROM queue WHERE slug = ` +
	    `'${q.slug}'`)[0][0]);
	const u = addUser();
	const c = new Client();
	assert.equal((await c.login(u.name, u.password)).status, 303);
	const csrf = await c.csrf();
	const unit = '<p>${name}</p>\n';
	let html = unit.repeat(Math.floor(51200 / unit.length));
	html += 'a'.repeat(51200 - Buffer.byteLength(html));
	assert.equal(Buffer.byteLength(html), 51200);
	assert.ok(new URLSearchParams({ html }).toString().length > 65536,
	    'form-encoded beyond max-body');
	const path = `/admin/queue/${q.slug}/template`;
	const bad = await c.post(path, { csrf, op: 'save',
	    html: `${html.slice(0, 51190)}\${nope}` });
	assert.equal(bad.status, 422, bad.text.slice(0, 300));
	assert.match(bad.text, /line 3413: unknown variable \$\{nope\}/);
	assert.equal(audits(id).length, 0, 'nothing stored');
	const r = await c.post(path, { csrf, op: 'save', html });
	assert.equal(r.status, 200, r.text.slice(0, 300));
	assert.match(r.text, /this queue's own template \(51200 bytes\)\./);
	assert.equal(ctl('template', 'show', q.slug), html);
	assert.equal(audits(id).map((x) => x[1]).join(), 'user');
	// Without the CSRF token: 403, nothing changed.
	const forged = await c.post(path, { op: 'reset' });
	assert.equal(forged.status, 403);
	assert.equal(ctl('template', 'show', q.slug), html);
	const reset = await c.post(path, { csrf, op: 'reset' });
	assert.equal(reset.status, 200);
	assert.match(reset.text, /The room shows the default page again\./);
	assert.equal(ctlIn('', 'template', 'show', q.slug).status, 4);
});
