// The visitor's full path (join -> status -> early token 425 -> admitted
// -> token -> verify), healthz and info, and ticket ownership.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import jwt from 'jsonwebtoken';
import {
	admittedToken, createQueue, ctl, join, status, token, verify, info, req, waitFor,
	nowS,
} from './lib.mjs';

const RATE_FIELDS = ['serving', 'ahead', 'estimatedWaitSeconds',
    'retryAfterSeconds'];

function assertInt(v, what) {
	assert.equal(typeof v, 'number', `${what} is a number`);
	assert.ok(Number.isInteger(v), `${what} is an integer: ${v}`);
}

function assertRetryAfter(res, body) {
	const ra = res.headers.get('retry-after');
	assert.match(ra ?? '', /^[0-9]+$/, 'Retry-After header');
	assert.equal(Number(ra), body.retryAfterSeconds);
	assert.ok(body.retryAfterSeconds >= 1 && body.retryAfterSeconds <= 30,
	    `retryAfterSeconds in 1..30: ${body.retryAfterSeconds}`);
}

test('GET /queue/healthz answers 200 {"status":"ok"}', async () => {
	const r = await req('/queue/healthz');
	assert.equal(r.status, 200);
	assert.deepEqual(r.json, { status: 'ok' });
	assert.match(r.headers.get('content-type'), /^application\/json/);
});

test('full path: join, status, 425, admitted, token, verify', async () => {
	const q = createQueue({ rate: 1, burst: 1 });

	// The first joiner passes at once (A = burst = 1).
	const j1 = await join(q.slug);
	assert.equal(j1.status, 200, j1.text);
	assert.equal(j1.json.number, 1);
	assert.equal(j1.json.admitted, true);
	assert.equal(j1.json.serving, 1);
	assert.equal(j1.json.ahead, 0);
	assert.equal(j1.json.estimatedWaitSeconds, 0);

	// The second waits about 60 s.
	const j2 = await join(q.slug);
	assert.equal(j2.status, 200, j2.text);
	const b = j2.json;
	assert.deepEqual(Object.keys(b).sort(), ['admitted', 'ahead',
	    'estimatedWaitSeconds', 'name', 'number', 'queue',
	    'retryAfterSeconds', 'serving', 'ticket'].sort());
	assert.equal(b.queue, q.slug);
	assert.equal(b.name, q.name);
	assert.equal(b.number, 2);
	assert.equal(b.admitted, false);
	assert.equal(b.serving, 1);
	assert.equal(b.ahead, 0);
	assert.equal(typeof b.ticket, 'string');
	assert.match(b.ticket, /^[A-Za-z0-9_-]{16,}$/, 'ticket is base64url');
	for (const f of RATE_FIELDS)
		assertInt(b[f], f);
	assert.ok(b.estimatedWaitSeconds >= 0 && b.estimatedWaitSeconds <= 60,
	    `estimatedWaitSeconds ${b.estimatedWaitSeconds}`);
	assertRetryAfter(j2, b);

	// Status for the same number: same facts, read-only.
	const s = await status(q.slug, 2);
	assert.equal(s.status, 200, s.text);
	assert.deepEqual(Object.keys(s.json).sort(), ['active', 'admitted',
	    'ahead', 'estimatedWaitSeconds', 'name', 'number', 'queue',
	    'retryAfterSeconds', 'serving'].sort());
	assert.equal(s.json.queue, q.slug);
	assert.equal(s.json.name, q.name);
	assert.equal(s.json.active, true);
	assert.equal(s.json.number, 2);
	assert.equal(s.json.serving, 1);
	assert.equal(s.json.ahead, 0);
	assert.equal(s.json.admitted, false);
	for (const f of RATE_FIELDS)
		assertInt(s.json[f], f);
	assertRetryAfter(s, s.json);

	// Too early for a token.
	const early = await token(q.slug, { number: 2, ticket: b.ticket });
	assert.equal(early.status, 425, early.text);
	assert.equal(early.json.error, 'not_admitted');
	assert.equal(typeof early.json.message, 'string');

	// Raise the rate: admitted within the status cache time.
	assert.match(ctl('set-rate', q.slug, 6000), /ok/);
	const st = await waitFor(async () => {
		const r = await status(q.slug, 2);
		return r.status === 200 && r.json.admitted ? r : null;
	}, 3000, 100, 'number 2 admitted');
	assert.equal(st.json.ahead, 0);
	assert.equal(st.json.estimatedWaitSeconds, 0);
	assert.ok(st.json.serving >= 2);

	const t = await waitFor(async () => {
		const r = await token(q.slug, { number: 2, ticket: b.ticket });
		return r.status === 200 ? r : null;
	}, 3000, 100, 'token for number 2');
	assert.deepEqual(Object.keys(t.json).sort(), ['expiresInSeconds',
	    'number', 'queue', 'targetUrl', 'token', 'tokenType'].sort());
	assert.equal(t.json.queue, q.slug);
	assert.equal(t.json.number, 2);
	assert.equal(t.json.tokenType, 'JWT');
	assert.equal(t.json.expiresInSeconds, 600);
	assert.equal(t.json.targetUrl, q.target);

	const claims = jwt.verify(t.json.token, q.secret, {
		algorithms: ['HS256'], issuer: 'aditus-queue', audience: q.slug,
	});
	assert.equal(claims.qnr, 2);
	assert.equal(claims.iss, 'aditus-queue');
	assert.equal(claims.aud, q.slug);
	assert.ok(Number.isInteger(claims.iat));
	assert.ok(Math.abs(claims.iat - nowS()) <= 5, `iat ${claims.iat}`);
	assert.equal(claims.exp - claims.iat, 600);
	assert.equal(JSON.parse(Buffer.from(t.json.token.split('.')[0],
	    'base64url')).alg, 'HS256');

	const v = await verify(q.slug, t.json.token);
	assert.equal(v.status, 200);
	assert.deepEqual(v.json, { valid: true, number: 2,
	    expiresAt: claims.exp });

	// A number never issued: 404 on status.
	const s3 = await status(q.slug, 3);
	assert.equal(s3.status, 404);
	assert.equal(s3.json.error, 'number_not_found');
});

