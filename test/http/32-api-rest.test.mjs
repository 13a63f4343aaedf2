// The REST admin API with an API key: the OpenAPI 3.1 document (served,
// valid, and every answer here checked against its schemas), GET and
// PATCH of the key's queue (full configuration, unknown fields ignored,
// slug only unchanged, rate and pause in effect on return), 422 naming
// each invalid field with nothing changed and nothing audited.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import SwaggerParser from '@apidevtools/swagger-parser';
import Ajv2020 from 'ajv/dist/2020.js';
import { ctl, createQueue, dbSQL, env, join, req, show, status, token,
    info, verify } from './lib.mjs';
import { Client, addUser } from './console.mjs';

const SITES = '/api/admin/queue/sites';
const doc = JSON.parse(readFileSync(`${env.root}/static/openapi.json`,
    'utf8'));
const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addSchema({ $id: 'api', components: doc.components });

// check(name, value): value must match components.schemas[name].
function check(name, value) {
	const v = ajv.getSchema(`api#/components/schemas/${name}`);
	assert.ok(v(value), `${name}: ${ajv.errorsText(v.errors)}\n` +
	    JSON.stringify(value));
}

// checkOp(path, method, r): r's body must match what the document says
// the operation answers with r's status.
function checkOp(path, method, r) {
	const op = doc.paths[path]?.[method];
	assert.ok(op, `${method} ${path} is in the document`);
	let resp = op.responses[String(r.status)];
	assert.ok(resp, `${method} ${path} documents ${r.status}`);
	if (resp.$ref)
		resp = doc.components.responses[resp.$ref.split('/').pop()];
	const schema = resp.content?.['application/json']?.schema;
	if (schema === undefined)
		return;
	// the document's own references, resolved in the added schema
	const v = ajv.compile(JSON.parse(JSON.stringify(schema)
	    .replaceAll('"#/components/', '"api#/components/')));
	assert.ok(v(r.json), `${method} ${path} ${r.status}: ` +
	    `${ajv.errorsText(v.errors)}\n${r.text}`);
}

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
		queuingMethod: 'fifo',
		active: true, createdAt: 0,
		updatedAt: 0, serving: s.serving, lastNumber: 0, waiting: 0 });
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
