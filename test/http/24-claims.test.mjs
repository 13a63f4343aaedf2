// Claims of the README and SPEC that had no test: status and token reads
// make no database query per request (the server's own counters), a TCP
// listen on loopback serves FastCGI, and token-leeway accepts a token
// expired within the leeway and not one second beyond.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import {
	createQueue, join, status, token, verify, dbStatus, stackConf,
	startExtraPool, fcgiRequest, fcgiParams, decodeJWTPayload, sleep,
	admittedToken,
} from './lib.mjs';

const STATUS_BOUND_MS = 250;	// status-cache-ms, default
const TOKEN_BOUND_MS = 100;	// token-state-ms, default
// The admission state is read again when older than this (qcache.c:
// half of ADM_TICK_MS, so that every answer agrees with the row).
const STATE_BOUND_MS = 125;

// Statements the server ran, of every kind (prepared or not, BEGIN and
// COMMIT too); reading the counter costs a few itself (measured below).
const executed = () => dbStatus('Queries');

// par(n, c, fn): n calls of fn(i), c at a time.
async function par(n, c, fn) {
	const out = [];
	let i = 0;
	await Promise.all(Array.from({ length: c }, async () => {
		while (i < n) {
			const k = i++;
			out[k] = await fn(k);
		}
	}));
	return out;
}

test('500 status polls and 200 token reads: database reads bounded by ' +
    'time, not by requests', async () => {
	const workers = Number(stackConf('workers') ?? 4);
	const q = createQueue({ rate: 6000 });
	const js = [];
	for (let i = 0; i < 5; i++) {
		const j = await join(q.slug);
		assert.equal(j.status, 200, j.text);
		js.push(j.json);
	}
	// Every worker has the row with all five numbers.
	await par(64, 32, () => status(q.slug, 5));

	// What one look at the counter adds to it, on an idle server (the
	// least of a few looks: background work such as the worker's and
	// the pool masters' reports may land in one).
	let idle = Infinity;
	for (let i = 0; i < 5; i++) {
		const idle0 = executed();
		idle = Math.min(idle, executed() - idle0);
	}
	// The counter sees the app: past the cache bound, polls read.
	await sleep(STATUS_BOUND_MS + 50);
	const p0 = executed();
	await par(32, 32, () => status(q.slug, 1));
	assert.ok(executed() - p0 - idle >= 1, 'an expired cache is read');

	let c0 = executed();
	let t0 = Date.now();
	const ss = await par(500, 16, (k) => status(q.slug, 1 + k % 5));
	let ms = Date.now() - t0;
	let delta = executed() - c0;
	for (const s of ss)
		assert.equal(s.status, 200, s.text);
	// Per worker: the state every STATE_BOUND_MS and a full row every
	// STATUS_BOUND_MS (and at both ends).
	let bound = workers * (Math.ceil(ms / STATE_BOUND_MS) + 1 +
	    Math.ceil(ms / STATUS_BOUND_MS) + 1) + 2 + idle;
	assert.ok(delta <= bound, `${delta} statements for 500 polls in ` +
	    `${ms} ms; bound ${bound}`);

	c0 = executed();
	t0 = Date.now();
	const ts = await par(200, 16, (k) => token(q.slug,
	    { number: js[k % 5].number, ticket: js[k % 5].ticket }));
	ms = Date.now() - t0;
	delta = executed() - c0;
	for (const t of ts)
		assert.equal(t.status, 200, t.text);
	// Per worker: the state every TOKEN_BOUND_MS, the row as above;
	// and the fairness report's record of a number's first token, at
	// most once per number in each process (the pool has workers + 1).
	bound = workers * (Math.ceil(ms / TOKEN_BOUND_MS) + 1 +
	    Math.ceil(ms / STATUS_BOUND_MS) + 1) + 2 + idle +
	    js.length * (workers + 1);
	assert.ok(delta <= bound, `${delta} statements for 200 token reads ` +
	    `in ${ms} ms; bound ${bound}`);
	assert.ok(delta < 200, 'fewer reads than requests');
});

// A free TCP port on loopback.
function freePort() {
	return new Promise((resolve, reject) => {
		const s = net.createServer();
		s.on('error', reject);
		s.listen(0, '127.0.0.1', () => {
			const { port } = s.address();
			s.close(() => resolve(port));
		});
	});
}

test('a TCP listen on 127.0.0.1 answers raw FastCGI', async () => {
	const q = createQueue({ rate: 600 });
	const port = await freePort();
	const pool = await startExtraPool({ listen: `127.0.0.1:${port}` });
	try {
		assert.deepEqual(pool.sock, { host: '127.0.0.1', port });
		const r = await fcgiRequest({ sock: pool.sock,
		    params: fcgiParams('GET', `/queue/${q.slug}/info`) });
		assert.equal(r.status, 200, r.body);
		assert.deepEqual(r.json, { queue: q.slug, name: q.name,
		    active: true, serving: 100, waiting: 0 });
	} finally {
		const how = await pool.stop();
		assert.deepEqual(how, { code: 0, sig: null });
	}
});

// Sleep until the wall clock's second is at least s.
async function untilSecond(s) {
	while (Math.floor(Date.now() / 1000) < s)
		await sleep(50);
}

test('token-leeway = 3: a token expired 1-2 s ago verifies, at 3 s not',
    async () => {
	const q = createQueue({ rate: 600, tokenTtl: 1 });
	const pool = await startExtraPool({ extra: 'token-leeway = 3' });
	const leewayVerify = async (tok) => (await fcgiRequest({
	    sock: pool.sock, params: fcgiParams('GET', `/queue/${q.slug}/` +
	    `verify?token=${encodeURIComponent(tok)}`) })).json;
	try {
		const t = await admittedToken(q.slug);
		const { iat, exp } = decodeJWTPayload(t.token);
		assert.equal(exp, iat + 1);
		// now in [exp + 1, exp + 2]: expired, but within 3 s.
		await untilSecond(exp + 1);
		const strict = (await verify(q.slug, t.token)).json;
		const lenient = await leewayVerify(t.token);
		const now = Math.floor(Date.now() / 1000);
		assert.ok(now <= exp + 2, `checked at exp + ${now - exp}`);
		assert.deepEqual(strict, { valid: false, reason: 'expired' });
		assert.equal(lenient.valid, true, JSON.stringify(lenient));
		assert.equal(lenient.number, t.number);
		// now >= exp + 3: beyond the leeway.
		await untilSecond(exp + 3);
		assert.deepEqual(await leewayVerify(t.token),
		    { valid: false, reason: 'expired' });
	} finally {
		await pool.stop();
	}
});
