// The gateway link GET /queue/<slug>/enter: straight to the target with a
// token below the rate, to the waiting room (with number and ticket in the
// fragment) above it.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import jwt from 'jsonwebtoken';
import {
	createQueue, api, navigate, status, token, verify, env, ctl, waitFor,
} from './lib.mjs';

const TOKEN_RE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

function verifyJWT(q, tok) {
	return jwt.verify(tok, q.secret, { algorithms: ['HS256'],
	    issuer: 'aditus-queue', audience: q.slug });
}

// enter(q, query): GET /enter; returns {status, location, headers}.
async function enter(q, query = '') {
	const r = await navigate(`/queue/${q.slug}/enter${query}`);
	await r.arrayBuffer();
	return { status: r.status, location: r.headers.get('location'),
	    headers: r.headers };
}

// The token in an absolute Location "<prefix>aditus_queue_token=<jwt>".
function tokenAfter(location, prefix) {
	assert.ok(location.startsWith(prefix),
	    `Location ${location} starts with ${prefix}`);
	const tok = location.slice(prefix.length);
	assert.match(tok, TOKEN_RE);
	return tok;
}

// A waiting-room Location: /queue/<slug>[?return=…]#number=N&ticket=T.
function parseRoom(q, location) {
	const u = new URL(location, env.base);
	assert.equal(u.origin, new URL(env.base).origin,
	    `Location ${location} stays on the waiting-room host`);
	assert.equal(u.pathname, `/queue/${q.slug}`);
	const m = /^#number=([1-9][0-9]*)&ticket=([A-Za-z0-9_-]+)$/
	    .exec(u.hash);
	assert.ok(m, `fragment of ${location}`);
	return { url: u, number: Number(m[1]), ticket: m[2] };
}

test('below the rate: 302 straight to the target with a token', async () => {
	const q = createQueue({ rate: 60 });
	const prefix = 'https://shop.example/?aditus_queue_token=';
	for (let n = 1; n <= 3; n++) {
		const r = await enter(q);
		assert.equal(r.status, 302);
		const tok = tokenAfter(r.location, prefix);
		const c = verifyJWT(q, tok);
		assert.equal(c.qnr, n);
		assert.equal(c.exp - c.iat, 600);
		assert.equal(c.bypass, undefined, 'no bypass claim');
		const v = await verify(q.slug, tok);
		assert.deepEqual(v.json, { valid: true, number: n,
		    expiresAt: c.exp });
	}
});

test('target with a query and a fragment: token joins the query',
    async () => {
	const q = createQueue({ rate: 60,
	    target: 'https://shop.example/landing?utm=x#top' });
	const r = await enter(q);
	assert.equal(r.status, 302);
	const m = /^https:\/\/shop\.example\/landing\?utm=x&aditus_queue_token=([^#&]+)#top$/
	    .exec(r.location);
	assert.ok(m, `Location ${r.location}`);
	assert.equal(verifyJWT(q, m[1]).qnr, 1);
});

test('above the rate: 302 to the waiting room with number and ticket',
    async () => {
	const q = createQueue({ rate: 1, burst: 2 });
	const prefix = 'https://shop.example/?aditus_queue_token=';
	for (let n = 1; n <= 2; n++) {
		const r = await enter(q);
		assert.equal(r.status, 302);
		assert.equal(verifyJWT(q, tokenAfter(r.location, prefix)).qnr,
		    n);
	}
	const r = await enter(q);
	assert.equal(r.status, 302);
	assert.ok(!/aditus_queue_token/.test(r.location), r.location);
	const room = parseRoom(q, r.location);
	assert.equal(room.url.search, '');
	assert.equal(room.number, 3);

	const s = await status(q.slug, room.number);
	assert.equal(s.status, 200, s.text);
	assert.equal(s.json.number, 3);
	assert.equal(s.json.admitted, false);
	assert.equal(s.json.serving, 2);
	assert.equal(s.json.ahead, 0);

	const t = await token(q.slug, { number: room.number,
	    ticket: room.ticket });
	assert.equal(t.status, 425, t.text);
	assert.equal(t.json.error, 'not_admitted');

	// The pair is bound: the ticket does not work for another number.
	const t2 = await token(q.slug, { number: 2, ticket: room.ticket });
	assert.equal(t2.status, 403, t2.text);
	assert.equal(t2.json.error, 'invalid_ticket');

	// A valid return URL is carried to the waiting room.
	const ret = 'https://shop.example/cart?a=1';
	const r4 = await enter(q, `?return=${encodeURIComponent(ret)}`);
	assert.equal(r4.status, 302);
	const room4 = parseRoom(q, r4.location);
	assert.equal(room4.url.searchParams.get('return'), ret);
	assert.deepEqual([...room4.url.searchParams.keys()], ['return']);
	assert.equal(room4.number, 4);

	// An invalid one is dropped.
	const r5 = await enter(q,
	    `?return=${encodeURIComponent('https://evil.test/')}`);
	assert.equal(r5.status, 302);
	assert.ok(!/evil\.test/i.test(r5.location), r5.location);
	const room5 = parseRoom(q, r5.location);
	assert.equal(room5.url.search, '');
	assert.equal(room5.number, 5);

	// Once admitted, the fragment's pair gets the token.
	ctl('set-rate', q.slug, 6000);
	const ok = await waitFor(async () => {
		const x = await token(q.slug, { number: room.number,
		    ticket: room.ticket });
		return x.status === 200 ? x : null;
	}, 3000, 100, 'token for the waiting-room number');
	assert.equal(verifyJWT(q, ok.json.token).qnr, 3);
});

test('gateway with a wrong method: 405 with Allow', async () => {
	const q = createQueue({ rate: 60 });
	const r = await api(`/queue/${q.slug}/enter`, { method: 'POST' });
	await r.text();
	assert.equal(r.status, 405);
	assert.match(r.headers.get('allow') ?? '', /\bGET\b/);
	assert.doesNotMatch(r.headers.get('allow') ?? '', /\bPOST\b/);
});
