// zz-c37: CASES C37 as stated: after a 10 s database outage with 200
// open waiting room pages (real tabs, real script, real stack), the
// per-second arrivals of their polls at nginx (the queue's state.json,
// and /status while that document is stale) show no wave.
//
// This file stops the stack's MariaDB (test/run runs one file at a time),
// and starts it again in an after() hook, also on failure.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createQueue, join, launch, roomUrl, dbStop, dbStart,
    dbStartIfStopped, sleep, env } from './lib.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => {
	dbStartIfStopped();
	await browser?.close();
});

const QUEUED = 'You are in the queue.';
const PAGES = 200;

// Arrivals of the pages' polls for slug (/status, state.json) from
// nginx's timed log, lines "<msec> <request_time> <status> <method>
// <request-uri>": nginx logs when it answered, so the arrival is $msec -
// $request_time.
function arrivals(slug, from, to) {
	const file = path.join(env.vardir, 'nginx', 'logs', 'timed.log');
	const want = `/queue/${slug}/status?number=`;
	const doc = `/queue/${slug}/state.json`;
	const out = [];
	for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
		const [msec, took, status, method, uri] = line.split(' ');
		if (method !== 'GET' || uri === undefined ||
		    !(uri.startsWith(want) || uri === doc))
			continue;
		const at = Number(msec) - Number(took);
		if (at >= from && at < to)
			out.push({ at, status: Number(status),
			    number: uri === doc ? 0 :
			    Number(uri.slice(want.length)) });
	}
	return out;
}

// The room pages' texts, read from the host page (same origin).
const rooms = (page, sel) => page.evaluate((s) => [...document
    .querySelectorAll('iframe')].map((f) => f.contentDocument
    ?.querySelector(s)?.textContent ?? null), sel);

// A tab's frames share one sessionStorage; each frame gets a private one
// instead, as a tab of its own would have (so each keeps its own number).
const privateStorage = () => {
	if (window === window.top)
		return;
	const m = new Map();
	const store = {
		getItem: (k) => m.has(String(k)) ? m.get(String(k)) : null,
		setItem: (k, v) => { m.set(String(k), String(v)); },
		removeItem: (k) => { m.delete(String(k)); },
	};
	Object.defineProperty(window, 'sessionStorage',
	    { configurable: true, get: () => store });
};

