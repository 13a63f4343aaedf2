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
    'no /token request', async (t) => {
	const q = createQueue({ rate: 600 });
	const { context, page, log } = await openPage(browser);
	t.after(() => context.close());
	// The page navigates away as soon as the join answers: keep a copy
	// of the answer on its way through.
	let j = null;
	await page.route(`**/queue/${q.slug}/join`, async (route) => {
		const res = await route.fetch();
		const text = await res.text();
		j = JSON.parse(text);
		await route.fulfill({ response: res, body: text });
	});
	await goto(page, roomUrl(q.slug));
	const url = await waitShop(page, 5000);
	const claims = assertLanded(q, url);
	assert.notEqual(j, null, 'the join was answered');
	assert.equal(j.admitted, true);
	assert.equal(claims.qnr, j.number);
	assert.equal(typeof j.token, 'string');
	assert.equal(new URL(url).searchParams.get('aditus_queue_token'),
	    j.token);
	assert.equal(url.startsWith(j.targetUrl), true);
	const tokenPosts = log.requests.filter((r) =>
	    r === `POST ${roomUrl(q.slug)}/token`).length;
	assert.equal(tokenPosts, 0, 'no /token request');
	assert.deepEqual(log.errors, []);
	assert.deepEqual(log.offsite, []);
});
