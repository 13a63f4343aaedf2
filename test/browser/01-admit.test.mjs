// 01-admit: below the rate the waiting room takes a number, is admitted at
// once and sends the browser on to the target with a valid token.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createQueue, launch, openPage, goto, roomUrl, waitShop,
    assertLanded, joinPosts } from './lib.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

test('a fresh queue admits the first visitor straight to the target',
    async (t) => {
	const q = createQueue({ rate: 600 });
	const { context, page, log } = await openPage(browser);
	t.after(() => context.close());

	const t0 = Date.now();
	await goto(page, roomUrl(q.slug));
	const url = await waitShop(page, 5000);
	assert.ok(Date.now() - t0 < 5000, 'on the shop within 5 s');

	const claims = assertLanded(q, url);
	assert.equal(claims.qnr, 1);
	assert.equal(claims.iss, 'aditus-queue');
	assert.equal(claims.aud, q.slug);
	assert.equal(joinPosts(log, q.slug), 1, 'one number taken');
	assert.deepEqual(log.navigations.map((u) => new URL(u).pathname),
	    [`/queue/${q.slug}`, '/shop/']);
	assert.deepEqual(log.errors, []);
	assert.deepEqual(log.dialogs, []);
	assert.deepEqual(log.offsite, []);
});
