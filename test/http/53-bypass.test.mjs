// VIP bypass codes (SPEC sections 4 and 9, CASES C47), end to end with
// real source addresses of the loopback range.  Promises these paths
// could break, and what shows they hold:
//   promise 2 (no token without admission): a code that admits nobody
//     (unknown, malformed, disabled, expired, used up) never yields a
//     token, on either entry point, also under 200 parallel
//     redemptions of a 50-use code (exactly 50 tokens);
//   promise 3 (only the visitor's deliberate request takes a number,
//     or here a use): a prefetch of the gateway link, or another
//     site's request, redeems nothing;
//   promise 4 (a refused request changes nothing): a refused code
//     takes no use and no number; bypass admissions take no regular
//     slot (lastNumber and serving as they were).
// And no oracle: every refusal is the same 404 (bytes, headers) after
// the same queries, the gateway answers as without a code, the limiter
// answers a valid code like an invalid one.

import { after as afterFile, test } from 'node:test';
import assert from 'node:assert/strict';
import {
	createQueue, ctl, show, req, join, dbSQL, sleep, decodeJWTPayload,
	verify, NAVIGATE, TIME_SCALE,
} from './lib.mjs';
import { Client, addUser } from './console.mjs';
import { fromAddr, loop } from './loopback.mjs';

const API = '/api/admin/queue';

// A code made with the CLI: {code, id}.
function mkCode(slug, ...opts) {
	const out = ctl('bypass', 'create', slug, '--label', 'test', ...opts);
	const code = /^code: (\S+)$/m.exec(out)[1];
	const id = Number(/^id: (\d+)$/m.exec(out)[1]);
	return { code, id };
}

// POST /queue/<slug>/bypass from address addr.
function redeem(slug, code, addr = '127.0.0.1', headers = {}) {
	return fromAddr(addr, 'POST', `/queue/${slug}/bypass`, { headers: {
	    'content-type': 'application/json', ...headers },
	    body: JSON.stringify({ code }) });
}

// The gateway link as a navigation, from address addr.
function enter(slug, query, addr = '127.0.0.1', headers = NAVIGATE) {
	return fromAddr(addr, 'GET', `/queue/${slug}/enter${query}`,
	    { headers: { ...headers } });
}

// The headers of an answer without Date, as sorted [name, value] pairs.
function shape(r) {
	return Object.entries(r.headers).filter(([k]) => k !== 'date')
	    .map(([k, v]) => [k, String(v)]).sort();
}

function forgetFailures() {
	dbSQL('DELETE FROM bypass_failure');
}

// The throttle counts failures per address over every queue for
// bypass-window (60 s): the refusals tried here from 127.0.0.1 would
// throttle the next file's first redemption.
afterFile(forgetFailures);

const usesOf = (id) => Number(dbSQL(
    `SELECT uses FROM bypass_code WHERE id = ${id}`)[0][0]);

