// 30-pow: the waiting room with proof of work on, in headless Chromium
// (CASES C45): the page solves the challenge in a Web Worker with
// WebCrypto before it joins, and shows its progress; it says clearly
// what is wrong when the browser cannot solve (no secure context), and
// in a <noscript> text without JavaScript; with Workers forbidden by a
// Content-Security-Policy it solves on the page itself; a challenge
// about to expire is exchanged for a fresh one, never posted expired;
// the script tag sends every visitor through the room (no silent pass).
// Promise 3 (only the visitor's own request takes a number) is the one
// these paths could break: a page that cannot solve takes no number.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
	createQueue, busyQueue, ctl, env, launch, openPage, goto, roomUrl,
	waitShop, waitText, textOf, joinPosts, assertLanded, sleep,
} from './lib.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const powOn = (slug, bits = 15) =>
    ctl('update', slug, '--pow', 'on', '--pow-bits', bits);
const powGets = (log, slug) => log.requests.filter((r) =>
    r === `GET ${env.base}/queue/${slug}/pow`).length;

// The join bodies the page posted.
const joinBodies = (log, slug) => log.bodies.filter((b) =>
    b.url === `${env.base}/queue/${slug}/join`).map((b) =>
    JSON.parse(b.body));

async function waitFor(fn, ms = 8000) {
	const end = Date.now() + ms;
	for (;;) {
		const v = await fn().catch(() => null);
		if (v || Date.now() > end)
			return v;
		await sleep(50);
	}
}

test('at 15 bits the page solves in a Web Worker, shows its progress, ' +
    'and joins with the solution', async (t) => {
	const q = await busyQueue();	// number 1 taken, rate 1/min
	powOn(q.slug);
	const { context, page, log } = await openPage(browser);
	t.after(() => context.close());
	const workers = [];
	page.on('worker', (w) => workers.push(w.url()));
	const seen = [];
	await page.exposeFunction('noteState', (s) => seen.push(s));
	await page.addInitScript(() => {
		new MutationObserver(() => {
			const s = document.getElementById('state');
			if (s !== null)
				window.noteState(s.textContent);
		}).observe(document, { subtree: true, childList: true,
		    characterData: true });
	});
	await goto(page, roomUrl(q.slug));
	assert.equal(await waitText(page, '#state', 'You are in the queue.',
	    20000), 'You are in the queue.');
	assert.equal(await textOf(page, '#number'), '2');
	assert.deepEqual(workers, [`${env.base}/queue-static/pow.js`],
	    'solved in a Web Worker');
	assert.ok(seen.some((s) => /^Checking your browser before taking a /
	    .test(s)), `progress shown: ${seen.join(' | ')}`);
	const bodies = joinBodies(log, q.slug);
	assert.equal(bodies.length, 1);
	assert.equal(typeof bodies[0].pow.challenge, 'string');
	assert.match(bodies[0].pow.nonce, /^\d+$/);
	assert.equal(await page.locator('#room').getAttribute(
	    'data-pow-state'), 'done');
	assert.deepEqual(log.errors, []);
	assert.deepEqual(log.offsite, []);
});

test('admitted at once with proof of work: on to the shop with a token',
    async (t) => {
	const q = createQueue({ rate: 600 });
	powOn(q.slug, 12);
	const { context, page, log } = await openPage(browser);
	t.after(() => context.close());
	await goto(page, roomUrl(q.slug));
	const url = await waitShop(page, 15000);
	assert.equal(assertLanded(q, url).qnr, 1);
	assert.equal(joinPosts(log, q.slug), 1);
	assert.deepEqual(log.errors, []);
});

test('no secure context (a name mapped to loopback over plain http): a ' +
    'clear, localised message within 5 s, no number taken', async () => {
	const q = createQueue({ rate: 600 });
	powOn(q.slug);
	const port = new URL(env.base).port;
	const pw = await import('playwright-core');
	const b = await (pw.chromium ?? pw.default.chromium).launch({
	    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
	    args: ['--headless', '--no-sandbox', '--disable-gpu',
	    '--host-resolver-rules=MAP queue.test 127.0.0.1'] });
	try {
		const ctx = await b.newContext({ locale: 'de-DE',
		    extraHTTPHeaders: { 'accept-language': 'de' } });
		const page = await ctx.newPage();
		const joins = [];
		page.on('request', (r) => {
			if (r.method() === 'POST')
				joins.push(r.url());
		});
		await page.goto(`http://queue.test:${port}/queue/${q.slug}`);
		assert.equal(await page.evaluate(() => isSecureContext), false);
		const want = 'Dieser Warteraum prüft jeden Browser mit einer ' +
		    'kleinen Rechenaufgabe, die eine sichere Verbindung ' +
		    'braucht. Öffnen Sie diese Seite mit https://, um eine ' +
		    'Nummer zu erhalten.';
		assert.equal(await waitText(page, '#state', want, 5000), want);
		assert.deepEqual(joins, [], 'no number taken');
		assert.equal(show(q.slug).lastNumber, 0);
	} finally {
		await b.close();
	}
});

