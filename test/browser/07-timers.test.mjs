// 07-timers: the room script's waits are drawn at random (CASES C37), so
// that pages which opened together do not poll in waves.  Math.random is
// fixed inside the page, so each wait the script asks for is exact; the
// waits actually used are ten times shorter, to keep the test quick.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { busyQueue, createQueue, ctl, launch, roomUrl, waitText,
    tracedPage, sleep, CACHE_MS } from './lib.mjs';

const RANDOM = 0.25;

// What the script asks for: seconds s drawn from [1 - below, 1.3) times
// it, with Math.random() = RANDOM (the same expression as the script's).
const spread = (s, below) => Math.round(Math.max(1, s) * 1000 *
    (1 - below + (below + 0.3) * RANDOM));

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

// The trace of every page: exact draws, waits ten times shorter.
const TRACE = { random: RANDOM, speed: 10 };

const trace = (page) => page.evaluate(() => window.__aqTrace);

test('the first poll after a join is spread over 30-130 % of the ' +
    'interval, later ones over +-30 %', async (t) => {
	const q = await busyQueue();
	const { page, errors } = await tracedPage(browser, t,
	    roomUrl(q.slug), TRACE);
	let tr;
	for (let i = 0; i < 100; i++) {
		tr = await trace(page);
		if (tr.filter((e) => e.t === 'timer').length >= 4)
			break;
		await sleep(100);
	}
	const kinds = tr.map((e) => e.t === 'timer' ? 'timer' :
	    `${e.status} ${new URL(e.url).pathname}`);
	// The page polls the queue's document (state.json) and works out
	// its interval as the server would: a tenth of the wait, 2-30 s.
	assert.deepEqual(kinds.slice(0, 8), [
		`200 /queue/${q.slug}/join`, 'timer',
		`200 /queue/${q.slug}/state.json`, 'timer',
		`200 /queue/${q.slug}/state.json`, 'timer',
		`200 /queue/${q.slug}/state.json`, 'timer',
	]);
	// Number 2 at one a minute: a minute's wait, so 6 s, the same as
	// the join's Retry-After.
	assert.equal(tr[0].retryAfter, '6');
	// Each wait from the interval in the answer before it.
	for (let i = 0; i < 8; i += 2) {
		const r = i === 0 ? Number(tr[i].retryAfter) : 6;
		assert.equal(tr[i + 1].ms, spread(r, i === 0 ? 0.7 : 0.3),
		    `wait ${i / 2} after an interval of ${r} s`);
	}
	assert.deepEqual(errors, []);
});

test('a paused room asks again after 10 s +-30 %', async (t) => {
	const q = createQueue({ rate: 600 });
	ctl('pause', q.slug);
	await sleep(CACHE_MS);
	const { page, errors } = await tracedPage(browser, t,
	    roomUrl(q.slug), TRACE);
	const want = 'The waiting room is paused: no new numbers right now. ' +
	    'This page retries by itself.';
	assert.equal(await waitText(page, '#state', want), want);
	await sleep(500);
	const tr = await trace(page);
	assert.equal(tr[0].status, 423);
	assert.deepEqual(tr[1], { t: 'timer', ms: spread(10, 0.3) });
	assert.equal(tr[1].ms, 8500);
	assert.deepEqual(errors, []);
});
