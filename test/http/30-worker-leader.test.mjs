// The background worker: one leader among several through the database's
// named lock; a standby takes over within seconds when the leader is
// killed; SIGTERM ends the current step and exits 0, releasing the lock.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import {
	env, leaderLockHolder, sleep, stack, startWorker, waitFor,
} from './lib.mjs';

const stackLog = () => readFileSync(`${env.vardir}/log/aqueue-worker.log`,
    'utf8');

test('the stack runs one worker, and it leads', async () => {
	await waitFor(() => / leader: took the lock 'aqueue-worker-leader'/
	    .test(stackLog()), 5000);
	assert.notEqual(leaderLockHolder(), null);
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

	// SIGTERM: the current step ends, the lock is released, exit 0.
	const end = await standby.stop();
	assert.deepEqual(end, { code: 0, sig: null });
	assert.match(standby.text(), /leader: released the lock/);
	assert.equal(leaderLockHolder(), null);
});
