// Every route that can take a number (POST /join, GET /enter, and GET
// /queue/<slug> in JSON mode) applies one rule before it takes one.
//
// Promises these paths could break, and this file shows they do not:
// - promise 3, "only the visitor's own deliberate request takes a
//   number": another site's request (a foreign Origin, or Sec-Fetch-Site
//   cross-site on anything but a navigation) gets 403 origin_not_allowed;
//   a prefetch or prerender, a HEAD and a no-cors request take nothing
//   (the gateway answers its number-less redirect to the room, /join and
//   JSON mode 403 not_deliberate, JSON mode's HEAD keeps its 405);
// - promise 4, "bad input changes nothing": none of these answers issues
//   a number, sets the number cookie or carries a token, so the queue's
//   lastNumber is the same before and after each, and two ordinary joins
//   around it get consecutive numbers.
// Every input of CASES C29 and the issue's cross-site requests go to
// every route.  Positive controls: the queue's shop origin, the same
// origin and plain clients (no Origin, no fetch metadata) take exactly
// one number on each route, and a link followed from another site still
// takes one through the gateway.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { createQueue, env, show } from './lib.mjs';

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

const SHOP = 'http://127.0.0.1:1234';
const q = createQueue({ rate: 6000, domains: SHOP });
const JSON_ACCEPT = { accept: 'application/json' };

// The number-taking routes: each sends the input's headers its own way
// (the join with the body the input names, JSON mode with its Accept).
const ROUTES = {
	join: (h, body = null) => raw('POST', `/queue/${q.slug}/join`, h, body),
	enter: (h) => raw('GET', `/queue/${q.slug}/enter`, h),
	json: (h) => raw('GET', `/queue/${q.slug}`, { ...JSON_ACCEPT, ...h }),
};

// An ordinary join (no Origin, no fetch metadata): its number.
async function ordinaryJoin() {
	const r = await raw('POST', `/queue/${q.slug}/join`);
	assert.equal(r.status, 200, r.text);
	return r.json.number;
}

// fn() between two ordinary joins: lastNumber unchanged across fn() and
// the joins around it consecutive, so fn() issued nothing.
async function issuesNothing(fn) {
	const a = await ordinaryJoin();
	assert.equal(show(q.slug).lastNumber, a);
	await fn();
	assert.equal(show(q.slug).lastNumber, a, 'lastNumber changed');
	const b = await ordinaryJoin();
	assert.equal(b, a + 1, 'numbers issued in between');
}

// Nothing of a number in an answer: no cookie, no token, no ticket.
function assertNoNumber(r) {
	assert.equal(r.headers['set-cookie'], undefined, 'a cookie was set');
	assert.doesNotMatch(r.text, /token|ticket|"number"/);
	assert.doesNotMatch(r.headers.location ?? '',
	    /number|ticket|token/);
}

// A JSON refusal: exactly status st with error code.
function assertRefused(r, st, code) {
	assert.equal(r.status, st, r.text);
	assert.match(r.headers['content-type'], /^application\/json/);
	assert.equal(r.json?.error, code, r.text);
	assert.equal(typeof r.json.message, 'string');
	assertNoNumber(r);
}

// The gateway's number-less answer: 302 to the bare room, no-store.
function assertRoomWithoutNumber(r) {
	assert.equal(r.status, 302, r.text);
	assert.equal(r.headers.location, `/queue/${q.slug}`);
	assert.equal(r.headers['cache-control'], 'no-store');
	assertNoNumber(r);
}

const EVIL = 'https://evil.test';

// CASES C29's inputs and the issue's, each with what every route must
// answer: [name, headers, body of the join, {join, enter, json}].
const NOT_DELIBERATE = {
	join: (r) => assertRefused(r, 403, 'not_deliberate'),
	enter: assertRoomWithoutNumber,
	json: (r) => assertRefused(r, 403, 'not_deliberate'),
};
// Another site's request: refused, and no CORS header lets it read that.
function assertForeign(r) {
	assertRefused(r, 403, 'origin_not_allowed');
	assert.equal(r.headers['access-control-allow-origin'], undefined);
}
const FOREIGN = { join: assertForeign, enter: assertForeign,
    json: assertForeign };
