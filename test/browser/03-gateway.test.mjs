// 03-gateway: the gateway link hands a waiting visitor over to the room
// with number and ticket in the URL fragment; the room keeps that number,
// drops the fragment from the address bar and sends the visitor on later.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { busyQueue, ctl, join, launch, openPage, goto, roomUrl,
    waitShop, waitText, textOf, assertLanded, joinPosts, CACHE_MS,
    sleep, env } from './lib.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

test('the gateway hands number and ticket over to the room', async (t) => {
	const q = await busyQueue();

	const { context, page, log } = await openPage(browser);
	t.after(() => context.close());
	await goto(page, `${env.base}/queue/${q.slug}/enter`);

	assert.equal(await waitText(page, '#state', 'You are in the queue.'),
	    'You are in the queue.');
	assert.equal(page.url(), roomUrl(q.slug), 'fragment removed');
	assert.equal(await page.evaluate(() => location.hash), '');
	assert.equal(await textOf(page, '#number'), '2');
	// The room went through the hand-over, with a ticket in the fragment.
	const handed = log.navigations.find((u) => u.includes('#'));
	assert.match(handed ?? '', new RegExp(
	    `^${roomUrl(q.slug).replace(/[.?]/g, '\\$&')}` +
	    '#number=2&ticket=[A-Za-z0-9_-]+$'));
	assert.equal(joinPosts(log, q.slug), 0, 'the page took no number');
	const stored = JSON.parse(await page.evaluate((k) =>
	    sessionStorage.getItem(k), `aditus-queue:${q.slug}`));
	assert.equal(stored.number, 2);
	assert.equal(stored.ticket,
	    new URLSearchParams(handed.split('#')[1]).get('ticket'));
	const next = await join(q.slug);
	assert.equal(next.number, 3, 'the gateway issued number 2 only');

	ctl('set-rate', q.slug, 600);
	await sleep(CACHE_MS);
	const url = await waitShop(page, 10000);
	const claims = assertLanded(q, url);
	assert.equal(claims.qnr, 2);
	assert.equal(joinPosts(log, q.slug), 0);
	assert.deepEqual(log.errors, []);
	assert.deepEqual(log.dialogs, []);
	assert.deepEqual(log.offsite, []);
});
