// Operator changes hold on every process within a small, documented
// bound: /token re-reads the admission state once its copy is older than
// token-state-ms (100 ms), status and info once it is older than
// status-cache-ms (250 ms), and the full row (secret, target, shop
// domains) within status-cache-ms too.  Requests go out in parallel
// rounds so that every worker of the pool answers.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import jwt from 'jsonwebtoken';
import {
	createQueue, ctl, join, status, token, verify, show, sleep,
	admittedToken, dbSQL,
} from './lib.mjs';

const TOKEN_BOUND_MS = 100;	// token-state-ms, default
const STATUS_BOUND_MS = 250;	// status-cache-ms, default
const MARGIN_MS = 60;
const PARALLEL = 32;

// rounds(n, fn): n rounds of PARALLEL parallel calls; all results.
async function rounds(n, fn) {
	const out = [];
	for (let i = 0; i < n; i++)
		out.push(...await Promise.all(Array.from({ length: PARALLEL },
		    (_, k) => fn(k))));
	return out;
}

test('pause: after the bound no process issues a token past the ' +
    'frozen serving number', async () => {
	const q = createQueue({ rate: 600, burst: 1 });
	const held = [];
	await Promise.all(Array.from({ length: 10 }, async () => {
		for (let i = 0; i < 20; i++) {
			const r = await join(q.slug);
			assert.equal(r.status, 200, r.text);
			held.push(r.json);
		}
	}));
	const byNumber = new Map(held.map((x) => [x.number, x.ticket]));
	// Every worker holds the row and a state that is still running.
	await rounds(2, () => status(q.slug, 1));

	assert.match(ctl('pause', q.slug), /ok/);
	const tPause = Date.now();
	const frozen = show(q.slug).serving;
	assert.ok(frozen >= 1 && frozen + 10 <= 200,
	    `frozen serving ${frozen}: numbers are still waiting`);
	await sleep(Math.max(0, tPause + TOKEN_BOUND_MS + MARGIN_MS -
	    Date.now()));

	// For a second (10 numbers' worth at this rate), from every process.
	const end = Date.now() + 1000;
	const answers = [];
	while (Date.now() < end) {
		answers.push(...await Promise.all(Array.from({ length: PARALLEL },
		    (_, k) => {
			const n = frozen + 1 + (k % 3);
			return token(q.slug, { number: n,
			    ticket: byNumber.get(n) });
		})));
	}
	assert.ok(answers.length >= PARALLEL * 3);
	for (const a of answers) {
		assert.equal(a.status, 425, a.text);
		assert.equal(a.json.error, 'not_admitted');
	}
	// Admitted before the pause: still gets its token everywhere.
	const mine = await rounds(1, () => token(q.slug, { number: frozen,
	    ticket: byNumber.get(frozen) }));
	for (const a of mine)
		assert.equal(a.status, 200, a.text);

	// Status everywhere: paused, the same frozen serving number.
	await sleep(Math.max(0, tPause + STATUS_BOUND_MS + MARGIN_MS -
	    Date.now()));
	const st = await rounds(3, () => status(q.slug, frozen + 1));
	for (const s of st) {
		assert.equal(s.status, 200, s.text);
		assert.equal(s.json.active, false);
		assert.equal(s.json.serving, frozen);
		assert.equal(s.json.admitted, false);
	}
	const j = await join(q.slug);
	assert.equal(j.status, 423, j.text);
});

test('rotate-secret end to end: old tokens fail everywhere after the ' +
    'bound, new ones verify', async () => {
	const q = createQueue({ rate: 6000 });
	const old = await admittedToken(q.slug);
	jwt.verify(old.token, q.secret, { algorithms: ['HS256'],
	    issuer: 'aditus-queue', audience: q.slug });
	for (const v of await rounds(1, () => verify(q.slug, old.token)))
		assert.equal(v.json.valid, true, v.text);

	const out = ctl('rotate-secret', q.slug);
	const tRotate = Date.now();
	const lines = out.split('\n').filter((l) => /^secret:/.test(l));
	assert.equal(lines.length, 1, out);
	const m = /^secret: ([A-Za-z0-9_-]{43})$/.exec(lines[0]);
	assert.ok(m !== null, out);
	const secret = m[1];
	assert.equal(out.split(secret).length - 1, 1, "printed once");
	assert.notEqual(secret, q.secret);
	assert.equal(JSON.stringify(show(q.slug)).includes(secret), false,
	    'the secret is shown once, never again');

	await sleep(Math.max(0, tRotate + STATUS_BOUND_MS + MARGIN_MS -
	    Date.now()));
	for (const v of await rounds(3, () => verify(q.slug, old.token))) {
		assert.equal(v.status, 200, v.text);
		assert.deepEqual(v.json, { valid: false,
		    reason: 'bad_signature' });
	}
	// A new token from every process, signed with the new secret.
	const j = await join(q.slug);
	assert.equal(j.status, 200, j.text);
	const fresh = await rounds(1, () => token(q.slug,
	    { number: j.json.number, ticket: j.json.ticket }));
	for (const t of fresh) {
		assert.equal(t.status, 200, t.text);
		const c = jwt.verify(t.json.token, secret, {
		    algorithms: ['HS256'], issuer: 'aditus-queue',
		    audience: q.slug });
		assert.equal(c.qnr, j.json.number);
		assert.throws(() => jwt.verify(t.json.token, q.secret,
		    { algorithms: ['HS256'] }), /invalid signature/);
	}
	for (const v of await rounds(2, (k) => verify(q.slug,
	    fresh[k].json.token))) {
		assert.equal(v.json.valid, true, v.text);
		assert.equal(v.json.number, j.json.number);
	}
});

test('a new target URL is in every process\'s tokens after the bound',
    async () => {
	const q = createQueue({ rate: 6000 });
	const j = await join(q.slug);
	assert.equal(j.status, 200, j.text);
	const body = { number: j.json.number, ticket: j.json.ticket };
	for (const t of await rounds(1, () => token(q.slug, body)))
		assert.equal(t.json.targetUrl, 'https://shop.example/');
	dbSQL('UPDATE queue SET target_url = \'https://shop.example/new\' ' +
	    `WHERE slug = '${q.slug}'`);
	const tChange = Date.now();
	await sleep(Math.max(0, tChange + STATUS_BOUND_MS + MARGIN_MS -
	    Date.now()));
	for (const t of await rounds(3, () => token(q.slug, body))) {
		assert.equal(t.status, 200, t.text);
		assert.equal(t.json.targetUrl, 'https://shop.example/new');
	}
});
