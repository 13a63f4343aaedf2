// An API key cannot widen where the product's outbound requests go, and
// the address filter refuses every special-purpose range (SPEC section
// 10, CASES C20):
//   - the attack as found: a qak_ key PATCHes the auto-rate with a
//     loopback health URL and allowPrivateNetwork: true; now 403
//     (field allowPrivateNetwork), nothing changed, and its test reads
//     nothing (a listener on 127.0.0.1 gets no connection);
//   - allowPrivateNetwork changes only from a console session or the
//     CLI; while it is on, a key does not move the health URL (403) but
//     changes the rest;
//   - one address literal of every range of the IANA special-purpose
//     registries (IPv4 and IPv6, NAT64 64:ff9b::/96 and 64:ff9b:1::/48,
//     6to4, 192.0.0.0/24, 198.18.0.0/15, the documentation ranges, ...)
//     is refused when saved (422 invalid_health_url), also with the
//     private network allowed;
//   - a health test started from the API holds a pool worker for at
//     most 1.5 s of fetching (a shop that accepts and never answers:
//     "timeout", answered well before health-timeout-ms), one at a time
//     per pool (a second one meanwhile: 503 busy with Retry-After), and
//     /status keeps answering meanwhile.
// Promises 4 (a refused change changes nothing) and 5 (status stays
// fast) are the ones these paths could break.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import {
	createQueue, ctl, show, req, join, sleep, stackConf,
} from './lib.mjs';
import { Client, addUser } from './console.mjs';

const API = '/api/admin/queue/sites';

function newKey(slug) {
	return /^key: (qak_\S+)$/m.exec(ctl('key', 'create', slug, '--name',
	    'reach'))[1];
}

// With a key: {status, json, text}.
function withKey(key, method, path, body) {
	return req(`${API}${path}`, { method, headers: {
	    authorization: `Bearer ${key}`,
	    ...(body === undefined ? {} :
	    { 'content-type': 'application/json' }) },
	    body: body === undefined ? undefined : JSON.stringify(body) });
}

// A console session (over nginx): the admin API with its CSRF header.
async function session() {
	const u = addUser();
	const c = new Client();
	assert.equal((await c.login(u.name, u.password)).status, 303);
	const csrf = await c.csrf();
	return (method, path, body) => req(`${API}${path}`, { method,
	    headers: { cookie: c.cookieHeader(), 'x-csrf-token': csrf,
	    'content-type': 'application/json' },
	    body: JSON.stringify(body) });
}

// A TCP listener on 127.0.0.1 that counts connections; silent ones
// never answer.
async function listener({ silent = false } = {}) {
	let n = 0;
	const socks = new Set();
	const srv = net.createServer((s) => {
		n++;
		socks.add(s);
		s.on('close', () => socks.delete(s));
		s.on('error', () => {});
		if (!silent)
			s.end('HTTP/1.1 200 OK\r\ncontent-type: ' +
			    'application/json\r\ncontent-length: 2\r\n' +
			    'connection: close\r\n\r\n{}');
	});
	await new Promise((r) => srv.listen(0, '127.0.0.1', r));
	return {
		port: srv.address().port,
		count: () => n,
		close: () => {
			for (const s of socks)
				s.destroy();
			return new Promise((r) => srv.close(r));
		},
	};
}

test('the attack as found: a key cannot point the health check at ' +
    'loopback (403 allowPrivateNetwork, nothing changed, nothing read)',
    async () => {
	const q = createQueue();
	const id = show(q.slug).id;
	const key = newKey(q.slug);
	const l = await listener();
	try {
		let r = await withKey(key, 'PATCH', `/${id}/autorate`, {
		    healthUrl: `http://127.0.0.1:${l.port}/queue/demo/info`,
		    allowPrivateNetwork: true,
		    rules: 'serving >= 0, waiting >= 0' });
		assert.equal(r.status, 403, r.text);
		assert.deepEqual([r.json.error, r.json.field],
		    ['forbidden', 'allowPrivateNetwork']);
		r = await withKey(key, 'GET', `/${id}/autorate`);
		assert.deepEqual([r.json.healthUrl, r.json.allowPrivateNetwork,
		    r.json.rules], ['', false, '']);
		r = await withKey(key, 'POST', `/${id}/autorate/test`);
		assert.equal(r.status, 422, r.text);
		assert.equal(r.json.sample, undefined, 'nothing read');
		// Without the flag the URL itself is refused.
		r = await withKey(key, 'PATCH', `/${id}/autorate`, {
		    healthUrl: `http://127.0.0.1:${l.port}/` });
		assert.equal(r.status, 422, r.text);
		assert.equal(r.json.error, 'invalid_health_url');
		assert.equal(l.count(), 0, 'the listener was never reached');
		const audit = ctl('audit', '--queue', q.slug);
		assert.ok(!audit.includes('autorate_update'), audit);
	} finally {
		await l.close();
	}
});

