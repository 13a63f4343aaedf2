// The admission model seen from outside: /join answers with the token
// below the rate, estimates say the time until serving reaches a number
// (and nothing while paused), /token's 425 says the same Retry-After as
// /status, a ticket's claim window ends with 403 ticket_expired, tokens
// carry jti, the schema refuses what the C code clamps, and two pools
// on one database, one with its clock an hour behind, agree exactly
// because time comes from the database.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import jwt from 'jsonwebtoken';
import {
	createQueue, ctl, join, status, token, sleep, waitFor, dbSQL,
	startExtraPool, fcgiRequest, fcgiParams, CACHE_MS, verify, navigate,
} from './lib.mjs';

const JOIN_KEYS = ['admitted', 'ahead', 'estimatedWaitSeconds', 'name',
    'number', 'queue', 'retryAfterSeconds', 'serving', 'ticket'];
const TOKEN_KEYS = ['expiresInSeconds', 'targetUrl', 'token', 'tokenType'];

function claims(tok, secret, slug) {
	return jwt.verify(tok, secret, { algorithms: ['HS256'],
	    issuer: 'aditus-queue', audience: slug });
}

test('join below the rate answers with the token itself', async () => {
	const q = createQueue({ rate: 60, burst: 1 });
	const j1 = await join(q.slug);
	assert.equal(j1.status, 200, j1.text);
	assert.deepEqual(Object.keys(j1.json).sort(),
	    [...JOIN_KEYS, ...TOKEN_KEYS].sort());
	assert.equal(j1.json.number, 1);
	assert.equal(j1.json.admitted, true);
	assert.equal(j1.json.tokenType, 'JWT');
	assert.equal(j1.json.expiresInSeconds, 600);
	assert.equal(j1.json.targetUrl, q.target);
	const c = claims(j1.json.token, q.secret, q.slug);
	assert.equal(c.qnr, 1);
	assert.equal(c.jti, `${q.slug}:1`);
	assert.equal(c.exp - c.iat, 600);
	const v = await verify(q.slug, j1.json.token);
	assert.equal(v.json.valid, true);
	assert.equal(v.json.number, 1);

	// The second within the same second waits: no token in the body.
	const j2 = await join(q.slug);
	assert.equal(j2.status, 200, j2.text);
	assert.equal(j2.json.number, 2);
	assert.equal(j2.json.admitted, false);
	assert.deepEqual(Object.keys(j2.json).sort(), JOIN_KEYS.sort());

	// /token for number 1 gives a token with the same jti.
	const t1 = await token(q.slug, { number: 1, ticket: j1.json.ticket });
	assert.equal(t1.status, 200, t1.text);
	assert.equal(claims(t1.json.token, q.secret, q.slug).jti,
	    `${q.slug}:1`);
});

test('the gateway admits below the rate from the join alone', async () => {
	const q = createQueue({ rate: 60, burst: 1 });
	// A browser's navigation: only that takes a number at the gateway.
	const res = await navigate(`/queue/${q.slug}/enter`);
	assert.equal(res.status, 302);
	const loc = new URL(res.headers.get('location'));
	assert.equal(loc.origin + loc.pathname, 'https://shop.example/');
	const c = claims(loc.searchParams.get('aditus_queue_token'), q.secret,
	    q.slug);
	assert.equal(c.qnr, 1);
	assert.equal(c.jti, `${q.slug}:1`);
});

