// CASES C12: exact origin matching per queue, Vary: Origin everywhere,
// never "*", never credentials.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createQueue, join, req, signJWT, nowS } from './lib.mjs';

const ALLOWED = 'https://shop.example';
const OTHERS = [
	'https://evilshop.example', 'https://shop.example.evil.test',
	'https://shopXexample', 'http://shop.example',
	'https://shop.example:8443', 'https://sub.shop.example',
	// further inputs of the same kind
	'null', 'https://SHOP.EXAMPLE.evil.test', 'https://shop.example.',
	'https://shop.example/',
	'https://shop.example, https://evil.test',
];

const q = createQueue({ rate: 600, domains: 'shop.example' });
const first = await join(q.slug);

function acHeaders(h) {
	return [...h.keys()].filter((k) => k.startsWith('access-control-'));
}

function assertVary(h) {
	const v = (h.get('vary') ?? '').split(',').map((s) => s.trim()
	    .toLowerCase());
	assert.ok(v.includes('origin'), `Vary: ${h.get('vary')}`);
}

function assertNoCredentials(h) {
	assert.equal(h.get('access-control-allow-credentials'), null);
	assert.notEqual(h.get('access-control-allow-origin'), '*');
}

const statusPath = () => `/queue/${q.slug}/status?number=1`;

function preflightStatus(origin) {
	return req(statusPath(), { method: 'OPTIONS', headers: {
		origin, 'access-control-request-method': 'GET' } });
}

function preflightJoin(origin) {
	return req(`/queue/${q.slug}/join`, { method: 'OPTIONS', headers: {
		origin, 'access-control-request-method': 'POST',
		'access-control-request-headers': 'content-type' } });
}

test('number 1 exists', () => {
	assert.equal(first.status, 200);
	assert.equal(first.json.number, 1);
});

test(`allowed origin ${ALLOWED}`, async (t) => {
	await t.test('GET status echoes the origin', async () => {
		const r = await req(statusPath(), { headers: {
		    origin: ALLOWED } });
		assert.equal(r.status, 200, r.text);
		assert.equal(r.json.number, 1);
		assert.equal(r.headers.get('access-control-allow-origin'),
		    ALLOWED);
		assertVary(r.headers);
		assertNoCredentials(r.headers);
	});
	// An allowed preflight: 204 with exactly the endpoint's methods.
	function assertPreflightOk(r, method, notMethod) {
		assert.equal(r.status, 204, r.text);
		const h = r.headers;
		assert.equal(h.get('access-control-allow-origin'), ALLOWED);
		const methods = h.get('access-control-allow-methods') ?? '';
		assert.match(methods, new RegExp(`\\b${method}\\b`));
		if (notMethod)
			assert.doesNotMatch(methods,
			    new RegExp(`\\b${notMethod}\\b`));
		assert.match(h.get('access-control-allow-headers') ?? '',
		    /^content-type$/i);
		assert.match(h.get('access-control-max-age') ?? '',
		    /^[1-9][0-9]*$/);
		assertVary(h);
		assertNoCredentials(h);
	}
	await t.test('preflight of GET status: 204', async () => {
		assertPreflightOk(await preflightStatus(ALLOWED), 'GET');
	});
	await t.test('preflight of POST join: 204', async () => {
		assertPreflightOk(await preflightJoin(ALLOWED), 'POST', 'GET');
	});
	await t.test('the preflight did not issue a number', async () => {
		const j = await join(q.slug);
		assert.equal(j.status, 200);
		const j2 = await join(q.slug);
		assert.equal(j2.json.number, j.json.number + 1);
	});
	await t.test('an error answer also carries the origin', async () => {
		const r = await req(`/queue/${q.slug}/status?number=99999`,
		    { headers: { origin: ALLOWED } });
		assert.equal(r.status, 404);
		assert.equal(r.headers.get('access-control-allow-origin'),
		    ALLOWED);
		assertVary(r.headers);
	});
});

for (const origin of OTHERS) {
	test(`origin ${JSON.stringify(origin)} is not allowed`, async (t) => {
		await t.test('GET status: normal 200, no CORS header',
		    async () => {
			const r = await req(statusPath(), { headers: {
			    origin } });
			assert.equal(r.status, 200, r.text);
			assert.equal(r.json.number, 1);
			assert.deepEqual(acHeaders(r.headers), []);
			assertVary(r.headers);
		});
		await t.test('preflight of GET status: 403', async () => {
			const r = await preflightStatus(origin);
			assert.equal(r.status, 403, r.text);
			assert.equal(r.json.error, 'origin_not_allowed');
			assert.equal(typeof r.json.message, 'string');
			assert.deepEqual(acHeaders(r.headers), []);
			assertVary(r.headers);
		});
		await t.test('preflight of POST join: 403', async () => {
			const r = await preflightJoin(origin);
			assert.equal(r.status, 403, r.text);
			assert.equal(r.json.error, 'origin_not_allowed');
			assert.deepEqual(acHeaders(r.headers), []);
			assertVary(r.headers);
		});
	});
}

