// 40-template: a queue's custom waiting-room template in Chromium - the
// operator uploads it on the console's template page (a refused one
// names its line and stores nothing), sees the six previews, and the
// room page renders it with live figures, the queue's name (markup) as
// text, and still sends the visitor on by itself.  axe-core finds no
// serious or critical violation on the template page.  Promises at
// stake: 1 (the visitor keeps a working page and place: the live
// script and the hand-over work with a custom template) and 4 (a
// refused upload changes nothing).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openPage, env, createQueue, join, ctl, goto, roomUrl,
    waitText, waitShop, sleep, CACHE_MS, axe as axeOf,
    consoleLogin as login } from './lib.mjs';
import { addUser } from '../http/console.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

// axe on the template page: its previews are frames with an empty
// sandbox, where no script runs, axe's neither; legacy mode checks the
// page and leaves them out (what a preview shows is the operator's own
// markup).
const axe = (page, what) => axeOf(page, what, { legacy: true });

const TEMPLATE = '<section class="mine">\n<h1 id="t">${name}</h1>\n' +
    '<p>Your number <strong id="n">${number}</strong>, place ' +
    '<span id="p">${position}</span>, serving <span id="s">${serving}' +
    '</span>, wait <span id="w">${waitTime}</span>.</p>\n</section>\n';

// The states of the previews: [id, the status line it shows].
const STATES = [
	['queuing', 'You are in the queue.'],
	['admitted', 'It is your turn: taking you to the shop\u2026'],
	['paused', 'The waiting room is paused. Your place is kept.'],
	['hold', 'Nobody is admitted at the moment. Your place is kept; ' +
	    'this page goes on by itself.'],
	['pre-open', 'Opens in 12 min'],
	['full', 'The waiting room is full right now. Please try again ' +
	    'later.'],
];

test('upload in the console, six previews, the room page renders the ' +
    'template live and hands the visitor over', async (t) => {
	const u = addUser();
	const name = '<b>Sale</b> ${serving}';
	const q = createQueue({ rate: 1, burst: 1, name });
	assert.equal((await join(q.slug)).number, 1);
	const { context, page, log } = await openPage(browser);
	t.after(() => context.close());
	page.setDefaultTimeout(8000);
	const violations = [];
	await login(page, u);

	// From the queue's edit page to its template page.
	await page.goto(`${env.base}/admin/queue/${q.slug}/edit`);
	await page.getByRole('link', { name: 'Waiting-room template' })
	    .click();
	await page.waitForURL(`${env.base}/admin/queue/${q.slug}/template`);
	assert.equal(await page.locator('#template-state').textContent(),
	    'The room shows the default page.');
	violations.push(...await axe(page, 'template page, default'));

	// A refused template: the line named, nothing stored, text kept.
	const bad = '<p>fine</p>\n<script>alert(1)</script>';
	await page.getByLabel('Template HTML').fill(bad);
	await page.getByRole('button', { name: 'Save template' }).click();
	await page.waitForSelector('#template-error');
	assert.match(await page.locator('#template-error').textContent(),
	    /^line 2: element <script> is not allowed/);
	assert.equal(await page.locator('#template-state').textContent(),
	    'The room shows the default page.');
	assert.equal(await page.getByLabel('Template HTML').inputValue(),
	    bad, 'the text kept');
	violations.push(...await axe(page, 'template page, refused'));

	// The template stored: six previews, sandboxed, filled the same way.
	await page.getByLabel('Template HTML').fill(TEMPLATE);
	await page.getByRole('button', { name: 'Save template' }).click();
	await page.waitForSelector('#previews-h');
	assert.match(await page.locator('#template-state').textContent(),
	    /^The room shows this queue's own template \(\d+ bytes\)\.$/);
	assert.equal(await page.locator('.preview iframe').count(), 6);
	for (const [id, line] of STATES) {
		const f = page.locator(`#preview-${id} iframe`);
		assert.equal(await f.getAttribute('sandbox'), '');
		const fr = page.frameLocator(`#preview-${id} iframe`);
		assert.equal(await fr.locator('#state').textContent(), line,
		    id);
		assert.equal(await fr.locator('#t').textContent(), name,
		    `${id}: the name as text`);
		assert.equal(await fr.locator('#t b').count(), 0);
	}
	const fq = page.frameLocator('#preview-queuing iframe');
	assert.equal(await fq.locator('#n').textContent(), '1042');
	assert.equal(await fq.locator('#p').textContent(), '58');
	assert.equal(await fq.locator('#w').textContent(), '4\u20136 min');
	const ff = page.frameLocator('#preview-full iframe');
	assert.equal(await ff.locator('#n').textContent(), '\u2013');
	violations.push(...await axe(page, 'template page, previews'));
	assert.deepEqual(violations, []);

	// The room page, as a visitor (number 2 waits behind number 1).
	await sleep(CACHE_MS);
	const v = await openPage(browser);
	t.after(() => v.context.close());
	await goto(v.page, roomUrl(q.slug));
	assert.equal(await waitText(v.page, '#n [data-aq-live="number"]',
	    '2'), '2');
	assert.equal(await waitText(v.page, '#p [data-aq-live="position"]',
	    '1'), '1');
	assert.equal(await v.page.locator('#s [data-aq-live="serving"]')
	    .textContent(), '1');
	assert.equal(await v.page.locator('#t').textContent(), name);
	assert.equal(await v.page.locator('#t b').count(), 0);
	assert.equal(await waitText(v.page, '#state', 'You are in the ' +
	    'queue.'), 'You are in the queue.');
	assert.equal(await v.page.locator('.figures').count(), 0,
	    'the template, not the default figures');
	ctl('set-rate', q.slug, 600);
	await sleep(CACHE_MS);
	const url = await waitShop(v.page, 10000);
	assert.ok(url.includes('aditus_queue_token='), url);
	assert.deepEqual(v.log.errors, [], 'no script error');
	assert.deepEqual(log.errors, []);
	assert.deepEqual(v.log.dialogs, [], 'nothing ran from the name');
});
