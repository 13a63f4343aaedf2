// 05-paused: a paused queue's room takes no number and says so; after
// resume it takes a number by itself and sends the visitor on.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { busyQueue, createQueue, ctl, launch, openPage, goto, roomUrl,
    waitShop, waitText, textOf, assertLanded, joinPosts, CACHE_MS,
    sleep, join } from './lib.mjs';

const PAUSED = 'The waiting room is paused: no new numbers right now. ' +
    'This page retries by itself.';
// The note under the figures: what a reload does for this visitor.
const NOTE_NONE = 'You have no number yet: this page takes one by itself ' +
    'as soon as the waiting room opens again. Keep it open.';
const NOTE_KEPT = 'Keep this page open: you will be sent on automatically ' +
    'when it is your turn. Reloading keeps your place.';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

test('a paused room shows the paused message, and after resume goes on',
    async (t) => {
	const q = createQueue({ rate: 600 });
	ctl('pause', q.slug);
	await sleep(CACHE_MS);

	const { context, page, log } = await openPage(browser);
	t.after(() => context.close());
	await goto(page, roomUrl(q.slug));
	assert.equal(await waitText(page, '#state', PAUSED), PAUSED);
	assert.equal(await page.locator('#room').getAttribute('data-active'),
	    'false');
	assert.equal(await textOf(page, '#number'), '–', 'no number shown');
	assert.equal(await textOf(page, '#note'), NOTE_NONE,
	    'no place to keep: the note does not promise one');
	assert.equal(await page.evaluate((k) => sessionStorage.getItem(k),
	    `aditus-queue:${q.slug}`), null, 'no number stored');
	assert.equal(joinPosts(log, q.slug), 1, 'one refused join');
	assert.equal(page.url(), roomUrl(q.slug));

	ctl('resume', q.slug);
	const url = await waitShop(page, 15000);
	const claims = assertLanded(q, url);
	assert.equal(claims.qnr, 1, 'the first number of the queue');
	assert.equal(joinPosts(log, q.slug), 2, 'one retry took the number');
	assert.deepEqual(log.errors, []);
	assert.deepEqual(log.dialogs, []);
	assert.deepEqual(log.offsite, []);
});

test('paused with a number: the place is kept, and no estimate is shown',
    async (t) => {
	const q = await busyQueue();
	const { context, page, log } = await openPage(browser);
	t.after(() => context.close());
	await goto(page, roomUrl(q.slug));
	const QUEUED = 'You are in the queue.';
	assert.equal(await waitText(page, '#state', QUEUED), QUEUED);
	assert.equal(await textOf(page, '#number'), '2');
	assert.equal(await textOf(page, '#note'), NOTE_KEPT);
	// One per minute, number 2 next in line: a minute's estimate.
	assert.equal(await waitText(page, '#wait', '1 min'), '1 min');

	ctl('pause', q.slug);
	const KEPT = 'The waiting room is paused. Your place is kept.';
	assert.equal(await waitText(page, '#state', KEPT, 20000), KEPT);
	assert.equal(await textOf(page, '#wait'), '–', 'no estimate');
	assert.equal(await textOf(page, '#note'), NOTE_KEPT);
	assert.equal(await textOf(page, '#number'), '2');
	// A reload keeps the number and says so.
	await page.reload({ waitUntil: 'load' });
	assert.equal(await waitText(page, '#state', KEPT), KEPT);
	assert.equal(await textOf(page, '#note'), NOTE_KEPT);
	assert.equal(await textOf(page, '#wait'), '–');
	assert.equal(joinPosts(log, q.slug), 1, 'one number only');
	assert.deepEqual(log.errors, []);
});

test('a waiting visitor sees no estimate while the room is paused',
    async (t) => {
	// One per minute: number 1 taken here, the page's number 2 waits.
	const q = createQueue({ rate: 1, burst: 1 });
	const { context, page } = await openPage(browser);
	t.after(() => context.close());
	assert.equal((await join(q.slug)).number, 1);
	await goto(page, roomUrl(q.slug));
	assert.equal(await waitText(page, '#number', '2'), '2');
	assert.equal(await waitText(page, '#wait', '1 min'), '1 min');
	ctl('pause', q.slug);
	// The page polls every 6 s at this wait; the cache turns in ~1 s.
	assert.equal(await waitText(page, '#wait', '–', 10000), '–');
	assert.equal(await textOf(page, '#number'), '2', 'number kept');
	assert.equal(await page.locator('#room').getAttribute('data-active'),
	    'true', 'the page was served while active');
});
