// 24-session-renew: embed.js on the demo shop page renews its pass
// shortly before expiry while the visitor is active, only when the
// queue's session renewal is on (/info: sessionRenewal); an idle
// visitor's pass is not renewed, and without renewal the pass ends at
// its time.
//
// Promises this could break, and what shows it does not: a number
// issued once / only the visitor's own request takes a number - the
// page takes one number (one POST /join) however often the pass is
// renewed; no token before admission - the script renews only the pass
// it holds (the renewed token has the same qnr and jti).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createQueue, ctl, launch, openPage, joinPosts, env, sleep,
    verifyToken } from './lib.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const shopUrl = (slug) => `${env.base}/shop/script-tag.html?queue=${slug}`;
const passOf = async (page, slug) => JSON.parse(await page.evaluate((k) =>
    sessionStorage.getItem(k), `aditus-queue-pass:${slug}`));
const renewPosts = (log, slug) => log.requests.filter((r) =>
    r === `POST ${env.base}/queue/${slug}/renew`).length;

async function waitFor(fn, ms) {
	const end = Date.now() + ms;
	for (;;) {
		const v = await fn().catch(() => null);
		if (v || Date.now() > end)
			return v;
		await sleep(100);
	}
}

// A queue with an 8-second session duration (renewal 5 s before exp).
function shortQueue(renewal) {
	const q = createQueue({ rate: 600 });
	ctl('update', q.slug, '--token-ttl', '8', '--session-renewal',
	    renewal);
	return q;
}

test('renewal on: the pass is renewed before expiry while the visitor ' +
    'is active, not while idle', async (t) => {
	const q = shortQueue('on');
	const { context, page, log } = await openPage(browser);
	t.after(() => context.close());
	await page.goto(shopUrl(q.slug), { waitUntil: 'load' });
	const first = await waitFor(() => passOf(page, q.slug), 8000);
	assert.ok(first, 'a pass');
	const c1 = verifyToken(q, first.token);
	assert.equal(c1.exp - c1.iat, 8);
	// Loading the page was activity: renewed about 5 s before exp.
	const second = await waitFor(async () => {
		const p = await passOf(page, q.slug);
		return p && p.exp > first.exp ? p : null;
	}, 9000);
	assert.ok(second, 'renewed before expiry');
	assert.ok(Date.now() / 1000 < first.exp, 'before the old exp');
	assert.equal(second.renew, true);
	const c2 = verifyToken(q, second.token);
	assert.deepEqual([c2.qnr, c2.jti, c2.aud], [c1.qnr, c1.jti, c1.aud]);
	assert.equal(renewPosts(log, q.slug), 1);
	// Active again (a key): the next renewal comes too.
	await page.keyboard.press('Shift');
	const third = await waitFor(async () => {
		const p = await passOf(page, q.slug);
		return p && p.exp > second.exp ? p : null;
	}, 9000);
	assert.ok(third, 'renewed again after activity');
	assert.equal(renewPosts(log, q.slug), 2);
	// Idle from here: no renewal; the pass ends at its time.
	await sleep((third.exp - Date.now() / 1000 + 1.5) * 1000);
	assert.equal(renewPosts(log, q.slug), 2, 'idle: not renewed');
	assert.equal((await passOf(page, q.slug)).exp, third.exp);
	assert.equal(joinPosts(log, q.slug), 1, 'one number, ever');
	assert.deepEqual(log.errors, []);
	assert.deepEqual(log.offsite, []);
});

test('renewal off: the pass ends at its time', async (t) => {
	const q = shortQueue('off');
	const { context, page, log } = await openPage(browser);
	t.after(() => context.close());
	await page.goto(shopUrl(q.slug), { waitUntil: 'load' });
	const first = await waitFor(() => passOf(page, q.slug), 8000);
	assert.ok(first, 'a pass');
	const known = await waitFor(async () => {
		const p = await passOf(page, q.slug);
		return p && p.renew === false ? p : null;
	}, 5000);
	assert.ok(known, 'the queue said: no renewal');
	await page.keyboard.press('Shift');
	await sleep((first.exp - Date.now() / 1000 + 1) * 1000);
	assert.equal(renewPosts(log, q.slug), 0);
	assert.equal((await passOf(page, q.slug)).exp, first.exp);
	assert.equal(joinPosts(log, q.slug), 1);
	assert.deepEqual(log.errors, []);
});
