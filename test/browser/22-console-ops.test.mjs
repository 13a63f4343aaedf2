// 22-console-ops: the console's fairness report and the scheduled
// opening on the dashboard in Chromium.  The report page is reached
// from the dashboard's link, takes a period through its form, and
// console.js draws the chart (uPlot) from its text alternative, the
// per-minute table; the dashboard of a queue with an opening counts
// down in words (durationText()) and, after the draw, shows the seed
// and the verification command.  axe-core finds no serious or critical
// violation at 360 px wide and at 1366x768, and nothing is wider than
// the screen; screenshots go to var/test/artifacts/.
// Promises: "order is join order or the published draw": the seed and
// command shown are the ones /info publishes (checked against it);
// "failed leaves nothing": a bad period on the form is refused and
// leaves the queue as it was.  The pages only read.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { launch, openPage, env, createQueue, axeSizes, ctl, uniqueSlug,
    sleep, consoleLogin as login } from './lib.mjs';
import { addUser } from '../http/console.mjs';
import { dbSQL, info, join, show, waitFor } from '../http/lib.mjs';

const ARTIFACTS = `${env.vardir}/artifacts`;
mkdirSync(ARTIFACTS, { recursive: true });
const SIZES = { phone: { width: 360, height: 740 },
    desktop: { width: 1366, height: 768 } };

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const axe = (page, name) => axeSizes(page, `console-${name}`, SIZES,
    ARTIFACTS);

// Six hours back, on the hour (within stats-retention).
const T0 = Math.floor((Date.now() - 6 * 3600000) / 3600000) * 3600000;

test('the fairness report: reached from the dashboard, a period through ' +
    'the form, the chart drawn from its table; axe at both sizes',
async (t) => {
	const u = addUser();
	const q = createQueue({ rate: 30, name: 'Fair <em>ops</em>' });
	const id = show(q.slug).id;
	for (const [dt, issued, serving] of [[0, 0, 0], [60000, 60, 30],
	    [120000, 60, 60], [180000, 90, 80]])
		dbSQL('INSERT INTO queue_stats (queue_id, sampled_ms, waiting, ' +
		    'inflow_per_min, rate_per_minute, serving, issued, active) ' +
		    `VALUES (${id}, ${T0 + dt}, ${issued - serving}, 0, 30, ` +
		    `${serving}, ${issued}, 1)`);
	[1, 3, 2].forEach((n, i) => dbSQL('INSERT INTO queue_served ' +
	    `(queue_id, number, served_ms) VALUES (${id}, ${n}, ` +
	    `${T0 + 5000 + i * 1000})`));
	const before = JSON.stringify(show(q.slug));
	const { context, page, log } = await openPage(browser);
	t.after(() => context.close());
	await login(page, u);
	await page.goto(`${env.base}/admin/queue/${q.slug}`);
	await Promise.all([page.waitForURL(
	    `${env.base}/admin/queue/${q.slug}/fairness`),
	    page.getByRole('link', { name: 'Fairness report' }).click()]);
	assert.equal(await page.locator('h1').textContent(),
	    'Fairness report');
	assert.equal(await page.locator('#fair-h').textContent(),
	    `Fairness report: Fair <em>ops</em> (${q.slug})`);

	// A bad period: the clear error, 400, no report.
	await page.getByLabel('From (Unix ms)').fill(String(T0 + 1000));
	await page.getByLabel('Until (Unix ms)').fill(String(T0));
	const [bad] = await Promise.all([page.waitForResponse((r) =>
	    r.url().includes('/fairness?')), page.getByRole('button',
	    { name: 'Show' }).click()]);
	assert.equal(bad.status(), 400);
	await page.waitForSelector('#period-error');
	assert.match(await page.locator('#period-error').textContent(),
	    /^The period is not valid/);
	assert.equal(await page.locator('#fair-summary').count(), 0);

	await page.getByLabel('From (Unix ms)').fill(String(T0));
	await page.getByLabel('Until (Unix ms)').fill(String(T0 + 180000));
	const [ok] = await Promise.all([page.waitForResponse((r) =>
	    r.url().includes('/fairness?')), page.getByRole('button',
	    { name: 'Show' }).click()]);
	assert.equal(ok.status(), 200);
	await page.waitForSelector('#fair-summary');
	assert.equal(await page.locator('#f-served').textContent(), '3');
	assert.equal(await page.locator('#f-inversions').textContent(), '1');
	assert.equal(await page.locator('#f-samples').textContent(), '4');
	// The chart: uPlot drew a canvas from the table's three minutes.
	await page.waitForFunction(() => document.getElementById('fair-chart')
	    .dataset.points === '3', null, { timeout: 5000 });
	assert.equal(await page.locator('#fair-chart canvas').count(), 1);
	const box = await page.locator('#fair-chart canvas').boundingBox();
	assert.ok(box.width >= 200 && box.height >= 100, JSON.stringify(box));
	assert.equal(await page.locator('#fair-chart').getAttribute('role'),
	    'img');
	assert.equal(await page.locator('#fair-minutes tbody tr').count(), 3);
	await axe(page, 'fairness');
	// The text alternative opened, axe again.
	await page.getByText(/Admissions per minute as a table/).click();
	assert.ok(await page.locator('#fair-minutes').isVisible());
	await axe(page, 'fairness-table');
	assert.equal(JSON.stringify(show(q.slug)), before, 'nothing changed');
	assert.deepEqual(log.errors, []);
	assert.deepEqual(log.offsite, []);
});

