// The database hangs (SPEC section 10: "DB hanging ... treated like DB
// down"): its connections stay open and nothing answers, once because
// the server is stopped (SIGSTOP), once because a TCP relay in front of
// it stops forwarding.  Under a load of visitors, for 30 s:
//  - status, info and the poll document answer with p99 under 50 ms,
//    "stale": true once the cached row is due (the document is nginx's
//    file: it keeps answering 200);
//  - joins and tokens answer 503 with Retry-After within 1.5 s;
//  - no worker is stuck: 64 parallel status requests all answer fast;
//  - after the hang everything is back within 2 s, and exactly: last
//    number after = before + joins answered 200 + numbers voided (a join
//    answered 503 whose number was issued all the same), each voided
//    number one that no join answered 200 got.
// A worker that dies during the hang is replaced at once: the pool's
// master is not stuck on the database either.  And the void itself,
// made certain: the relay holds only the answers (one direction), a
// join is answered 503 meanwhile, its statement commits; the number is
// voided, counted, logged, its place given back.
//
// This file stops the stack's MariaDB (test/run runs one file at a time)
// and always lets it go on (SIGCONT) in a finally and an after() hook.

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import {
	createQueue, req, postJSON, show, sleep, waitFor, env, dbSQL,
	startExtraPool, fcgiRequest, fcgiParams, childPids, stackConf,
	CACHE_MS, TIME_SCALE,
} from './lib.mjs';

const HOLD_MS = 30000;		// how long the database hangs
// status, info, the poll document; join and token, 503 included
const READ_P99_MS = 50 * TIME_SCALE;
const WRITE_MAX_MS = 1500 * TIME_SCALE;
const BACK_MS = 2000;		// after the hang, joins work again
const BUDGET_MS = 1000;		// db-visitor-timeout-ms: the longest wait

// ---- the stack's database, stopped and let go on --------------------------

let stoppedPid = null;

function dbPid() {
	const pid = Number(readFileSync(`${env.vardir}/db/mysqld.pid`, 'utf8')
	    .trim());
	assert.ok(Number.isInteger(pid) && pid > 1, `mysqld.pid: ${pid}`);
	return pid;
}

function dbFreeze() {
	stoppedPid = dbPid();
	process.kill(stoppedPid, 'SIGSTOP');
}

function dbThaw() {
	if (stoppedPid === null)
		return;
	const pid = stoppedPid;
	stoppedPid = null;
	process.kill(pid, 'SIGCONT');
}

after(dbThaw);

// ---- a TCP relay that can stop forwarding ----------------------------------

// startRelay(): a relay on 127.0.0.1 to the stack's MariaDB (its unix
// socket: the stack's server has no TCP port).  stall(up, down) stops
// forwarding towards the server (up) and/or towards the client (down):
// the bytes are held and the sockets stay open; resume() sends what was
// held and forwards again.  Resolves {port, stall, resume, close}.
function startRelay() {
	const fwd = { up: true, down: true };
	const pairs = new Set();
	const server = net.createServer((c) => {
		const u = net.createConnection(`${env.vardir}/db/mysqld.sock`);
		const p = { c, u, up: [], down: [] };
		pairs.add(p);
		c.on('data', (d) => {
			if (fwd.up)
				u.write(d);
			else
				p.up.push(d);
		});
		u.on('data', (d) => {
			if (fwd.down)
				c.write(d);
			else
				p.down.push(d);
		});
		const end = () => {
			c.destroy();
			u.destroy();
			pairs.delete(p);
		};
		for (const s of [c, u]) {
			s.on('error', end);
			s.on('close', end);
		}
	});
	return new Promise((resolve) => server.listen(0, '127.0.0.1', () =>
	    resolve({
		port: server.address().port,
		stall(up = true, down = true) {
			fwd.up = !up;
			fwd.down = !down;
		},
		resume() {
			fwd.up = fwd.down = true;
			for (const p of pairs) {
				for (const d of p.up.splice(0))
					p.u.write(d);
				for (const d of p.down.splice(0))
					p.c.write(d);
			}
		},
		close() {
			for (const p of pairs) {
				p.c.destroy();
				p.u.destroy();
			}
			return new Promise((r) => server.close(r));
		},
	})));
}

// ---- clients: through nginx, or raw FastCGI to a pool ----------------------