test('estimates: time until serving reaches the number', async () => {
	// One per minute: number 2 is next in line and waits 60 s, not 0 s.
	const q = createQueue({ rate: 1, burst: 1 });
	assert.equal((await join(q.slug)).json.admitted, true);
	const j2 = await join(q.slug);
	assert.equal(j2.json.number, 2);
	assert.equal(j2.json.ahead, 0);
	assert.equal(j2.json.estimatedWaitSeconds, 60);
	assert.equal(j2.json.retryAfterSeconds, 6);
	const j3 = await join(q.slug);
	assert.equal(j3.json.ahead, 1);
	assert.equal(j3.json.estimatedWaitSeconds, 120);
	assert.equal(j3.json.retryAfterSeconds, 12);

	const s2 = await status(q.slug, 2);
	assert.equal(s2.status, 200, s2.text);
	assert.equal(s2.json.serving, 1);
	assert.equal(s2.json.estimatedWaitSeconds, 60);
	assert.equal(s2.json.retryAfterSeconds, 6);
	assert.equal(s2.headers.get('retry-after'), '6');

	// /token's 425 says what /status says for the same number.
	const t2 = await token(q.slug, { number: 2, ticket: j2.json.ticket });
	assert.equal(t2.status, 425, t2.text);
	assert.equal(t2.json.error, 'not_admitted');
	assert.equal(t2.headers.get('retry-after'), '6');
	const t3 = await token(q.slug, { number: 3, ticket: j3.json.ticket });
	assert.equal(t3.status, 425, t3.text);
	assert.equal(t3.headers.get('retry-after'), '12');
	const s3 = await status(q.slug, 3);
	assert.equal(s3.headers.get('retry-after'), '12');

	// Paused: no estimate (null), polled every 10 s.
	assert.match(ctl('pause', q.slug), /ok/);
	await sleep(CACHE_MS);
	const p2 = await status(q.slug, 2);
	assert.equal(p2.status, 200, p2.text);
	assert.equal(p2.json.active, false);
	assert.equal(p2.json.admitted, false);
	assert.equal(p2.json.estimatedWaitSeconds, null);
	assert.equal(p2.json.retryAfterSeconds, 10);
	assert.equal(p2.headers.get('retry-after'), '10');
	const pt = await token(q.slug, { number: 2, ticket: j2.json.ticket });
	assert.equal(pt.status, 425, pt.text);
	assert.equal(pt.headers.get('retry-after'), '10');
	const p1 = await status(q.slug, 1);
	assert.equal(p1.json.admitted, true);
	assert.equal(p1.json.estimatedWaitSeconds, 0);
});

test('claim window: a ticket mints tokens only for a while', async () => {
	const q = createQueue({ rate: 600, burst: 1 });
	ctl('update', q.slug, '--claim-window', 2);
	const j1 = await join(q.slug);
	const t0 = Date.now();
	assert.equal(j1.json.admitted, true);
	// Number 2 waits: its window starts when serving reaches it (the
	// growth, 100 ms, and the cap, a tick or two after its join).
	const j2 = await join(q.slug);
	assert.equal(j2.json.number, 2);
	assert.equal(j2.json.admitted, false);
	const ok1 = await token(q.slug, { number: 1, ticket: j1.json.ticket });
	assert.equal(ok1.status, 200, ok1.text);
	const ok2 = await waitFor(async () => {
		const r = await token(q.slug, { number: 2,
		    ticket: j2.json.ticket });
		assert.ok(r.status === 200 || r.status === 425, r.text);
		return r.status === 200 ? r : null;
	}, 2000, 20, 'number 2 admitted');
	assert.equal(claims(ok2.json.token, q.secret, q.slug).jti,
	    `${q.slug}:2`);

	// Window 2 s + 1 s slack: the grid is 3 s, a window ends at most
	// two grid spacings after the admission.
	await sleep(Math.max(0, t0 + 6800 - Date.now()));
	const late = await token(q.slug, { number: 1,
	    ticket: j1.json.ticket });
	assert.equal(late.status, 403, late.text);
	assert.equal(late.json.error, 'ticket_expired');
	assert.equal(typeof late.json.message, 'string');
	// The ticket is still checked first: a wrong one says so.
	const wrong = await token(q.slug, { number: 1,
	    ticket: j2.json.ticket });
	assert.equal(wrong.status, 403, wrong.text);
	assert.equal(wrong.json.error, 'invalid_ticket');
	const late2 = await token(q.slug, { number: 2,
	    ticket: j2.json.ticket });
	assert.equal(late2.status, 403, late2.text);
	assert.equal(late2.json.error, 'ticket_expired');
	// A new number works again.
	const j3 = await join(q.slug);
	assert.equal(j3.json.admitted, true, j3.text);
	const ok3 = await token(q.slug, { number: 3, ticket: j3.json.ticket });
	assert.equal(ok3.status, 200, ok3.text);
});