test('C37: after a 10 s outage, 200 open pages poll without a wave', { timeout: 115000 }, async (t) => {
	// Rate 1/min, and six numbers taken first (one admitted): every
	// page has at least five ahead and waits five minutes or more, so
	// the server asks each to poll every 30 s (its longest interval) and
	// nobody is admitted during the test.
	const q = createQueue({ rate: 1, burst: 1 });
	for (let i = 0; i < 6; i++)
		await join(q.slug);
	// 200 real tabs load too slowly on a small machine, and the room
	// may not be framed (X-Frame-Options, frame-ancestors): so one tab
	// of the stack's origin holds 200 same-origin frames, each the room
	// page exactly as the server rendered it (srcdoc) with the real
	// script, all opened in the same moment (the on-sale minute).
	const context = await browser.newContext({ viewport: { width: 1280,
	    height: 800 } });
	t.after(() => context.close());
	await context.addInitScript(privateStorage);
	const page = await context.newPage();
	const pageErrors = [];
	page.on('pageerror', (e) => pageErrors.push(String(e)));
	await page.goto(env.shop, { waitUntil: 'load' });
	const made = await page.evaluate(async ({ url, n }) => {
		const html = await (await fetch(url)).text();
		document.body.innerHTML = '';
		for (let i = 0; i < n; i++) {
			const f = document.createElement('iframe');
			f.srcdoc = html;
			f.style.cssText = 'width:30px;height:20px;border:0;' +
			    'margin:0;display:inline-block';
			document.body.appendChild(f);
		}
		return html.includes('waiting-room.js') ? n : 0;
	}, { url: roomUrl(q.slug), n: PAGES });
	assert.equal(made, PAGES, 'frames with the room page and its script');
	let numbers = [];
	for (let i = 0; i < 120; i++) {
		numbers = await rooms(page, '#number');
		if (numbers.every((v) => v !== null && /^[0-9]+$/.test(v)))
			break;
		await sleep(250);
	}
	const nums = numbers.map(Number).sort((a, b) => a - b);
	assert.deepEqual(nums, Array.from({ length: PAGES }, (_, i) => i + 7),
	    'every page took its own number, 7 to 206');
	await sleep(8000);
	const tStop = Date.now() / 1000;
	dbStop();
	await sleep(10000);
	dbStart();
	const tUp = Date.now() / 1000;
	await sleep(43000);
	const tEnd = Date.now() / 1000;

	const got = arrivals(q.slug, tStop, tEnd);
	const secs = Math.floor(tEnd - tStop);
	const bins = new Array(secs).fill(0);
	for (const a of got)
		if (a.at < tStop + secs)
			bins[Math.floor(a.at - tStop)]++;
	const total = bins.reduce((x, y) => x + y, 0);
	const mean = total / secs;
	t.diagnostic(`polls per second from the outage on (mean ` +
	    `${mean.toFixed(2)}): ${bins.join(' ')}`);
	t.diagnostic(`503 answers: ${got.filter((a) => a.status === 503)
	    .length}`);
	// By kind and answer: a page meeting the stale document asks
	// /status at a random moment of its interval, not at once.
	const kinds = {};
	for (const a of got) {
		const k = `${a.number ? '/status' : 'state.json'} ${a.status}`;
		kinds[k] ??= new Array(secs).fill(0);
		if (a.at < tStop + secs)
			kinds[k][Math.floor(a.at - tStop)]++;
	}
	for (const k of Object.keys(kinds).sort())
		t.diagnostic(`${k}: ${kinds[k].join(' ')}`);
	t.diagnostic(`database up again after ${(tUp - tStop).toFixed(1)} s`);
	// Every page kept polling, and every page heard from the server
	// after the outage (its "last updated" time).
	const heard = await rooms(page, '#updated');
	const when = await page.evaluate(() => [...document
	    .querySelectorAll('iframe')].map((f) => f.contentDocument
	    ?.querySelector('#updated')?.getAttribute('datetime') ?? null));
	assert.equal(when.filter((w) => w !== null &&
	    Date.parse(w) / 1000 >= tUp + 2).length, PAGES,
	    `every page polls again: ${heard.slice(0, 3)}`);
	assert.ok(got.some((a) => a.number > 0), 'stale: /status asked');
	// About 200 / 30 s: no page polls much more often than it should.
	assert.ok(mean > 0.6 * PAGES / 30 && mean < 1.6 * PAGES / 30,
	    `mean ${mean} per second`);
	// No second above twice the mean, allowing for the noise of
	// counting (three standard deviations of a Poisson count: ~6.7
	// arrivals a second are too few to hold 2x exactly).
	const limit = 2 * mean + 3 * Math.sqrt(mean);
	const max = Math.max(...bins);
	assert.ok(max <= limit, `a second with ${max} arrivals, limit ` +
	    `${limit.toFixed(1)}`);
	// And no five seconds above twice their mean: a wave shows here
	// with no allowance needed.
	const five = [];
	for (let i = 0; i + 5 <= secs; i += 5)
		five.push(bins.slice(i, i + 5).reduce((x, y) => x + y, 0));
	t.diagnostic(`per five seconds: ${five.join(' ')}`);
	assert.ok(Math.max(...five) <= 2 * 5 * mean,
	    `five seconds with ${Math.max(...five)}, mean ${5 * mean}`);
	const states = await rooms(page, '#state');
	assert.deepEqual(states.filter((s) => s !== QUEUED), [],
	    'every page is back in the queue');
	assert.deepEqual(pageErrors, []);
});