const INPUTS = [
	['C29: Sec-Purpose: prefetch', { 'sec-purpose': 'prefetch' }, null,
	    NOT_DELIBERATE],
	['C29: Purpose: prefetch', { purpose: 'prefetch' }, null,
	    NOT_DELIBERATE],
	['C29: Sec-Purpose: prefetch;prerender',
	    { 'sec-purpose': 'prefetch;prerender' }, null, NOT_DELIBERATE],
	['C29: Origin evil.test, cross-site, text/plain, empty body',
	    { origin: EVIL, 'sec-fetch-site': 'cross-site',
	    'content-type': 'text/plain' }, '', FOREIGN],
	['issue: Origin evil.test, cross-site, no-cors',
	    { origin: EVIL, 'sec-fetch-site': 'cross-site',
	    'sec-fetch-mode': 'no-cors' }, null, FOREIGN],
	['issue: the same with Sec-Purpose: prefetch',
	    { origin: EVIL, 'sec-fetch-site': 'cross-site',
	    'sec-fetch-mode': 'no-cors', 'sec-purpose': 'prefetch' }, null,
	    FOREIGN],
	// More of the same kinds.
	['cross-site no-cors without an Origin',
	    { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors',
	    'sec-fetch-dest': 'empty' }, null, FOREIGN],
	['Origin: null', { origin: 'null', 'sec-fetch-site': 'cross-site',
	    'sec-fetch-mode': 'cors' }, null, FOREIGN],
	['a sibling origin not among the shop domains',
	    { origin: 'http://127.0.0.1:1235', 'sec-fetch-site': 'same-site',
	    'sec-fetch-mode': 'cors' }, null, FOREIGN],
	['same-origin no-cors (nobody reads the answer)',
	    { 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'no-cors',
	    'sec-fetch-dest': 'image' }, null, NOT_DELIBERATE],
	['the shop\'s own no-cors request',
	    { origin: SHOP, 'sec-fetch-site': 'cross-site',
	    'sec-fetch-mode': 'no-cors' }, null, NOT_DELIBERATE],
	// The gateway's links are followed from other sites: the prefetch
	// of one is no number; /join and JSON mode are never navigations.
	['a browser\'s prefetch of a link from another site',
	    { 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document',
	    'sec-fetch-site': 'cross-site', 'sec-purpose': 'prefetch' }, null,
	    { ...FOREIGN, enter: assertRoomWithoutNumber }],
	['a browser\'s prefetch of a link on the same origin',
	    { 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document',
	    'sec-fetch-site': 'same-origin', 'sec-purpose': 'prefetch' },
	    null, NOT_DELIBERATE],
	['X-Purpose: preview', { 'x-purpose': 'preview' }, null,
	    NOT_DELIBERATE],
	['X-Moz: prefetch', { 'x-moz': 'prefetch' }, null, NOT_DELIBERATE],
	['Purpose: prerender', { purpose: 'prerender' }, null,
	    NOT_DELIBERATE],
];

for (const route of Object.keys(ROUTES)) {
	test(`${route}: CASES C29 and the cross-site requests take no number`,
	    async (t) => {
		for (const [name, h, body, want] of INPUTS) {
			await t.test(name, async () => {
				await issuesNothing(async () => {
					want[route](await ROUTES[route](h,
					    route === 'join' ? body : null));
				});
			});
		}
	});
}

