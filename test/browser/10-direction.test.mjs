// 10-direction: the operator's text takes its own direction.  A Latin
// message and name in the Arabic room are laid out left to right (their
// full stops stay at the end of the line, not at its start), an Arabic
// name in the English room right to left; each line of a mixed message
// on its own; the Chinese room names fonts that cover CJK first; the
// console shows names in spans of their own direction.
//
// Promises: none of the six is touched (presentation only: no number is
// taken by these page loads, which the join count below checks).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openPage, roomUrl, createQueue, ctl, env, sleep,
    CACHE_MS, joinPosts } from './lib.mjs';
import { addUser } from '../http/console.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

// The x of the first and of the last character of an element's first
// line of text, and its computed direction.
function layout(page, selector) {
	return page.evaluate((sel) => {
		const el = document.querySelector(sel);
		const node = [...el.childNodes].find((n) =>
		    n.nodeType === Node.TEXT_NODE && n.data.trim() !== '') ??
		    el.querySelector('span')?.firstChild;
		const text = node.data;
		const line = text.split('\n')[0];
		const at = (i) => {
			const r = document.createRange();
			r.setStart(node, i);
			r.setEnd(node, i + 1);
			return r.getBoundingClientRect().left;
		};
		return { dir: getComputedStyle(el).direction,
		    first: at(0), last: at(line.length - 1), text: line };
	}, selector);
}

// A paused queue: its room shows the page without taking a number (and
// stays on it).  Pages are loaded whole ('load': the style applied).
function pausedQueue(opts) {
	const q = createQueue(opts);
	ctl('pause', q.slug);
	return q;
}

test('a Latin message and name in the Arabic room run left to right',
    async (t) => {
	const name = 'Summer Tickets 2027.';
	const q = pausedQueue({ name });
	ctl('update', q.slug, '--message',
	    'Doors open at 10:00. Please wait.\nمرحبا بكم في الطابور.');
	await sleep(CACHE_MS);
	const { context, page, log } = await openPage(browser);
	t.after(() => context.close());
	await page.goto(roomUrl(q.slug, '?lang=ar'), { waitUntil: 'load' });
	assert.equal(await page.getAttribute('html', 'dir'), 'rtl');
	assert.equal(await page.getAttribute('#message', 'dir'), 'auto');
	assert.equal(await page.getAttribute('#title', 'dir'), 'auto');

	const m = await layout(page, '#message');
	assert.equal(m.text, 'Doors open at 10:00. Please wait.');
	assert.equal(m.dir, 'ltr', 'the Latin message runs left to right');
	assert.ok(m.last > m.first, `its full stop ends the line (first x ` +
	    `${m.first}, last x ${m.last})`);
	const h = await layout(page, '#title');
	assert.equal(h.text, name);
	assert.equal(h.dir, 'ltr');
	assert.ok(h.last > h.first, 'the name\'s full stop stays at its end');

	// The message's second line, Arabic, on its own: right to left.
	const second = await page.evaluate(() => {
		const el = document.querySelector('#message');
		const node = el.firstChild;
		const i = node.data.indexOf('\n') + 1;
		const r = document.createRange();
		const x = (k) => {
			r.setStart(node, k);
			r.setEnd(node, k + 1);
			return r.getBoundingClientRect().left;
		};
		return { first: x(i), last: x(node.data.length - 1) };
	});
	assert.ok(second.first > second.last,
	    'the Arabic line of the message runs right to left');
	assert.equal(joinPosts(log, q.slug), 1, 'one refused join only');
});

test('an Arabic name in the English room runs right to left',
    async (t) => {
	const name = 'تذاكر الصيف.';
	const q = pausedQueue({ name });
	await sleep(CACHE_MS);
	const { context, page } = await openPage(browser);
	t.after(() => context.close());
	await page.goto(roomUrl(q.slug, '?lang=en'), { waitUntil: 'load' });
	assert.equal(await page.getAttribute('html', 'dir'), 'ltr');
	const h = await layout(page, '#title');
	assert.equal(h.text, name);
	assert.equal(h.dir, 'rtl');
	assert.ok(h.first > h.last, 'its first letter is at the right');
});

test('the Chinese room names CJK fonts first, the others cover CJK',
    async (t) => {
	const q = pausedQueue({});
	await sleep(CACHE_MS);
	const { context, page } = await openPage(browser);
	t.after(() => context.close());
	const fonts = async (lang) => {
		await page.goto(roomUrl(q.slug, `?lang=${lang}`),
		    { waitUntil: 'load' });
		return page.evaluate(() =>
		    getComputedStyle(document.body).fontFamily);
	};
	const zh = await fonts('zh');
	assert.match(zh, /^system-ui, -apple-system, "PingFang SC"/);
	for (const face of ['"Noto Sans CJK SC"', '"Source Han Sans SC"',
	    '"Microsoft YaHei"', '"WenQuanYi Micro Hei"'])
		assert.ok(zh.includes(face), `zh names ${face}`);
	for (const lang of ['en', 'ar', 'de']) {
		const f = await fonts(lang);
		assert.ok(f.includes('"Noto Sans CJK SC"') &&
		    f.includes('"Noto Sans Arabic"'),
		    `${lang}: a Chinese or Arabic name still finds a font`);
	}
});

test('the console shows names in spans of their own direction',
    async (t) => {
	const u = addUser();
	const name = 'تذاكر الصيف';
	const q = createQueue({ name });
	const { context, page } = await openPage(browser);
	t.after(() => context.close());
	await page.goto(`${env.base}/admin/login`);
	await page.getByLabel('User name').fill(u.name);
	await page.getByLabel('Password').fill(u.password);
	await Promise.all([page.waitForURL(`${env.base}/admin/`),
	    page.getByRole('button', { name: 'Log in' }).click()]);
	const row = page.locator(`tr[data-slug="${q.slug}"] th span`);
	assert.equal(await row.getAttribute('dir'), 'auto');
	assert.equal(await row.textContent(), name);
	assert.equal(await row.evaluate((e) =>
	    getComputedStyle(e).direction), 'rtl');
	await page.goto(`${env.base}/admin/queue/${q.slug}`);
	const h = page.locator('#dash-h span[dir="auto"]');
	assert.equal(await h.textContent(), name);
});
