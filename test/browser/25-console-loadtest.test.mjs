// 25-console-loadtest: a load test run from the console in Chromium.
// From the navigation's "Load tests": the form offers only test queues
// (a queue that serves visitors is not in the list), a run is started,
// its page shows it live (status, figures, the per-second table and its
// chart grow without a reload) until it is done with every request
// answered; the run is in the list.  axe-core finds no serious or
// critical violation at 360 px wide and at 1366x768 (the list with its
// form, a finished run with its chart), nothing is wider than the
// screen; screenshots go to var/test/artifacts/.
// Promises: a load test takes numbers (promise 3 concerns only a
// visitor's own request): the production queue is never offered and
// its numbers stay as they were; test/http/60 shows the server refuses
// it whoever asks.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { launch, openPage, env, createQueue, axeSizes, ctl,
    consoleLogin as login } from './lib.mjs';
import { addUser } from '../http/console.mjs';

const ARTIFACTS = `${env.vardir}/artifacts`;
mkdirSync(ARTIFACTS, { recursive: true });
const SIZES = { phone: { width: 360, height: 740 },
    desktop: { width: 1366, height: 768 } };

let browser;
before(async () => {
	browser = await launch();
});
after(async () => {
	await browser?.close();
});

const lastNumber = (slug) => JSON.parse(ctl('show', slug))
    .lastNumber;

test('a load test from the console: only test queues, live figures and ' +
    'chart, done with every request answered; axe at 360 px and ' +
    '1366x768', async (t) => {
	const u = addUser();
	const prod = createQueue({ rate: 600 });
	const lt = createQueue({ rate: 600 });
	ctl('update', lt.slug, '--load-test-queue', 'on');
	const prodBefore = lastNumber(prod.slug);
	const { context, page } = await openPage(browser);
	t.after(() => context.close());
	await login(page, u);
	await page.goto(`${env.base}/admin/`);
	await Promise.all([page.waitForURL(`${env.base}/admin/loadtests`),
	    page.getByRole('link', { name: 'Load tests', exact: true })
	    .click()]);
	assert.equal(await page.locator('h1').textContent(), 'Load tests');
	const offered = await page.locator('#lt-queue option')
	    .evaluateAll((os) => os.map((o) => o.value));
	assert.ok(offered.includes(lt.slug), `${offered}`);
	assert.ok(!offered.includes(prod.slug), 'a production queue is ' +
	    'never offered');
	await axeSizes(page, 'console-loadtests', SIZES, ARTIFACTS);

	await page.getByLabel('Test queue').selectOption(lt.slug);
	await page.getByLabel('Profile').selectOption('status');
	await page.getByLabel('Rate (requests per second)').fill('20');
	await page.getByLabel('Duration (seconds)').fill('4');
	await Promise.all([page.waitForURL(/\/admin\/loadtests\/\d+$/),
	    page.getByRole('button', { name: 'Start load test',
	    exact: true }).click()]);
	assert.equal(await page.locator('h1').textContent(), 'Load test');
	// Live: the status moves on and the seconds arrive without a
	// reload (the page was loaded before the run had any).
	const url = page.url();
	await page.waitForFunction(() => document.querySelectorAll(
	    '#lt-seconds tbody tr').length >= 2, null, { timeout: 60000 });
	await page.waitForFunction(() => document.getElementById(
	    'lt-status').textContent === 'done', null, { timeout: 60000 });
	assert.equal(page.url(), url, 'no reload');
	assert.equal(await page.locator('#lt-sent').textContent(), '80');
	assert.equal(await page.locator('#lt-errors').textContent(), '0.00');
	assert.equal(await page.locator('#lt-flag').textContent(), 'none');
	assert.ok(Number(await page.locator('#lt-p95').textContent()) > 0);
	const points = Number(await page.locator('#lt-chart')
	    .getAttribute('data-points'));
	assert.ok(points >= 4, `${points} seconds in the chart`);
	assert.equal(await page.locator('#lt-chart canvas').count(), 1,
	    'uPlot drew the chart');
	const sum = await page.locator('#lt-seconds tbody tr')
	    .evaluateAll((trs) => trs.reduce((a, tr) =>
	    a + Number(tr.cells[1].textContent), 0));
	assert.equal(sum, 80, 'the seconds add up to the requests');
	await axeSizes(page, 'console-loadtest-run', SIZES, ARTIFACTS);

	await page.getByRole('link', { name: 'All load tests' }).click();
	await page.waitForURL(`${env.base}/admin/loadtests`);
	const first = page.locator('#loadtests tbody tr').first();
	assert.equal(await first.locator('td').nth(0).textContent(),
	    lt.slug);
	assert.equal(await first.locator('td').nth(3).textContent(), 'done');
	assert.equal(lastNumber(prod.slug), prodBefore);
});
