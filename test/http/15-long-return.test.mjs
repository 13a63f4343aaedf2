// CASES C27: every return URL the app accepts gives a 302 through nginx,
// never nginx's 502 "upstream sent too big header": Location stays within
// a fixed budget (3,072 bytes), escaping only what a query value needs;
// past the budget the return URL gives way to the target URL.  Each GET
// takes exactly one number, and the visitor gets the answer for it.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import jwt from 'jsonwebtoken';
import { createQueue, navigate, show, env, join } from './lib.mjs';

const BUDGET = 3072;
const SLASHES = 'https://shop.example/shop' + '/'.repeat(1250);

// About 2,000 bytes of "?a=1&a=1&...".
function longQuery() {
	let s = 'https://shop.example/shop/?a=1';
	while (s.length + 4 <= 2000)
		s += '&a=1';
	return s;
}
const QUERY = longQuery();

function verifyJWT(q, tok) {
	return jwt.verify(tok, q.secret, { algorithms: ['HS256'],
	    issuer: 'aditus-queue', audience: q.slug });
}

async function enter(q, query, method = 'GET') {
	const r = await navigate(`/queue/${q.slug}/enter${query}`, { method });
	const text = await r.text();
	return { status: r.status, location: r.headers.get('location'),
	    text };
}

// A below-the-rate answer: 302 to prefix + the one token, within budget.
function assertShop(q, r, prefix) {
	assert.equal(r.status, 302, r.text.slice(0, 300));
	const loc = r.location;
	assert.ok(loc.length <= BUDGET, `Location of ${loc.length} bytes`);
	assert.ok(loc.startsWith(prefix), loc.slice(0, 200));
	const toks = new URL(loc).searchParams.getAll('aditus_queue_token');
	assert.equal(toks.length, 1, 'the token once');
	assert.equal(loc.split('aditus_queue_token').length, 2);
	return verifyJWT(q, toks[0]).qnr;
}

// An above-the-rate answer: 302 to the room with number and ticket.
function assertRoom(q, r, number) {
	assert.equal(r.status, 302, r.text.slice(0, 300));
	const loc = r.location;
	assert.ok(loc.length <= BUDGET, `Location of ${loc.length} bytes`);
	const u = new URL(loc, env.base);
	assert.equal(u.pathname, `/queue/${q.slug}`);
	const m = /^#number=(\d+)&ticket=[\w-]{22}$/.exec(u.hash);
	assert.ok(m, `fragment of ${loc.slice(0, 100)}…${loc.slice(-60)}`);
	assert.equal(Number(m[1]), number);
	return u;
}

test('the inputs are what CASES C27 says', () => {
	assert.equal(SLASHES.length, 'https://shop.example/shop'.length + 1250);
	assert.ok(QUERY.length > 1990 && QUERY.length <= 2000, QUERY.length);
});

test('below the rate: 1,250 slashes, GET and HEAD', async () => {
	const q = createQueue({ rate: 6000, burst: 1000 });
	const before = show(q.slug).lastNumber;
	const r = await enter(q, `?return=${SLASHES}`);
	assert.equal(assertShop(q, r, `${SLASHES}?aditus_queue_token=`),
	    before + 1);
	const h = await enter(q, `?return=${SLASHES}`, 'HEAD');
	assert.equal(h.status, 302);
	assert.ok(h.location.length <= BUDGET, `${h.location.length}`);
	const u = new URL(h.location, env.base);
	assert.equal(u.pathname, `/queue/${q.slug}`);
	assert.equal(u.searchParams.get('return'), SLASHES);
	assert.equal(show(q.slug).lastNumber, before + 1, 'HEAD took none');
});

test('below the rate: a 2,000-byte query, percent-encoded', async () => {
	const q = createQueue({ rate: 6000, burst: 1000 });
	const before = show(q.slug).lastNumber;
	const r = await enter(q, `?return=${encodeURIComponent(QUERY)}`);
	assert.equal(assertShop(q, r, `${QUERY}&aditus_queue_token=`),
	    before + 1);
	assert.equal(show(q.slug).lastNumber, before + 1);
});

test('above the rate: the room gets number and ticket, within budget',
    async () => {
	const q = createQueue({ rate: 1, burst: 1 });
	const first = await join(q.slug);
	assert.equal(first.json.admitted, true);

	// 1,250 slashes: kept (a '/' needs no escaping in a query value).
	let r = await enter(q, `?return=${SLASHES}`);
	let u = assertRoom(q, r, 2);
	assert.equal(u.searchParams.get('return'), SLASHES);
	assert.ok(r.location.length < 1250 + 200, `${r.location.length}`);

	// HEAD of the same: no number, same room.
	r = await enter(q, `?return=${SLASHES}`, 'HEAD');
	assert.equal(r.status, 302);
	assert.ok(r.location.length <= BUDGET);
	assert.equal(show(q.slug).lastNumber, 2);

	// The 2,000-byte query would need ~4 KB escaped: the return URL
	// gives way (the visitor lands on the target), the number is kept.
	r = await enter(q, `?return=${encodeURIComponent(QUERY)}`);
	u = assertRoom(q, r, 3);
	assert.equal(u.search, '');

	// A shorter one that fits is kept, escaped as a query value.
	const mid = 'https://shop.example/p?x=1&y=a+b#top';
	r = await enter(q, `?return=${encodeURIComponent(mid)}`);
	u = assertRoom(q, r, 4);
	assert.equal(u.searchParams.get('return'), mid);
	assert.equal(show(q.slug).lastNumber, 4, 'one number per GET');
});

test('the longest accepted return URLs, worst case for escaping',
    async (t) => {
	const below = createQueue({ rate: 6000, burst: 1000 });
	const above = createQueue({ rate: 1, burst: 1 });
	await join(above.slug);
	let n = 1;
	for (const [name, fill] of [['slashes', '/'], ['ampersands', '&'],
	    ['percent signs', '%41'], ['equals signs', '=']]) {
		const head = 'https://shop.example/?';
		const url = (head + fill.repeat(2048)).slice(0, 2048);
		await t.test(`${name}, ${url.length} bytes`, async () => {
			const r = await enter(below,
			    `?return=${encodeURIComponent(url)}`);
			assert.equal(r.status, 302);
			assert.ok(r.location.length <= BUDGET,
			    `${r.location.length}`);
			const toks = new URL(r.location).searchParams
			    .getAll('aditus_queue_token');
			assert.equal(toks.length, 1);
			verifyJWT(below, toks[0]);
			const a = await enter(above,
			    `?return=${encodeURIComponent(url)}`);
			assertRoom(above, a, ++n);
		});
	}
	await t.test('a 2,049-byte return URL is refused: the target',
	    async () => {
		const url = 'https://shop.example/' + 'x'.repeat(2049 - 21);
		assert.equal(url.length, 2049);
		const r = await enter(below, `?return=${url}`);
		assert.equal(r.status, 302);
		assert.ok(r.location.startsWith(
		    'https://shop.example/?aditus_queue_token='), r.location);
	});
});
