// 23-console-autorate: the console's auto-rate page in Chromium.  From
// the dashboard's link: fill the settings form, save, see enabling
// refused before a test, run the test (status, time taken, metrics
// read), turn auto-rate on, and see the decision log grow live (the
// worker's polls appear without a reload) on the page and on the
// dashboard.  axe-core finds no serious or critical violation at 360 px
// wide and at 1366x768 (the empty page, the page with a test result and
// log rows), and nothing is wider than the screen; screenshots of each
// go to var/test/artifacts/.
// Promises: the page changes no visitor request; the one it could reach
// is "serving never goes backward", which 55-console-autorate shows
// while the worker steers; here the queue has no visitors.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { mkdirSync } from 'node:fs';
import { launch, openPage, env, createQueue, axeSizes, ctl,
    consoleLogin as login } from './lib.mjs';
import { addUser } from '../http/console.mjs';

const ARTIFACTS = `${env.vardir}/artifacts`;
mkdirSync(ARTIFACTS, { recursive: true });
const SIZES = { phone: { width: 360, height: 740 },
    desktop: { width: 1366, height: 768 } };

// The shop's health endpoint, on a port of its own (the worker and the
// pool fetch it, never the browser).
const shop = { server: null, url: '' };
let browser;
before(async () => {
	browser = await launch();
	shop.server = http.createServer((req, res) => {
		res.writeHead(200, { 'content-type': 'application/json' });
		res.end('{"metrics":{"cpuLoad":0.2}}');
	});
	await new Promise((resolve) => shop.server.listen(0, '127.0.0.1',
	    resolve));
	shop.url = `http://127.0.0.1:${shop.server.address().port}/health`;
});
after(async () => {
	await browser?.close();
	shop.server?.closeAllConnections?.();
	await new Promise((resolve) => shop.server?.close(resolve) ??
	    resolve());
});

const axe = (page, name) => axeSizes(page, `console-${name}`, SIZES,
    ARTIFACTS);

// Submit with the button called name; wait for the page it answers.
async function press(page, name) {
	await Promise.all([page.waitForEvent('framenavigated',
	    { predicate: (f) => f === page.mainFrame() }),
	    page.getByRole('button', { name, exact: true }).click()]);
	await page.waitForLoadState('load');
}

// The kinds of the rows of #autorate-log.
const kinds = (page) => page.locator('#autorate-log tbody tr')
    .evaluateAll((trs) => trs.map((tr) => tr.cells[1].textContent));

test('auto-rate: fill, test, enable, the log live on the page and the ' +
    'dashboard; axe at 360 px and 1366x768', async (t) => {
	const u = addUser();
	const q = createQueue({ rate: 100 });
	const { context, page, log } = await openPage(browser);
	t.after(() => context.close());
	await login(page, u);
	await page.goto(`${env.base}/admin/queue/${q.slug}`);
	await Promise.all([
	    page.waitForURL(`${env.base}/admin/queue/${q.slug}/autorate`),
	    page.getByRole('link', { name: 'Auto-rate', exact: true })
	    .click()]);
	assert.equal(await page.locator('h1').textContent(), 'Auto-rate');
	assert.equal(await page.locator('#autorate-state').textContent(),
	    'Auto-rate is off.');
	await axe(page, 'autorate');

	await page.getByLabel('Health URL').fill(shop.url);
	await page.getByLabel('Allow a private network').check();
	await page.getByLabel('Poll interval (seconds)').fill('2');
	await page.getByLabel('Rules', { exact: true })
	    .fill('responseTimeMs < 2000, metrics.cpuLoad < 0.8');
	await page.getByLabel('Lowest rate (visitors per minute)').fill('20');
	await page.getByLabel('Highest rate (visitors per minute)')
	    .fill('300');
	await page.getByLabel('Cool-down (seconds)').fill('0');
	await press(page, 'Save settings');
	assert.equal(await page.locator('#autorate-done').textContent(),
	    'The settings were saved.');
	const s = JSON.parse(ctl('autorate', 'show', q.slug));
	assert.equal(s.healthUrl, shop.url);
	assert.equal(s.allowPrivateNetwork, true);
	assert.equal(s.intervalSeconds, 2);
	assert.equal(s.maxRate, 300);

	// Enabling needs a passing test first.
	await press(page, 'Turn auto-rate on');
	assert.match(await page.locator('#autorate-error').textContent(),
	    /needs a passing test.*Nothing was changed\./);
	assert.equal(JSON.parse(ctl('autorate', 'show', q.slug)).enabled,
	    false);

	await press(page, 'Run the test');
	assert.equal(await page.locator('#test-passed').textContent(),
	    'passed');
	assert.equal(await page.locator('#test-state').textContent(),
	    'healthy (ok)');
	assert.equal(await page.locator('#test-status').textContent(), '200');
	assert.match(await page.locator('#test-time').textContent(),
	    /^\d+ ms$/);
	assert.equal(await page.locator('#test-metrics tbody tr', {
	    hasText: 'metrics.cpuLoad' }).locator('td').textContent(), '0.2');
	assert.deepEqual(await kinds(page), ['test']);
	await axe(page, 'autorate-tested');

	await press(page, 'Turn auto-rate on');
	assert.equal(await page.locator('#autorate-state').textContent(),
	    'Auto-rate is on: it moves the admission rate.');
	// The worker's polls appear in the log without a reload.
	await page.waitForFunction(() => [...document.querySelectorAll(
	    '#autorate-log tbody tr')].some((tr) =>
	    tr.cells[1].textContent === 'poll'), null, { timeout: 20000 });
	const row = await page.locator('#autorate-log tbody tr', {
	    hasText: 'poll' }).first().locator('td').allTextContents();
	assert.equal(row.length, 7);
	assert.match(row[0], /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
	assert.match(row[4], /^(healthy|band|unhealthy|unknown): /);
	assert.match(row[5], /^\d+ \u2192 \d+$/);
	await axe(page, 'autorate-log');

	// The dashboard draws the same log, and redraws it live.
	await page.goto(`${env.base}/admin/queue/${q.slug}`);
	assert.ok((await kinds(page)).includes('poll'));
	await page.evaluate(() => {
		document.querySelector('#autorate-log tbody').replaceChildren();
		delete document.getElementById('dashboard').dataset.refreshed;
	});
	await page.waitForFunction(() =>
	    document.getElementById('dashboard').dataset.refreshed !==
	    undefined && document.querySelectorAll(
	    '#autorate-log tbody tr').length >= 2, null, { timeout: 10000 });
	const k = await kinds(page);
	assert.ok(k.includes('poll') && k.includes('test'), k.join(' '));
	assert.deepEqual(log.errors, []);
	assert.deepEqual(log.offsite, []);
	ctl('autorate', 'disable', q.slug);
});