test('a code redeems for a token of its own (bypass true, its own jti, ' +
    'verified) that takes no regular slot', async () => {
	forgetFailures();
	const q = createQueue({ rate: 1, burst: 1 });
	assert.equal((await join(q.slug)).status, 200);
	const before = show(q.slug);
	const { code, id } = mkCode(q.slug, '--uses', 3);
	assert.match(code, /^[A-Za-z0-9_-]{22}$/, '128 bits, base64url');
	const r1 = await redeem(q.slug, code);
	const r2 = await redeem(q.slug, code);
	assert.equal(r1.status, 200, r1.text);
	assert.deepEqual(Object.keys(r1.json).sort(), ['bypass',
	    'expiresInSeconds', 'queue', 'targetUrl', 'token', 'tokenType']);
	assert.deepEqual([r1.json.bypass, r1.json.targetUrl,
	    r1.json.expiresInSeconds], [true, q.target, 600]);
	const c1 = decodeJWTPayload(r1.json.token);
	const c2 = decodeJWTPayload(r2.json.token);
	assert.deepEqual([c1.bypass, c1.aud, c1.qnr], [true, q.slug, 0]);
	assert.match(c1.jti, new RegExp(`^${q.slug}:bypass:[A-Za-z0-9_-]+$`));
	assert.notEqual(c1.jti, c2.jti, 'its own jti each time');
	const v = await verify(q.slug, r1.json.token);
	assert.equal(v.json.valid, true, v.text);
	// The gateway link: straight to the target with a bypass token.
	const g = await enter(q.slug, `?code=${code}`);
	assert.equal(g.status, 302);
	const loc = new URL(g.h('location'));
	assert.equal(`${loc.origin}${loc.pathname}`, 'https://shop.example/');
	assert.equal(decodeJWTPayload(loc.searchParams.get(
	    'aditus_queue_token')).bypass, true);
	assert.ok(!g.h('location').includes(code), 'never the code');
	assert.equal(usesOf(id), 3);
	const after = show(q.slug);
	assert.deepEqual([after.lastNumber, after.serving],
	    [before.lastNumber, before.serving], 'no regular slot taken');
	// Used up now.
	assert.equal((await redeem(q.slug, code)).status, 404);
});

test('C47-A: expired, used up, disabled, unknown and malformed codes ' +
    'all get the same 404, byte for byte and header for header, and no ' +
    'kind is separable by its time', async () => {
	forgetFailures();
	const q = createQueue({ rate: 600 });
	const E = mkCode(q.slug, '--expires', String(Date.now() + 1500));
	const U = mkCode(q.slug, '--uses', 1);
	const D = mkCode(q.slug);
	assert.equal((await redeem(q.slug, U.code)).status, 200);
	ctl('bypass', 'disable', D.id);
	await sleep(2000);
	const kinds = { expired: E.code, usedup: U.code, disabled: D.code,
	    unknown: 'Xq3vYp0aB7cD9eF1gH2iJk', malformed: 'x' };
	const res = Object.fromEntries(Object.keys(kinds).map((k) =>
	    [k, []]));
	let a = 0;
	for (let round = 0; round < 30; round++) {
		// Interleaved, in a new order each round, so that no kind
		// always follows the same one.
		const order = Object.keys(kinds).map((k) => [Math.random(), k])
		    .sort((x, y) => x[0] - y[0]).map(([, k]) => k);
		for (const k of order) {
			// Each attempt from the next address: under the limit.
			const r = await redeem(q.slug, kinds[k], loop(a++ % 20));
			res[k].push(r);
		}
	}
	const first = res.unknown[0];
	assert.equal(first.status, 404);
	assert.deepEqual(first.json, { error: 'invalid_code',
	    message: 'This code admits nobody here.' });
	for (const [k, list] of Object.entries(res))
		for (const r of list) {
			assert.equal(r.status, 404, `${k}: ${r.text}`);
			assert.equal(r.text, first.text, k);
			assert.deepEqual(shape(r), shape(first), k);
			assert.equal(r.h('set-cookie'), null);
		}
	// Each kind's time against its own round's median (the five of a
	// round ran back to back): a load that comes and goes between
	// rounds moves all five alike and cancels out; a kind answered by
	// a different path stays apart by what that path costs.
	const median = (v) => {
		const s = [...v].sort((x, y) => x - y);
		const h = s.length >> 1;
		return s.length % 2 ? s[h] : (s[h - 1] + s[h]) / 2;
	};
	const names = Object.keys(res);
	const rounds = res.unknown.map((_, i) =>
	    median(names.map((k) => res[k][i].ms)));
	const devs = Object.fromEntries(names.map((k) =>
	    [k, res[k].map((r, i) => r.ms - rounds[i])]));
	const meds = Object.fromEntries(names.map((k) =>
	    [k, median(devs[k])]));
	const spread = Math.max(...Object.values(meds)) -
	    Math.min(...Object.values(meds));
	// The bound: 1 ms, or, when this machine's own noise is larger (a
	// loaded machine: other processes on the cores), four standard
	// errors of a median of 30 (1.25 x 1.4826 x MAD / sqrt(30)).  A
	// kind that skips or adds a database read or a hash stands out by
	// more than either.
	const all = Object.values(devs).flat();
	const mad = median(all.map((d) => Math.abs(d - median(all))));
	const bound = Math.max(1 * TIME_SCALE,
	    4 * 1.25 * 1.4826 * mad / Math.sqrt(30));
	assert.ok(spread < bound,
	    `medians within ${bound.toFixed(2)} ms of the rounds': ` +
	    JSON.stringify(meds));
	for (const k of Object.keys(res))
		for (const j of Object.keys(res)) {
			if (k >= j)
				continue;
			const p = mannWhitneyP(res[k].map((r) => r.ms),
			    res[j].map((r) => r.ms));
			assert.ok(p > 0.01, `${k} vs ${j}: p ${p.toFixed(4)} ` +
			    JSON.stringify(meds));
		}
	// Audited with the reason, which only operators see.
	const reasons = dbSQL('SELECT after_json FROM audit_log WHERE ' +
	    `queue_slug = '${q.slug}' AND action = 'bypass_refused'`)
	    .map(([j]) => JSON.parse(j).reason);
	for (const why of ['expired', 'used_up', 'disabled', 'unknown'])
		assert.equal(reasons.filter((x) => x === why).length,
		    why === 'unknown' ? 60 : 30, why);
	const text = JSON.stringify(dbSQL('SELECT after_json FROM audit_log ' +
	    `WHERE queue_slug = '${q.slug}'`));
	for (const c of Object.values(kinds).slice(0, 3))
		assert.ok(!text.includes(c), 'never a code in the audit log');
});

