// zz-backoff: the room script while the database is down (CASES C37):
// errors back off exponentially (capped), never sooner than a 503's
// Retry-After.
//
// This file stops the stack's MariaDB (test/run runs one file at a time),
// and starts it again in an after() hook, also on failure.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createQueue, ctl, launch, roomUrl, waitText, tracedPage,
    dbStop, dbStart, dbStartIfStopped, sleep, CACHE_MS } from './lib.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => {
	dbStartIfStopped();
	await browser?.close();
});

const RANDOM = 0.25;
const spread = (s, below) => Math.round(Math.max(1, s) * 1000 *
    (1 - below + (below + 0.3) * RANDOM));
const BUSY = 'The waiting room is busy. Retrying…';
const PAUSED = 'The waiting room is paused: no new numbers right now. ' +
    'This page retries by itself.';

test('errors back off exponentially to 60 s, never sooner than ' +
    'Retry-After', { timeout: 120000 }, async (t) => {
	// A paused room keeps asking for a number; with the database down
	// every ask is a 503.
	const q = createQueue({ rate: 600 });
	ctl('pause', q.slug);
	await sleep(CACHE_MS);
	const { page, errors } = await tracedPage(browser, t, roomUrl(q.slug),
	    { random: RANDOM, speed: 10 });
	assert.equal(await waitText(page, '#state', PAUSED), PAUSED);

	dbStop();
	let tr = [];
	const end = Date.now() + 60000;
	while (Date.now() < end) {
		tr = await page.evaluate(() => window.__aqTrace);
		if (tr.filter((e) => e.status === 503).length >= 7)
			break;
		await sleep(100);
	}
	assert.equal(await page.locator('#state').textContent(), BUSY);
	dbStart();

	// After the 503s begin, each answer is followed by one wait.
	const first = tr.findIndex((e) => e.status === 503);
	assert.ok(first > 0, 'the page saw a 503');
	assert.equal(tr[first - 1].t, 'timer', 'a 423 and its wait before');
	const seen = [];
	for (let i = first, n = 0; n < 7; i += 2, n++) {
		const res = tr[i], wait = tr[i + 1];
		assert.equal(res.t, 'res');
		assert.equal(res.status, 503);
		assert.equal(new URL(res.url).pathname, `/queue/${q.slug}/join`);
		assert.ok(['4', '5', '6'].includes(res.retryAfter),
		    `Retry-After ${res.retryAfter}`);
		assert.equal(wait.t, 'timer');
		// 2 s doubling per error in a row, capped at 60 s, +-30 %;
		// at least Retry-After plus up to 30 %.
		const step = Math.min(60, 2 * 2 ** n);
		const want = Math.max(spread(step, 0.3),
		    Math.round(Number(res.retryAfter) * 1000 *
		    (1 + 0.3 * RANDOM)));
		assert.equal(wait.ms, want, `wait after error ${n + 1}`);
		seen.push(wait.ms);
	}
	// The shape: Retry-After decides the first two, then 8, 16, 32 s and
	// the cap (spread with Math.random() = 0.25: 0.85 times the step).
	assert.deepEqual(seen.slice(2), [6800, 13600, 27200, 51000, 51000]);
	assert.ok(seen[0] >= 4300 && seen[0] <= 6450, `first wait ${seen[0]}`);
	// Back: the room goes on asking and hears "paused" again.
	assert.equal(await waitText(page, '#state', PAUSED, 30000), PAUSED);
	assert.deepEqual(errors, []);
});
