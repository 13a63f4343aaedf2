// The REST admin API with an API key: the OpenAPI 3.1 document (served,
// valid, and every answer here checked against its schemas), GET and
// PATCH of the key's queue (full configuration, unknown fields ignored,
// slug only unchanged, rate and pause in effect on return), 422 naming
// each invalid field with nothing changed and nothing audited.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import SwaggerParser from '@apidevtools/swagger-parser';
import { ctl, createQueue, dbSQL, env, join, postJSON, req, show, status,
    token, info, verify } from './lib.mjs';
import { Client, addUser } from './console.mjs';
import { ajv, check, checkOp, doc } from './openapi.mjs';

const SITES = '/api/admin/queue/sites';
const q = createQueue({ rate: 60, domains: 'shop.example',
    target: 'https://shop.example/' });
const id = Number(dbSQL(`SELECT id FROM queue WHERE slug = '${q.slug}'`)
    [0][0]);
const out = ctl('key', 'create', q.slug, '--name', 'rest');
const KEY = /^key: (qak_\S+)$/m.exec(out)[1];
const H = { authorization: `Bearer ${KEY}` };

function get(path) {
	return req(path, { headers: H });
}

function patch(body, raw) {
	return req(`${SITES}/${id}`, { method: 'PATCH', headers: { ...H,
	    'content-type': 'application/json' },
	    body: raw ?? JSON.stringify(body) });
}

function auditCount() {
	return Number(dbSQL('SELECT COUNT(*) FROM audit_log WHERE ' +
	    `queue_id = ${id}`)[0][0]);
}

test('the OpenAPI 3.1 document: served at /api/openapi.json, the repo ' +
    'file, valid', async () => {
	const r = await req('/api/openapi.json');
	assert.equal(r.status, 200);
	assert.match(r.headers.get('content-type'), /^application\/json/);
	assert.deepEqual(r.json, doc);
	assert.equal(doc.openapi, '3.1.0');
	const api = await SwaggerParser.validate(structuredClone(doc));
	assert.equal(api.info.title, 'aditus-queue API');
	// the visitor and the admin API are both described
	for (const p of ['/queue/{slug}/join', '/queue/{slug}/status',
	    '/queue/{slug}/token', '/api/admin/queue/sites',
	    '/api/admin/queue/sites/{id}', '/api/admin/queue/sites/{id}/keys',
	    '/api/admin/queue/sites/{id}/audit'])
		assert.ok(doc.paths[p], p);
});

test('the validator catches a wrong answer (control)', () => {
	const v = ajv.getSchema('api#/components/schemas/Site');
	assert.equal(v({ id: 1, slug: 'x' }), false);
	assert.equal(ajv.getSchema('api#/components/schemas/Error')(
	    { error: 1 }), false);
});

test('GET /sites and /sites/<id>: the site object', async () => {
	let r = await get(SITES);
	assert.equal(r.status, 200, r.text);
	checkOp('/api/admin/queue/sites', 'get', r);
	assert.equal(r.json.sites.length, 1);
	const s = r.json.sites[0];
	assert.deepEqual({ ...s, createdAt: 0, updatedAt: 0 }, {
		id, slug: q.slug, name: q.name,
		targetUrl: 'https://shop.example/', shopDomains: 'shop.example',
		ratePerMinute: 60, burst: 0, tokenTtlSeconds: 600,
		claimWindowSeconds: 600, headerImageUrl: '', displayName: '',
		message: '', accentColor: '', jsonQueuedStatus: 200,
		jsonCookieSuffix: '', opensAt: null, abandonment: false,
		abandonGraceSeconds: 180, powEnabled: false, powBits: 15,
		sessionRenewal: false, queuingMethod: 'fifo',
		totalActiveUsers: 0, loadTestQueue: false, numberBlock: 0,
		active: true, createdAt: 0, updatedAt: 0, serving: s.serving,
		lastNumber: 0, waiting: 0, numbersUnused: 0 });
	assert.ok(s.createdAt > Date.now() - 600000, `${s.createdAt}`);
	assert.ok(s.updatedAt >= s.createdAt);
	r = await get(`${SITES}/${id}`);
	assert.equal(r.status, 200);
	checkOp('/api/admin/queue/sites/{id}', 'get', r);
	assert.equal(r.json.slug, q.slug);
	r = await get(`${SITES}?limit=1&cursor=${id}`);
	assert.deepEqual([r.json.sites, r.json.next], [[], null]);
	r = await get(`${SITES}?limit=101`);
	assert.equal(r.status, 400);
	checkOp('/api/admin/queue/sites', 'get', r);
});

