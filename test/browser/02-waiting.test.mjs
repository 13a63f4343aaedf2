// 02-waiting: over the rate the room shows the visitor's number, keeps it
// across a reload (no second number) and sends the visitor on by itself
// once the rate allows it.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { busyQueue, ctl, join, launch, openPage, goto, roomUrl,
    waitShop, waitText, textOf, assertLanded, joinPosts, CACHE_MS,
    sleep } from './lib.mjs';

// Not under test/browser: the picture is not to be committed.
const SCREENSHOT = path.join(tmpdir(), 'aqueue-waiting-room.png');

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

test('a waiting visitor keeps number 2 across a reload and is sent on ' +
    'after set-rate', async (t) => {
	const q = await busyQueue();

	const { context, page, log } = await openPage(browser);
	t.after(() => context.close());
	await goto(page, roomUrl(q.slug));

	assert.equal(await waitText(page, '#state', 'You are in the queue.'),
	    'You are in the queue.');
	assert.equal(await textOf(page, '#number'), '2');
	assert.equal(await textOf(page, '#serving'), '1');
	assert.equal(await textOf(page, '#ahead'), '0');
	// Nobody admitted since the number was taken: the bar is empty.
	assert.equal(await page.locator('#progress')
	    .getAttribute('aria-valuenow'), '0');
	assert.equal(await page.locator('#state').getAttribute('aria-live'),
	    'polite');
	const stored = JSON.parse(await page.evaluate((k) =>
	    sessionStorage.getItem(k), `aditus-queue:${q.slug}`));
	assert.equal(stored.number, 2);
	assert.equal(typeof stored.ticket, 'string');
	assert.ok(stored.ticket.length > 0, 'a ticket is stored');
	await page.screenshot({ path: SCREENSHOT, fullPage: true });

	// A reload keeps the place: the page polls for number 2 and takes
	// no new number.
	await page.reload({ waitUntil: 'load' });
	assert.equal(await waitText(page, '#state', 'You are in the queue.'),
	    'You are in the queue.');
	assert.equal(await textOf(page, '#number'), '2');
	assert.equal(joinPosts(log, q.slug), 1, 'one join over both loads');
	const next = await join(q.slug);
	assert.equal(next.number, 3, 'the reload issued no number');
	const again = JSON.parse(await page.evaluate((k) =>
	    sessionStorage.getItem(k), `aditus-queue:${q.slug}`));
	assert.deepEqual(again, stored);

	ctl('set-rate', q.slug, 600);
	await sleep(CACHE_MS);
	const url = await waitShop(page, 10000);
	const claims = assertLanded(q, url);
	assert.equal(claims.qnr, 2);
	assert.equal(joinPosts(log, q.slug), 1, 'still one join');
	assert.deepEqual(log.errors, []);
	assert.deepEqual(log.dialogs, []);
	assert.deepEqual(log.offsite, []);
});
