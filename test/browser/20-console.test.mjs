// 20-console: the operator console in Chromium - log in, create a queue
// and see its secret once, create an API key, change the rate, see the
// change in the audit log and on the dashboard (refreshed without a
// reload, the uPlot chart drawn), log out; a tampered CSRF token is
// refused; log-in throttling with exact counts; and axe-core finds no
// serious or critical violation on any console page at laptop and tablet
// sizes.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openPage, env, uniqueSlug, sleep, createQueue, join,
    axe, consoleLogin as login } from './lib.mjs';
import { addUser } from '../http/console.mjs';
import { dbSQL } from '../http/lib.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

test('the console flow, and axe on every console page', async (t) => {
	const u = addUser();
	const { context, page, log } = await openPage(browser);
	t.after(() => context.close());
	const violations = [];

	await page.goto(`${env.base}/admin/login`);
	violations.push(...await axe(page, 'login'));
	await login(page, u);
	assert.equal(await page.locator('h1').textContent(), 'Queues');
	violations.push(...await axe(page, 'queue list'));

	// Create a queue: the secret once.
	await page.getByRole('link', { name: 'New queue' }).first().click();
	await page.waitForURL(`${env.base}/admin/queues/new`);
	violations.push(...await axe(page, 'new queue'));
	const slug = uniqueSlug('bc');
	await page.getByLabel(/^Slug/).fill(slug);
	await page.getByLabel('Name', { exact: true }).fill('Browser sale');
	await page.getByLabel('Target URL').fill(`${env.base}/shop/`);
	await page.getByLabel('Shop domains').fill('127.0.0.1:' +
	    new URL(env.base).port);
	await page.getByLabel(/^Admission rate/).fill('60');
	await page.getByRole('button', { name: 'Create queue' }).click();
	await page.waitForSelector('#secret');
	const secret = await page.locator('#secret').textContent();
	assert.match(secret, /^[A-Za-z0-9_-]{43}$/);
	violations.push(...await axe(page, 'secret shown'));

	// The dashboard.
	await page.getByRole('link', { name: 'Open the dashboard' }).click();
	await page.waitForURL(`${env.base}/admin/queue/${slug}`);
	assert.ok(!(await page.content()).includes(secret), 'shown once');
	violations.push(...await axe(page, 'dashboard'));

	// An API key, shown once.
	await page.getByRole('link', { name: 'API keys' }).click();
	await page.waitForURL(`${env.base}/admin/queue/${slug}/keys`);
	violations.push(...await axe(page, 'keys'));
	await page.getByLabel('Name of the new key').fill('github-actions');
	await page.getByRole('button', { name: 'Create key' }).click();
	await page.waitForSelector('#new-key');
	const key = await page.locator('#new-key').textContent();
	assert.match(key, /^qak_[A-Za-z0-9_-]{43}$/);
	violations.push(...await axe(page, 'key shown'));
	await page.goto(`${env.base}/admin/queue/${slug}/keys`);
	assert.ok(!(await page.content()).includes(key), 'key shown once');
	assert.equal(await page.locator('#keys tbody th').textContent(),
	    'github-actions');

	// Change the rate on the dashboard.
	await page.goto(`${env.base}/admin/queue/${slug}`);
	await page.getByLabel(/^New admission rate/).fill('300');
	await Promise.all([page.waitForURL(`${env.base}/admin/queue/${slug}`),
	    page.getByRole('button', { name: 'Set rate' }).click()]);
	assert.equal(dbSQL(`SELECT rate_per_minute FROM queue WHERE slug = ` +
	    `'${slug}'`)[0][0], '300');
	// The figures and the chart follow without a reload.
	await page.evaluate(() => { window.notReloaded = true; });
	await page.waitForFunction(() =>
	    document.getElementById('rate').textContent === '300' &&
	    Number(document.getElementById('chart').dataset.points) > 0,
	    null, { timeout: 15000 });
	assert.equal(await page.evaluate(() => window.notReloaded), true);
	assert.equal(await page.locator('#chart canvas').count(), 1);
	const refreshed = await page.evaluate(() =>
	    Number(document.getElementById('dashboard').dataset.refreshed));
	await sleep(3500);
	assert.ok(await page.evaluate(() =>
	    Number(document.getElementById('dashboard').dataset.refreshed))
	    > refreshed, 'refreshed again within 3.5 s');
	assert.ok(await page.locator('#instances tbody tr').count() >= 1);

	// The audit log shows the change by this user.
	await page.getByRole('link', { name: 'Audit log' }).first().click();
	await page.waitForURL(/\/admin\/audit/);
	await page.getByLabel('Queue').selectOption(slug);
	await page.getByLabel('Action').selectOption('set_rate');
	await page.getByRole('button', { name: 'Filter' }).click();
	await page.waitForURL(/action=set_rate/);
	const rows = page.locator('#audit tbody tr');
	assert.equal(await rows.count(), 1);
	const row = await rows.textContent();
	assert.match(row, new RegExp(`user: ${u.name}`));
	assert.match(row, /set_rate/);
	assert.match(row, /\{"ratePerMinute":60\}/);
	assert.match(row, /\{"ratePerMinute":300\}/);
	violations.push(...await axe(page, 'audit'));

	// Edit page.
	await page.goto(`${env.base}/admin/queue/${slug}/edit`);
	violations.push(...await axe(page, 'edit'));

	// Log out: the console is closed again.
	await page.getByRole('button', { name: 'Log out' }).click();
	await page.waitForURL(`${env.base}/admin/login`);
	await page.goto(`${env.base}/admin/`);
	assert.equal(new URL(page.url()).pathname, '/admin/login');

	assert.deepEqual(violations, []);
	assert.deepEqual(log.errors, []);
	assert.deepEqual(log.offsite, []);
});

