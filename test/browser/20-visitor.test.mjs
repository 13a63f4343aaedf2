// 20-visitor: what visitors see, in Chromium.  The demo shop page with
// the script tag (deploy/local/shop/script-tag.html): calm (the waiting
// room never shown), spike (sent to the room, number kept over a reload,
// progress moving, back to exactly the requested page with the pass
// stored and the token gone from the address), service down (the shop
// works).  The gateway link in a spike.  German, English and Arabic
// (right to left) pages.  Every state passes axe-core with no serious or
// critical violation at phone and desktop sizes; screenshots of each
// state go to var/test/artifacts/.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { busyQueue, createQueue, ctl, join, launch, openPage, goto,
    roomUrl, waitShop, waitText, textOf, joinPosts, env, sleep,
    dbStop, dbStartIfStopped, verifyToken, axeSizes } from './lib.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => {
	dbStartIfStopped();
	await browser?.close();
});

const ARTIFACTS = `${env.vardir}/artifacts`;
mkdirSync(ARTIFACTS, { recursive: true });
const SIZES = { phone: { width: 360, height: 740 },
    desktop: { width: 1280, height: 800 } };

async function shoot(page, name) {
	await page.screenshot({ path: `${ARTIFACTS}/${name}.png`,
	    fullPage: true });
}

// axe(page, name): no serious or critical violation at either size,
// nothing wider than the screen; a screenshot at each.
const axe = (page, name) => axeSizes(page, name, SIZES, ARTIFACTS);

const shopUrl = (slug, extra = '') =>
    `${env.base}/shop/script-tag.html?queue=${slug}${extra}`;
const passOf = (page, slug) => page.evaluate((k) =>
    sessionStorage.getItem(k), `aditus-queue-pass:${slug}`);

test('script tag, calm: the waiting room is never shown', async (t) => {
	const q = createQueue({ rate: 600 });
	const { context, page, log } = await openPage(browser);
	t.after(() => context.close());
	const url = shopUrl(q.slug, '&item=42');
	await page.goto(url, { waitUntil: 'load' });
	const pass = JSON.parse(await waitFor(() => passOf(page, q.slug)));
	assert.equal(verifyToken(q, pass.token).qnr, 1);
	assert.equal(page.url(), url, 'stayed on the page');
	assert.ok(!log.navigations.some((u) => u.includes('/queue/')),
	    'never in the waiting room');
	assert.equal(joinPosts(log, q.slug), 1);
	// The next page load: the pass is there, nothing is asked.
	await page.reload({ waitUntil: 'load' });
	await sleep(500);
	assert.equal(joinPosts(log, q.slug), 1, 'no second number');
	assert.equal(await textOf(page, '#title'), 'Demo shop — product page');
	await shoot(page, 'script-tag-calm');
	assert.deepEqual(log.errors, []);
	assert.deepEqual(log.offsite, []);
});

async function waitFor(fn, ms = 8000) {
	const end = Date.now() + ms;
	for (;;) {
		const v = await fn().catch(() => null);
		if (v || Date.now() > end)
			return v;
		await sleep(100);
	}
}

test('script tag, spike: the room, the same number after a reload, ' +
    'progress, back to the exact page with the pass', async (t) => {
	const q = await busyQueue();	// number 1 taken, rate 1/min
	assert.equal((await join(q.slug)).number, 2);
	const { context, page, log } = await openPage(browser);
	t.after(() => context.close());
	const url = shopUrl(q.slug, '&item=42');
	await page.goto(url, { waitUntil: 'load' });
	await page.waitForURL((u) => u.pathname === `/queue/${q.slug}`,
	    { timeout: 8000 });
	assert.equal(await waitText(page, '#state', 'You are in the queue.'),
	    'You are in the queue.');
	assert.equal(await textOf(page, '#number'), '3');
	assert.equal(new URL(page.url()).searchParams.get('return'), url);
	assert.equal(await page.evaluate(() => location.hash), '',
	    'number and ticket taken from the fragment');
	assert.equal(joinPosts(log, q.slug), 1, 'one number, from the shop page');
	assert.equal(await waitText(page, '#wait', '2 min'), '2 min');
	assert.notEqual(await textOf(page, '#entry'), '–');
	assert.ok(await waitFor(async () => /\d\d:\d\d:\d\d/.test(
	    await textOf(page, '#updated'))), 'last updated shown');
	await axe(page, 'room-queuing-en');

	await page.reload({ waitUntil: 'load' });
	assert.equal(await waitText(page, '#number', '3'), '3',
	    'the same number after a reload');
	assert.equal(joinPosts(log, q.slug), 1, 'no second number');

	// Progress moves: one every 15 s now, number 3 is two away.
	const before = Number(await page.locator('#progress')
	    .getAttribute('aria-valuenow'));
	assert.equal(before, 0);
	ctl('set-rate', q.slug, 4);
	assert.ok(await waitFor(async () => Number(await page
	    .locator('#progress').getAttribute('aria-valuenow')) === 50,
	    30000), 'half way');
	await shoot(page, 'room-progress');

	// Back on exactly the page asked for, pass stored, token gone.
	await page.waitForURL((u) => u.pathname === '/shop/script-tag.html',
	    { timeout: 40000 });
	const pass = JSON.parse(await waitFor(() => passOf(page, q.slug)));
	assert.equal(verifyToken(q, pass.token).qnr, 3);
	await waitFor(async () => page.url() === url);
	assert.equal(page.url(), url, 'the token is gone from the address');
	assert.ok(log.requests.some((r) => r.startsWith(
	    `GET ${env.base}/queue/${q.slug}/verify?token=`)), 'verified');
	assert.ok(log.requests.some((r) =>
	    r === `GET ${env.base}/queue/${q.slug}/state.json`),
	    'the room polled the document');
	await shoot(page, 'script-tag-returned');
	assert.deepEqual(log.errors, []);
	assert.deepEqual(log.offsite, []);
});