test('401, 403, 404, 405 answers match the document', async () => {
	let r = await req(SITES);
	checkOp('/api/admin/queue/sites', 'get', r);
	r = await req(`${SITES}/${id}`, { headers: { authorization:
	    'Bearer qak_nope' } });
	assert.equal(r.status, 401);
	checkOp('/api/admin/queue/sites/{id}', 'get', r);
	r = await get(`${SITES}/${id + 1000}`);
	assert.equal(r.status, 403);
	checkOp('/api/admin/queue/sites/{id}', 'get', r);
	r = await get(`${SITES}/abc`);
	assert.equal(r.status, 404);
	assert.equal(r.json.error, 'queue_not_found');
	r = await req(`${SITES}/${id}`, { method: 'PUT', headers: H });
	assert.equal(r.status, 405);
	assert.equal(r.headers.get('allow'), 'GET, HEAD, PATCH, DELETE');
	r = await get('/api/admin/queue/nothing');
	assert.equal(r.status, 404);
	assert.equal(r.json.error, 'not_found');
});

test('PATCH the full object: rate to 300 in effect on return, serving ' +
    'continuous; unknown fields ignored', async () => {
	const s = (await get(`${SITES}/${id}`)).json;
	const before = show(q.slug).serving;
	const r = await patch({ ...s, ratePerMinute: 300, id: 999999,
	    createdAt: 1, updatedAt: 2, serving: 123456, lastNumber: 777,
	    waiting: 5, foo: 'bar', slug: q.slug });
	assert.equal(r.status, 200, r.text);
	checkOp('/api/admin/queue/sites/{id}', 'patch', r);
	assert.equal(r.json.ratePerMinute, 300);
	assert.equal(r.json.id, id);
	const row = show(q.slug);
	assert.equal(row.ratePerMinute, 300);
	assert.equal(row.lastNumber, 0);
	assert.ok(row.serving >= before && row.serving < before + 20,
	    `${before} -> ${row.serving}`);
	assert.equal(row.name, q.name);
	const a = dbSQL('SELECT action, before_json, after_json FROM ' +
	    `audit_log WHERE queue_id = ${id} ORDER BY id DESC LIMIT 1`);
	assert.deepEqual(a[0], ['update', '{"ratePerMinute":60}',
	    '{"ratePerMinute":300}']);
});

test('PATCH active false / true pauses and resumes; settings saved, ' +
    'domains normalised, targetUrl null removes it', async () => {
	let s = (await get(`${SITES}/${id}`)).json;
	let r = await patch({ ...s, active: false });
	assert.equal(r.status, 200, r.text);
	assert.equal(show(q.slug).active, false);
	assert.equal((await join(q.slug)).status, 423);
	r = await patch({ ...r.json, active: true });
	assert.equal(r.status, 200, r.text);
	assert.equal(show(q.slug).active, true);
	r = await patch({ name: 'Renamed via API', tokenTtlSeconds: 900,
	    claimWindowSeconds: 120, burst: 7,
	    shopDomains: 'HTTPS://Shop.Example:443, shop.example http://a.b:80',
	    targetUrl: null });
	assert.equal(r.status, 200, r.text);
	s = show(q.slug);
	assert.deepEqual([s.name, s.tokenTtlSeconds, s.claimWindowSeconds,
	    s.burst, s.shopDomains, s.targetUrl], ['Renamed via API', 900,
	    120, 7, 'shop.example,http://a.b', null]);
	r = await patch({ targetUrl: 'https://shop.example/', ratePerMinute: 300 });
	assert.equal(r.status, 200);
	assert.equal(r.json.targetUrl, 'https://shop.example/');
});

