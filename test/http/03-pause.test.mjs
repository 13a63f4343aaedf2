// Pause and resume: join answers 423 without using a number, status says
// active:false with serving frozen, and resume continues serving from
// where it stopped (no jump backward, no credit for the paused time).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
	createQueue, ctl, join, status, sleep, waitFor, show, joinMany,
	sampleServing as sample, CACHE_MS,
} from './lib.mjs';

test('pause: 423 on join, status frozen; resume continues', async () => {
	const q = createQueue({ rate: 600, burst: 1 });
	const nums = await joinMany(q.slug, 300);
	assert.equal(nums[0], 1);
	assert.equal(nums[nums.length - 1], 300);
	const last = 300;

	const before = await sample(q.slug, 500);
	assert.ok(before.every((x) => x.active === true));
	const maxBefore = Math.max(...before.map((x) => x.serving));
	assert.ok(maxBefore < last, `people still waiting (${maxBefore})`);

	assert.match(ctl('pause', q.slug), /ok/);
	const tPause = Date.now();
	assert.equal(show(q.slug).active, false);

	// join goes to the database: refused at once, no number used.
	const j = await join(q.slug);
	assert.equal(j.status, 423, j.text);
	assert.equal(j.json.error, 'queue_paused');
	assert.equal(typeof j.json.message, 'string');
	assert.equal(show(q.slug).lastNumber, last);

	// Status and info say paused once the caches turned over.
	await waitFor(async () => {
		const r = await status(q.slug, last);
		return r.status === 200 && r.json.active === false;
	}, 3000, 100, 'status active:false');
	await sleep(Math.max(0, tPause + CACHE_MS - Date.now()));

	const during = await sample(q.slug, 1200, 100);
	const frozen = during[0].serving;
	for (const x of during) {
		assert.equal(x.active, false);
		assert.equal(x.serving, frozen, 'serving frozen while paused');
	}
	assert.ok(frozen >= maxBefore,
	    `frozen ${frozen} >= before ${maxBefore}`);
	// Serving at the pause is about where the rate had brought it.
	assert.ok(frozen <= maxBefore + 10 * (tPause - before.at(-1).t) / 1000
	    + 3, `frozen ${frozen} near ${maxBefore}`);

	const s = await status(q.slug, last);
	assert.equal(s.status, 200);
	assert.equal(s.json.active, false);
	assert.equal(s.json.serving, frozen);
	assert.equal(s.json.admitted, false);
	assert.equal(s.json.ahead, last - frozen - 1);

	// A second join while paused: still nothing used.
	const j2 = await join(q.slug);
	assert.equal(j2.status, 423);
	assert.equal(j2.json.error, 'queue_paused');

	const pausedFor = Date.now() - tPause;
	assert.match(ctl('resume', q.slug), /ok/);
	const tResume = Date.now();
	assert.equal(show(q.slug).active, true);

	const j3 = await join(q.slug);
	assert.equal(j3.status, 200, j3.text);
	assert.equal(j3.json.number, last + 1, 'no number used while paused');

	await sleep(Math.max(0, tResume + CACHE_MS - Date.now()));
	const after = await sample(q.slug, 600, 100);
	for (let i = 0; i < after.length; i++) {
		const x = after[i];
		assert.equal(x.active, true);
		assert.ok(x.serving >= frozen,
		    `after resume ${x.serving} >= frozen ${frozen}`);
		if (i > 0)
			assert.ok(x.serving >= after[i - 1].serving,
			    'never backward after resume');
		// No credit for the paused time: at 10/s the paused time
		// would add about pausedFor/100 numbers at once.
		const grown = 10 * (x.t - tResume) / 1000;
		assert.ok(x.serving <= frozen + grown + 3,
		    `serving ${x.serving} <= ${frozen} + ${grown.toFixed(1)}` +
		    ` + 3 (paused ${pausedFor} ms)`);
		assert.ok(x.serving >= frozen + grown - 4,
		    `serving ${x.serving} grows at the rate after resume`);
	}
});
