// 09-opening: the waiting room before a scheduled opening counts down and
// takes a pre-queue number; while a number waits the page sends a
// heartbeat (abandonment detection) with its number and ticket, and the
// server answers 204.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createQueue, ctl, launch, openPage, goto, roomUrl, textOf,
    join, sleep, uniqueSlug, env } from './lib.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

test('before the opening: a countdown and a pre-queue number',
    async (t) => {
	const slug = uniqueSlug('open');
	ctl('create', slug, '--name', 'Opening', '--target', env.shop,
	    '--domains', env.origin, '--rate', 600, '--opens-at',
	    Date.now() + 600000);
	const { context, page, log } = await openPage(browser);
	t.after(() => context.close());
	await goto(page, roomUrl(slug));
	const end = Date.now() + 8000;
	let state = '';
	while (Date.now() < end && !/^Opens in /.test(state)) {
		await sleep(100);
		state = await textOf(page, '#state').catch(() => '');
	}
	assert.match(state, /^Opens in (9|10) min$/, 'the countdown');
	assert.equal(await textOf(page, '#number'), '1', 'pre-queue number');
	assert.equal(await textOf(page, '#serving'), '0');
	assert.deepEqual(log.errors, []);
	assert.deepEqual(log.offsite, []);
});

test('a waiting number sends heartbeats with its ticket: 204',
    async (t) => {
	const q = createQueue({ rate: 1, burst: 1 });
	ctl('update', q.slug, '--abandon', 'on');
	const first = await join(q.slug);
	assert.equal(first.admitted, true);
	const { context, page, log } = await openPage(browser);
	t.after(() => context.close());
	const beat = page.waitForResponse((r) =>
	    r.url() === `${env.base}/queue/${q.slug}/heartbeat`,
	    { timeout: 40000 });
	await goto(page, roomUrl(q.slug));
	const res = await beat;
	assert.equal(res.status(), 204);
	const stored = JSON.parse(await page.evaluate((k) =>
	    sessionStorage.getItem(k), `aditus-queue:${q.slug}`));
	assert.equal(stored.number, 2);
	const sent = log.bodies.filter((b) => b.url ===
	    `${env.base}/queue/${q.slug}/heartbeat`);
	assert.ok(sent.length >= 1);
	assert.deepEqual(JSON.parse(sent[0].body),
	    { number: 2, ticket: stored.ticket });
	assert.deepEqual(log.errors, []);
});