test('script tag, service down: the shop works untouched', async (t) => {
	const q = createQueue({ rate: 600 });
	const { context, page, log } = await openPage(browser);
	t.after(() => context.close());
	// Unreachable service (nothing listens there).
	const dead = `http://127.0.0.1:${Number(new URL(env.base).port) + 19}`;
	await page.goto(shopUrl(q.slug, `&svc=${encodeURIComponent(dead)}`),
	    { waitUntil: 'load' });
	await sleep(1000);
	assert.equal(new URL(page.url()).pathname, '/shop/script-tag.html');
	await page.click('#buy');
	assert.equal(await textOf(page, '#title'), 'Demo shop — product page');
	// An unknown queue: nothing happens either.
	await page.goto(shopUrl('no-such-queue-embed'), { waitUntil: 'load' });
	await sleep(1000);
	assert.equal(new URL(page.url()).pathname, '/shop/script-tag.html');
	// The database down: the join fails, the shop stays.
	dbStop();
	try {
		await page.goto(shopUrl(q.slug, '&down=1'), { waitUntil: 'load' });
		await sleep(4000);
		assert.equal(new URL(page.url()).pathname,
		    '/shop/script-tag.html');
		assert.equal(await passOf(page, q.slug), null);
		await shoot(page, 'script-tag-service-down');
	} finally {
		dbStartIfStopped();
	}
	assert.deepEqual(log.errors, []);
});

test('gateway link in a spike: room, then the shop with a token',
    async (t) => {
	const q = await busyQueue();
	const { context, page, log } = await openPage(browser);
	t.after(() => context.close());
	await goto(page, `${env.base}/queue/${q.slug}/enter`);
	assert.equal(await waitText(page, '#state', 'You are in the queue.'),
	    'You are in the queue.');
	assert.equal(await textOf(page, '#number'), '2');
	await shoot(page, 'gateway-spike-room');
	ctl('set-rate', q.slug, 600);
	const url = await waitShop(page, 15000);
	assert.equal(verifyToken(q, new URL(url).searchParams
	    .get('aditus_queue_token')).qnr, 2);
	assert.deepEqual(log.offsite, []);
});

// A page in the browser's language (locale of the context).
async function roomIn(locale, slug) {
	const context = await browser.newContext({ locale });
	const page = await context.newPage();
	await page.goto(roomUrl(slug), { waitUntil: 'load' });
	return { context, page };
}

test('German and English pages from the browser\'s language', async (t) => {
	const q = await busyQueue();
	for (const [locale, lang, state, label] of [
	    ['de-DE', 'de', 'Sie sind in der Warteschlange.', 'Ihre Nummer'],
	    ['en-GB', 'en', 'You are in the queue.', 'Your number']]) {
		const { context, page } = await roomIn(locale, q.slug);
		t.after(() => context.close());
		assert.equal(await waitText(page, '#state', state), state);
		assert.equal(await page.getAttribute('html', 'lang'), lang);
		assert.equal(await page.getAttribute('html', 'dir'), 'ltr');
		assert.equal(await textOf(page, '.figures > div:first-child dt'),
		    label);
		await axe(page, `room-queuing-${lang}`);
	}
});

