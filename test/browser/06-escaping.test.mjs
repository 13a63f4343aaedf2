// 06-escaping: a queue name with markup is shown as text, never run.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createQueue, join, launch, openPage, goto, roomUrl, waitText,
    textOf, sleep } from './lib.mjs';

const NAME = '<img src=x onerror=alert(1)> & "q"';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

test('the queue name is text in <h1> and <title>, no element, no dialog',
    async (t) => {
	// Burst used up: the room stays on screen with number 2.
	const q = createQueue({ rate: 1, burst: 1, name: NAME });
	assert.equal((await join(q.slug)).number, 1);

	const { context, page, log } = await openPage(browser);
	t.after(() => context.close());
	await goto(page, roomUrl(q.slug));
	assert.equal(await waitText(page, '#state', 'You are in the queue.'),
	    'You are in the queue.');
	// Give a stray onerror handler time to fire.
	await sleep(300);

	assert.equal(await textOf(page, 'h1'), NAME);
	assert.equal(await page.locator('h1').count(), 1);
	assert.equal(await page.title(), `${NAME} – waiting room`);
	assert.equal(await page.evaluate(() =>
	    document.getElementsByTagName('img').length), 0);
	assert.equal(await page.evaluate(() =>
	    document.querySelectorAll('[onerror]').length), 0);
	assert.equal(await textOf(page, '#number'), '2');
	assert.deepEqual(log.dialogs, []);
	assert.deepEqual(log.errors, []);
	assert.deepEqual(log.offsite, []);
	// The <img src=x> would have fetched .../queue/x.
	assert.deepEqual(log.requests.filter((r) => /\/x$/.test(r)), []);
});