// A client's answer: {status, retryAfter (string or null), json, text}.
function answer(status, retryAfter, json, text = '') {
	return { status, retryAfter: retryAfter ?? null, json, text };
}

// Requests through the stack's nginx.
const viaNginx = {
	async get(path) {
		const r = await req(path);
		return answer(r.status, r.headers.get('retry-after'), r.json,
		    r.text);
	},
	async post(path, body) {
		const r = body === undefined ? await req(path, { method: 'POST' }) :
		    await postJSON(path, body);
		return answer(r.status, r.headers.get('retry-after'), r.json,
		    r.text);
	},
};

// Requests as raw FastCGI on a pool's socket.
function viaPool(sock) {
	return {
		async get(path) {
			const r = await fcgiRequest({ sock, timeoutMs: 20000,
			    params: fcgiParams('GET', path) });
			return answer(r.status, r.headers['retry-after'], r.json,
			    r.body);
		},
		async post(path, body) {
			const s = body === undefined ? '' : JSON.stringify(body);
			const r = await fcgiRequest({ sock, stdin: s,
			    timeoutMs: 20000, params: fcgiParams('POST', path,
			    body === undefined ? {} : {
			    CONTENT_TYPE: 'application/json',
			    CONTENT_LENGTH: String(Buffer.byteLength(s)) }) });
			return answer(r.status, r.headers['retry-after'], r.json,
			    r.body);
		},
	};
}

// The samples of an OpenMetrics text: {"name{labels}": value}.
function samples(text) {
	const out = {};
	for (const line of text.split('\n')) {
		if (line === '' || line.startsWith('#'))
			continue;
		const i = line.lastIndexOf(' ');
		out[line.slice(0, i)] = Number(line.slice(i + 1));
	}
	return out;
}

// The answering pool's late-join counters for slug: {voided, unknown}.
async function lateCounts(client, slug) {
	const r = await waitFor(async () => {
		const m = await client.get('/metrics');
		return m.status === 200 ? m : null;
	}, 10000, 200, '/metrics');
	const s = samples(r.text);
	const voided = s[`aqueue_queue_joins_voided_total{queue="${slug}"}`];
	const unknown = s.aqueue_joins_outcome_unknown_total;
	assert.equal(typeof voided, 'number', 'voided counter exposed');
	assert.equal(typeof unknown, 'number', 'unknown counter exposed');
	return { voided, unknown };
}

// The numbers a pool's log says it voided for queue id.
function voidedInLog(file, id) {
	const re = new RegExp(`join: queue ${id}: number (\\d+) was issued ` +
	    'after its join had been answered 503', 'g');
	return [...readFileSync(file, 'utf8').matchAll(re)]
	    .map((m) => Number(m[1]));
}

const p99 = (xs) => {
	const s = [...xs].sort((a, b) => a - b);
	return s.length === 0 ? 0 : s[Math.ceil(s.length * 0.99) - 1];
};

// ---- the load -------------------------------------------------------------

// startLoad(client, q): visitors until stop(): `polls` loops reading
// status (of number, known to every process), info and the poll
// document in turn; `writers` loops alternating a join and a token
// (for number with its ticket, admitted).  Every answer is kept as
// {kind, at, end, ms, status, retryAfter, json} (performance.now() ms).
function startLoad(client, { slug, number, ticket, doc }, polls = 8,
    writers = 4) {
	const events = [];
	let running = true;
	const one = async (kind, fn) => {
		const at = performance.now();
		let r;
		try {
			r = await fn();
		} catch (e) {
			r = answer(0, null, { error: String(e) });
		}
		const end = performance.now();
		events.push({ kind, at, end, ms: end - at, ...r });
	};
	const reads = [
		['status', () => client.get(`/queue/${slug}/status?number=` +
		    number)],
		['info', () => client.get(`/queue/${slug}/info`)],
		['doc', () => client.get(doc)],
	];
	const loops = [];
	// A poller waits a little between its reads, so that this process
	// measures the server, not its own queue of callbacks.
	for (let i = 0; i < polls; i++)
		loops.push((async () => {
			for (let k = i; running; k++) {
				await one(...reads[k % reads.length]);
				await sleep(10);
			}
		})());
	for (let i = 0; i < writers; i++)
		loops.push((async () => {
			for (let k = i; running; k++) {
				if (k % 2 === 0)
					await one('join', () => client.post(
					    `/queue/${slug}/join`));
				else
					await one('token', () => client.post(
					    `/queue/${slug}/token`,
					    { number, ticket }));
				// A visitor told 503 comes back a little later.
				await sleep(20);
			}
		})());
	return {
		events,
		async stop() {
			running = false;
			await Promise.all(loops);
		},
	};
}