test('C47-B: the gateway link with an invalid code answers exactly as ' +
    'without one (the queue above its rate: the room, a number); the ' +
    'code never in the Location', async () => {
	forgetFailures();
	const q = createQueue({ rate: 1, burst: 1 });
	assert.equal((await join(q.slug)).status, 200);
	const E = mkCode(q.slug, '--expires', String(Date.now() + 1500));
	const U = mkCode(q.slug, '--uses', 1);
	const D = mkCode(q.slug);
	assert.equal((await redeem(q.slug, U.code)).status, 200);
	ctl('bypass', 'disable', D.id);
	await sleep(2000);
	const norm = (r) => [r.status, r.h('location').replace(/#.*/, ''),
	    shape(r).filter(([k]) => k !== 'location')];
	const plain = norm(await enter(q.slug, '', loop(5)));
	assert.equal(plain[0], 302);
	assert.equal(plain[1], `/queue/${q.slug}`);
	let i = 6;
	for (const c of [E.code, U.code, D.code, 'Xq3vYp0aB7cD9eF1gH2iJk',
	    'x']) {
		const r = await enter(q.slug, `?code=${c}`, loop(i++));
		assert.deepEqual(norm(r), plain, c);
		assert.match(r.h('location'), /#number=\d+&ticket=/);
		assert.ok(!/code=/.test(r.h('location')) && (c.length < 20 ||
		    !r.h('location').includes(c)), 'never the code');
	}
});

test('C47-C: past 10 failures a minute from one address every attempt ' +
    'is the same 429 with Retry-After, a valid code\'s too, and the ' +
    'gateway link then ignores its code', async () => {
	forgetFailures();
	const q = createQueue({ rate: 1, burst: 1 });
	assert.equal((await join(q.slug)).status, 200);
	const V = mkCode(q.slug, '--uses', 100);
	const addr = loop(7);
	for (let i = 0; i < 10; i++)
		assert.equal((await redeem(q.slug, `nope${i}aaaaaaaaaaaaaaaa`,
		    addr)).status, 404, `failure ${i}`);
	const bad = await redeem(q.slug, 'nope-more-aaaaaaaaaaaa', addr);
	const good = await redeem(q.slug, V.code, addr);
	for (const r of [bad, good]) {
		assert.equal(r.status, 429, r.text);
		assert.equal(r.json.error, 'too_many_attempts');
		const s = Number(r.h('retry-after'));
		assert.ok(s >= 1 && s <= 60, `Retry-After ${s}`);
	}
	assert.equal(bad.text, good.text);
	const g = await enter(q.slug, `?code=${V.code}`, addr);
	assert.equal(g.status, 302);
	assert.match(g.h('location'), new RegExp(`^/queue/${q.slug}#number=`));
	assert.equal(usesOf(V.id), 0, 'no use taken');
	// Another address redeems at once.
	assert.equal((await redeem(q.slug, V.code, loop(8))).status, 200);
});

test('200 parallel redemptions of a 50-use code over both entry points ' +
    'and 20 addresses give exactly 50 tokens', async () => {
	forgetFailures();
	const q = createQueue({ rate: 1, burst: 1 });
	assert.equal((await join(q.slug)).status, 200);
	const before = show(q.slug).lastNumber;
	const { code, id } = mkCode(q.slug, '--uses', 50);
	let tokens = 0, refused = 0;
	await Promise.all(Array.from({ length: 200 }, async (_, k) => {
		const addr = loop(k % 20);
		for (;;) {
			if (k % 2 === 0) {
				const r = await redeem(q.slug, code, addr);
				if (r.status === 503)
					continue;
				if (r.status === 200)
					tokens++;
				else if (r.status === 404)
					refused++;
				else
					throw new Error(`${r.status} ${r.text}`);
				return;
			}
			const r = await enter(q.slug, `?code=${code}`, addr);
			const loc = r.h('location') ?? '';
			if (loc.startsWith('https://shop.example/'))
				tokens++;
			else if (loc.startsWith(`/queue/${q.slug}`))
				refused++;
			else
				throw new Error(`${r.status} ${loc}`);
			return;
		}
	}));
	assert.equal(tokens, 50, `${tokens} tokens, ${refused} refused`);
	assert.equal(refused, 150);
	assert.equal(usesOf(id), 50);
	// The refused gateway requests took the normal path (numbers), the
	// redemptions none.
	assert.ok(show(q.slug).lastNumber - before <= 100);
});

test('a prefetch or another site\'s request redeems nothing; a paused ' +
    'queue redeems nothing (423; the gateway: the room)', async () => {
	forgetFailures();
	const q = createQueue({ rate: 600 });
	const { code, id } = mkCode(q.slug);
	let r = await enter(q.slug, `?code=${code}`, loop(9),
	    { ...NAVIGATE, 'sec-purpose': 'prefetch' });
	assert.equal(r.status, 302);
	assert.equal(r.h('location'), `/queue/${q.slug}`);
	r = await redeem(q.slug, code, loop(9), { origin: 'https://evil.test' });
	assert.equal(r.status, 403, r.text);
	assert.equal(r.json.error, 'origin_not_allowed');
	assert.equal(usesOf(id), 0);
	ctl('pause', q.slug);
	r = await redeem(q.slug, code, loop(9));
	assert.equal(r.status, 423, r.text);
	r = await enter(q.slug, `?code=${code}`, loop(9));
	assert.equal(r.h('location'), `/queue/${q.slug}`);
	assert.equal(usesOf(id), 0);
	ctl('resume', q.slug);
	assert.equal((await redeem(q.slug, code, loop(9))).status, 200);
});

test('management: the API for a console session only (a key: 403), 422 ' +
    'naming the field, the code shown once and never again, every change ' +
    'audited without it; the CLI', async () => {
	const q = createQueue();
	const id = show(q.slug).id;
	const key = /^key: (qak_\S+)$/m.exec(ctl('key', 'create', q.slug,
	    '--name', 'k'))[1];
	const u = addUser();
	const c = new Client();
	assert.equal((await c.login(u.name, u.password)).status, 303);
	const csrf = await c.csrf();
	const s = (method, path, body) => req(`${API}${path}`, { method,
	    headers: { cookie: c.cookieHeader(), 'x-csrf-token': csrf,
	    'content-type': 'application/json' },
	    body: body === undefined ? undefined : JSON.stringify(body) });
	const k = (method, path, body) => req(`${API}${path}`, { method,
	    headers: { authorization: `Bearer ${key}`,
	    'content-type': 'application/json' },
	    body: body === undefined ? undefined : JSON.stringify(body) });
	for (const [m, p] of [['GET', `/sites/${id}/bypass-codes`],
	    ['POST', `/sites/${id}/bypass-codes`],
	    ['PATCH', '/bypass-codes/1'], ['DELETE', '/bypass-codes/1']]) {
		const r = await k(m, p, m === 'GET' ? undefined :
		    { label: 'x', enabled: false });
		assert.equal(r.status, 403, `${m} ${p}`);
		assert.equal(r.json.error, 'forbidden');
	}
	for (const [body, field] of [[{ label: '' }, 'label'],
	    [{ label: 'a', uses: 0 }, 'uses'],
	    [{ label: 'a', uses: '5' }, 'uses'],
	    [{ label: 'a', expiresAt: Date.now() - 1000 }, 'expiresAt'],
	    [{ label: 'a', expiresAt: 'tomorrow' }, 'expiresAt']]) {
		const r = await s('POST', `/sites/${id}/bypass-codes`, body);
		assert.equal(r.status, 422, `${JSON.stringify(body)} ${r.text}`);
		assert.equal(r.json.field, field);
	}
	let r = await s('POST', `/sites/${id}/bypass-codes`, { label: 'press',
	    uses: 5, expiresAt: '2099-01-01T00:00:00Z' });
	assert.equal(r.status, 201, r.text);
	const made = r.json;
	assert.match(made.code, /^[A-Za-z0-9_-]{22}$/);
	assert.equal(made.link, `/queue/${q.slug}/enter?code=${made.code}`);
	assert.deepEqual([made.label, made.useLimit, made.uses, made.expiresAt,
	    made.enabled, made.state], ['press', 5, 0, 4070908800000, true,
	    'active']);
	r = await s('GET', `/sites/${id}/bypass-codes`);
	assert.equal(r.status, 200);
	assert.equal(r.json.codes.length, 1);
	assert.equal(r.json.codes[0].code, undefined, 'never shown again');
	assert.ok(!r.text.includes(made.code));
	r = await s('PATCH', `/bypass-codes/${made.id}`, { enabled: false });
	assert.equal(r.status, 200, r.text);
	assert.equal(r.json.state, 'disabled');
	assert.equal((await redeem(q.slug, made.code)).status, 404);
	r = await s('PATCH', `/bypass-codes/${made.id}`, { enabled: true });
	assert.equal(r.json.state, 'active');
	assert.equal((await redeem(q.slug, made.code, loop(10))).status, 200);
	r = await s('DELETE', `/bypass-codes/${made.id}`);
	assert.equal(r.status, 204);
	assert.equal((await s('GET', `/sites/${id}/bypass-codes`)).json.codes
	    .length, 0);
	const audit = ctl('audit', '--queue', q.slug);
	for (const a of ['bypass_create', 'bypass_disable', 'bypass_enable',
	    'bypass_delete'])
		assert.ok(audit.includes(`"action":"${a}"`), a);
	assert.ok(!audit.includes(made.code), 'never the code');
	// The CLI: list, disable, enable, delete, exit codes.
	const m = mkCode(q.slug, '--uses', 2);
	const line = JSON.parse(ctl('bypass', 'list', q.slug).trim());
	assert.deepEqual([line.id, line.useLimit, line.state],
	    [m.id, 2, 'active']);
	assert.match(ctl('bypass', 'disable', m.id), /disabled/);
	assert.match(ctl('bypass', 'enable', m.id), /enabled/);
	assert.match(ctl('bypass', 'delete', m.id), /deleted/);
	assert.throws(() => ctl('bypass', 'delete', m.id), /status 4/);
	assert.throws(() => ctl('bypass', 'create', q.slug, '--label', 'x',
	    '--uses', '0'), /status 2/);
	assert.throws(() => ctl('bypass', 'create', 'no-such-queue-q',
	    '--label', 'x'), /status 4/);
});

test('the console: a code made on the queue\'s page is shown once, ' +
    'disabled from the list', async () => {
	const q = createQueue();
	const u = addUser();
	const c = new Client();
	assert.equal((await c.login(u.name, u.password)).status, 303);
	const page = await c.get(`/admin/queue/${q.slug}/bypass`);
	assert.equal(page.status, 200);
	const csrf = /name="csrf" value="([^"]*)"/.exec(page.text)[1];
	const r = await c.post(`/admin/queue/${q.slug}/bypass`,
	    { csrf, label: 'fan club', uses: '10', expires: '' });
	assert.equal(r.status, 201, r.text);
	const code = /<code id="new-code" class="secret">([^<]+)</
	    .exec(r.text)[1];
	assert.ok(r.text.includes(`/queue/${q.slug}/enter?code=${code}`));
	const again = await c.get(`/admin/queue/${q.slug}/bypass`);
	assert.ok(!again.text.includes(code), 'shown only once');
	assert.match(again.text, /fan club/);
	const id = JSON.parse(ctl('bypass', 'list', q.slug).trim()).id;
	const d = await c.post(`/admin/bypass/${id}/disable`, { csrf });
	assert.equal(d.status, 303);
	assert.equal(d.location, `/admin/queue/${q.slug}/bypass`);
	assert.equal(JSON.parse(ctl('bypass', 'list', q.slug).trim()).state,
	    'disabled');
	const bad = await c.post(`/admin/queue/${q.slug}/bypass`,
	    { csrf, label: 'x', uses: 'many' });
	assert.equal(bad.status, 422);
});

