// The database stops mid-test: visitor endpoints that need it answer 503
// service_unavailable with Retry-After, healthz stays 200, and after the
// database is back the same processes recover by themselves; numbers
// continue without a duplicate.
//
// This file stops the stack's MariaDB: test/run runs the files one at a
// time (--test-concurrency=1), and its tests run one after another here.
// The database is started again in an after() hook, also on failure.

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
	createQueue, join, status, info, token, req, stack, env, sleep,
	waitFor, CACHE_MS,
} from './lib.mjs';

let dbStopped = false;

function dbStart() {
	stack('db-start');
	dbStopped = false;
}

after(() => {
	if (dbStopped)
		dbStart();
});

// The FastCGI master and its workers, to show nobody was restarted.
function poolPids() {
	let master;
	try {
		master = execFileSync('cat',
		    [`${env.vardir}/run/aqueue-fcgi.pid`],
		    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
		    .trim();
	} catch {
		return null;
	}
	let kids = '';
	try {
		kids = execFileSync('ps', ['--ppid', master, '-o', 'pid='],
		    { encoding: 'utf8' });
	} catch {
		kids = '';
	}
	return { master, workers: kids.split(/\s+/).filter(Boolean).sort() };
}

function assert503(r) {
	assert.equal(r.status, 503, `${r.status} ${r.text.slice(0, 200)}`);
	assert.equal(r.json?.error, 'service_unavailable', r.text);
	assert.equal(typeof r.json.message, 'string');
	assert.match(r.headers.get('retry-after') ?? '', /^[1-9][0-9]*$/,
	    'Retry-After header');
}

test('DB stopped: 503 then recovery without a restart', { concurrency: false,
    timeout: 90000 }, async () => {
	const q = createQueue({ rate: 600 });
	const before = [];
	for (let i = 0; i < 3; i++) {
		const j = await join(q.slug);
		assert.equal(j.status, 200, j.text);
		before.push(j.json);
	}
	assert.deepEqual(before.map((x) => x.number), [1, 2, 3]);
	const pids = poolPids();
	if (pids !== null)
		assert.ok(pids.workers.length > 0, 'the pool has workers');

	dbStopped = true;
	stack('db-stop');

	const h = await req('/queue/healthz');
	assert.equal(h.status, 200, 'healthz without the DB');
	assert.deepEqual(h.json, { status: 'ok' });

	// join writes: 503 at once, from every process.
	for (let i = 0; i < 6; i++)
		assert503(await join(q.slug));

	// Once the caches expired, everything that needs the row is 503.
	await sleep(CACHE_MS + 100);
	for (let i = 0; i < 6; i++)
		assert503(await status(q.slug, 1));
	assert503(await info(q.slug));
	assert503(await token(q.slug, { number: 1,
	    ticket: before[0].ticket }));
	assert503(await req(`/queue/${q.slug}/verify?token=x`));
	// People get pages, not JSON: the gateway pauses new entries by
	// sending them to the room, which answers a page that retries.
	const e = await req(`/queue/${q.slug}/enter`);
	assert.equal(e.status, 302, 'the gateway pauses new entries');
	assert.equal(e.headers.get('location'), `/queue/${q.slug}`);
	const room = await req(`/queue/${q.slug}`);
	assert.equal(room.status, 503);
	assert.match(room.headers.get('content-type'), /^text\/html/);
	assert.equal(room.headers.get('retry-after'), '5');
	assert.match(room.text, /<meta http-equiv="refresh" content="5">/);
	assert.equal((await req('/queue/healthz')).status, 200);

	dbStart();

	// The same processes reconnect by themselves.
	const first = await waitFor(async () => {
		const r = await join(q.slug);
		return r.status === 200 ? r : null;
	}, 30000, 250, 'join to work again');
	assert.equal(first.json.number, 4,
	    'numbers continue after the outage, none used by failed joins');
	const nums = [first.json.number];
	for (let i = 0; i < 12; i++) {
		const r = await join(q.slug);
		assert.equal(r.status, 200, r.text);
		nums.push(r.json.number);
	}
	assert.deepEqual(nums, Array.from({ length: 13 }, (_, i) => 4 + i),
	    'consecutive, no duplicate of 1..3');
	for (let i = 0; i < 8; i++) {
		const s = await status(q.slug, 2);
		assert.equal(s.status, 200, s.text);
		assert.equal(s.json.number, 2);
	}
	const t = await token(q.slug, { number: 1, ticket: before[0].ticket });
	assert.equal(t.status, 200, t.text);

	if (pids !== null) {
		assert.deepEqual(poolPids(), pids,
		    'no FastCGI process was restarted');
	}
});