test('the schema refuses what the code clamps', () => {
	const q = createQueue({ rate: 60 });
	const bad = [
	    'rate_per_minute = 0', 'rate_per_minute = 1000001',
	    'burst = -1', 'burst = 1000001', 'token_ttl_s = 0',
	    'token_ttl_s = 86401', 'claim_window_s = 0',
	    'claim_window_s = 86401', 'pend_rate = -1', 'pend_rate = 1000001',
	    'pend_burst = 1000001', 'claim_dead = -1', 'last_number = -1',
	    'serving_floor = -1',
	];
	for (const set of bad)
		assert.throws(() => dbSQL(`UPDATE queue SET ${set} ` +
		    `WHERE slug = '${q.slug}'`), /CONSTRAINT|constraint/,
		    set);
	const rows = dbSQL('SELECT rate_per_minute, burst, token_ttl_s, ' +
	    `claim_window_s FROM queue WHERE slug = '${q.slug}'`);
	assert.deepEqual(rows, [['60', '0', '600', '600']]);
	dbSQL(`UPDATE queue SET rate_per_minute = 1000000, burst = 1000000, ` +
	    `token_ttl_s = 86400, claim_window_s = 86400 ` +
	    `WHERE slug = '${q.slug}'`);
});

// One request on a pool's own socket.
function poolGet(sock, uri) {
	return fcgiRequest({ sock, params: fcgiParams('GET', uri) });
}

function poolPost(sock, uri, body) {
	const b = JSON.stringify(body);
	return fcgiRequest({ sock, stdin: b, params: fcgiParams('POST', uri, {
	    CONTENT_TYPE: 'application/json',
	    CONTENT_LENGTH: String(Buffer.byteLength(b)) }) });
}

test('two pools, one an hour behind, agree: time is the DB\'s', async () => {
	const b = await startExtraPool({ clockOffset: '-1h' });
	try {
		// The pool runs under libfaketime (its clock an hour behind).
		const maps = fs.readFileSync(`/proc/${b.pid}/maps`, 'utf8');
		assert.match(maps, /libfaketime/);
		const q = createQueue({ rate: 60, burst: 1 });
		const slug = q.slug;
		const h = await poolGet(b.sock, '/queue/healthz');
		assert.equal(h.status, 200);

		// Admitted by A (through nginx) at once: B gives the token.
		const j1 = await join(slug);
		assert.equal(j1.json.admitted, true);
		const tb1 = await poolPost(b.sock, `/queue/${slug}/token`,
		    { number: 1, ticket: j1.json.ticket });
		assert.equal(tb1.status, 200, tb1.body);

		// Number 2 joins at B and waits a second; A and B say the
		// same serving at every instant they both answer.
		const j2 = await poolPost(b.sock, `/queue/${slug}/join`, {});
		assert.equal(j2.status, 200, j2.body);
		assert.equal(j2.json.number, 2);
		assert.equal(j2.json.admitted, false);
		let same = 0;
		const seen = new Set();
		// Until serving has moved on to 2 between compared instants.
		for (let i = 0; i < 60 && (same < 5 || !seen.has(2)); i++) {
			const a1 = await status(slug, 2);
			const bb = await poolGet(b.sock,
			    `/queue/${slug}/status?number=2`);
			const a2 = await status(slug, 2);
			if (a1.json.serving !== a2.json.serving)
				continue;	/* a tick in between */
			assert.equal(bb.json.serving, a1.json.serving,
			    `B (clock -1 h) and A agree at ${i}`);
			seen.add(a1.json.serving);
			same++;
			await sleep(150);
		}
		assert.ok(same >= 5, `compared ${same} instants`);
		assert.ok(seen.has(2), `compared after serving reached 2: ` +
		    `${[...seen]}`);

		// Told admitted by A, number 2 gets its token from B (no 425).
		await waitFor(async () => (await status(slug, 2)).json.admitted,
		    3000, 50, 'number 2 admitted at A');
		const tb2 = await poolPost(b.sock, `/queue/${slug}/token`,
		    { number: 2, ticket: j2.json.ticket });
		assert.equal(tb2.status, 200, tb2.body);
		const c = claims(tb2.json.token, q.secret, slug);
		assert.equal(c.qnr, 2);
		// B stamps tokens with the DB's time, not its own.
		assert.ok(Math.abs(c.iat - Date.now() / 1000) < 5,
		    `iat ${c.iat} is now, not an hour ago`);
	} finally {
		await b.stop();
	}
});