test('allowPrivateNetwork is the console\'s and the CLI\'s: a key ' +
    'neither turns it on nor off, nor moves the URL while it is on, ' +
    'but changes the rest', async () => {
	const q = createQueue();
	const id = show(q.slug).id;
	const key = newKey(q.slug);
	const s = await session();
	const url = 'http://127.0.0.1:9/health';
	let r = await s('PATCH', `/${id}/autorate`, { healthUrl: url,
	    allowPrivateNetwork: true, rules: 'responseTimeMs < 500' });
	assert.equal(r.status, 200, r.text);
	assert.equal(r.json.allowPrivateNetwork, true);
	r = await withKey(key, 'PATCH', `/${id}/autorate`,
	    { allowPrivateNetwork: false });
	assert.equal(r.status, 403, r.text);
	assert.equal(r.json.field, 'allowPrivateNetwork');
	r = await withKey(key, 'PATCH', `/${id}/autorate`,
	    { healthUrl: 'http://127.0.0.1:10/other' });
	assert.equal(r.status, 403, r.text);
	assert.equal(r.json.field, 'healthUrl');
	r = await withKey(key, 'PATCH', `/${id}/autorate`,
	    { healthUrl: 'https://shop.example/health' });
	assert.equal(r.status, 403, 'not even to a public one while on');
	// The whole object back, as GET gave it, with one change: fine.
	const cur = (await withKey(key, 'GET', `/${id}/autorate`)).json;
	r = await withKey(key, 'PATCH', `/${id}/autorate`,
	    { ...cur, intervalSeconds: 20 });
	assert.equal(r.status, 200, r.text);
	assert.deepEqual([r.json.intervalSeconds, r.json.healthUrl,
	    r.json.allowPrivateNetwork], [20, url, true]);
	// The CLI turns it off; then a key may set a public URL.
	ctl('autorate', 'set', q.slug, '--allow-private', '0',
	    '--health-url', 'https://shop.example/health');
	r = await withKey(key, 'PATCH', `/${id}/autorate`,
	    { healthUrl: 'https://shop.example/other' });
	assert.equal(r.status, 200, r.text);
	assert.equal(r.json.allowPrivateNetwork, false);
});

// One literal of every range of the IANA special-purpose registries.
const SPECIAL = [
	'0.0.0.1', '169.254.169.254', '192.0.0.8', '192.0.0.170',
	'192.0.2.1', '192.31.196.1', '192.52.193.1', '192.88.99.1',
	'192.175.48.1', '198.18.0.1', '198.19.255.254', '198.51.100.7',
	'203.0.113.9', '224.0.0.1', '240.0.0.1', '255.255.255.255',
	'[::]', '[::ffff:127.0.0.1]', '[::7f00:1]', '[64:ff9b::7f00:1]',
	'[64:ff9b::a9fe:a9fe]', '[64:ff9b:1::1]', '[100::1]',
	'[100:0:0:1::1]', '[2001::1]', '[2001:2::1]', '[2001:20::1]',
	'[2001:db8::1]', '[2002:7f00:1::1]', '[2620:4f:8000::1]',
	'[3fff::1]', '[5f00::1]', '[fe80::1]', '[fec0::1]', '[ff02::1]',
	'[4000::1]',
];

test('every special-purpose range is refused when saved (422 ' +
    'invalid_health_url), also with the private network allowed; ' +
    'nothing changed', async () => {
	const q = createQueue();
	const id = show(q.slug).id;
	const s = await session();
	const ok = 'https://shop.example/health';
	let r = await s('PATCH', `/${id}/autorate`, { healthUrl: ok,
	    allowPrivateNetwork: true });
	assert.equal(r.status, 200, r.text);
	const refused = [];
	for (const host of SPECIAL) {
		r = await s('PATCH', `/${id}/autorate`,
		    { healthUrl: `http://${host}:8080/health` });
		if (r.status !== 422 || r.json.error !== 'invalid_health_url' ||
		    r.json.field !== 'healthUrl')
			refused.push(`${host}: ${r.status} ${r.text}`);
	}
	assert.deepEqual(refused, [], 'each range refused');
	r = await s('PATCH', `/${id}/autorate`, { healthUrl: ok });
	assert.equal(r.status, 200);
	assert.equal(r.json.healthUrl, ok, 'the last good value stayed');
	// Private ranges pass only with the flag (the loopback shop case).
	r = await s('PATCH', `/${id}/autorate`,
	    { healthUrl: 'http://[fd00::5]:8080/h' });
	assert.equal(r.status, 200, r.text);
	r = await s('PATCH', `/${id}/autorate`,
	    { allowPrivateNetwork: false });
	assert.equal(r.status, 422, 'the URL would no longer be allowed');
});

test('a health test from the API holds a worker at most 1.5 s of ' +
    'fetching, one at a time per pool (503 busy meanwhile); /status ' +
    'keeps answering', async () => {
	const q = createQueue({ rate: 60 });
	const id = show(q.slug).id;
	const key = newKey(q.slug);
	const l = await listener({ silent: true });
	try {
		ctl('autorate', 'set', q.slug, '--allow-private', '1',
		    '--health-url', `http://127.0.0.1:${l.port}/health`,
		    '--rules', 'responseTimeMs < 500');
		const j = await join(q.slug);
		const t0 = Date.now();
		const first = withKey(key, 'POST', `/${id}/autorate/test`);
		// While it waits on the silent shop: a second one is refused,
		// status answers.
		await sleep(300);
		const second = await withKey(key, 'POST',
		    `/${id}/autorate/test`);
		const st = await req(`/queue/${q.slug}/status?number=` +
		    j.json.number);
		const r = await first;
		const took = Date.now() - t0;
		assert.equal(second.status, 503, second.text);
		assert.equal(second.json.error, 'busy');
		assert.ok(['1', '2'].includes(
		    second.headers.get('retry-after')));
		assert.equal(st.status, 200, st.text);
		assert.equal(r.status, 200, r.text);
		assert.deepEqual([r.json.passed, r.json.reason],
		    [false, 'timeout']);
		// health-timeout-ms (5000 by default) is what the worker's
		// polls wait; the test gave up at its own bound, long before.
		assert.equal(Number(stackConf('health-timeout-ms') ?? 5000),
		    5000);
		assert.ok(took < 4500, `answered after ${took} ms`);
		assert.equal(l.count(), 1, 'one connection');
	} finally {
		await l.close();
	}
});