test('a token-ttl set at creation is used in the token', async () => {
	const q = createQueue({ rate: 600, tokenTtl: 120 });
	const t = await admittedToken(q.slug);
	assert.equal(t.expiresInSeconds, 120);
	const c = jwt.verify(t.token, q.secret, { algorithms: ['HS256'],
	    issuer: 'aditus-queue', audience: q.slug });
	assert.equal(c.exp - c.iat, 120);
});

test('info reports serving and waiting', async () => {
	const q = createQueue({ rate: 1, burst: 2 });
	for (let i = 0; i < 5; i++)
		assert.equal((await join(q.slug)).status, 200);
	// info reads the per-process queue cache (<= 1 s old).
	const r = await waitFor(async () => {
		const x = await info(q.slug);
		return x.status !== 200 || x.json.waiting === 3 ? x : null;
	}, 3000, 100, 'info waiting 3');
	assert.equal(r.status, 200, r.text);
	assert.deepEqual(Object.keys(r.json).sort(),
	    ['active', 'name', 'queue', 'serving', 'sessionRenewal',
	    'waiting'].sort());
	assert.equal(r.json.sessionRenewal, false, 'off by default');
	assert.equal(r.json.queue, q.slug);
	assert.equal(r.json.name, q.name);
	assert.equal(r.json.active, true);
	assert.equal(r.json.serving, 2);
	assert.equal(r.json.waiting, 3);
});

