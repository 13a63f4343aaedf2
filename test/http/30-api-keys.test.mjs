// API keys on the admin API: CASES C01 (the header, also as Apache's
// REDIRECT_HTTP_AUTHORIZATION; never the query string or a form field)
// and C02 (Bearer parsing, look-up by SHA-256), 401 forms, revocation,
// scope (own queue only; other queues, key management, global
// functions: 403), last use recorded at most once a minute.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { api, ctl, createQueue, dbSQL, fcgiRequest, fcgiParams, req }
    from './lib.mjs';

const SITES = '/api/admin/queue/sites';
const EXAMPLE = 'qak_EXAMPLEKEY0123456789abcdef';

// The queue "sale" and the example key of CASES C01/C02, stored (as
// the product stores keys) only as the SHA-256 of the key text.
const sale = createQueue({ slug: 'sale', rate: 60 });
const saleId = Number(dbSQL(`SELECT id FROM queue WHERE slug = 'sale'`)[0][0]);
dbSQL('INSERT INTO api_key (queue_id, name, key_hash, prefix, created_ms) ' +
    `VALUES (${saleId}, 'example', UNHEX(SHA2('${EXAMPLE}', 256)), ` +
    `'qak_EXAMPLEK', 0)`);
const other = createQueue({ rate: 60 });
const otherId = Number(dbSQL('SELECT id FROM queue WHERE slug = ' +
    `'${other.slug}'`)[0][0]);

// newKey(slug, name): a key made by the CLI; returns {id, key}.
function newKey(slug, name) {
	const out = ctl('key', 'create', slug, '--name', name);
	const m = /^API key (\d+) of queue \S+ created/m.exec(out);
	const k = /^key: (qak_\S+)$/m.exec(out);
	assert.ok(m && k, out);
	return { id: Number(m[1]), key: k[1] };
}

function bearer(key) {
	return { headers: { authorization: `Bearer ${key}` } };
}

function assert401(r, code) {
	assert.equal(r.status, 401, r.text);
	assert.equal(r.headers.get('www-authenticate'), 'Bearer');
	assert.equal(r.json?.error, code, r.text);
	assert.equal(typeof r.json.message, 'string');
}

function assertSale(r) {
	assert.equal(r.status, 200, r.text);
	assert.deepEqual(r.json.sites.map((s) => s.slug), ['sale']);
	assert.equal(r.json.sites[0].id, saleId);
	assert.equal(r.json.next, null);
}

// raw(extra, uri): GET uri straight to the FastCGI socket with extra
// parameters (what Apache's mod_fcgid would send).
function raw(extra, uri = SITES) {
	return fcgiRequest({ params: fcgiParams('GET', uri, extra) });
}

test('C02: lower-case scheme, upper case with three spaces -> 200', async () => {
	assertSale(await req(SITES, { headers: {
	    authorization: `bearer ${EXAMPLE}` } }));
	assertSale(await req(SITES, { headers: {
	    authorization: `BEARER   ${EXAMPLE}` } }));
});

test('C02: trailing space or tab after the key -> 200 (raw FastCGI)',
    async () => {
	for (const tail of [' ', '\t']) {
		const r = await raw({ HTTP_AUTHORIZATION:
		    `Bearer ${EXAMPLE}${tail}` });
		assert.equal(r.status, 200, r.body);
		assert.deepEqual(r.json.sites.map((s) => s.slug), ['sale']);
	}
});

test('C02: "Bearer " (empty credentials) -> 401 missing_credentials',
    async () => {
	const r = await raw({ HTTP_AUTHORIZATION: 'Bearer ' });
	assert.equal(r.status, 401, r.body);
	assert.equal(r.headers['www-authenticate'], 'Bearer');
	assert.equal(r.json.error, 'missing_credentials');
});

test('C02: changed case, extra character, bare prefix, Basic -> 401 ' +
    'invalid_api_key', async () => {
	for (const v of ['Bearer QAK_EXAMPLEKEY0123456789ABCDEF',
	    `Bearer ${EXAMPLE}X`, 'Bearer qak_', 'Basic cWFrOng=']) {
		const r = await req(SITES, { headers: { authorization: v } });
		assert401(r, 'invalid_api_key');
	}
});