// Each invalid value: 422 invalid_value naming the field; nothing saved.
const INVALID = [
	['name', ''], ['name', '   '], ['name', 5], ['name', null],
	['name', 'a\u0001b'], ['name', 'x'.repeat(201)],
	['targetUrl', 'ftp://shop.example/'], ['targetUrl', 7],
	['targetUrl', 'https://u:p@shop.example/'],
	['shopDomains', 'https://shop.example/path'], ['shopDomains', null],
	['ratePerMinute', 0], ['ratePerMinute', 1000001],
	['ratePerMinute', '300'], ['ratePerMinute', 1.5],
	['ratePerMinute', null], ['ratePerMinute', true],
	['burst', -1], ['burst', 1000001],
	['tokenTtlSeconds', 0], ['tokenTtlSeconds', 86401],
	['claimWindowSeconds', 0], ['claimWindowSeconds', 86401],
	['active', 'yes'], ['active', 0], ['active', null],
	['slug', 'another-slug'], ['slug', 5],
	['abandonment', 'on'], ['abandonment', 1], ['abandonment', null],
	['name', 'sale\u202eelas'], ['name', 'a\u0085b'],
	['name', 'a\u2066b'], ['message', 'x\u2028y'],
	['opensAt', 0], ['opensAt', 'tomorrow'], ['opensAt', 1000],
];

test('422 per field, the field named, nothing changed or audited',
    async () => {
	const row0 = show(q.slug);
	const n0 = auditCount();
	for (const [field, value] of INVALID) {
		// with a valid change beside it, which must not be saved
		const r = await patch({ name: 'Must not be saved',
		    ratePerMinute: 321, [field]: value });
		assert.equal(r.status, 422, `${field}=${JSON.stringify(value)}: ` +
		    r.text);
		checkOp('/api/admin/queue/sites/{id}', 'patch', r);
		assert.equal(r.json.error, 'invalid_value');
		assert.equal(r.json.field, field, r.text);
		assert.ok(r.json.message.startsWith(field), r.json.message);
	}
	assert.deepEqual(show(q.slug), { ...row0, serving: show(q.slug)
	    .serving });
	assert.equal(auditCount(), n0);
});

test('PATCH bodies that are not a JSON object: 400 / 415, nothing ' +
    'changed', async () => {
	const n0 = auditCount();
	let r = await patch(null, '{"ratePerMinute": 5,}');
	assert.equal(r.status, 400);
	assert.equal(r.json.error, 'invalid_json');
	r = await patch(null, '[1]');
	assert.equal(r.status, 400);
	r = await req(`${SITES}/${id}`, { method: 'PATCH', headers: { ...H,
	    'content-type': 'text/plain' }, body: '{"ratePerMinute":5}' });
	assert.equal(r.status, 415);
	checkOp('/api/admin/queue/sites/{id}', 'patch', r);
	assert.equal(auditCount(), n0);
	assert.notEqual(show(q.slug).ratePerMinute, 5);
});