test('Arabic: the page is laid out right to left', async (t) => {
	const q = await busyQueue();
	const { context, page } = await roomIn('ar-EG', q.slug);
	t.after(() => context.close());
	assert.equal(await waitText(page, '#state', 'أنت في قائمة الانتظار.'),
	    'أنت في قائمة الانتظار.');
	assert.equal(await page.getAttribute('html', 'lang'), 'ar');
	assert.equal(await page.getAttribute('html', 'dir'), 'rtl');
	assert.equal(await page.evaluate(() =>
	    getComputedStyle(document.getElementById('room')).direction), 'rtl');
	// The first figure (your number) sits right of the second.
	const boxes = await page.locator('.figures > div').evaluateAll((els) =>
	    els.slice(0, 2).map((e) => e.getBoundingClientRect().left));
	assert.ok(boxes[0] > boxes[1], `first at ${boxes[0]}, second at ${boxes[1]}`);
	await axe(page, 'room-queuing-ar');
});

test('every other state passes axe at phone and desktop sizes',
    async (t) => {
	// Paused, with a number kept.
	const p = await busyQueue();
	const a = await openPage(browser);
	t.after(() => a.context.close());
	await goto(a.page, roomUrl(p.slug));
	await waitText(a.page, '#number', '2');
	ctl('pause', p.slug);
	const KEPT = 'The waiting room is paused. Your place is kept.';
	assert.equal(await waitText(a.page, '#state', KEPT, 20000), KEPT);
	await axe(a.page, 'room-paused');

	// Admitted, without a target URL to go on to: the page stays.
	const q = createQueue({ rate: 600 });
	ctl('update', q.slug, '--target', '');
	const b = await openPage(browser);
	t.after(() => b.context.close());
	await goto(b.page, roomUrl(q.slug));
	assert.equal(await waitText(b.page, '#state', 'You are admitted.'),
	    'You are admitted.');
	await axe(b.page, 'room-admitted');

	// Branded: header image (none here: no third party), message, accent.
	const r = await busyQueue();
	ctl('update', r.slug, '--display-name', 'Sommerkonzert',
	    '--message', 'Einlass ab 19 Uhr.\nBitte Ausweis mitbringen.',
	    '--accent', '#8a1538');
	await sleep(1200);
	const c = await openPage(browser);
	t.after(() => c.context.close());
	await goto(c.page, roomUrl(r.slug));
	await waitText(c.page, '#number', '2');
	assert.equal(await c.page.evaluate(() => getComputedStyle(
	    document.documentElement).getPropertyValue('--accent').trim()),
	    '#8a1538');
	assert.equal(await c.page.evaluate(() => getComputedStyle(
	    document.getElementById('bar')).backgroundColor), 'rgb(138, 21, 56)');
	assert.equal(await textOf(c.page, '#message'),
	    'Einlass ab 19 Uhr.\nBitte Ausweis mitbringen.');
	await axe(c.page, 'room-branded');

	// The connection drops (the page's requests fail): the calm notice.
	await a.context.route('**/queue/**', (route) => route.abort());
	await a.page.locator('#offline').waitFor({ state: 'visible',
	    timeout: 20000 });
	assert.equal(await textOf(a.page, '#offline'),
	    'Connection lost. Your place is kept; this page keeps trying.');
	await axe(a.page, 'room-offline');

	// Unknown queue.
	const d = await openPage(browser);
	t.after(() => d.context.close());
	const res = await d.page.goto(roomUrl('no-such-room'),
	    { waitUntil: 'load' });
	assert.equal(res.status(), 404);
	await axe(d.page, 'room-unknown');
});

test('the wait is one figure at a steady rate, a range once it changed',
    async (t) => {
	const q = await busyQueue();	// number 1 taken, rate 1/min
	assert.equal((await join(q.slug)).number, 2);
	const { context, page, log } = await openPage(browser);
	t.after(() => context.close());
	await goto(page, roomUrl(q.slug));
	assert.equal(await waitText(page, '#number', '3'), '3');
	// Two numbers to go at one a minute (the page asks every 12 s).
	assert.equal(await waitText(page, '#wait', '2 min'), '2 min');
	assert.match(await textOf(page, '#entry'), /^\d\d:\d\d( [AP]M)?$/);
	// Twice as fast now: between 1 (the new rate) and 2 minutes (the
	// old one), until the page has seen how fast it really goes.
	ctl('set-rate', q.slug, 2);
	assert.equal(await waitText(page, '#wait', '1–2 min', 25000),
	    '1–2 min');
	assert.match(await textOf(page, '#entry'),
	    /^\d\d:\d\d( [AP]M)?–\d\d:\d\d( [AP]M)?$/);
	await shoot(page, 'room-range');
	assert.ok(log.requests.includes(
	    `GET ${env.base}/queue/${q.slug}/state.json`));
	assert.deepEqual(log.errors, []);
});
