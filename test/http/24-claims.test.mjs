// Claims of the README and SPEC that had no test: status and token reads
// make no database query per request (the database's counters of the
// pool's own connections), a TCP
// listen on loopback serves FastCGI, and token-leeway accepts a token
// expired within the leeway and not one second beyond.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { readFileSync } from 'node:fs';
import {
	createQueue, join, status, token, verify, dbSQL, stackConf,
	startExtraPool, fcgiRequest, fcgiParams, decodeJWTPayload, sleep,
	admittedToken, childPids, env,
} from './lib.mjs';

const STATUS_BOUND_MS = 250;	// status-cache-ms, default
const TOKEN_BOUND_MS = 100;	// token-state-ms, default
// The admission state is read again when older than this (qcache.c:
// half of ADM_TICK_MS, so that every answer agrees with the row).
const STATE_BOUND_MS = 125;

// Statements the stack pool's FastCGI processes ran, of every kind
// (prepared or not, BEGIN and COMMIT too): performance_schema's count of
// the statement events of the database connections whose client process
// (connection attribute _pid) is a child of the pool's master.  Not the
// server's global counter: that also counts what runs beside the requests
// (the worker, the master's reports and poll documents) and these looks
// at the counter.  Each of the n processes has its one connection, or the
// count means nothing.
function executed(n) {
	const master = Number(readFileSync(`${env.vardir}/run/aqueue-fcgi.pid`,
	    'utf8').trim());
	const pids = childPids(master);
	assert.equal(pids.length, n, `the pool's processes: ${pids}`);
	const [[sum, conns]] = dbSQL('SELECT COALESCE(SUM(e.n), 0), COUNT(*) ' +
	    'FROM performance_schema.session_connect_attrs a ' +
	    'JOIN performance_schema.threads t ' +
	    'ON t.PROCESSLIST_ID = a.PROCESSLIST_ID ' +
	    'LEFT JOIN (SELECT THREAD_ID, SUM(COUNT_STAR) AS n FROM ' +
	    'performance_schema.events_statements_summary_by_thread_by_' +
	    "event_name WHERE EVENT_NAME LIKE 'statement/%' " +
	    'GROUP BY THREAD_ID) e ON e.THREAD_ID = t.THREAD_ID ' +
	    `WHERE a.ATTR_NAME = '_pid' AND a.ATTR_VALUE IN ('${
	    pids.join("', '")}')`);
	assert.equal(Number(conns), n, 'one connection per process');
	return Number(sum);
}

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

	// The counter sees the app: past the cache bound, polls read.
	await sleep(STATUS_BOUND_MS + 50);
	const p0 = executed(workers);
	await par(32, 32, () => status(q.slug, 1));
	assert.ok(executed(workers) - p0 >= 1, 'an expired cache is read');

	let c0 = executed(workers);
	let t0 = Date.now();
	const ss = await par(500, 16, (k) => status(q.slug, 1 + k % 5));
	let ms = Date.now() - t0;
	let delta = executed(workers) - c0;
	for (const s of ss)
		assert.equal(s.status, 200, s.text);
	// Per worker: the state every STATE_BOUND_MS and a full row every
	// STATUS_BOUND_MS (and at both ends).
	let bound = workers * (Math.ceil(ms / STATE_BOUND_MS) + 1 +
	    Math.ceil(ms / STATUS_BOUND_MS) + 1) + 2;
	assert.ok(delta <= bound, `${delta} statements for 500 polls in ` +
	    `${ms} ms; bound ${bound}`);

	c0 = executed(workers);
	t0 = Date.now();
	const ts = await par(200, 16, (k) => token(q.slug,
	    { number: js[k % 5].number, ticket: js[k % 5].ticket }));
	ms = Date.now() - t0;
	delta = executed(workers) - c0;
	for (const t of ts)
		assert.equal(t.status, 200, t.text);
	// Per worker: the state every TOKEN_BOUND_MS, the row as above;
	// and the fairness report's record of a number's first token, at
	// most once per number in each worker.
	bound = workers * (Math.ceil(ms / TOKEN_BOUND_MS) + 1 +
	    Math.ceil(ms / STATUS_BOUND_MS) + 1) + 2 + js.length * workers;
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
		    active: true, serving: 100, waiting: 0,
		    sessionRenewal: false });
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
