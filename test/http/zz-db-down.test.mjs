// The database stops mid-test: visitor endpoints that need it answer 503
// service_unavailable with Retry-After, status and info keep answering
// from the last row read, marked "stale": true (SPEC section 10),
// healthz stays 200, and after the database is back the same processes
// recover by themselves; numbers continue without a duplicate.
//
// This file stops the stack's MariaDB: test/run runs the files one at a
// time (--test-concurrency=1), and its tests run one after another here.
// The database is started again in an after() hook, also on failure.

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
	createQueue, join, status, info, token, req, stack, env, sleep,
	waitFor, CACHE_MS, stackConf,
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

// The FastCGI master and its workers, to show nobody was restarted.  A
// check that cannot run fails: no pid file or no ps is an error here,
// never a silent skip.
function poolPids() {
	const master = execFileSync('cat',
	    [`${env.vardir}/run/aqueue-fcgi.pid`],
	    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
	assert.match(master, /^[1-9][0-9]*$/, 'the pool wrote its pid file');
	const kids = execFileSync('ps', ['--ppid', master, '-o', 'pid='],
	    { encoding: 'utf8' });
	return { master, workers: kids.split(/\s+/).filter(Boolean).sort() };
}

// Retry-After of a 503 for a database that does not answer: 5 s +-30 %
// in whole seconds, drawn per answer so that clients come back spread.
const DOWN_RETRY = ['4', '5', '6'];
const retrySeen = new Set();

function assert503(r) {
	assert.equal(r.status, 503, `${r.status} ${r.text.slice(0, 200)}`);
	assert.equal(r.json?.error, 'service_unavailable', r.text);
	assert.equal(typeof r.json.message, 'string');
	const ra = r.headers.get('retry-after');
	assert.ok(DOWN_RETRY.includes(ra), `Retry-After ${ra} in 4..6`);
	assert.equal(r.json.retryAfterSeconds, Number(ra),
	    'the body repeats Retry-After');
	retrySeen.add(ra);
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
	assert.equal(pids.workers.length, Number(stackConf('workers')),
	    'every worker of the pool runs');
	// Every worker has read the row (with numbers 1..3).
	for (let i = 0; i < 3; i++)
		await Promise.all(Array.from({ length: 32 },
		    () => status(q.slug, 3)));

	dbStopped = true;
	stack('db-stop');

	const h = await req('/queue/healthz');
	assert.equal(h.status, 200, 'healthz without the DB');
	assert.deepEqual(h.json, { status: 'ok' });

	// join writes: 503 at once, from every process.
	for (let i = 0; i < 6; i++)
		assert503(await join(q.slug));

	// Once the caches expired: status and info answer from the last
	// row read, marked stale, from every process; what needs the
	// database now is 503.
	await sleep(CACHE_MS + 100);
	const stale = await Promise.all(Array.from({ length: 32 },
	    () => status(q.slug, 2)));
	for (const s of stale) {
		assert.equal(s.status, 200, s.text);
		assert.equal(s.json.stale, true);
		assert.equal(s.json.number, 2);
		assert.equal(s.json.admitted, true);
		assert.equal(s.json.active, true);
	}
	const si = await info(q.slug);
	assert.equal(si.status, 200, si.text);
	assert.equal(si.json.stale, true);
	assert.equal(si.json.queue, q.slug);
	// A number above the last one read cannot be checked: 503.
	assert503(await status(q.slug, 4));
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
	const ra = room.headers.get('retry-after');
	assert.ok(DOWN_RETRY.includes(ra), `Retry-After ${ra} in 4..6`);
	assert.ok(room.text.includes(
	    `<meta http-equiv="refresh" content="${ra}">`),
	    'the page reloads itself after its Retry-After');
	assert.ok(room.text.includes('<html lang="en" dir="ltr">'), room.text);
	assert.ok(room.text.includes('<h1>Please wait a moment</h1>'));
	assert.ok(room.text.includes('<p role="status">The waiting room is ' +
	    'briefly unavailable. This page tries again by itself in a few ' +
	    'seconds; keep it open.</p>'), room.text);
	assert.equal(room.headers.get('content-language'), 'en');
	// Localised like the room: the browser's language, or ?lang=.
	const de = await req(`/queue/${q.slug}`,
	    { headers: { 'accept-language': 'de-DE,de;q=0.9,en;q=0.8' } });
	assert.equal(de.status, 503);
	assert.equal(de.headers.get('content-language'), 'de');
	assert.ok(de.text.includes('<html lang="de" dir="ltr">'), de.text);
	assert.ok(de.text.includes('<h1>Bitte einen Moment Geduld</h1>'));
	assert.ok(de.text.includes('<p role="status">Der Warteraum ist kurz ' +
	    'nicht erreichbar. Diese Seite versucht es in wenigen Sekunden ' +
	    'selbst erneut; lassen Sie sie offen.</p>'), de.text);
	const chosen = await req(`/queue/${q.slug}?lang=de`,
	    { headers: { 'accept-language': 'en' } });
	assert.equal(chosen.headers.get('content-language'), 'de');
	// Spread: several answers in a row do not all say the same.
	const pageRetry = new Set();
	for (let i = 0; i < 30; i++) {
		const p = await req(`/queue/${q.slug}`);
		const v = p.headers.get('retry-after');
		assert.ok(DOWN_RETRY.includes(v), `Retry-After ${v} in 4..6`);
		assert.ok(p.text.includes(
		    `<meta http-equiv="refresh" content="${v}">`));
		pageRetry.add(v);
	}
	assert.ok(pageRetry.size >= 2,
	    `page Retry-After varies: ${[...pageRetry]}`);
	for (let i = 0; i < 20; i++)
		assert503(await join(q.slug));
	assert.ok(retrySeen.size >= 2,
	    `JSON Retry-After varies: ${[...retrySeen]}`);
	assert.equal((await req('/queue/healthz')).status, 200);
	// A process waits a second after a failed connect before the next:
	// let those of the requests above pass.
	await sleep(1100);

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
	await sleep(CACHE_MS);
	for (let i = 0; i < 8; i++) {
		const s = await status(q.slug, 2);
		assert.equal(s.status, 200, s.text);
		assert.equal(s.json.number, 2);
		assert.equal('stale' in s.json, false, 'fresh again');
	}
	const t = await token(q.slug, { number: 1, ticket: before[0].ticket });
	assert.equal(t.status, 200, t.text);

	assert.deepEqual(poolPids(), pids, 'no FastCGI process was restarted');
});
