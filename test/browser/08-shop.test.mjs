// 08-shop: the demo shop (deploy/local/shop/) checks the token of any
// queue of the stack with the queue that issued it (its "aud"), not only
// the demo queue's; a token signed with another secret, or naming no
// queue, is refused.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { createQueue, env, launch, openPage, goto, roomUrl, waitShop,
    waitText, assertLanded } from './lib.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const verifies = (log) => log.requests.filter((r) =>
    /\/verify\?/.test(r));

test('an admitted visitor of any local queue is let into the shop',
    async (t) => {
	const q = createQueue({ rate: 600 });
	const { context, page, log } = await openPage(browser);
	t.after(() => context.close());
	await goto(page, roomUrl(q.slug));
	const url = await waitShop(page, 8000);
	const claims = assertLanded(q, url);
	const want = `Token valid for number ${claims.qnr} of waiting room ` +
	    `${q.slug}.`;
	assert.equal(await waitText(page, '#result', want), want);
	assert.equal(await page.locator('#result').getAttribute('class'),
	    'valid');
	assert.equal(await page.locator('#room').getAttribute('href'),
	    `/queue/${q.slug}`);
	assert.equal(await page.locator('#enter').getAttribute('href'),
	    `/queue/${q.slug}/enter`);
	assert.equal(verifies(log).length, 1);
	assert.ok(verifies(log)[0].startsWith(
	    `GET ${env.base}/queue/${q.slug}/verify?token=`), verifies(log)[0]);
	assert.deepEqual(log.errors, []);
	assert.deepEqual(log.offsite, []);
});

test('a token signed with another secret is refused by its queue',
    async (t) => {
	const q = createQueue({ rate: 600 });
	const now = Math.floor(Date.now() / 1000);
	const forged = jwt.sign({ iss: 'aditus-queue', aud: q.slug, qnr: 1,
	    iat: now, exp: now + 600 }, randomBytes(32), { algorithm: 'HS256',
	    noTimestamp: true });
	const { context, page, log } = await openPage(browser);
	t.after(() => context.close());
	await goto(page, `${env.shop}?aditus_queue_token=${forged}`);
	const want = 'Token not valid: bad_signature.';
	assert.equal(await waitText(page, '#result', want), want);
	assert.equal(await page.locator('#result').getAttribute('class'),
	    'invalid');
	assert.equal(verifies(log).length, 1);
	assert.deepEqual(log.errors, []);
});

test('a token that names no queue is refused without a request',
    async (t) => {
	const now = Math.floor(Date.now() / 1000);
	const cases = [
		jwt.sign({ iss: 'aditus-queue', aud: '../demo', qnr: 1,
		    exp: now + 600 }, 'x'),
		jwt.sign({ iss: 'aditus-queue', aud: 'Demo', qnr: 1,
		    exp: now + 600 }, 'x'),
		jwt.sign({ iss: 'aditus-queue', qnr: 1, exp: now + 600 }, 'x'),
		'not-a-token',
	];
	for (const tok of cases) {
		const { context, page, log } = await openPage(browser);
		t.after(() => context.close());
		await goto(page, `${env.shop}?aditus_queue_token=` +
		    encodeURIComponent(tok));
		const want = 'Token not valid: it names no waiting room.';
		assert.equal(await waitText(page, '#result', want), want, tok);
		assert.deepEqual(verifies(log), [], tok);
		assert.deepEqual(log.errors, []);
	}
});