// The two-sided p-value of the Mann-Whitney U test (normal
// approximation with the tie correction) of samples a and b.
function mannWhitneyP(a, b) {
	const all = [...a.map((v) => [v, 0]), ...b.map((v) => [v, 1])]
	    .sort((x, y) => x[0] - y[0]);
	const ranks = new Array(all.length);
	let ties = 0;
	for (let i = 0; i < all.length;) {
		let j = i;
		while (j + 1 < all.length && all[j + 1][0] === all[i][0])
			j++;
		const t = j - i + 1;
		ties += t * t * t - t;
		for (let k = i; k <= j; k++)
			ranks[k] = (i + j) / 2 + 1;
		i = j + 1;
	}
	let ra = 0;
	for (let i = 0; i < all.length; i++)
		if (all[i][1] === 0)
			ra += ranks[i];
	const n1 = a.length, n2 = b.length, n = n1 + n2;
	const u = ra - n1 * (n1 + 1) / 2;
	const mu = n1 * n2 / 2;
	const sd = Math.sqrt(n1 * n2 / 12 * ((n + 1) - ties / (n * (n - 1))));
	const z = Math.abs(u - mu) / sd;
	return 2 * (1 - phi(z));
}

// The standard normal distribution function (Abramowitz-Stegun 26.2.17).
function phi(z) {
	const t = 1 / (1 + 0.2316419 * z);
	const d = Math.exp(-z * z / 2) / Math.sqrt(2 * Math.PI);
	return 1 - d * t * (0.319381530 + t * (-0.356563782 + t *
	    (1.781477937 + t * (-1.821255978 + t * 1.330274429))));
}
