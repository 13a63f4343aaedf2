// The elastic pool (workers-min, workers-max): a pool of its own on the
// stack's database, started with 2 to 6 processes, gets a burst of 40
// clients at once whose joins each hold a process for a while (the body
// comes 30 ms after the head, as from a slow client).  It grows above 2
// while the burst lasts (its children and its row of table instance
// say so), never past its maximum, answers every request 200 (nothing
// refused, no 5xx), and once idle for the retire time (10 s) it shrinks
// back to 2.  With db-max-connections 6 the maximum is lowered to 3
// (3 children, the master's connection and aqueue-worker's two), said
// so at start, and a burst never takes it past 3.  Bounds are on what happens, not how
// fast: a loaded machine only takes longer.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import {
	createQueue, dbSQL, startExtraPool, fcgiRequest, fcgiParams,
	waitFor, sleep, childPids,
} from './lib.mjs';

const CLIENTS = 40;

// A join whose two-byte body goes out holdMs (30) ms after its head: the
// request holds its process meanwhile.
const slowJoin = (sock, slug, holdMs = 30) => fcgiRequest({ sock,
	timeoutMs: 30000,
	params: fcgiParams('POST', `/queue/${slug}/join`, {
		CONTENT_LENGTH: '2',
		CONTENT_TYPE: 'application/json',
	}),
	stdin: '{}',
	beforeStdin: () => sleep(holdMs),
});

// The workers of the pool's row of table instance (null: no row yet).
function rowWorkers(pid) {
	const rows = dbSQL('SELECT workers FROM instance WHERE id = ' +
	    `'pool:${hostname()}:${pid}'`);
	return rows.length === 0 ? null : Number(rows[0][0]);
}

// burst(pool, slug, until, clients, holdMs): clients (CLIENTS) clients
// send slow joins (holdMs, slowJoin()), one after the other each, until
// until(most) is true (looked at every 100 ms) or for 60 s at most;
// meanwhile the most children seen.  Resolves {statuses (status ->
// count), errors (failed requests), most (children)}.
async function burst(pool, slug, until, clients = CLIENTS, holdMs = 30) {
	const statuses = {};
	const errors = [];
	let most = childPids(pool.pid).length;
	let stop = false;
	const client = async () => {
		while (!stop) {
			try {
				const r = await slowJoin(pool.sock, slug,
				    holdMs);
				statuses[r.status] = (statuses[r.status] ?? 0) + 1;
			} catch (e) {
				errors.push(String(e));
			}
		}
	};
	const running = Array.from({ length: clients }, client);
	const end = Date.now() + 60000;
	while (!stop) {
		await sleep(100);
		most = Math.max(most, childPids(pool.pid).length);
		stop = await until(most) || Date.now() > end;
	}
	await Promise.all(running);
	return { statuses, errors, most };
}

test('2 to 6 processes: a burst grows the pool, nothing is refused, ' +
    'idle it shrinks back to 2', { timeout: 180000 }, async () => {
	const q = createQueue({ rate: 6000 });
	const pool = await startExtraPool({ workers: 4, extra:
	    'workers-min = 2\nworkers-max = 6\ninstance-report-ms = 1000\n' +
	    'stats-interval-ms = 0' });
	try {
		await waitFor(() => /elastic pool: 2 to 6 processes/.test(
		    readFileSync(pool.log, 'utf8')), 5000, 100,
		    'the elastic pool\'s start line');
		await waitFor(() => childPids(pool.pid).length === 2, 10000,
		    100, 'the minimum of 2 processes at start');
		await waitFor(() => rowWorkers(pool.pid) === 2, 10000, 100,
		    'the instance row with 2 workers');
		// Until it has grown, and the row says so, and 2 s more.
		let grown = 0;
		let reported = 0;
		const b = await burst(pool, q.slug, async (most) => {
			if (grown === 0 && most > 2)
				grown = Date.now();
			if (reported < 3)
				reported = Math.max(reported,
				    rowWorkers(pool.pid) ?? 0);
			return grown !== 0 && reported > 2 &&
			    Date.now() - grown > 2000;
		});
		assert.deepEqual(b.errors, [], 'every request answered');
		assert.deepEqual(Object.keys(b.statuses), ['200'],
		    `only 200s: ${JSON.stringify(b.statuses)}`);
		assert.ok(b.most > 2, `grew above 2 (most ${b.most})`);
		assert.ok(b.most <= 6, `never above 6 (most ${b.most})`);
		assert.ok(reported > 2, `instance row showed ${reported}`);
		const log = readFileSync(pool.log, 'utf8');
		assert.match(log, /all \d processes busy for 200 ms/);
		// Idle: back to 2 after the retire time (10 s), drained.
		await waitFor(() => childPids(pool.pid).length === 2, 60000,
		    250, 'the pool back at 2 processes');
		await waitFor(() => rowWorkers(pool.pid) === 2, 10000, 250,
		    'the instance row back at 2 workers');
		assert.match(readFileSync(pool.log, 'utf8'),
		    /idle for 10 s: retiring it/);
		assert.doesNotMatch(readFileSync(pool.log, 'utf8'),
		    /child \d+ died/, 'retired processes exit cleanly');
		// And it still answers.
		const r = await slowJoin(pool.sock, q.slug);
		assert.equal(r.status, 200, r.body);
	} finally {
		await pool.stop();
	}
});