test('Vary: Origin on every /queue/<slug>/ answer', async (t) => {
	const tok = signJWT({ alg: 'HS256', typ: 'JWT' }, { iss:
	    'aditus-queue', aud: q.slug, qnr: 1, iat: nowS(),
	    exp: nowS() + 600 }, q.secret);
	const cases = [
		['room page', `/queue/${q.slug}`, {}],
		['join', `/queue/${q.slug}/join`, { method: 'POST' }],
		['status 200', `/queue/${q.slug}/status?number=1`, {}],
		['status 400', `/queue/${q.slug}/status?number=x`, {}],
		['status 404', `/queue/${q.slug}/status?number=999999`, {}],
		['info', `/queue/${q.slug}/info`, {}],
		['verify', `/queue/${q.slug}/verify?token=${tok}`, {}],
		['enter', `/queue/${q.slug}/enter`, {}],
		['token 403', `/queue/${q.slug}/token`, { method: 'POST',
		    headers: { 'content-type': 'application/json' },
		    body: '{"number":1,"ticket":"x"}' }],
		['token 400', `/queue/${q.slug}/token`, { method: 'POST',
		    headers: { 'content-type': 'application/json' },
		    body: '{' }],
	];
	for (const [name, path, opts] of cases) {
		for (const origin of [ALLOWED, 'https://evil.test', null]) {
			await t.test(`${name}, origin ${origin}`, async () => {
				const headers = { ...(opts.headers ?? {}) };
				if (origin !== null)
					headers.origin = origin;
				const r = await req(path, { ...opts, headers });
				assert.ok(r.status < 500, `${r.status}`);
				assertVary(r.headers);
				assertNoCredentials(r.headers);
				const acao = r.headers.get(
				    'access-control-allow-origin');
				if (origin === ALLOWED)
					assert.ok(acao === null ||
					    acao === ALLOWED, acao);
				else
					assert.equal(acao, null);
			});
		}
	}
	await t.test('the allowed origin is echoed on join and info',
	    async () => {
		for (const [path, method] of [[`/queue/${q.slug}/join`, 'POST'],
		    [`/queue/${q.slug}/info`, 'GET']]) {
			const r = await req(path, { method,
			    headers: { origin: ALLOWED } });
			assert.equal(r.headers.get(
			    'access-control-allow-origin'), ALLOWED);
		}
	});
});

test('405 answers on a queue also carry Vary: Origin', async () => {
	// A wrong method is answered before the CORS step (routes.c), so
	// this answer lacks the header that C12 wants on every response.
	for (const [path, method] of [[`/queue/${q.slug}/join`, 'GET'],
	    [`/queue/${q.slug}/info`, 'DELETE']]) {
		const r = await req(path, { method,
		    headers: { origin: ALLOWED } });
		assert.equal(r.status, 405);
		assert.equal(r.json.error, 'method_not_allowed');
		assertNoCredentials(r.headers);
		assertVary(r.headers);
	}
});

test('two queues: each allows only its own shop domain', async () => {
	const q2 = createQueue({ rate: 600, domains: 'other.example' });
	await join(q2.slug);
	const r = await req(`/queue/${q2.slug}/status?number=1`,
	    { headers: { origin: ALLOWED } });
	assert.equal(r.status, 200);
	assert.equal(r.headers.get('access-control-allow-origin'), null);
	const p = await req(`/queue/${q2.slug}/join`, { method: 'OPTIONS',
	    headers: { origin: ALLOWED,
	    'access-control-request-method': 'POST' } });
	assert.equal(p.status, 403);
	assert.equal(p.json.error, 'origin_not_allowed');
	const ok = await req(`/queue/${q2.slug}/status?number=1`,
	    { headers: { origin: 'https://other.example' } });
	assert.equal(ok.headers.get('access-control-allow-origin'),
	    'https://other.example');
});

test('http://127.0.0.1:PORT domain entry: that exact origin only',
    async () => {
	const q3 = createQueue({ rate: 600,
	    domains: 'http://127.0.0.1:18999', target: 'http://127.0.0.1:18999/' });
	await join(q3.slug);
	const get = (origin) => req(`/queue/${q3.slug}/status?number=1`,
	    { headers: { origin } });
	let r = await get('http://127.0.0.1:18999');
	assert.equal(r.headers.get('access-control-allow-origin'),
	    'http://127.0.0.1:18999');
	for (const o of ['https://127.0.0.1:18999', 'http://127.0.0.1',
	    'http://127.0.0.1:1899', 'http://127.0.0.1:189990',
	    'http://127.0.0.1.evil.test:18999']) {
		r = await get(o);
		assert.equal(r.headers.get('access-control-allow-origin'), null,
		    o);
	}
});
