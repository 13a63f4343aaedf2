// Promise 2 against the worker's abandonment jumps: abandonment only
// speeds the line up and never revokes an admission, so the numbers a
// jump admits claim their tokens for their whole window (the case as it
// was found: rate 1/min, window 60 s, grace 60 s, numbers 1-4 present,
// 5-14 silent).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
	createQueue, ctl, join, status, token, sleep, waitFor, postJSON,
} from './lib.mjs';

test('promise 2: abandonment only speeds the line up: numbers admitted ' +
    'by the jump claim their tokens (rate 1/min, window 60 s, grace 60 s; ' +
    '1-4 heartbeat, 5-14 silent)', async () => {
	const q = createQueue({ rate: 1, burst: 1 });
	ctl('update', q.slug, '--claim-window', 60, '--abandon', 'on',
	    '--abandon-grace', 60);
	const v = [];
	for (let i = 0; i < 14; i++) {
		const r = await join(q.slug);
		assert.equal(r.status, 200, r.text);
		v.push(r.json);
	}
	assert.deepEqual(v.map((x) => x.number),
	    Array.from({ length: 14 }, (_, i) => i + 1));
	let stop = false;
	const beats = (async () => {
		while (!stop) {
			await Promise.all(v.slice(0, 4).map((x) =>
			    postJSON(`/queue/${q.slug}/heartbeat`,
			    { number: x.number, ticket: x.ticket })));
			await sleep(15000);
		}
	})();
	// The worker counts 5-14 (silent past the grace): serving jumps.
	const s = await waitFor(async () => {
		const r = await status(q.slug, 4);
		return r.json.admitted ? r.json : null;
	}, 200000, 1000, 'number 4 admitted');
	stop = true;
	// 1 at once, about 2 more by the rate, the jump: 4 is admitted well
	// before its turn at 1/min (which is minute 3).
	assert.ok(s.serving >= 4, JSON.stringify(s));
	for (const x of v.slice(1, 4)) {
		const t = await token(q.slug, { number: x.number,
		    ticket: x.ticket });
		assert.equal(t.status, 200, `number ${x.number}: ${t.text}`);
	}
	// Still within the window a while later.
	await sleep(10000);
	const t4 = await token(q.slug, { number: 4, ticket: v[3].ticket });
	assert.equal(t4.status, 200, t4.text);
	await beats;
});