test('HEAD takes no number: the gateway redirects, JSON mode 405',
    async () => {
	await issuesNothing(async () => {
		assertRoomWithoutNumber(await raw('HEAD',
		    `/queue/${q.slug}/enter`));
	});
	await issuesNothing(async () => {
		const r = await raw('HEAD', `/queue/${q.slug}`, JSON_ACCEPT);
		assert.equal(r.status, 405);
		assert.equal(r.headers.allow, 'GET');
		assert.equal(r.headers['set-cookie'], undefined);
	});
	await issuesNothing(async () => {
		const r = await raw('HEAD', `/queue/${q.slug}/join`);
		assert.equal(r.status, 405);
		assert.equal(r.headers['set-cookie'], undefined);
	});
});

// The positive controls: each takes exactly one number.
async function takesOne(fn) {
	const before = show(q.slug).lastNumber;
	const n = await fn();
	assert.equal(n, before + 1, 'the number taken');
	assert.equal(show(q.slug).lastNumber, before + 1);
}

const CONTROLS = {
	join: [
		['a plain client', {}],
		['the shop origin, cors', { origin: SHOP,
		    'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'cors',
		    'sec-fetch-dest': 'empty' }],
		['the same origin, cors', { origin: env.base,
		    'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors',
		    'sec-fetch-dest': 'empty' }],
		['the same origin without fetch metadata', { origin: env.base }],
	],
	json: [
		['a plain client', {}],
		['the shop origin, cors', { origin: SHOP,
		    'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'cors',
		    'sec-fetch-dest': 'empty' }],
		['the same origin, cors', { origin: env.base,
		    'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors',
		    'sec-fetch-dest': 'empty' }],
	],
	enter: [
		['a plain client', {}],
		['a link followed from another site (a newsletter)',
		    { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate',
		    'sec-fetch-dest': 'document', 'sec-fetch-user': '?1' }],
		['a link on the same origin', { 'sec-fetch-site': 'same-origin',
		    'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' }],
		['a typed address', { 'sec-fetch-site': 'none',
		    'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' }],
	],
};

test('positive controls: the shop, the same origin and plain clients ' +
    'take one number on every route', async (t) => {
	for (const [name, h] of CONTROLS.join) {
		await t.test(`join: ${name}`, () => takesOne(async () => {
			const r = await ROUTES.join(h);
			assert.equal(r.status, 200, r.text);
			assert.equal(typeof r.json.ticket, 'string');
			return r.json.number;
		}));
	}
	for (const [name, h] of CONTROLS.json) {
		await t.test(`JSON mode: ${name}`, () => takesOne(async () => {
			const r = await ROUTES.json(h);
			assert.equal(r.status, 200, r.text);
			assert.match(r.headers['set-cookie']?.[0] ?? '',
			    new RegExp(`^aditus_wr_${q.slug}=\\d+\\.`));
			return r.json.WaitingRoom.number;
		}));
	}
	for (const [name, h] of CONTROLS.enter) {
		await t.test(`enter: ${name}`, () => takesOne(async () => {
			const r = await ROUTES.enter(h);
			assert.equal(r.status, 302, r.text);
			const u = new URL(r.headers.location);
			assert.equal(u.origin, 'https://shop.example');
			const tok = u.searchParams.get('aditus_queue_token');
			assert.match(tok ?? '', /^[\w-]+\.[\w-]+\.[\w-]+$/);
			return JSON.parse(Buffer.from(tok.split('.')[1],
			    'base64url')).qnr;
		}));
	}
});

test('JSON mode with its number cookie: a prefetch reads the state and ' +
    'takes nothing (the rule applies where a number would be taken)',
    async () => {
	const first = await ROUTES.json({});
	assert.equal(first.status, 200, first.text);
	const cookie = first.headers['set-cookie'][0].split(';')[0];
	const n = first.json.WaitingRoom.number;
	await issuesNothing(async () => {
		const r = await ROUTES.json({ cookie,
		    'sec-purpose': 'prefetch' });
		assert.equal(r.status, 200, r.text);
		assert.equal(r.json.WaitingRoom.number, n);
		assert.equal(r.headers['set-cookie'], undefined);
	});
});