test('POST pause / resume answer the site; the audit endpoint matches ' +
    'the document', async () => {
	let r = await req(`${SITES}/${id}/pause`, { method: 'POST',
	    headers: H });
	assert.equal(r.status, 200);
	checkOp('/api/admin/queue/sites/{id}/pause', 'post', r);
	assert.equal(r.json.active, false);
	r = await req(`${SITES}/${id}/resume`, { method: 'POST', headers: H });
	checkOp('/api/admin/queue/sites/{id}/resume', 'post', r);
	assert.equal(r.json.active, true);
	r = await get(`${SITES}/${id}/audit`);
	assert.equal(r.status, 200);
	checkOp('/api/admin/queue/sites/{id}/audit', 'get', r);
	assert.deepEqual(r.json.entries.slice(0, 2).map((e) => e.action),
	    ['resume', 'pause']);
	// A body, when sent, is one JSON object; anything else is refused
	// before the queue changes (and nothing is audited).
	const n0 = auditCount();
	for (const [body, type, code, error] of [
	    ['{"now": tru', 'application/json', 400, 'invalid_json'],
	    ['[1]', 'application/json', 400, 'invalid_json'],
	    ['active=false', 'application/x-www-form-urlencoded', 415,
		'unsupported_media_type']]) {
		r = await req(`${SITES}/${id}/pause`, { method: 'POST',
		    headers: { ...H, 'content-type': type }, body });
		assert.equal(r.status, code, r.text);
		assert.equal(r.json.error, error);
		checkOp('/api/admin/queue/sites/{id}/pause', 'post', r);
	}
	assert.equal(show(q.slug).active, true, 'not paused');
	assert.equal(auditCount(), n0);
	r = await req(`${SITES}/${id}/pause`, { method: 'POST',
	    headers: { ...H, 'content-type': 'application/json' },
	    body: '{"reason": "ignored"}' });
	assert.equal(r.json.active, false);
	r = await req(`${SITES}/${id}/resume`, { method: 'POST', headers: H });
	assert.equal(r.json.active, true);
});

test('global functions with a console session: instances and users ' +
    'match the document; a key gets 403', async () => {
	const u = addUser();
	const c = new Client();
	assert.equal((await c.login(u.name, u.password)).status, 303);
	let r = await c.get('/api/admin/instances');
	assert.equal(r.status, 200, r.text);
	checkOp('/api/admin/instances', 'get', r);
	// The stack's pool and its worker report themselves.
	assert.ok(r.json.instances.some((x) => x.kind === 'pool' &&
	    x.workers >= 1), r.text);
	assert.ok(r.json.instances.some((x) => x.kind === 'worker'), r.text);
	r = await c.get('/api/admin/users');
	assert.equal(r.status, 200, r.text);
	checkOp('/api/admin/users', 'get', r);
	const me = r.json.users.find((x) => x.name === u.name);
	assert.deepEqual([me.disabled, typeof me.createdAt], [false,
	    'number']);
	assert.ok(!/argon2|\$/.test(r.text), 'no password hash');
	// Pages of two by id: every user once, in order, then next null.
	const more = [addUser(), addUser()].map((x) => x.name);
	const seen = [];
	let cursor = '';
	for (let pages = 0; pages < 1000; pages++) {
		r = await c.get('/api/admin/users?limit=2' +
		    (cursor ? `&cursor=${cursor}` : ''));
		assert.equal(r.status, 200, r.text);
		checkOp('/api/admin/users', 'get', r);
		assert.ok(r.json.users.length <= 2, r.text);
		seen.push(...r.json.users);
		if (r.json.next === null)
			break;
		assert.equal(r.json.next, String(seen.at(-1).id));
		cursor = r.json.next;
	}
	const ids = seen.map((x) => x.id);
	assert.deepEqual(ids, [...ids].sort((a, b) => a - b));
	assert.equal(new Set(ids).size, ids.length, 'each user once');
	for (const name of [u.name, ...more])
		assert.equal(seen.filter((x) => x.name === name).length, 1,
		    name);
	for (const [q, code] of [['limit=0', 'invalid_limit'],
	    ['limit=101', 'invalid_limit'], ['cursor=abc', 'invalid_cursor']]) {
		r = await c.get(`/api/admin/users?${q}`);
		assert.deepEqual([r.status, r.json.error], [400, code], q);
		checkOp('/api/admin/users', 'get', r);
	}
	for (const path of ['/api/admin/instances', '/api/admin/users']) {
		r = await get(path);
		assert.equal(r.status, 403, r.text);
		assert.equal(r.json.error, 'forbidden');
		checkOp(path, 'get', r);
	}
});