test('a tampered CSRF token is refused and nothing changes', async (t) => {
	const u = addUser();
	const { context, page } = await openPage(browser);
	t.after(() => context.close());
	await login(page, u);
	const slug = uniqueSlug('bx');
	await page.goto(`${env.base}/admin/queues/new`);
	await page.getByLabel(/^Slug/).fill(slug);
	await page.getByLabel('Name', { exact: true }).fill('CSRF test');
	await page.getByLabel(/^Admission rate/).fill('60');
	await page.getByRole('button', { name: 'Create queue' }).click();
	await page.waitForSelector('#secret');
	await page.goto(`${env.base}/admin/queue/${slug}`);
	await page.evaluate(() => {
		for (const i of document.querySelectorAll(
		    'input[name=csrf]'))
			i.value = 'A'.repeat(43);
	});
	await page.getByLabel(/^New admission rate/).fill('7');
	const [res] = await Promise.all([
	    page.waitForResponse((r) => r.url().endsWith('/rate')),
	    page.getByRole('button', { name: 'Set rate' }).click()]);
	assert.equal(res.status(), 403);
	await page.waitForSelector('p.error');
	assert.match(await page.locator('p.error').textContent(), /CSRF/);
	assert.equal(dbSQL(`SELECT rate_per_minute FROM queue WHERE slug = ` +
	    `'${slug}'`)[0][0], '60');
});

test('the browser session reaches the admin API (cookie Path=/), a ' +
    'change there takes X-CSRF-Token; the message field keeps its line ' +
    'breaks', async (t) => {
	const u = addUser();
	const q = createQueue({ rate: 60 });
	const { context, page } = await openPage(browser);
	t.after(() => context.close());
	await login(page, u);
	const id = Number(dbSQL(`SELECT id FROM queue WHERE slug = ` +
	    `'${q.slug}'`)[0][0]);
	// The page's own fetches carry the session cookie to /api/admin.
	const csrf = await page.locator('input[name=csrf]').first()
	    .getAttribute('value');
	const got = await page.evaluate(async ({ id, csrf }) => {
		const site = `/api/admin/queue/sites/${id}`;
		const a = await fetch(site);
		const b = await fetch(`${site}/rotate-secret`,
		    { method: 'POST' });
		const c = await fetch(`${site}/rotate-secret`, { method: 'POST',
		    headers: { 'X-CSRF-Token': csrf } });
		return [a.status, (await a.json()).slug, b.status,
		    (await b.json()).error, c.status,
		    typeof (await c.json()).secret];
	}, { id, csrf });
	assert.deepEqual(got, [200, q.slug, 403, 'csrf_failed', 200,
	    'string']);
	// A message of three lines, typed into the edit form.
	await page.goto(`${env.base}/admin/queue/${q.slug}/edit`);
	const msg = page.locator('textarea#f-message');
	await msg.fill('Doors open at 10.\n\nOne ticket per person.');
	await Promise.all([page.waitForLoadState('load'),
	    page.getByRole('button', { name: /Save/ }).click()]);
	await page.waitForSelector('text=Saved.');
	const saved = dbSQL(`SELECT HEX(message) FROM queue WHERE slug = ` +
	    `'${q.slug}'`)[0][0];
	assert.equal(Buffer.from(saved, 'hex').toString('utf8')
	    .replace(/\r\n/g, '\n'), 'Doors open at 10.\n\nOne ticket per person.');
	// Shown again as saved, with the leading text intact.
	assert.equal(await page.locator('textarea#f-message').inputValue(),
	    'Doors open at 10.\n\nOne ticket per person.');
});

