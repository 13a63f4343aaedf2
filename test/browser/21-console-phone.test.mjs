// 21-console-phone: every console page but the users and instances
// pages (21-console-pages) at 360 px wide in Chromium: axe-core finds
// no serious or critical violation and nothing is wider than the
// screen (a table scrolls sideways in its own region); screenshots go
// to var/test/artifacts/.  The laptop and tablet sizes are
// 20-console's.  Promises: none of the visitor promises is on these
// pages.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { launch, openPage, env, createQueue, axeSizes,
    consoleLogin as login } from './lib.mjs';
import { addUser } from '../http/console.mjs';

const ARTIFACTS = `${env.vardir}/artifacts`;
mkdirSync(ARTIFACTS, { recursive: true });
const PHONE = { phone: { width: 360, height: 740 } };

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const axe = (page, name) => axeSizes(page, `console-${name}`, PHONE,
    ARTIFACTS);

test('the console\'s other pages at 360 px: axe, and nothing wider ' +
    'than the screen (tables scroll in their own region)', async (t) => {
	const u = addUser();
	const q = createQueue({ rate: 60 });
	const { context, page, log } = await openPage(browser);
	t.after(() => context.close());
	await page.setViewportSize(PHONE.phone);
	await page.goto(`${env.base}/admin/login`);
	await axe(page, 'login');
	await login(page, u);
	for (const [name, path] of [['queues', '/admin/'],
	    ['new-queue', '/admin/queues/new'],
	    ['queue', `/admin/queue/${q.slug}`],
	    ['edit', `/admin/queue/${q.slug}/edit`],
	    ['keys', `/admin/queue/${q.slug}/keys`],
	    ['bypass', `/admin/queue/${q.slug}/bypass`],
	    ['audit', '/admin/audit']]) {
		await page.goto(`${env.base}${path}`);
		await axe(page, name);
	}
	assert.deepEqual(log.errors, []);
});