test('the dashboard of a queue with an opening: the countdown in words ' +
    'with the time and its zone, the seed hash, then the seed and the ' +
    'command; axe at both sizes', async (t) => {
	const u = addUser();
	const slug = uniqueSlug('ops');
	const now = Number(dbSQL(
	    'SELECT CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED)')[0][0]);
	const opensAt = now + 150000;
	ctl('create', slug, '--name', 'Opening <b>ops</b>', '--target',
	    env.shop, '--domains', env.origin, '--rate', 600, '--opens-at',
	    opensAt);
	const hash = await waitFor(async () => (await info(slug)).json
	    .drawSeedSha256, 5000, 100, 'the seed hash');
	await join(slug);
	await join(slug);
	const { context, page, log } = await openPage(browser);
	t.after(() => context.close());
	await login(page, u);
	await page.goto(`${env.base}/admin/queue/${slug}`);
	const iso = new Date(opensAt).toISOString();
	assert.equal(await page.locator('#opens-at').textContent(),
	    `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`);
	assert.ok(await page.locator('#opens-in').isVisible());
	assert.match(await page.locator('#opens-in').textContent(),
	    /^[12] min$/);
	assert.equal(await page.locator('#seed-hash').textContent(), hash);
	assert.equal(await page.locator('#draw-seed').count(), 0);
	await axe(page, 'dashboard-opening');

	// Move the opening to a few seconds ahead: the countdown reaches
	// "opened", the draw is made, a reload shows seed and command.
	const soon = Number(dbSQL(
	    'SELECT CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED)')[0][0]) +
	    4000;
	ctl('update', slug, '--opens-at', soon);
	const hash2 = await waitFor(async () => {
		const h = (await info(slug)).json.drawSeedSha256;
		return h && h !== hash ? h : null;
	}, 5000, 100, 'the new seed hash');
	await page.goto(`${env.base}/admin/queue/${slug}`);
	assert.match(await page.locator('#opens-in').textContent(),
	    /^(under 1 min|opened \(reload for the draw\))$/);
	await page.waitForFunction(() => document.getElementById('opens-in')
	    .textContent === 'opened (reload for the draw)', null,
	    { timeout: 10000 });
	const i = await waitFor(async () => {
		const j = (await info(slug)).json;
		return j.preQueue === 2 && j.drawSeed ? j : null;
	}, 15000, 200, 'the draw published');
	await sleep(100);
	await page.goto(`${env.base}/admin/queue/${slug}`);
	assert.equal(await page.locator('#seed-hash').textContent(), hash2);
	assert.equal(await page.locator('#draw-seed').textContent(),
	    i.drawSeed);
	assert.equal(await page.locator('#verify-cmd').textContent(),
	    `tools/verify-draw.py --seed ${i.drawSeed} --pre-queue 2 ` +
	    `--hash ${hash2} --order`);
	await axe(page, 'dashboard-drawn');
	assert.deepEqual(log.errors, []);
	assert.deepEqual(log.offsite, []);
});
