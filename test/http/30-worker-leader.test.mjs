// The background worker: one leader among several through the database's
// named lock; a standby takes over within seconds when the leader is
// killed; SIGTERM ends the current step and exits 0, releasing the lock.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import {
	dbSQL, env, leaderLockHolder, sleep, stack, startWorker, waitFor,
} from './lib.mjs';
import { hostname } from 'node:os';

// The worker rows of table instance: {id: leader}.
function workerRows() {
	return Object.fromEntries(dbSQL("SELECT id, leader FROM instance " +
	    "WHERE kind = 'worker'").map(([id, l]) => [id, Number(l)]));
}

const stackLog = () => readFileSync(`${env.vardir}/log/aqueue-worker.log`,
    'utf8');

test('the stack runs one worker, and it leads', async () => {
	await waitFor(() => / leader: took the lock 'aqueue-worker-leader'/
	    .test(stackLog()), 5000);
	assert.notEqual(leaderLockHolder(), null);
	// It reports itself as an instance, kind "worker", leading.
	const pid = Number(readFileSync(`${env.vardir}/pids/aqueue-worker.pid`,
	    'utf8'));
	const id = `worker:${hostname()}:${pid}`;
	await waitFor(() => workerRows()[id] === 1, 5000, 100,
	    'the instance row');
});

test('kill -9 of the leader: the standby leads within 5 s, one leader at ' +
    'a time', async (t) => {
	// The stack's worker stops on SIGTERM, releasing the lock.
	stack('worker-stop');
	assert.match(stackLog(), /stopping on signal 15/);
	assert.match(stackLog(), /leader: released the lock/);
	assert.match(stackLog(), /\] INFO aqueue-worker\[\d+\]: stopped$/m);
	assert.equal(leaderLockHolder(), null);

	const a = startWorker();
	const b = startWorker();
	t.after(async () => {
		await a.stop();
		await b.stop();
		stack('worker-start');
	});
	await waitFor(() => a.leads() || b.leads(), 5000);
	const [leader, standby] = a.leads() ? [a, b] : [b, a];
	// Both have run a while: exactly one leads, the other waits.
	let samples = 0;
	for (let i = 0; i < 20; i++) {
		assert.equal(Number(a.leads()) + Number(b.leads()), 1);
		samples++;
		await sleep(100);
	}
	assert.equal(samples, 20);
	assert.ok(leader.leads());
	assert.ok(!standby.leads());
	assert.match(standby.text(), /started as worker:/);
	assert.doesNotMatch(standby.text(), / leader: /);
	const held = leaderLockHolder();
	assert.notEqual(held, null);
	const idOf = (w) => `worker:${hostname()}:${w.pid}`;
	await waitFor(() => workerRows()[idOf(leader)] === 1 &&
	    workerRows()[idOf(standby)] === 0, 8000, 100, 'instance rows');

	const t0 = Date.now();
	const how = await leader.kill('SIGKILL');
	assert.equal(how.sig, 'SIGKILL');
	await waitFor(() => standby.leads(), 5000, 20);
	const takeover = Date.now() - t0;
	t.diagnostic(`takeover took ${takeover} ms`);
	assert.ok(takeover < 5000, `takeover took ${takeover} ms`);
	const now = leaderLockHolder();
	assert.notEqual(now, null);
	assert.notEqual(now, held);
	await waitFor(() => workerRows()[idOf(standby)] === 1, 3000, 100,
	    'the new leader\'s instance row');

	// SIGTERM: the current step ends, the lock is released, exit 0.
	const end = await standby.stop();
	assert.deepEqual(end, { code: 0, sig: null });
	assert.match(standby.text(), /leader: released the lock/);
	assert.equal(leaderLockHolder(), null);
	assert.equal(workerRows()[idOf(standby)], undefined,
	    'a clean stop removes its instance row');
});