test('visitor answers match the document', async () => {
	const v = createQueue({ rate: 600000 });
	let r = await req('/queue/healthz');
	checkOp('/queue/healthz', 'get', r);
	r = await join(v.slug);
	assert.equal(r.status, 200);
	checkOp('/queue/{slug}/join', 'post', r);
	const { number, ticket } = r.json;
	r = await status(v.slug, number);
	checkOp('/queue/{slug}/status', 'get', r);
	r = await token(v.slug, { number, ticket });
	assert.equal(r.status, 200, r.text);
	checkOp('/queue/{slug}/token', 'post', r);
	const t = r.json.token;
	r = await verify(v.slug, t);
	checkOp('/queue/{slug}/verify', 'get', r);
	assert.equal(r.json.valid, true);
	r = await info(v.slug);
	checkOp('/queue/{slug}/info', 'get', r);
	r = await info('no-such-queue-x');
	assert.equal(r.status, 404);
	checkOp('/queue/{slug}/info', 'get', r);
	r = await token(v.slug, { number, ticket: 'x' });
	assert.equal(r.status, 403);
	checkOp('/queue/{slug}/token', 'post', r);
});

// routes(): every route of fcgi-app/pool/routes.c's table as
// [path, [methods]], the path in the document's form (":id" -> "{id}").
// GET stands for GET and HEAD (HEAD is GET without the body).
function routes() {
	const src = readFileSync(`${env.root}/fcgi-app/pool/routes.c`, 'utf8');
	const table = /static const struct route routes\[\] = \{([^]*?)\n\};/
	    .exec(src)[1].replace(/\/\*[^]*?\*\//g, '');
	const names = { GH: ['get'], P: ['post'] };
	const out = [];
	for (const m of table.matchAll(/\{\s*([A-Z_()|\s]+?),\s*"([^"]+)"/g)) {
		const methods = m[1].split('|').flatMap((x) => {
			x = x.trim();
			const one = /^M\(METHOD_([A-Z]+)\)$/.exec(x);
			assert.ok(names[x] || one, `method ${x} of ${m[2]}`);
			return names[x] ?? [one[1].toLowerCase()];
		});
		out.push([m[2].replace(/:([a-z]+)/g, '{$1}'), methods]);
	}
	// one entry per route: each names who may call it once
	assert.equal(out.length, table.match(/\bAUTH_[A-Z]+\b/g).length);
	return out;
}

// Routes under /api/ and /queue/ deliberately left out of the document,
// as "method path" with why (none today).  The console's HTML pages
// under /admin/ and /metrics are out of its scope and not matched.
const UNDOCUMENTED = new Map([
]);

test('every /api/ and /queue/ route of routes.c is in the document with ' +
    'its methods', () => {
	const all = routes();
	// the parse sees the whole table (a control: known routes, all
	// method forms)
	const seen = new Map(all);
	assert.deepEqual(seen.get('/queue/{slug}'), ['get']);
	assert.deepEqual(seen.get('/api/admin/queue/sites'), ['get', 'post']);
	assert.deepEqual(seen.get('/api/admin/queue/sites/{id}/template'),
	    ['get', 'put', 'delete']);
	assert.deepEqual(seen.get('/api/admin/queue/bypass-codes/{id}'),
	    ['patch', 'delete']);
	assert.ok(all.length > 60, `${all.length} routes`);
	const missing = [];
	let n = 0;
	for (const [path, methods] of all) {
		if (!/^\/(api|queue)\//.test(path))
			continue;
		for (const m of methods) {
			if (UNDOCUMENTED.has(`${m} ${path}`))
				continue;
			n++;
			if (doc.paths[path]?.[m] === undefined)
				missing.push(`${m.toUpperCase()} ${path}`);
		}
	}
	assert.deepEqual(missing, [], 'routes the document lacks');
	assert.ok(n >= 40, `${n} operations checked`);
	// and nothing documented that no route answers (but the document
	// itself, which the web server serves)
	const table = new Set(all.flatMap(([p, ms]) =>
	    ms.map((m) => `${m} ${p}`)));
	for (const [path, item] of Object.entries(doc.paths))
		for (const m of ['get', 'put', 'post', 'patch', 'delete'])
			if (item[m] !== undefined)
				assert.ok(table.has(`${m} ${path}`),
				    `${m} ${path} has a route`);
});

// Auto-rate through the API with the queue's key.  Promise at stake:
// "failed leaves nothing": each refusal below (422, 409, 400) is
// followed by a read showing the settings as they were.
test('auto-rate: settings, refusals, test and log match the document',
    async () => {
	const P = `${SITES}/${id}/autorate`;
	const send = (method, path, body) => req(path, { method, headers: {
	    ...H, 'content-type': 'application/json' },
	    body: JSON.stringify(body) });
	let r = await get(P);
	assert.equal(r.status, 200, r.text);
	checkOp('/api/admin/queue/sites/{id}/autorate', 'get', r);
	assert.deepEqual([r.json.slug, r.json.enabled, r.json.intervalSeconds,
	    r.json.healthUrl, r.json.testedMs, r.json.testResult],
	    [q.slug, false, 10, '', null, null]);
	r = await send('PATCH', P, { intervalSeconds: 30, dryRun: true,
	    rules: ['load < 5', 'p95 <= 800'], nonsense: 1 });
	assert.equal(r.status, 200, r.text);
	checkOp('/api/admin/queue/sites/{id}/autorate', 'patch', r);
	assert.deepEqual([r.json.intervalSeconds, r.json.dryRun, r.json.rules],
	    [30, true, 'load < 5, p95 <= 800']);
	const before = r.json;
	for (const [body, status, code, field] of [
	    [{ intervalSeconds: 1 }, 422, 'invalid_value', 'intervalSeconds'],
	    [{ rules: 'load ~ 5' }, 422, 'invalid_rules', 'rules'],
	    [{ healthUrl: 'ftp://x/' }, 422, 'invalid_health_url',
	    'healthUrl'],
	    [{ enabled: 'yes' }, 422, 'invalid_value', undefined],
	    [{ enabled: true }, 409, 'test_required', undefined],
	    [{ allowPrivateNetwork: true }, 403, 'forbidden',
	    'allowPrivateNetwork']]) {
		r = await send('PATCH', P, body);
		assert.deepEqual([r.status, r.json?.error, r.json?.field],
		    [status, code, field], JSON.stringify(body) + r.text);
		checkOp('/api/admin/queue/sites/{id}/autorate', 'patch', r);
	}
	r = await req(P, { method: 'PATCH', headers: { ...H,
	    'content-type': 'application/json' }, body: '[1' });
	assert.deepEqual([r.status, r.json.error], [400, 'invalid_json']);
	checkOp('/api/admin/queue/sites/{id}/autorate', 'patch', r);
	r = await get(P);
	assert.deepEqual(r.json, before, 'the refusals changed nothing');
	// no health URL yet: the test is refused, nothing logged
	r = await send('POST', `${P}/test`, {});
	assert.deepEqual([r.status, r.json.error, r.json.field],
	    [422, 'invalid_health_url', 'healthUrl'], r.text);
	checkOp('/api/admin/queue/sites/{id}/autorate/test', 'post', r);
	r = await get(`${P}/log`);
	assert.equal(r.status, 200, r.text);
	checkOp('/api/admin/queue/sites/{id}/autorate/log', 'get', r);
	assert.deepEqual(r.json, { log: [] });
	// a health URL nobody answers: a test that fails (200, passed
	// false), logged as kind test, action fail; nothing enabled
	r = await send('PATCH', P, { healthUrl: 'https://health.invalid/' });
	assert.equal(r.status, 200, r.text);
	r = await send('POST', `${P}/test`);
	assert.equal(r.status, 200, r.text);
	checkOp('/api/admin/queue/sites/{id}/autorate/test', 'post', r);
	assert.deepEqual([r.json.passed, r.json.state], [false, 'unknown']);
	r = await get(`${P}/log?limit=5`);
	checkOp('/api/admin/queue/sites/{id}/autorate/log', 'get', r);
	assert.deepEqual(r.json.log.map((e) => [e.kind, e.action, e.state]),
	    [['test', 'fail', 'unknown']], r.text);
	r = await get(P);
	checkOp('/api/admin/queue/sites/{id}/autorate', 'get', r);
	assert.deepEqual([r.json.enabled, r.json.testedMs], [false, null]);
	// a shop on this machine that answers (the private network is the
	// operator's to allow: the CLI): the test passes, its evaluation is
	// the settings' testResult, and enabling is allowed
	const shop = createServer((_, res) => {
		res.writeHead(200, { 'content-type': 'application/json' });
		res.end('{"metrics":{"cpuLoad":0.2}}');
	});
	await new Promise((resolve) => shop.listen(0, '127.0.0.1', resolve));
	try {
		ctl('autorate', 'set', q.slug, '--allow-private', '1',
		    '--health-url',
		    `http://127.0.0.1:${shop.address().port}/health`);
		r = await send('PATCH', P, { rules: 'metrics.cpuLoad < 0.8' });
		assert.equal(r.status, 200, r.text);
		r = await send('POST', `${P}/test`);
		assert.equal(r.status, 200, r.text);
		checkOp('/api/admin/queue/sites/{id}/autorate/test', 'post', r);
		assert.deepEqual([r.json.passed, r.json.state, r.json.httpStatus,
		    r.json.sample['metrics.cpuLoad']], [true, 'healthy', 200,
		    0.2], r.text);
	} finally {
		shop.closeAllConnections();
		await new Promise((resolve) => shop.close(resolve));
	}
	r = await send('PATCH', P, { enabled: true });
	assert.equal(r.status, 200, r.text);
	checkOp('/api/admin/queue/sites/{id}/autorate', 'patch', r);
	assert.equal(r.json.enabled, true);
	assert.equal(r.json.testResult.state, 'healthy', r.text);
	assert.ok(r.json.testedMs > 0, r.text);
	r = await send('PATCH', P, { enabled: false });
	assert.equal(r.json.enabled, false, r.text);
	// (while it was on, the worker may have polled: dry run, and a poll
	// entry is no test)
	r = await get(`${P}/log`);
	checkOp('/api/admin/queue/sites/{id}/autorate/log', 'get', r);
	assert.deepEqual(r.json.log.filter((e) => e.kind === 'test')
	    .map((e) => e.action), ['pass', 'fail'], r.text);
	for (const l of ['0', '1001', 'x']) {
		r = await get(`${P}/log?limit=${l}`);
		assert.deepEqual([r.status, r.json.error], [400,
		    'invalid_limit'], l);
		checkOp('/api/admin/queue/sites/{id}/autorate/log', 'get', r);
	}
	// another queue's id, no credentials, a malformed id
	r = await get(`${SITES}/${id + 1000}/autorate`);
	assert.deepEqual([r.status, r.json.error], [403, 'forbidden']);
	checkOp('/api/admin/queue/sites/{id}/autorate', 'get', r);
	r = await req(`${P}/log`);
	assert.deepEqual([r.status, r.json.error], [401,
	    'missing_credentials']);
	checkOp('/api/admin/queue/sites/{id}/autorate/log', 'get', r);
	r = await get(`${SITES}/abc/autorate`);
	assert.deepEqual([r.status, r.json.error], [404, 'queue_not_found']);
	checkOp('/api/admin/queue/sites/{id}/autorate', 'get', r);
});

// The fairness report reads only.  Promise at stake: "number issued
// once": reading the report takes no number (lastNumber unchanged).
test('the fairness report, JSON and CSV, and invalid_period match the ' +
    'document', async () => {
	const F = `${SITES}/${id}/fairness`;
	const lastNumber = async () => (await get(`${SITES}/${id}`)).json
	    .lastNumber;
	const last = await lastNumber();
	let r = await get(F);
	assert.equal(r.status, 200, r.text);
	checkOp('/api/admin/queue/sites/{id}/fairness', 'get', r);
	assert.deepEqual([r.json.queue, r.json.since, r.json.until],
	    [q.slug, null, null]);
	const now = Date.now();
	r = await get(`${F}?since=${now - 3600000}&until=${now}`);
	assert.equal(r.status, 200, r.text);
	checkOp('/api/admin/queue/sites/{id}/fairness', 'get', r);
	assert.deepEqual([r.json.since, r.json.until], [now - 3600000, now]);
	r = await get(`${F}.csv?since=&until=${now}`);
	assert.equal(r.status, 200, r.text);
	checkOp('/api/admin/queue/sites/{id}/fairness.csv', 'get', r);
	assert.match(r.text, /^metric,minute,value\r\nserved,,\d+\r\n/);
	for (const qs of ['since=5&until=5', 'since=9&until=3', 'since=-1',
	    'until=0', 'since=x', 'since=1&since=2']) {
		for (const path of [F, `${F}.csv`]) {
			r = await get(`${path}?${qs}`);
			assert.deepEqual([r.status, r.json?.error],
			    [400, 'invalid_period'], `${path}?${qs}`);
			checkOp(path.replace(String(id), '{id}')
			    .replace(SITES, '/api/admin/queue/sites'), 'get', r);
		}
	}
	r = await get(`${SITES}/${id + 1000}/fairness.csv`);
	assert.deepEqual([r.status, r.json.error], [403, 'forbidden']);
	checkOp('/api/admin/queue/sites/{id}/fairness.csv', 'get', r);
	assert.equal(await lastNumber(), last);
});

// The waiting room's own paths.  Promise at stake: "only the visitor's
// own request takes a number": state.json, embed.js and heartbeats take
// none (lastNumber stays 1 after the one join).
test('state.json, embed.js and heartbeat answers match the document',
    async () => {
	const v = createQueue({ rate: 1 });
	let r = await join(v.slug);
	assert.equal(r.status, 200, r.text);
	const { number, ticket } = r.json;
	r = await req(`/queue/${v.slug}/state.json`);
	assert.equal(r.status, 200, r.text);
	checkOp('/queue/{slug}/state.json', 'get', r);
	assert.deepEqual([r.json.queue, r.json.lastNumber, r.json.active],
	    [v.slug, 1, true]);
	r = await req('/queue/no-such-queue-x/state.json');
	assert.equal(r.status, 404);
	checkOp('/queue/{slug}/state.json', 'get', r);
	r = await req(`/queue/${v.slug}/embed.js`);
	assert.equal(r.status, 200);
	checkOp('/queue/{slug}/embed.js', 'get', r);
	assert.ok(r.text.length > 100, r.text);
	r = await req('/queue/no-such-queue-x/embed.js');
	assert.equal(r.status, 404);
	checkOp('/queue/{slug}/embed.js', 'get', r);
	const hb = (slug, body) => postJSON(`/queue/${slug}/heartbeat`, body);
	for (const body of [{ number, ticket }, { number, ticket: 'x' },
	    { number }]) {
		r = await hb(v.slug, body);
		assert.equal(r.status, 204, JSON.stringify(body) + r.text);
		checkOp('/queue/{slug}/heartbeat', 'post', r);
	}
	for (const body of [{ number: 0, ticket }, { ticket }, '{']) {
		r = await hb(v.slug, body);
		assert.equal(r.status, 400, JSON.stringify(body) + r.text);
		checkOp('/queue/{slug}/heartbeat', 'post', r);
	}
	r = await hb('no-such-queue-x', { number, ticket });
	assert.equal(r.status, 404);
	checkOp('/queue/{slug}/heartbeat', 'post', r);
	r = await req(`/queue/${v.slug}/state.json`);
	assert.equal(r.json.lastNumber, 1, 'no number taken');
});
