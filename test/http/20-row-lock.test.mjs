// CASES C31: a join that was answered "failed" never issues a number
// later.  Another session holds the queue row (START TRANSACTION; SELECT
// ... FOR UPDATE; DO SLEEP; COMMIT) while 12 joins arrive at once and
// status is polled: the server gives up on each join's statement before
// the client does (session lock wait and statement time below
// db-timeout), so every join answered 503 left nothing behind, failed
// joins answer before the client's timeout would have ended them, and
// status polls (which never wait for the database) answer meanwhile, each
// well within the lock wait.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import {
	createQueue, join, status, show, sleep, waitFor, dbSQL, dbSession,
	env, stackConf,
} from './lib.mjs';

const JOINS = 12;
const HOLD_S = 4;

async function timed(fn) {
	const t0 = Date.now();
	const r = await fn();
	return { ...r, ms: Date.now() - t0 };
}

test('C31: joins under a held row lock fail fast and issue nothing',
    async () => {
	const q = createQueue({ rate: 600 });
	const first = await join(q.slug);
	assert.equal(first.status, 200, first.text);
	// Every worker has the queue cached.
	await Promise.all(Array.from({ length: 32 },
	    () => status(q.slug, 1)));
	const before = show(q.slug).lastNumber;
	assert.equal(before, 1);

	const hold = dbSession('START TRANSACTION; ' +
	    `SELECT id FROM queue WHERE slug = '${q.slug}' FOR UPDATE; ` +
	    `DO SLEEP(${HOLD_S}); COMMIT;`);
	await waitFor(() => dbSQL('SELECT COUNT(*) FROM ' +
	    'information_schema.PROCESSLIST WHERE INFO LIKE \'DO SLEEP%\'')[0][0]
	    === '1', 3000, 20, 'the row lock to be held');
	const tLock = Date.now();

	const joins = Promise.all(Array.from({ length: JOINS },
	    () => timed(() => join(q.slug))));
	const polls = [];
	const polling = (async () => {
		while (Date.now() - tLock < 2500) {
			polls.push(await timed(() => status(q.slug, 1)));
			await sleep(25);
		}
	})();
	const js = await joins;
	await polling;
	const held = await hold;
	assert.equal(held.code, 0, held.stderr);
	assert.ok(Date.now() - tLock >= (HOLD_S - 1) * 1000,
	    'the lock was held while the joins ran');
	// Whatever the server had queued would have committed by now.
	await sleep(500);
	const after = show(q.slug).lastNumber;

	// The client's read timeout: a join the server did not end itself
	// would have been answered only after it.
	const clientMs = Number(stackConf('db-timeout')) * 1000;
	assert.ok(clientMs > 0, 'db-timeout of the stack');
	const ok = js.filter((r) => r.status === 200);
	assert.equal(after - before, ok.length,
	    `numbers issued (${after - before}) = joins answered 200 ` +
	    `(${ok.length}); answers ${js.map((r) => r.status)}`);
	assert.equal(ok.length, 0, 'the row was locked all along');
	for (const r of js) {
		assert.equal(r.status, 503, r.text);
		assert.ok(['busy', 'service_unavailable'].includes(
		    r.json?.error), r.text);
		assert.match(r.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
		assert.ok(r.ms < clientMs, `a failed join took ${r.ms} ms, ` +
		    `the client gives up after ${clientMs} ms`);
	}
	// A poll that waited for the database would take the lock wait (a
	// second) or more.  One slow poll on a loaded machine (the one free
	// worker was answering a join's "busy") is noise, not a wait: every
	// poll below half the lock wait.  (How many polls fit into the
	// 2.5 s, or how fast the typical one is, says how fast the machine
	// is, not whether a poll waited.)
	assert.ok(polls.length >= 1, 'polls while the lock was held');
	for (const p of polls) {
		assert.equal(p.status, 200, p.text);
		assert.equal(p.json.number, 1);
		assert.ok(p.ms < 500, `a status poll took ${p.ms} ms`);
	}

	// The lock is gone: the next join gets the next number.
	const next = await join(q.slug);
	assert.equal(next.status, 200, next.text);
	assert.equal(next.json.number, before + 1);
	assert.equal(show(q.slug).lastNumber, before + 1);
});

test('server-side bounds must be below the client timeout', () => {
	const base = fs.readFileSync(`${env.vardir}/aqueue.conf`, 'utf8')
	    .split('\n').filter((l) => !/^\s*db-timeout\s*=/.test(l))
	    .join('\n');
	const conf = `${env.vardir}/bounds-check.conf`;
	const check = (extra) => {
		fs.writeFileSync(conf, `${base}\n${extra}\n`, { mode: 0o600 });
		return spawnSync(`${env.root}/fcgi-app/aqueue-fcgi`,
		    ['-n', '-f', conf], { encoding: 'utf8' });
	};
	try {
		let r = check('db-timeout = 2');
		assert.equal(r.status, 0, r.stderr);
		r = check('db-timeout = 2\ndb-lock-timeout = 2');
		assert.equal(r.status, 1);
		assert.match(r.stderr,
		    /db-lock-timeout and db-statement-timeout-ms must be below/);
		r = check('db-timeout = 2\ndb-statement-timeout-ms = 2000');
		assert.equal(r.status, 1);
		assert.match(r.stderr, /must be below db-timeout/);
		r = check('db-timeout = 2\ndb-statement-timeout-ms = 1999');
		assert.equal(r.status, 0, r.stderr);
	} finally {
		fs.rmSync(conf, { force: true });
	}
});
