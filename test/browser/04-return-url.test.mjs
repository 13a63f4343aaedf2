// 04-return-url: CASES C09/C10 in the browser.  No return= value that a
// browser would resolve off-site is ever followed: the admitted visitor
// lands on exactly the target URL; an allowed return URL is followed with
// the token put into its query, before the fragment.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createQueue, launch, openPage, goto, roomUrl, waitShop,
    assertLanded, env } from './lib.mjs';

let browser;
let q;
before(async () => {
	browser = await launch();
	q = createQueue({ rate: 6000, burst: 1000 });
});
after(async () => { await browser?.close(); });

// admitWith(ret): open the room with ?return=ret on a fresh session;
// returns {url, log} once the visitor is on the shop.
async function admitWith(ret, t) {
	const { context, page, log } = await openPage(browser);
	t.after(() => context.close());
	await goto(page, roomUrl(q.slug, `?return=${encodeURIComponent(ret)}`));
	const url = await waitShop(page, 5000);
	// Let a wrong second navigation (if any) happen before judging.
	await page.waitForLoadState('load');
	return { url: page.url(), first: url, log };
}

// assertClean(log): no dialog, no error, nothing off-site; apart from
// the room's own address (which carries the input), no request or
// navigation mentions evil or a javascript:/data: URL; one join, no
// /token request (the join answer carries the token).
function assertClean(log) {
	assert.deepEqual(log.dialogs, []);
	assert.deepEqual(log.errors, []);
	assert.deepEqual(log.offsite, []);
	const room = roomUrl(q.slug);
	const notRoom = (u) => !u.replace(/^[A-Z]+ /, '').startsWith(room + '?');
	for (const u of [...log.requests, ...log.navigations].filter(notRoom)) {
		assert.doesNotMatch(u, /evil/i);
		assert.doesNotMatch(u, /^(?:[A-Z]+ )?(?:javascript|data):/i);
	}
	// Below the rate the join answer carries the token: the page makes
	// no /token request, and it goes on to the return URL the server
	// validated when it rendered the room (ret, or the target).
	const tokens = log.bodies.filter((b) => b.url === `${room}/token`);
	assert.equal(tokens.length, 0, 'no POST /token');
	const joins = log.requests.filter((u) => u === `POST ${room}/join`);
	assert.equal(joins.length, 1, 'one POST /join');
	// The join carries no return URL: the page goes on to the one the
	// server put into it, or the target.
	assert.equal(log.bodies.filter((b) => b.url === `${room}/join` &&
	    /return/.test(b.body)).length, 0);
}

// The stack's port: the shop origin is http://127.0.0.1:PORT.
const PORT = new URL(env.base).port;

const OFFSITE = [
	// C09
	'//evil.test/', '/\\evil.test/', '\\/evil.test', '/\\/\\evil.test',
	'/\t/evil.test', '/%09/evil.test', '/%0a/evil.test',
	'https:evil.test', 'https:\\\\evil.test', '/a/../\\evil.test',
	'/%5cevil.test', 'javascript:alert(1)', 'data:text/html,x',
	' https://evil.test', 'HTTPS://EVIL.TEST',
	// C10, with the stack's shop origin as the allowed domain
	`http://127.0.0.1:${PORT}@evil.test/`,
	'http://127.0.0.1@evil.test/shop/',
	`http://evil.test#@127.0.0.1:${PORT}/shop/`,
	`http://evil.test\\@127.0.0.1:${PORT}/shop/`,
	`http://127.0.0.1.evil.test:${PORT}/shop/`,
	'http://127.0.0.1%2f@evil.test/shop/',
	'http://127.0.0.1%252f@evil.test/shop/',
];

for (const ret of OFFSITE) {
	test(`return=${JSON.stringify(ret)} lands on the target`, async (t) => {
		const { url, first, log } = await admitWith(ret, t);
		assert.equal(url, first, 'no second navigation');
		const claims = assertLanded(q, url, env.shop);
		assert.ok(claims.qnr > 0);
		assertClean(log);
	});
}

test('an allowed return URL is followed, token before the fragment',
    async (t) => {
	const ret = `${env.base}/shop/checkout.html?step=2#cart`;
	const { url, log } = await admitWith(ret, t);
	const tok = new URL(url).searchParams.get('aditus_queue_token');
	assert.equal(url, `${env.base}/shop/checkout.html?step=2` +
	    `&aditus_queue_token=${tok}#cart`);
	assertLanded(q, url, ret);
	assertClean(log);
});