// ---- one hang, with every assertion ---------------------------------------

// hang(t, o): queue o.slug on client o.client (a pool o.log logs to);
// o.freeze() and o.thaw() make the database hang and go on; o.cacheMs:
// after this long into the hang every process's cached row is due.
async function hang(t, o) {
	const { client, slug } = o;
	const j = await waitFor(async () => {
		const r = await client.post(`/queue/${slug}/join`);
		return r.status === 200 ? r : null;
	}, 10000, 100, 'a first join');
	assert.equal(j.json.admitted, true, 'admitted at once');
	const number = j.json.number;
	const ticket = j.json.ticket;
	// Every process has read the row (and number).
	for (let i = 0; i < 3; i++)
		await Promise.all(Array.from({ length: 32 }, () =>
		    client.get(`/queue/${slug}/status?number=${number}`)));
	const id = show(slug).id;
	const before = show(slug).lastNumber;
	const late0 = await lateCounts(client, slug);

	const load = startLoad(client, { slug, number, ticket, doc: o.doc });
	await sleep(2000);
	let tHang, tBack, burst, health;
	try {
		tHang = performance.now();
		o.freeze();
		await sleep(HOLD_MS / 2);
		// No worker is stuck: each answers at once, from its cache.
		const b0 = performance.now();
		burst = await Promise.all(Array.from({ length: 64 }, async () => {
			const r = await client.get(`/queue/${slug}/status?number=` +
			    number);
			return { ...r, ms: performance.now() - b0 };
		}));
		health = await client.get('/queue/healthz');
		await sleep(HOLD_MS / 2);
	} finally {
		tBack = performance.now();
		o.thaw();
	}
	await sleep(BACK_MS + 2000);
	await load.stop();
	// Anything still in flight has arrived and been voided by now.
	await sleep(1500);
	const late1 = await lateCounts(client, slug);
	const after = show(slug).lastNumber;
	try {
		check(t, o, { ev: load.events, tHang, tBack, burst, health,
		    number, id, before, after, late0, late1 });
	} catch (e) {
		// What the pool said, for whoever reads the failure.
		for (const l of readFileSync(o.log, 'utf8').split('\n')
		    .filter((x) => / (WARN|INFO) /.test(x)).slice(-30))
			t.diagnostic(l);
		throw e;
	}
}