test('the maximum is lowered to fit db-max-connections', {
    timeout: 120000 }, async () => {
	const q = createQueue({ rate: 6000 });
	const pool = await startExtraPool({ workers: 4, extra:
	    'workers-min = 2\nworkers-max = 6\ndb-max-connections = 6\n' +
	    'stats-interval-ms = 0' });
	try {
		const lowered = /elastic pool: 2 to 3 processes \(workers-max 6 lowered/;
		await waitFor(() => lowered.test(readFileSync(pool.log, 'utf8')),
		    5000, 100,
		    'the start line with the lowered maximum');
		let full = 0;
		const b = await burst(pool, q.slug, async (most) => {
			if (full === 0 && most >= 3)
				full = Date.now();
			return full !== 0 && Date.now() - full > 2000;
		});
		assert.deepEqual(b.errors, [], 'every request answered');
		assert.deepEqual(Object.keys(b.statuses), ['200'],
		    `only 200s: ${JSON.stringify(b.statuses)}`);
		assert.equal(b.most, 3, 'grew to 3, the budget, not beyond');
	} finally {
		await pool.stop();
	}
});

// SIGHUP while 12 clients keep all six busy with joins of 1.5 s each: the
// master starts a new set of workers-min (2) while the old six drain (up
// to 1.5 s: long enough for the new set to be busy 200 ms and fork), and
// the old ones still alive count toward workers-max: the new set never
// holds more than max(6 - old alive, 2), so the pool never holds more
// than 6 + 2 (children of the master, sampled every 20 ms; a count over
// the bound must hold for two samples in a row, as one scan of /proc may
// see an old process just before it exits and a new one forked just
// after).  Taken at 6, so that no fork races the signal and the old set
// is known.
test('a reload under a burst: the old set draining counts toward ' +
    'workers-max', { timeout: 180000 }, async () => {
	const q = createQueue({ rate: 6000 });
	const pool = await startExtraPool({ workers: 4, extra:
	    'workers-min = 2\nworkers-max = 6\nstats-interval-ms = 0' });
	try {
		await waitFor(() => childPids(pool.pid).length === 2, 10000,
		    100, 'the minimum of 2 processes at start');
		let done = false;
		const running = burst(pool, q.slug, async () => done, 12,
		    1500);
		const over = [];
		let most = 0;
		let grew = 0;
		let old;
		try {
			await waitFor(() => childPids(pool.pid).length === 6,
			    60000, 20, 'the burst growing the pool to 6');
			old = new Set(childPids(pool.pid));
			process.kill(pool.pid, 'SIGHUP');
			let before = false;
			const end = Date.now() + 8000;
			while (Date.now() < end) {
				const now = childPids(pool.pid);
				const o = now.filter((p) => old.has(p)).length;
				const n = now.length - o;
				const bad = n > Math.max(6 - o, 2);
				if (bad && before)
					over.push({ old: o, new: n });
				before = bad;
				most = Math.max(most, now.length);
				grew = Math.max(grew, n);
				await sleep(20);
			}
		} finally {
			done = true;
		}
		const b = await running;
		const log = readFileSync(pool.log, 'utf8');
		assert.match(log, /SIGHUP: configuration re-read/);
		assert.deepEqual(over, [], 'the new set within max(6 - old, 2)');
		assert.ok(most <= 8, `never above 6 + 2 (most ${most})`);
		assert.ok(grew > 2, `the new set grew (to ${grew})`);
		assert.deepEqual(childPids(pool.pid).filter((p) => old.has(p)),
		    [], 'the old set gone');
		assert.deepEqual(b.errors, [], 'every request answered');
		assert.deepEqual(Object.keys(b.statuses), ['200'],
		    `only 200s: ${JSON.stringify(b.statuses)}`);
		assert.doesNotMatch(log, /did not drain|child \d+ died/);
	} finally {
		await pool.stop();
	}
});
