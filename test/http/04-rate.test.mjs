// A rate change while people wait re-anchors the queue: serving never goes
// backward and, once every process has re-read the row, grows at the new
// rate from where it was (no jump by rate x time since creation).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
	createQueue, ctl, joinMany, sampleServing, show, CACHE_MS,
} from './lib.mjs';

function nonDecreasing(xs, what) {
	for (let i = 1; i < xs.length; i++)
		assert.ok(xs[i].serving >= xs[i - 1].serving,
		    `${what}: serving went from ${xs[i - 1].serving} to ` +
		    `${xs[i].serving}`);
}

// Growth per second over a sample list.
function perSecond(xs) {
	const a = xs[0], b = xs.at(-1);
	return (b.serving - a.serving) * 1000 / (b.t - a.t);
}

test('set-rate up and down keeps serving continuous', async () => {
	// 2/s, then 20/s, then 2/s again; 400 people waiting.
	const q = createQueue({ rate: 120, burst: 1 });
	const nums = await joinMany(q.slug, 400);
	assert.equal(nums.at(-1), 400);

	const a = await sampleServing(q.slug, 1500);
	nonDecreasing(a, 'at 120/min');
	const maxA = a.at(-1).serving;
	assert.ok(maxA < 100, `still far from the end (${maxA})`);
	const rA = perSecond(a);
	assert.ok(rA >= 0.5 && rA <= 4, `about 2/s at 120/min: ${rA}`);

	// Up to 1200/min.
	const tUp0 = Date.now();
	assert.match(ctl('set-rate', q.slug, 1200), /ok/);
	const tUp = (tUp0 + Date.now()) / 2;
	// While processes turn over their caches, no sample may fall below
	// what was shown before the change.
	const trans1 = await sampleServing(q.slug, tUp0 + CACHE_MS -
	    Date.now(), 80);
	for (const x of trans1)
		assert.ok(x.serving >= maxA,
		    `during the change ${x.serving} >= ${maxA}`);
	const b = await sampleServing(q.slug, 1500);
	nonDecreasing(b, 'at 1200/min');
	assert.ok(b[0].serving >= maxA, `${b[0].serving} >= ${maxA}`);
	const rB = perSecond(b);
	assert.ok(rB >= 12 && rB <= 30, `about 20/s at 1200/min: ${rB}`);
	// Continuity: where it was at the change plus the new rate since.
	const expB = maxA + 2 * (tUp - a.at(-1).t) / 1000 +
	    20 * (b[0].t - tUp) / 1000;
	assert.ok(Math.abs(b[0].serving - expB) <= 6,
	    `serving ${b[0].serving} continues from the change (about ` +
	    `${expB.toFixed(1)})`);

	// Down to 120/min.
	const maxB = Math.max(...b.map((x) => x.serving));
	const tDown0 = Date.now();
	assert.match(ctl('set-rate', q.slug, 120), /ok/);
	const tDown = (tDown0 + Date.now()) / 2;
	const trans2 = await sampleServing(q.slug, tDown0 + CACHE_MS -
	    Date.now(), 80);
	for (const x of trans2)
		assert.ok(x.serving >= maxB,
		    `during the change ${x.serving} >= ${maxB}`);
	const c = await sampleServing(q.slug, 1500);
	nonDecreasing(c, 'back at 120/min');
	const maxT2 = Math.max(maxB, ...trans2.map((x) => x.serving));
	assert.ok(c[0].serving >= maxB, `${c[0].serving} >= ${maxB}`);
	const rC = perSecond(c);
	assert.ok(rC >= 0.5 && rC <= 4, `about 2/s at 120/min: ${rC}`);
	const expC = maxB + 20 * (tDown - b.at(-1).t) / 1000 +
	    2 * (c[0].t - tDown) / 1000;
	assert.ok(Math.abs(c[0].serving - expC) <= 6,
	    `serving ${c[0].serving} continues from the change (about ` +
	    `${expC.toFixed(1)}; highest seen during the change ${maxT2})`);
	assert.ok(c.at(-1).serving < 400, 'people still waiting at the end');
});

test('set-rate answers ok and show reflects the new rate', async () => {
	const q = createQueue({ rate: 60 });
	assert.match(ctl('set-rate', q.slug, 90), /ok/);
	const s = show(q.slug);
	assert.equal(s.ratePerMinute, 90);
	assert.equal(s.slug, q.slug);
	assert.equal(s.active, true);
});