test('C01: no header -> 401 missing_credentials with WWW-Authenticate',
    async () => {
	assert401(await req(SITES), 'missing_credentials');
	const r = await raw({});
	assert.equal(r.status, 401);
	assert.equal(r.headers['www-authenticate'], 'Bearer');
	assert.equal(r.json.error, 'missing_credentials');
});

test('C01: REDIRECT_HTTP_AUTHORIZATION (Apache rewrite) -> 200 sale',
    async () => {
	const r = await raw({ REDIRECT_HTTP_AUTHORIZATION:
	    `Bearer ${EXAMPLE}` });
	assert.equal(r.status, 200, r.body);
	assert.deepEqual(r.json.sites.map((s) => s.slug), ['sale']);
});

test('C01: HTTP_AUTHORIZATION (CGIPassAuth, nginx) -> 200; both: the ' +
    'first wins', async () => {
	let r = await raw({ HTTP_AUTHORIZATION: `Bearer ${EXAMPLE}` });
	assert.equal(r.status, 200, r.body);
	r = await raw({ HTTP_AUTHORIZATION: `Bearer ${EXAMPLE}`,
	    REDIRECT_HTTP_AUTHORIZATION: 'Bearer qak_wrong' });
	assert.equal(r.status, 200, r.body);
	r = await raw({ HTTP_AUTHORIZATION: 'Bearer qak_wrong',
	    REDIRECT_HTTP_AUTHORIZATION: `Bearer ${EXAMPLE}` });
	assert.equal(r.status, 401, r.body);
	assert.equal(r.json.error, 'invalid_api_key');
});

test('C01: the key in the query string or a form field -> 401 ' +
    'missing_credentials', async () => {
	for (const qs of [`?api_key=${EXAMPLE}`, `?access_token=${EXAMPLE}`])
		assert401(await req(SITES + qs), 'missing_credentials');
	const r = await req(SITES, { method: 'POST', headers: {
	    'content-type': 'application/x-www-form-urlencoded' },
	    body: `access_token=${EXAMPLE}` });
	assert401(r, 'missing_credentials');
});

test('a key made by the CLI: qak_ + 43 base64url characters, stored ' +
    'only as its SHA-256', async () => {
	const { id, key } = newKey(other.slug, 'ci deploy');
	assert.match(key, /^qak_[A-Za-z0-9_-]{43}$/);
	const rows = dbSQL('SELECT HEX(key_hash), prefix, queue_id, name ' +
	    `FROM api_key WHERE id = ${id}`);
	assert.deepEqual(rows[0], [createHash('sha256').update(key)
	    .digest('hex').toUpperCase(), key.slice(0, 12), String(otherId),
	    'ci deploy']);
	const all = dbSQL('SELECT COUNT(*) FROM api_key WHERE ' +
	    `INSTR(CAST(key_hash AS CHAR), '${key}') > 0 OR prefix = '${key}'`);
	assert.equal(all[0][0], '0');
	const r = await req(SITES, bearer(key));
	assert.equal(r.status, 200, r.text);
	assert.deepEqual(r.json.sites.map((s) => s.id), [otherId]);
	// the list shows the key without the key itself
	const list = ctl('key', 'list', other.slug);
	assert.ok(!list.includes(key), list);
	assert.match(list, new RegExp(`"id":${id},"siteId":${otherId},` +
	    `"slug":"${other.slug}","name":"ci deploy","prefix":"` +
	    key.slice(0, 12) + '"'));
});

test('revoked key -> 401 invalid_api_key, and audited', async () => {
	const { id, key } = newKey(other.slug, 'to revoke');
	assert.equal((await req(SITES, bearer(key))).status, 200);
	assert.equal(ctl('key', 'revoke', id).trim(), 'ok');
	assert401(await req(SITES, bearer(key)), 'invalid_api_key');
	const a = dbSQL('SELECT actor_kind, action, before_json, after_json ' +
	    `FROM audit_log WHERE queue_id = ${otherId} AND action = ` +
	    `'key_revoke' ORDER BY id DESC LIMIT 1`);
	assert.equal(a[0][0], 'cli');
	assert.deepEqual(JSON.parse(a[0][2]), { keyId: id, name: 'to revoke',
	    revoked: false });
	assert.deepEqual(JSON.parse(a[0][3]), { keyId: id, name: 'to revoke',
	    revoked: true });
});