test('tickets: a number alone never yields a token', async (t) => {
	const q = createQueue({ rate: 600 });
	const other = createQueue({ rate: 600 });
	const a = (await join(q.slug)).json;
	const b = (await join(q.slug)).json;
	const o = (await join(other.slug)).json;
	assert.equal(a.number, 1);
	assert.equal(b.number, 2);
	assert.equal(o.number, 1);
	assert.equal(a.admitted && b.admitted && o.admitted, true);

	const cases = [
		['someone else\'s number with my ticket',
		    { number: b.number, ticket: a.ticket }],
		['no ticket', { number: a.number }],
		['null ticket', { number: a.number, ticket: null }],
		['empty ticket', { number: a.number, ticket: '' }],
		['wrong ticket', { number: a.number,
		    ticket: 'AAAAAAAAAAAAAAAAAAAAAA' }],
		['ticket with one character changed', { number: a.number,
		    ticket: (a.ticket[0] === 'A' ? 'B' : 'A') +
		    a.ticket.slice(1) }],
		['ticket as a number', { number: a.number, ticket: 12345 }],
		['queue B ticket (same number) on queue A',
		    { number: o.number, ticket: o.ticket }],
		['never-issued number (ticket checked first)',
		    { number: 999, ticket: a.ticket }],
	];
	for (const [name, body] of cases) {
		await t.test(name, async () => {
			const r = await token(q.slug, body);
			assert.equal(r.status, 403, r.text);
			assert.equal(r.json.error, 'invalid_ticket');
			assert.equal(typeof r.json.message, 'string');
		});
	}
	await t.test('ticket with a NUL appended: refused', async () => {
		// A NUL inside a JSON string may be refused by the parser
		// (400 invalid_json) or by the ticket check (403); never a
		// token.
		const r = await token(q.slug, { number: a.number,
		    ticket: a.ticket + '\u0000' });
		assert.ok(r.status === 403 && r.json.error === 'invalid_ticket' ||
		    r.status === 400 && r.json.error === 'invalid_json', r.text);
	});
	await t.test('queue A ticket on queue B', async () => {
		const r = await token(other.slug,
		    { number: a.number, ticket: a.ticket });
		assert.equal(r.status, 403, r.text);
		assert.equal(r.json.error, 'invalid_ticket');
	});
	await t.test('the right ticket works (control)', async () => {
		const r = await token(q.slug, { number: b.number,
		    ticket: b.ticket });
		assert.equal(r.status, 200, r.text);
		assert.equal(r.json.number, b.number);
	});
	await t.test('wrong ticket on a waiting number: 403, not 425',
	    async () => {
		const slow = createQueue({ rate: 1, burst: 1 });
		await join(slow.slug);
		const w = (await join(slow.slug)).json;
		assert.equal(w.admitted, false);
		const r = await token(slow.slug, { number: w.number,
		    ticket: a.ticket });
		assert.equal(r.status, 403, r.text);
		assert.equal(r.json.error, 'invalid_ticket');
		const r2 = await token(slow.slug, { number: w.number,
		    ticket: w.ticket });
		assert.equal(r2.status, 425, r2.text);
		assert.equal(r2.json.error, 'not_admitted');
	});
});

test('waiting-room page: HTML, name escaped, paused state', async () => {
	const name = 'Sale <b>"&\' ünïcode';
	const q = createQueue({ rate: 60, name });
	const r = await req(`/queue/${q.slug}`);
	assert.equal(r.status, 200);
	assert.match(r.headers.get('content-type'), /^text\/html/);
	assert.ok(r.text.includes(`data-slug="${q.slug}"`));
	assert.ok(!r.text.includes('<b>"&'), 'name is escaped');
	assert.ok(r.text.includes('Sale &lt;b&gt;'), 'escaped name shown');
	assert.ok(r.text.includes('ünïcode'), 'UTF-8 kept');
	assert.match(r.text, /data-active="true"/);
	const i = await info(q.slug);
	assert.equal(i.json.name, name, 'JSON carries the name as is');
	ctl('pause', q.slug);
	await waitFor(async () => {
		const p = await req(`/queue/${q.slug}`);
		return /data-active="false"/.test(p.text);
	}, 3000, 100, 'the page to show the paused state');
});