// The assertions of hang() on what it saw.
function check(t, o, { ev, tHang, tBack, burst, health, number, id, before,
    after, late0, late1 }) {
	const { slug } = o;

	// 64 at once, during the hang.
	assert.equal(health.status, 200, 'healthz during the hang');
	for (const r of burst) {
		assert.equal(r.status, 200, JSON.stringify(r.json));
		assert.equal(r.json.stale, true, 'from the old row');
		assert.ok(r.ms < BUDGET_MS, `a status of 64 took ${r.ms} ms`);
	}

	// Answers during the hang (sent and answered within it: one sent
	// just before its end may be read after it).
	const during = ev.filter((e) => e.at >= tHang && e.end < tBack);
	for (const kind of ['status', 'info', 'doc']) {
		const xs = during.filter((e) => e.kind === kind);
		assert.ok(xs.length >= 50, `${kind}: ${xs.length} answers`);
		for (const e of xs)
			assert.equal(e.status, 200,
			    `${kind}: ${e.status} ${JSON.stringify(e.json)}`);
		const p = p99(xs.map((e) => e.ms));
		t.diagnostic(`${kind} during the hang: ${xs.length} answers, ` +
		    `p99 ${p.toFixed(1)} ms, max ${Math.max(...xs.map((e) =>
		    e.ms)).toFixed(1)} ms`);
		assert.ok(p < READ_P99_MS, `${kind} p99 ${p.toFixed(1)} ms`);
	}
	for (const e of during.filter((x) => (x.kind === 'status' ||
	    x.kind === 'info') && x.at >= tHang + o.cacheMs)) {
		assert.equal(e.json.stale, true, `${e.kind} from the old row`);
		assert.equal(e.json.queue, slug);
	}
	for (const e of during.filter((x) => x.kind === 'status'))
		assert.equal(e.json.number, number);

	// Joins and tokens: every answer within 1.5 s; during the hang 503
	// with Retry-After.
	const writes = ev.filter((e) => e.kind === 'join' ||
	    e.kind === 'token');
	for (const e of writes)
		assert.ok(e.ms < WRITE_MAX_MS, `a ${e.kind} took ${e.ms} ms ` +
		    `(${e.status})`);
	const failed = during.filter((e) => (e.kind === 'join' ||
	    e.kind === 'token') && e.at >= tHang + 200);
	assert.ok(failed.some((e) => e.kind === 'join') &&
	    failed.some((e) => e.kind === 'token'), 'joins and tokens sent');
	for (const e of failed) {
		assert.equal(e.status, 503, `${e.kind} during the hang: ` +
		    `${e.status} ${JSON.stringify(e.json)}`);
		assert.ok(['service_unavailable', 'busy'].includes(e.json?.error),
		    JSON.stringify(e.json));
		assert.match(e.retryAfter ?? '', /^[1-9][0-9]*$/,
		    'with Retry-After');
	}
	const slowest = Math.max(...writes.map((e) => e.ms));
	t.diagnostic(`${writes.length} joins and tokens, the slowest ` +
	    `${slowest.toFixed(0)} ms; ${failed.length} during the hang`);

	// Back within 2 s.
	const joins = ev.filter((e) => e.kind === 'join');
	const firstOk = joins.find((e) => e.at >= tBack && e.status === 200);
	assert.ok(firstOk, 'a join works again');
	assert.ok(firstOk.end - tBack < BACK_MS, `the first join after the ` +
	    `hang answered 200 after ${(firstOk.end - tBack).toFixed(0)} ms`);
	const late = ev.filter((x) => x.at >= tBack + BACK_MS &&
	    x.kind !== 'doc');
	assert.ok(late.length > 0, 'requests after the hang');
	assert.deepEqual(late.filter((e) => e.status !== 200).map((e) =>
	    `${e.kind} ${(e.at - tBack).toFixed(0)} ms after the hang: ` +
	    `${e.status} ${e.json?.error}`), [], 'everything answers 200 ' +
	    `from ${BACK_MS} ms after the hang on`);

	// Exactly: numbers issued = joins answered 200 + numbers voided.
	const ok = joins.filter((e) => e.status === 200).map((e) =>
	    e.json.number);
	assert.equal(new Set(ok).size, ok.length, 'no number twice');
	const voided = late1.voided - late0.voided;
	assert.equal(late1.unknown, late0.unknown, 'no outcome unknown');
	assert.equal(after, before + ok.length + voided,
	    `last number ${before} -> ${after}: ${ok.length} joins answered ` +
	    `200, ${voided} voided`);
	const logged = voidedInLog(o.log, id).filter((n) => n > before);
	assert.equal(logged.length, voided, `voided in the log: ${logged}`);
	for (const n of logged) {
		assert.ok(!ok.includes(n), `voided ${n} was answered 200`);
		assert.ok(n > before && n <= after);
	}
	t.diagnostic(`${ok.length} joins answered 200, ${voided} voided, ` +
	    `last number ${before} -> ${after}`);
}

test('the stopped database (SIGSTOP) under load', { timeout: 110000 },
    async (t) => {
	const q = createQueue({ rate: 600000 });
	await hang(t, {
		client: viaNginx, slug: q.slug, doc: `/queue/${q.slug}/state.json`,
		log: `${env.vardir}/log/aqueue-fcgi.log`, cacheMs: CACHE_MS,
		freeze: dbFreeze, thaw: dbThaw,
	});
});

test('a worker that dies while the database hangs is replaced',
    { timeout: 60000 }, async (t) => {
	const master = Number(readFileSync(`${env.vardir}/run/aqueue-fcgi.pid`,
	    'utf8').trim());
	const kids = childPids(master);
	assert.equal(kids.length, Number(stackConf('workers')),
	    'every worker runs');
	try {
		dbFreeze();
		// The master has met the hang: its statements were given up on.
		await sleep(2000);
		process.kill(kids[0], 'SIGKILL');
		const t0 = performance.now();
		const now = await waitFor(() => {
			const k = childPids(master);
			return k.length === kids.length && !k.includes(kids[0]) ?
			    k : null;
		}, 10000, 20, 'the dead worker to be replaced');
		const ms = performance.now() - t0;
		t.diagnostic(`replaced after ${ms.toFixed(0)} ms`);
		// A tick of the master (250 ms), and at most one statement's
		// time (db-visitor-timeout-ms) if it was just waiting.
		assert.ok(ms < 250 + BUDGET_MS + 1000, `replaced after ${ms} ms`);
		assert.equal(now.length, kids.length);
		const h = await req('/queue/healthz');
		assert.equal(h.status, 200);
	} finally {
		dbThaw();
	}
});

