// 11-random: the waiting room of a queue in the random order (queuing
// method random): the page learns its number's position from the join,
// keeps it over a reload, counts from it against state.json's serving,
// and goes on to the shop once serving reaches it (promise 2: not
// before; promise 6: by the position, not the number).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createQueue, ctl, launch, openPage, goto, roomUrl, waitShop,
    assertLanded, join, sleep, textOf } from './lib.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

test('random: the page waits for its position, then the shop',
    async (t) => {
	// 60 a minute, burst 1: number 1 passes (the burst's), the first
	// block is 2..11 (10 s of admissions); the page takes 2, and the
	// worker seals the block since nobody else joins.
	const q = createQueue({ rate: 60, burst: 1 });
	ctl('update', q.slug, '--method', 'random');
	const first = await join(q.slug);
	assert.deepEqual([first.number, first.admitted], [1, true]);
	const { context, page, log } = await openPage(browser);
	t.after(() => context.close());
	await goto(page, roomUrl(q.slug));
	const key = `aditus-queue:${q.slug}`;
	let stored = null;
	for (let i = 0; i < 150 && !Number.isSafeInteger(stored?.position);
	    i++) {
		await sleep(100);
		stored = JSON.parse(await page.evaluate((k) =>
		    sessionStorage.getItem(k), key));
	}
	assert.ok(stored !== null, 'the page took a number within 15 s');
	assert.equal(stored.number, 2);
	assert.ok(stored.position >= 2 && stored.position <= 11,
	    `position ${stored.position} in the block 2..11`);
	// A reload keeps the number and its position.
	await page.reload();
	assert.equal(await textOf(page, '#number'), '2');
	const kept = JSON.parse(await page.evaluate((k) =>
	    sessionStorage.getItem(k), key));
	assert.deepEqual([kept.number, kept.position],
	    [2, stored.position]);
	const url = await waitShop(page, 25000);
	const claims = assertLanded(q, url);
	assert.equal(claims.qnr, 2);
	assert.deepEqual(log.errors, []);
	assert.deepEqual(log.offsite, []);
});
