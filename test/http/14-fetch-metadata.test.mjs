// CASES C29: only the visitor's own deliberate request takes a number.
// Prefetch, prerender and fetches that are no navigation get the room
// without a number from the gateway; another site's page cannot make a
// visitor's browser join (403 origin_not_allowed, nothing issued).  The
// queue's own shop origins, same-origin requests and clients that send no
// fetch metadata keep working.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { createQueue, env, show, NAVIGATE } from './lib.mjs';

// raw(method, path, headers, body): one HTTP request with exactly these
// headers (node:http adds only Host, Connection and, for a body,
// Content-Length; unlike fetch, no Sec-Fetch-Mode).  Resolves {status,
// headers, text, json}.
function raw(method, path, headers = {}, body = null) {
	return new Promise((resolve, reject) => {
		const u = new URL(env.base + path);
		const h = { ...headers };
		if (body !== null)
			h['content-length'] = Buffer.byteLength(body);
		const rq = http.request({ host: u.hostname, port: u.port,
		    method, path: u.pathname + u.search, headers: h,
		    agent: false }, (res) => {
			const chunks = [];
			res.on('data', (d) => chunks.push(d));
			res.on('end', () => {
				const text = Buffer.concat(chunks).toString();
				let json = null;
				try {
					json = JSON.parse(text);
				} catch {
					json = null;
				}
				resolve({ status: res.statusCode,
				    headers: res.headers, text, json });
			});
		});
		rq.on('error', reject);
		if (body !== null)
			rq.write(body);
		rq.end();
	});
}

// An ordinary join (no Origin, no fetch metadata): its number.
async function ordinaryJoin(slug) {
	const r = await raw('POST', `/queue/${slug}/join`);
	assert.equal(r.status, 200, r.text);
	return r.json.number;
}

// fn() runs between two ordinary joins, which must get consecutive
// numbers: fn() issued none.
async function issuesNothing(slug, fn) {
	const a = await ordinaryJoin(slug);
	await fn();
	const b = await ordinaryJoin(slug);
	assert.equal(b - a - 1, 0, 'numbers issued in between');
}

// A number-less answer of the gateway: 302 to the bare room, no-store.
function assertRoomWithoutNumber(r, slug) {
	assert.equal(r.status, 302, r.text);
	assert.equal(r.headers.location, `/queue/${slug}`);
	assert.equal(r.headers['cache-control'], 'no-store');
	assert.doesNotMatch(r.headers.location, /number|ticket|token/);
}

const q = createQueue({ rate: 6000, domains: 'http://127.0.0.1:1234' });

test('C29: prefetch and prerender of /enter take no number', async (t) => {
	for (const h of [{ 'sec-purpose': 'prefetch' },
	    { purpose: 'prefetch' }, { 'sec-purpose': 'prefetch;prerender' }]) {
		await t.test(`exactly ${JSON.stringify(h)}`, async () => {
			await issuesNothing(q.slug, async () => {
				assertRoomWithoutNumber(await raw('GET',
				    `/queue/${q.slug}/enter`, h), q.slug);
			});
		});
		await t.test(`as a browser sends it: navigate + ` +
		    `${JSON.stringify(h)}`, async () => {
			await issuesNothing(q.slug, async () => {
				assertRoomWithoutNumber(await raw('GET',
				    `/queue/${q.slug}/enter`,
				    { ...NAVIGATE, ...h }), q.slug);
			});
		});
	}
});

test('the same kind: previews and fetches that are no navigation',
    async (t) => {
	for (const h of [
		{ 'x-purpose': 'preview' },
		{ 'x-moz': 'prefetch' },
		{ 'sec-purpose': 'prefetch;anonymous-client-ip' },
		{ 'sec-fetch-mode': 'cors' },
		{ 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'image' },
		{ ...NAVIGATE, 'sec-fetch-dest': 'iframe' },
		{ 'sec-fetch-dest': 'empty' },
	]) {
		await t.test(JSON.stringify(h), async () => {
			await issuesNothing(q.slug, async () => {
				assertRoomWithoutNumber(await raw('GET',
				    `/queue/${q.slug}/enter`, h), q.slug);
			});
		});
	}
	await t.test('a return URL is kept on the number-less redirect',
	    async () => {
		const ret = 'http://127.0.0.1:1234/cart?a=1';
		const r = await raw('GET', `/queue/${q.slug}/enter?return=` +
		    encodeURIComponent(ret), { 'sec-purpose': 'prefetch' });
		assert.equal(r.status, 302);
		const u = new URL(r.headers.location, env.base);
		assert.equal(u.pathname, `/queue/${q.slug}`);
		assert.equal(u.searchParams.get('return'), ret);
		assert.equal(u.hash, '');
	});
});

test('the visitor\'s own navigation still gets the token', async (t) => {
	for (const h of [{}, NAVIGATE, { ...NAVIGATE,
	    'sec-fetch-site': 'cross-site' }]) {
		await t.test(JSON.stringify(h), async () => {
			const before = show(q.slug).lastNumber;
			const r = await raw('GET', `/queue/${q.slug}/enter`, h);
			assert.equal(r.status, 302);
			assert.match(r.headers.location,
			    /^https:\/\/shop\.example\/\?aditus_queue_token=[\w-]+\.[\w-]+\.[\w-]+$/);
			assert.equal(show(q.slug).lastNumber, before + 1);
		});
	}
});

test('C29: a cross-site join is 403 origin_not_allowed, nothing issued',
    async () => {
	await issuesNothing(q.slug, async () => {
		const r = await raw('POST', `/queue/${q.slug}/join`, {
			origin: 'https://evil.test',
			'sec-fetch-site': 'cross-site',
			'content-type': 'text/plain',
		}, '');
		assert.equal(r.status, 403, r.text);
		assert.equal(r.json.error, 'origin_not_allowed');
		assert.equal(typeof r.json.message, 'string');
		assert.equal(r.headers['access-control-allow-origin'],
		    undefined);
	});
});

test('other foreign joins: 403 origin_not_allowed, nothing issued',
    async (t) => {
	for (const h of [
		{ origin: 'https://evil.test' },
		{ origin: 'null', 'sec-fetch-site': 'cross-site' },
		{ 'sec-fetch-site': 'cross-site' },
		{ origin: 'http://127.0.0.1:1235', 'sec-fetch-site': 'same-site' },
		{ origin: `${env.base}/` },
		{ origin: 'https://evil.test', 'content-type': 'application/json' },
	]) {
		await t.test(JSON.stringify(h), async () => {
			await issuesNothing(q.slug, async () => {
				const r = await raw('POST',
				    `/queue/${q.slug}/join`, h,
				    h['content-type'] ? '{}' : null);
				assert.equal(r.status, 403, r.text);
				assert.equal(r.json.error, 'origin_not_allowed');
			});
		});
	}
});

test('joins from the shop, the same origin and plain clients work',
    async (t) => {
	for (const h of [
		{},
		{ origin: 'http://127.0.0.1:1234', 'sec-fetch-site': 'cross-site',
		    'sec-fetch-mode': 'cors' },
		{ origin: env.base, 'sec-fetch-site': 'same-origin' },
		{ origin: env.base },
		{ 'sec-fetch-site': 'same-origin' },
		{ 'sec-fetch-site': 'none' },
	]) {
		await t.test(JSON.stringify(h), async () => {
			const before = show(q.slug).lastNumber;
			const r = await raw('POST', `/queue/${q.slug}/join`, h);
			assert.equal(r.status, 200, r.text);
			assert.equal(r.json.number, before + 1);
		});
	}
});