test('scope: own queue ok; another queue, keys, create, rotation, the ' +
    'global functions (audit, instances, users) -> 403', async () => {
	const { key } = newKey(other.slug, 'scope');
	const h = bearer(key);
	let r = await req(`${SITES}/${otherId}`, h);
	assert.equal(r.status, 200, r.text);
	assert.equal(r.json.slug, other.slug);
	for (const [method, path, body] of [
	    ['GET', `${SITES}/${saleId}`],
	    ['PATCH', `${SITES}/${saleId}`, { ratePerMinute: 300 }],
	    ['POST', `${SITES}/${saleId}/pause`],
	    ['GET', `${SITES}/${saleId}/audit`],
	    ['GET', `${SITES}/${otherId}/keys`],
	    ['POST', `${SITES}/${otherId}/keys`, { name: 'x' }],
	    ['DELETE', '/api/admin/queue/keys/1'],
	    ['POST', `${SITES}/${otherId}/rotate-secret`],
	    ['DELETE', `${SITES}/${otherId}`],
	    ['POST', SITES, { slug: 'made-by-key', name: 'x',
		ratePerMinute: 5 }],
	    ['GET', '/api/admin/queue/audit'],
	    ['GET', '/api/admin/instances'],
	    ['GET', '/api/admin/users'],
	]) {
		r = await req(path, { method, headers: { ...h.headers,
		    ...(body ? { 'content-type': 'application/json' } : {}) },
		    body: body ? JSON.stringify(body) : undefined });
		assert.equal(r.status, 403, `${method} ${path}: ${r.text}`);
		assert.equal(r.json.error, 'forbidden');
	}
	// nothing changed on sale, no queue made
	assert.equal(dbSQL('SELECT rate_per_minute, active FROM queue WHERE ' +
	    `id = ${saleId}`)[0].join(), '60,1');
	assert.equal(dbSQL("SELECT COUNT(*) FROM queue WHERE slug = " +
	    "'made-by-key'")[0][0], '0');
});

test('last use: recorded at the first use, not rewritten within a minute',
    async () => {
	const { id, key } = newKey(other.slug, 'last use');
	const before = dbSQL(`SELECT last_used_ms IS NULL FROM api_key ` +
	    `WHERE id = ${id}`)[0][0];
	assert.equal(before, '1');
	assert.equal((await req(SITES, bearer(key))).status, 200);
	const t1 = dbSQL(`SELECT last_used_ms FROM api_key WHERE id = ${id}`);
	assert.notEqual(t1[0][0], 'NULL');
	// 59 s ago: not written again; 61 s ago: written again
	dbSQL(`UPDATE api_key SET last_used_ms = ${Number(t1[0][0]) - 59000} ` +
	    `WHERE id = ${id}`);
	assert.equal((await req(SITES, bearer(key))).status, 200);
	const t2 = dbSQL(`SELECT last_used_ms FROM api_key WHERE id = ${id}`);
	assert.equal(Number(t2[0][0]), Number(t1[0][0]) - 59000,
	    'within the minute: not written');
	dbSQL(`UPDATE api_key SET last_used_ms = ${Number(t1[0][0]) - 61000} ` +
	    `WHERE id = ${id}`);
	assert.equal((await req(SITES, bearer(key))).status, 200);
	const t3 = dbSQL(`SELECT last_used_ms FROM api_key WHERE id = ${id}`);
	assert.ok(Number(t3[0][0]) >= Number(t1[0][0]), 'written again');
});

// The status line carries the reason phrase of RFC 9110, not "Unknown".
test('401 and 422 with their reason phrases', async () => {
	const { key } = newKey(sale.slug, 'reason phrases');
	let res = await api(SITES);
	assert.equal(res.status, 401);
	assert.equal(res.statusText, 'Unauthorized');
	res = await api(`${SITES}/${saleId}`, { method: 'PATCH',
	    headers: { authorization: `Bearer ${key}`,
	    'content-type': 'application/json' },
	    body: JSON.stringify({ ratePerMinute: 0 }) });
	assert.equal(res.status, 422);
	assert.equal(res.statusText, 'Unprocessable Content');
});