test('log-in throttling: 5 wrong passwords for a user, then 429 even ' +
    'with the right one', async (t) => {
	const u = addUser();
	const { context, page } = await openPage(browser);
	t.after(() => context.close());
	const statuses = [];
	for (let i = 0; i < 6; i++) {
		await page.goto(`${env.base}/admin/login`);
		await page.getByLabel('User name').fill(u.name);
		await page.getByLabel('Password').fill(i < 5 ?
		    'a-wrong-password' : u.password);
		const [res] = await Promise.all([
		    page.waitForResponse((r) =>
		    r.url().endsWith('/admin/login') &&
		    r.request().method() === 'POST'),
		    page.getByRole('button', { name: 'Log in' }).click()]);
		statuses.push(res.status());
		await page.waitForLoadState();
	}
	assert.deepEqual(statuses, [401, 401, 401, 401, 401, 429]);
	assert.match(await page.locator('#login-error').textContent(),
	    /Too many failed log-ins/);
	// The address (127.0.0.1, shared by the tests) is not blocked:
	// other users still log in from it.
	const v = addUser();
	await login(page, v);
});

test('the queue list keeps its numbers live without a reload', async (t) => {
	const u = addUser();
	const q = createQueue({ rate: 1, burst: 1 });
	const { context, page } = await openPage(browser);
	t.after(() => context.close());
	await login(page, u);
	const row = page.locator(`tr[data-slug="${q.slug}"]`);
	assert.equal(await row.locator('td[data-col=issued]').textContent(),
	    '0');
	await page.evaluate(() => { window.notReloaded = true; });
	for (let i = 1; i <= 3; i++)
		assert.equal((await join(q.slug)).number, i);
	await page.waitForFunction((slug) => {
		const tr = document.querySelector(`tr[data-slug="${slug}"]`);
		return tr.querySelector('td[data-col=issued]').textContent ===
		    '3';
	}, q.slug, { timeout: 10000 });
	assert.equal(await row.locator('td[data-col=waiting]').textContent(),
	    '2');
	assert.equal(await page.evaluate(() => window.notReloaded), true);
});

test('session expiry in the browser: idle, then absolute', async (t) => {
	const u = addUser();
	const { context, page } = await openPage(browser);
	t.after(() => context.close());
	const uid = dbSQL(`SELECT id FROM admin_user WHERE name = '${u.name}'`)
	    [0][0];
	// Idle: last request session-idle (1800 s) + 1 s ago.
	await login(page, u);
	dbSQL('UPDATE admin_session SET last_seen_ms = last_seen_ms - ' +
	    `1801000 WHERE user_id = ${uid}`);
	await page.goto(`${env.base}/admin/`);
	assert.equal(new URL(page.url()).pathname, '/admin/login');
	// Idle one second short of the limit: still in.
	await login(page, u);
	dbSQL('UPDATE admin_session SET last_seen_ms = last_seen_ms - ' +
	    `1799000 WHERE user_id = ${uid}`);
	await page.goto(`${env.base}/admin/`);
	assert.equal(new URL(page.url()).pathname, '/admin/');
	// Absolute: logged in session-max (43200 s) + 1 s ago, though
	// active just now.
	dbSQL('UPDATE admin_session SET created_ms = created_ms - 43201000 ' +
	    `WHERE user_id = ${uid}`);
	await page.goto(`${env.base}/admin/`);
	assert.equal(new URL(page.url()).pathname, '/admin/login');
});