test('Workers forbidden by the page\'s CSP (worker-src \'none\'): solved ' +
    'on the page itself, the number taken', async (t) => {
	const q = await busyQueue();
	powOn(q.slug, 12);
	const { context, page, log } = await openPage(browser);
	t.after(() => context.close());
	await page.route(`**/queue/${q.slug}`, async (route) => {
		const res = await route.fetch();
		const headers = { ...res.headers() };
		headers['content-security-policy'] =
		    `${headers['content-security-policy']}; worker-src 'none'`;
		await route.fulfill({ response: res, headers });
	});
	const workers = [];
	page.on('worker', (w) => workers.push(w.url()));
	await goto(page, roomUrl(q.slug));
	assert.equal(await waitText(page, '#state', 'You are in the queue.',
	    20000), 'You are in the queue.');
	assert.equal(await textOf(page, '#number'), '2');
	assert.equal(joinBodies(log, q.slug).length, 1);
	assert.deepEqual(workers, [], 'no Worker ran');
});

test('JavaScript off: the <noscript> text names the requirement in the ' +
    'page\'s language; /join without a solution says the same (428)',
    async () => {
	const q = createQueue({ rate: 600 });
	powOn(q.slug);
	const ctx = await browser.newContext({ javaScriptEnabled: false,
	    extraHTTPHeaders: { 'accept-language': 'es' } });
	try {
		const page = await ctx.newPage();
		await page.goto(roomUrl(q.slug));
		const text = await page.locator('#pow-noscript').textContent();
		assert.equal(text, 'Esta sala de espera comprueba cada ' +
		    'navegador con un pequeño cálculo antes de dar un número, ' +
		    'y para ello necesita JavaScript. Active JavaScript y ' +
		    'recargue la página.');
		assert.ok(await page.locator('#pow-noscript').isVisible());
	} finally {
		await ctx.close();
	}
	const r = await fetch(`${env.base}/queue/${q.slug}/join`,
	    { method: 'POST' });
	const j = await r.json();
	assert.equal(r.status, 428);
	assert.equal(j.error, 'pow_required');
	assert.match(j.message, /small computation/);
});

test('a slow device (24 bits, CPU throttled x20): progress shown, and a ' +
    'challenge within 30 s of its end is exchanged for a fresh one, never ' +
    'posted expired', async (t) => {
	const q = createQueue({ rate: 600 });
	powOn(q.slug, 24);
	const { context, page, log } = await openPage(browser);
	t.after(() => context.close());
	await page.clock.install();
	const cdp = await context.newCDPSession(page);
	await cdp.send('Emulation.setCPUThrottlingRate', { rate: 20 });
	await goto(page, roomUrl(q.slug));
	assert.ok(await waitFor(async () => /^Checking your browser before /
	    .test(await textOf(page, '#state')), 10000), 'progress shown');
	assert.equal(powGets(log, q.slug), 1);
	// 270 s later (300 s life, 30 s before its end): a fresh one.
	await page.clock.fastForward(271000);
	assert.ok(await waitFor(async () => powGets(log, q.slug) === 2, 10000),
	    'a fresh challenge fetched');
	assert.equal(joinPosts(log, q.slug), 0, 'nothing posted expired');
	await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
});

test('the script tag with proof of work on: no silent pass, the visitor ' +
    'goes through the room, which solves and sends them back with a ' +
    'pass', async (t) => {
	const q = createQueue({ rate: 600 });
	powOn(q.slug, 12);
	const { context, page, log } = await openPage(browser);
	t.after(() => context.close());
	const url = `${env.base}/shop/script-tag.html?queue=${q.slug}&item=7`;
	await page.goto(url, { waitUntil: 'load' });
	await page.waitForURL((u) => u.pathname === '/shop/script-tag.html' &&
	    log.navigations.some((n) => n.includes(`/queue/${q.slug}?`)),
	    { timeout: 20000 });
	assert.ok(log.navigations.some((n) => new URL(n).pathname ===
	    `/queue/${q.slug}`), 'through the room');
	const pass = await waitFor(() => page.evaluate((k) =>
	    sessionStorage.getItem(k), `aditus-queue-pass:${q.slug}`));
	assert.ok(pass, 'a pass stored');
	assert.equal(joinBodies(log, q.slug).filter((b) => b !== null &&
	    b.pow !== undefined).length, 1, 'one solved join');
	assert.deepEqual(log.errors, []);
});

// The queue as aqueuectl shows it.
function show(slug) {
	return JSON.parse(ctl('show', slug));
}