test('a relay that stops forwarding, under load', { timeout: 110000 },
    async (t) => {
	const relay = await startRelay();
	const pool = await startExtraPool({ workers: 4, extra:
	    `db-socket =\ndb-host = 127.0.0.1\ndb-port = ${relay.port}\n` +
	    'state-dir =' });
	try {
		const client = viaPool(pool.sock);
		const q = createQueue({ rate: 600000 });
		await hang(t, {
			client, slug: q.slug,
			// Without nginx the app answers the document itself.
			doc: `/queue/${q.slug}/state.json`,
			log: pool.log, cacheMs: CACHE_MS,
			freeze: () => relay.stall(), thaw: () => relay.resume(),
		});
	} finally {
		relay.resume();
		await pool.stop();
		await relay.close();
	}
});

test('a join answered 503 whose number was issued anyway is voided',
    { timeout: 60000 }, async () => {
	const relay = await startRelay();
	// One process, its row cached for a minute: the join is sure to
	// reach the database.
	const pool = await startExtraPool({ workers: 1, extra:
	    `db-socket =\ndb-host = 127.0.0.1\ndb-port = ${relay.port}\n` +
	    'state-dir =\nstatus-cache-ms = 60000' });
	try {
		const client = viaPool(pool.sock);
		const q = createQueue({ rate: 60, burst: 1 });
		const id = show(q.slug).id;
		const first = await client.post(`/queue/${q.slug}/join`);
		assert.equal(first.status, 200, JSON.stringify(first.json));
		const second = await client.post(`/queue/${q.slug}/join`);
		assert.equal(second.status, 200, JSON.stringify(second.json));
		assert.equal(second.json.number, first.json.number + 1);
		const late0 = await lateCounts(client, q.slug);
		const skip0 = Number(dbSQL('SELECT skip_count FROM queue ' +
		    `WHERE id = ${id}`)[0][0]);
		// The answers are held: the statement commits, its answer
		// comes after the request's time.
		relay.stall(false, true);
		const t0 = performance.now();
		const j = await client.post(`/queue/${q.slug}/join`);
		const ms = performance.now() - t0;
		assert.equal(j.status, 503, JSON.stringify(j.json));
		assert.equal(j.json.error, 'service_unavailable');
		assert.match(j.retryAfter ?? '', /^[1-9][0-9]*$/);
		assert.ok(ms < WRITE_MAX_MS, `answered after ${ms} ms`);
		// The statement reached the database before the answer was
		// given up on; its commit may land a moment after it.
		const issued = second.json.number + 1;
		await waitFor(async () => show(q.slug).lastNumber >= issued ?
		    true : null, 5000, 50, 'the statement to commit');
		assert.equal(show(q.slug).lastNumber, issued,
		    'the statement did issue a number');
		relay.resume();
		const late1 = await waitFor(async () => {
			const c = await lateCounts(client, q.slug);
			return c.voided > late0.voided ? c : null;
		}, 10000, 100, 'the number to be voided');
		assert.equal(late1.voided, late0.voided + 1, 'one voided');
		assert.equal(late1.unknown, late0.unknown);
		assert.deepEqual(voidedInLog(pool.log, id), [issued],
		    'logged with its number');
		// Given back as a scheduled change (a tick ahead), which the
		// worker writes into the row within about a second.
		await waitFor(() => Number(dbSQL('SELECT skip_count FROM ' +
		    `queue WHERE id = ${id}`)[0][0]) === skip0 + 1, 3000, 50,
		    'its place given back (skip + 1)');
		assert.equal(show(q.slug).lastNumber, issued,
		    'voiding takes no number');
		// And the pool goes on: the next join takes the next number.
		const next = await client.post(`/queue/${q.slug}/join`);
		assert.equal(next.status, 200, JSON.stringify(next.json));
		assert.equal(next.json.number, issued + 1);
	} finally {
		relay.resume();
		await pool.stop();
		await relay.close();
	}
});
