// 21-console-pages: the console's users and running instances pages in
// Chromium, and the dashboard's estimated wait in words.  axe-core finds
// no serious or critical violation on either page at 360 px wide and at
// 1366x768 (the users page also with a password form opened), and
// nothing is wider than the screen; screenshots of each go to
// var/test/artifacts/.  A user is added and disabled through the forms.
// The wait the server writes first and the one console.js writes on
// its live refresh are the same text ("7 h 38 min" for 27486 s), and
// console.js's durationText() gives the C formatter's unit-test cases.
// Promises: none of the visitor promises is on these pages.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { launch, openPage, env, createQueue, axeSizes,
    consoleLogin as login } from './lib.mjs';
import { addUser } from '../http/console.mjs';
import { dbSQL } from '../http/lib.mjs';

const ARTIFACTS = `${env.vardir}/artifacts`;
mkdirSync(ARTIFACTS, { recursive: true });
const SIZES = { phone: { width: 360, height: 740 },
    desktop: { width: 1366, height: 768 } };

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

// No serious or critical violation and nothing wider than the screen
// at each size of sizes; a screenshot at each.
const axe = (page, name, sizes = SIZES) => axeSizes(page,
    `console-${name}`, sizes, ARTIFACTS);

test('the users page: add and disable a user through the forms; axe ' +
    'at 360 px and 1366x768', async (t) => {
	const u = addUser();
	const { context, page, log } = await openPage(browser);
	t.after(() => context.close());
	await login(page, u);
	await Promise.all([page.waitForURL(`${env.base}/admin/users`),
	    page.getByRole('link', { name: 'Users', exact: true }).click()]);
	assert.equal(await page.locator('h1').textContent(), 'Users');
	await axe(page, 'users');

	const name = `b-${Date.now().toString(36)}`;
	await page.getByLabel('User name').fill(name);
	await page.getByLabel('Password', { exact: true })
	    .fill('browser-password-1');
	await page.locator('#new-again').fill('browser-password-1');
	const [res] = await Promise.all([
	    page.waitForResponse((r) => r.url().endsWith('/admin/users') &&
	    r.request().method() === 'POST'),
	    page.getByRole('button', { name: 'Add user' }).click()]);
	assert.equal(res.status(), 201);
	await page.waitForSelector('#users-done');
	assert.equal(await page.locator('#users-done').textContent(),
	    `User ${name} was added.`);
	assert.equal(dbSQL('SELECT disabled FROM admin_user WHERE name = ' +
	    `'${name}'`)[0][0], '0');

	// A password form opened in the new user's row, then axe again.
	await page.getByText(`Reset password of ${name}`).click();
	assert.ok(await page.getByRole('button',
	    { name: `Set password of ${name}` }).isVisible());
	await axe(page, 'users-password-open');

	await page.getByRole('button', { name: `Disable ${name}` }).click();
	await page.waitForSelector('#users-done');
	assert.equal(await page.locator('#users-done').textContent(),
	    `User ${name} was disabled, and its sessions were ended.`);
	assert.equal(dbSQL('SELECT disabled FROM admin_user WHERE name = ' +
	    `'${name}'`)[0][0], '1');
	// One's own row has no disable button.
	assert.equal(await page.getByRole('button',
	    { name: `Disable ${u.name}` }).count(), 0);
	assert.deepEqual(log.errors, []);
	assert.deepEqual(log.offsite, []);
});

test('the instances page: tables refreshed live; axe at 360 px and ' +
    '1366x768', async (t) => {
	const u = addUser();
	const { context, page, log } = await openPage(browser);
	t.after(() => context.close());
	await login(page, u);
	await Promise.all([page.waitForURL(`${env.base}/admin/instances`),
	    page.getByRole('link', { name: 'Instances' }).click()]);
	assert.equal(await page.locator('h1').textContent(),
	    'Running instances');
	assert.ok(await page.locator('#instances tbody tr').count() >= 1);
	const kinds = await page.locator('#instance-rates').getAttribute(
	    'data-kinds');
	assert.equal(kinds, 'room join status token enter verify info ' +
	    'admin api metrics other');
	// The live refresh redraws both tables in the server's shape.
	await page.evaluate(() => {
		document.querySelector('#instance-rates tbody')
		    .replaceChildren();
	});
	await page.waitForFunction(() =>
	    document.getElementById('instance-list').dataset.refreshed !==
	    undefined && document.querySelectorAll(
	    '#instance-rates tbody tr').length >= 1, null,
	    { timeout: 10000 });
	const cells = await page.locator('#instance-rates tbody tr').first()
	    .locator('td').allTextContents();
	assert.equal(cells.length, 11);
	for (const v of cells)
		assert.match(v, /^\d+\.\d\d$/);
	assert.match(await page.locator('#instances tbody tr').first()
	    .locator('td').nth(8).textContent(),
	    /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \(under 1 min ago\)$/);
	await axe(page, 'instances');
	assert.deepEqual(log.errors, []);
});

test('the dashboard: the estimated wait in words, the same from the ' +
    'server and from the live refresh', async (t) => {
	const u = addUser();
	const q = createQueue({ rate: 1 });
	// The newest sample: 458 waiting at 1 per minute, i.e. 27480 s.
	// An hour ahead, so that the pool's own samples stay older.
	dbSQL('INSERT INTO queue_stats (queue_id, sampled_ms, waiting, ' +
	    'inflow_per_min, rate_per_minute, serving, issued, active) ' +
	    'SELECT id, CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED) + ' +
	    `3600000, 458, 0, 1, 0, 458, 1 FROM queue WHERE slug = ` +
	    `'${q.slug}'`);
	const { context, page } = await openPage(browser);
	t.after(() => context.close());
	await login(page, u);
	const html = await (await context.request.get(
	    `${env.base}/admin/queue/${q.slug}`)).text();
	const server = /<dd id="wait">([^<]*)<\/dd>/.exec(html)[1];
	assert.equal(server, '7 h 38 min');
	await page.goto(`${env.base}/admin/queue/${q.slug}`);
	await page.evaluate(() => {
		document.getElementById('wait').textContent = '';
		delete document.getElementById('dashboard').dataset.refreshed;
	});
	await page.waitForFunction(() =>
	    document.getElementById('dashboard').dataset.refreshed !==
	    undefined, null, { timeout: 10000 });
	assert.equal(await page.locator('#wait').textContent(), server);
	// The C formatter's unit-test cases, through console.js.
	const cases = [[-1, '-'], [null, '-'], [0, 'under 1 min'],
	    [59, 'under 1 min'], [60, '1 min'], [119, '1 min'],
	    [3599, '59 min'], [3600, '1 h'], [3660, '1 h 1 min'],
	    [27486, '7 h 38 min'], [86399, '23 h 59 min'], [86400, '1 d'],
	    [100740, '1 d 3 h'], [946800, '10 d 23 h']];
	assert.deepEqual(await page.evaluate((c) =>
	    c.map(([s]) => durationText(s)), cases), cases.map((c) => c[1]));
	await axe(page, 'dashboard');
});
