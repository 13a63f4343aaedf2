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

test('admitted at once: the token in the join answer is used as it is, ' +
    'else one /token request', async (t) => {
	const q = createQueue({ rate: 600 });
	const { context, page, log } = await openPage(browser);
	t.after(() => context.close());
	const joined = page.waitForResponse((r) =>
	    new URL(r.url()).pathname === `/queue/${q.slug}/join`);
	await goto(page, roomUrl(q.slug));
	const j = await (await joined).json();
	const url = await waitShop(page, 5000);
	const claims = assertLanded(q, url);
	assert.equal(claims.qnr, j.number);
	assert.equal(j.admitted, true);
	const tokenPosts = log.requests.filter((r) =>
	    r === `POST ${roomUrl(q.slug)}/token`).length;
	if (typeof j.token === 'string') {
		// No second request: the join answer's token and target.
		assert.equal(new URL(url).searchParams.get('aditus_queue_token'),
		    j.token);
		assert.equal(url.startsWith(j.targetUrl), true);
		assert.equal(tokenPosts, 0, 'no /token request');
	} else {
		// A server that does not send the token yet: one /token.
		assert.equal(tokenPosts, 1, 'one /token request');
	}
	assert.deepEqual(log.errors, []);
});
