// The per-process queue cache at its edges, on a one-worker pool of our
// own (so every request meets the same process): more than 64 busy
// queues never give 503s, and one client polling invented numbers on one
// queue uses up that queue's pace of forced reads only, never another
// queue's (a number just issued there still gets 200, never 404).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
	createQueue, join, startExtraPool, fcgiRequest, fcgiParams,
} from './lib.mjs';

let pool = null;

before(async () => {
	// One process; rows kept for a minute, so only forced reads see
	// numbers issued elsewhere.
	pool = await startExtraPool({ workers: 1,
	    extra: 'status-cache-ms = 60000' });
});

after(async () => {
	if (pool !== null)
		await pool.stop();
});

const poolGet = (uri) => fcgiRequest({ sock: pool.sock,
    params: fcgiParams('GET', uri) });
const poolStatus = (slug, n) => poolGet(`/queue/${slug}/status?number=${n}`);

test('80 queues in one process: every status 200, twice', async () => {
	const qs = Array.from({ length: 80 }, () => createQueue({ rate: 600 }));
	for (const q of qs) {
		const j = await join(q.slug);
		assert.equal(j.status, 200, j.text);
	}
	for (let pass = 0; pass < 3; pass++) {
		const rs = await Promise.all(qs.map((q) =>
		    poolStatus(q.slug, 1)));
		rs.forEach((r, i) => {
			assert.equal(r.status, 200, `pass ${pass}, queue ` +
			    `${qs[i].slug}: ${r.status} ${r.body}`);
			assert.equal(r.json.queue, qs[i].slug);
			assert.equal(r.json.number, 1);
		});
	}
});

test('invented numbers on one queue: 503 busy past its pace; another ' +
    'queue\'s new number still 200', async () => {
	const x = createQueue({ rate: 600 });
	const y = createQueue({ rate: 600 });
	for (const q of [x, y]) {
		const j = await join(q.slug);
		assert.equal(j.status, 200, j.text);
		assert.equal((await poolStatus(q.slug, 1)).status, 200);
	}
	// Issued by the stack's pool: our process has not seen it.
	const fresh = await join(y.slug);
	assert.equal(fresh.status, 200, fresh.text);
	assert.equal(fresh.json.number, 2);

	const counts = new Map();
	let busy = 0;
	let next = 1000000;
	await Promise.all(Array.from({ length: 16 }, async () => {
		for (let i = 0; i < 25; i++) {
			const r = await poolStatus(x.slug, next++);
			counts.set(r.status, (counts.get(r.status) ?? 0) + 1);
			if (r.status === 503) {
				busy++;
				assert.equal(r.json?.error, 'busy', r.body);
				// A busy answer draws 1 or 2 s (jitter).
				assert.ok(['1', '2'].includes(
				    r.headers['retry-after']), r.headers['retry-after']);
			} else {
				assert.equal(r.status, 404, r.body);
				assert.equal(r.json?.error, 'number_not_found');
			}
		}
	}));
	assert.ok(busy > 0, `past the pace: ${JSON.stringify([...counts])}`);
	// X's pace is spent; Y's own is not.  (It refills at 50 a second,
	// one read per 20 ms: a burst, so that a pause between the loop and
	// this check does not make the check pass or fail by timing.)
	const rx = await Promise.all(Array.from({ length: 16 }, () =>
	    poolStatus(x.slug, next++)));
	const spent = rx.filter((r) => r.status === 503).length;
	assert.ok(spent >= 8, `X busy in ${spent} of 16: ` +
	    rx.map((r) => r.status).join(' '));
	const ry = await poolStatus(y.slug, 2);
	assert.equal(ry.status, 200, ry.body);
	assert.equal(ry.json.number, 2);
	assert.equal(ry.json.queue, y.slug);
});
