// Auto-rate against a real local shop: its health endpoint is degraded
// and restored by the test while the stack's worker (the leader) polls
// it.  Also the health URL checks at save time and at fetch time (CASES
// C20), the judging of real answers by the one-time test (C19), enabling
// only after a passing test, and dry-run.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { lookup } from 'node:dns/promises';

import { env, createQueue, show, sleep, waitFor } from './lib.mjs';

const SHOP_PORT = Number(process.env.AQ_PORT ?? 18480) + 1;
const SHOP = `http://127.0.0.1:${SHOP_PORT}`;

// run(...args): aqueuectl, without blocking this process (the shop
// answers from it); resolves {status, stdout, stderr, json}.
function run(...args) {
	const parts = env.ctl.split(' ').filter((s) => s !== '');
	return new Promise((resolve) => {
		const c = spawn(parts[0], [...parts.slice(1),
		    ...args.map(String)], { stdio: ['ignore', 'pipe', 'pipe'] });
		let stdout = '', stderr = '';
		c.stdout.on('data', (d) => { stdout += d; });
		c.stderr.on('data', (d) => { stderr += d; });
		c.on('close', (status) => {
			let json = null;
			try {
				json = JSON.parse(stdout);
			} catch {
				// not JSON
			}
			resolve({ status, stdout, stderr, json });
		});
	});
}

// The shop: /health answers what `health` says; every connection counted.
const shop = {
	body: '{"metrics":{"cpuLoad":0.2}}',
	status: 200,
	headers: { 'content-type': 'application/json' },
	delayMs: 0,
	up: true,
	connections: 0,
	server: null,
};

function startShop() {
	shop.server = http.createServer((req, res) => {
		if (!shop.up) {
			req.socket.destroy();
			return;
		}
		setTimeout(() => {
			res.writeHead(shop.status, shop.headers);
			res.end(shop.body);
		}, shop.delayMs);
	});
	shop.server.on('connection', () => { shop.connections++; });
	return new Promise((resolve) => shop.server.listen(SHOP_PORT,
	    '127.0.0.1', resolve));
}

before(startShop);
after(() => new Promise((resolve) => {
	shop.server.closeAllConnections?.();
	shop.server.close(resolve);
}));

function setHealthy() {
	shop.up = true;
	shop.status = 200;
	shop.headers = { 'content-type': 'application/json' };
	shop.body = '{"metrics":{"cpuLoad":0.2}}';
	shop.delayMs = 0;
}

test('C20: every refused health URL is refused at save time, nothing ' +
    'changed', async () => {
	const q = createQueue({ rate: 100 });
	const before = (await run('autorate', 'show', q.slug)).json;
	for (const url of [
		'file:///etc/passwd', 'gopher://127.0.0.1:6379/_INFO',
		'dict://127.0.0.1:11211/', 'http://127.0.0.1:3306/',
		'http://2130706433/', 'http://0177.0.0.1/', 'http://0x7f.1/',
		'http://[::ffff:127.0.0.1]/', 'http://[::1]/', 'http://0.0.0.0/',
		'http://169.254.169.254/latest/meta-data/',
		'http://127\u30020\u30020\u30021/', 'http://localhost./',
	]) {
		const r = await run('autorate', 'set', q.slug, '--health-url', url);
		assert.equal(r.status, 2, url);
		assert.match(r.stderr, /^aqueuectl: invalid_health_url: healthUrl: /,
		    url);
		assert.deepEqual((await run('autorate', 'show', q.slug)).json,
		    before);
	}
	// A name is not resolved at save time.
	const ok = await run('autorate', 'set', q.slug, '--health-url',
	    'http://loopback.evil.test/');
	assert.equal(ok.status, 0, ok.stderr);
	assert.equal(ok.json.healthUrl, 'http://loopback.evil.test/');
	// Other fields: exact rules of the field table.
	let r = await run('autorate', 'set', q.slug, '--cut', '95');
	assert.equal(r.status, 2);
	assert.equal(r.stderr, 'aqueuectl: invalid_value: cutPercent: an ' +
	    'integer from 1 to 90.\n');
	r = await run('autorate', 'set', q.slug, '--min', '50', '--max', '40');
	assert.equal(r.status, 2);
	assert.equal(r.stderr, 'aqueuectl: invalid_value: minRate: must ' +
	    'not be above maxRate.\n');
	r = await run('autorate', 'set', q.slug, '--rules', 'cpu = 1');
	assert.equal(r.status, 2);
	assert.match(r.stderr, /^aqueuectl: invalid_rules: rules: /);
	r = await run('autorate', 'set', q.slug, '--rules',
	    'responseTimeMs<500;metrics.cpuLoad \u2264 0.8');
	assert.equal(r.status, 0);
	assert.equal(r.json.rules, 'responseTimeMs < 500, metrics.cpuLoad <= 0.8');
	r = await run('autorate', 'show', 'no-such-queue');
	assert.equal(r.status, 4);
	assert.equal(r.stderr, 'aqueuectl: queue_not_found: There is no ' +
	    'queue with this slug.\n');
});

// A name of this host that resolves to loopback (Debian lists the host
// name as 127.0.1.1 in /etc/hosts), standing in for loopback.evil.test.
async function loopbackName() {
	for (const line of readFileSync('/etc/hosts', 'utf8').split('\n')) {
		const [ip, ...names] = line.replace(/#.*/, '').trim()
		    .split(/\s+/);
		if (!/^127\./.test(ip ?? ''))
			continue;
		for (const n of names)
			if (!/^localhost/.test(n) && /^[a-z0-9.-]+$/i.test(n) &&
			    (await lookup(n)).address.startsWith('127.'))
				return n;
	}
	throw new Error('no name in /etc/hosts resolves to 127.0.0.0/8');
}

test('C20: at fetch time a name resolving to loopback and redirects are ' +
    'blocked; the listener gets zero connections', async () => {
	setHealthy();
	const q = createQueue({ rate: 100 });
	const name = await loopbackName();
	let r = await run('autorate', 'set', q.slug, '--health-url',
	    `http://${name}:${SHOP_PORT}/health`, '--rules',
	    'metrics.cpuLoad < 0.8');
	assert.equal(r.status, 0, r.stderr);
	const n0 = shop.connections;
	r = await run('autorate', 'test', q.slug);
	assert.equal(r.status, 1);
	assert.equal(r.json.state, 'unknown');
	assert.equal(r.json.reason, 'blocked_address');
	assert.equal(r.json.passed, false);
	assert.equal(shop.connections, n0, 'no connection reached the shop');
	// Enabling needs a passing test.
	r = await run('autorate', 'enable', q.slug);
	assert.equal(r.status, 1);
	assert.equal(r.stderr, 'aqueuectl: test_required: Auto-rate needs a ' +
	    'passing test of the current health URL and rules first.\n');

	// With the private network allowed: a 302 is never followed.
	r = await run('autorate', 'set', q.slug, '--allow-private', '1',
	    '--health-url', `${SHOP}/health`);
	assert.equal(r.status, 0, r.stderr);
	for (const loc of ['http://169.254.169.254/', 'file:///etc/passwd']) {
		shop.status = 302;
		shop.headers = { location: loc };
		shop.body = '';
		r = await run('autorate', 'test', q.slug);
		assert.equal(r.json.state, 'unknown', loc);
		assert.equal(r.json.reason, 'blocked_redirect', loc);
		assert.equal(r.json.httpStatus, 302);
	}
	setHealthy();
	shop.status = 503;
	r = await run('autorate', 'test', q.slug);
	assert.equal(r.json.reason, 'http_status');
	assert.equal(r.json.httpStatus, 503);
	setHealthy();
});

test('C19: the one-time test judges each answer with a state and a ' +
    'reason; only a readable one passes and is recorded', async () => {
	setHealthy();
	const q = createQueue({ rate: 100 });
	let r = await run('autorate', 'set', q.slug, '--allow-private', '1',
	    '--health-url', `${SHOP}/health`, '--rules',
	    'db.latency_ms < 500');
	assert.equal(r.status, 0, r.stderr);
	const deep = '{"a":'.repeat(40) + '1' + '}'.repeat(40);
	const leaves = '{"db":{"latency_ms":1},"x":[' +
	    Array(50000).fill('0').join(',') + ']}';
	const cases = [
		['{"db":{"latency_ms":12},"db.latency_ms":9999}', 'unknown',
		    'path_collision'],
		['{"a.b":{"c":1},"a":{"b.c":2}}', 'unknown', 'path_collision'],
		['{"db":{"latency_ms":1e309}}', 'unknown', 'non_finite'],
		['{"db":{"latency_ms":NaN}}', 'unknown', 'non_finite'],
		['{"db":{"latency_ms":"900"}}', 'unknown', 'not_numeric'],
		['{"db":{"latency_ms":true}}', 'unknown', 'not_numeric'],
		['{"db":{}}', 'unknown', 'missing_path'],
		[deep, 'unknown', 'too_deep'],
		[leaves, 'unknown', 'too_many_fields'],
		['{"db":{"latency_ms":1},"pad":"' + 'x'.repeat(5 << 20) + '"}',
		    'unknown', 'too_large'],
		['{"db":{"latency_ms":-0.0}}', 'healthy', 'ok'],
		['{"db":{"latency_ms":700}}', 'unhealthy', 'rule_broken'],
	];
	for (const [body, state, reason] of cases) {
		shop.body = body;
		r = await run('autorate', 'test', q.slug);
		assert.equal(r.json.state, state, body.slice(0, 60));
		assert.equal(r.json.reason, reason, body.slice(0, 60));
		assert.equal(r.json.passed, state !== 'unknown');
		assert.equal(r.status, state === 'unknown' ? 1 : 0);
	}
	r = await run('autorate', 'show', q.slug);
	assert.equal(r.json.testResult.state, 'unhealthy');
	assert.deepEqual(r.json.testResult.sample, { 'db.latency_ms': 700 });
	assert.equal(typeof r.json.testedMs, 'number');
	// Changing the rules drops the test.
	r = await run('autorate', 'set', q.slug, '--rules',
	    'db.latency_ms < 400');
	assert.equal(r.json.testedMs, null);
	// The log holds every test, newest first.
	r = await run('autorate', 'log', q.slug, '--limit', '3');
	assert.equal(r.status, 0);
	assert.deepEqual(r.json.map((e) => [e.kind, e.action, e.reason]), [
		['test', 'pass', 'rule_broken'],
		['test', 'pass', 'ok'],
		['test', 'fail', 'too_large'],
	]);
	setHealthy();
});

// pollsOf(slug): the poll entries, oldest first.
async function pollsOf(slug) {
	return (await run('autorate', 'log', slug, '--limit', '1000')).json
	    .filter((e) => e.kind === 'poll').reverse();
}

test('the worker: rate falls at once, climbs back slowly, drops to min ' +
    'when the endpoint disappears, never leaves [min, max]',
    async (t) => {
	setHealthy();
	const q = createQueue({ rate: 100 });
	t.after(() => run('autorate', 'disable', q.slug));
	let r = await run('autorate', 'set', q.slug, '--allow-private', '1',
	    '--health-url', `${SHOP}/health`, '--rules',
	    'responseTimeMs < 2000, metrics.cpuLoad < 0.8', '--interval', '2',
	    '--min', '20', '--max', '130', '--step', '10', '--cut', '50',
	    '--cooldown', '3', '--band', '10', '--failures', '2');
	assert.equal(r.status, 0, r.stderr);
	r = await run('autorate', 'test', q.slug);
	assert.equal(r.json.state, 'healthy');
	r = await run('autorate', 'enable', q.slug);
	assert.equal(r.status, 0, r.stderr);
	assert.equal(r.json.enabled, true);

	// Healthy: one step at a time, at most one per cool-down.
	await waitFor(() => show(q.slug).ratePerMinute >= 120, 20000, 200,
	    'two raises');
	const raises = (await pollsOf(q.slug))
	    .filter((e) => e.action === 'raise');
	assert.deepEqual(raises.slice(0, 2).map((e) =>
	    [e.rateBefore, e.rateAfter]), [[100, 110], [110, 120]]);
	assert.ok(raises[1].atMs - raises[0].atMs >= 3000,
	    'raises at least a cool-down apart');

	// Degraded: cut by half at the next poll.
	const rate0 = show(q.slug).ratePerMinute;
	shop.body = '{"metrics":{"cpuLoad":0.95}}';
	const t0 = Date.now();
	await waitFor(() => show(q.slug).ratePerMinute < rate0, 6000, 100, 'a cut');
	assert.ok(Date.now() - t0 < 6000);
	assert.equal(show(q.slug).ratePerMinute, rate0 - Math.ceil(rate0 / 2));
	const cut = (await pollsOf(q.slug))
	    .filter((e) => e.action === 'cut')[0];
	assert.equal(cut.state, 'unhealthy');
	assert.equal(cut.reason, 'rule_broken');
	assert.equal(cut.rule, 'metrics.cpuLoad < 0.8');
	assert.deepEqual(Object.keys(cut.sample),
	    ['responseTimeMs', 'metrics.cpuLoad']);
	assert.equal(cut.sample['metrics.cpuLoad'], 0.95);
	assert.equal(typeof cut.sample.responseTimeMs, 'number');

	// Within the band (0.75 holds, but not 10% below 0.8): no change.
	shop.body = '{"metrics":{"cpuLoad":0.75}}';
	await sleep(300);
	const held = show(q.slug).ratePerMinute;
	await sleep(5000);
	assert.equal(show(q.slug).ratePerMinute, held, 'no raise inside the band');

	// Restored: climbs back one step at a time.
	setHealthy();
	await waitFor(() => show(q.slug).ratePerMinute >= held + 10, 15000, 200,
	    'a raise');
	assert.equal(show(q.slug).ratePerMinute, held + 10);

	// The endpoint disappears: freeze, then min after two failures.
	shop.up = false;
	await waitFor(() => show(q.slug).ratePerMinute === 20, 15000, 200, 'min');
	const polls = await pollsOf(q.slug);
	const last = polls.slice(-3);
	assert.ok(last.some((e) => e.action === 'freeze' &&
	    e.state === 'unknown' && e.reason === 'unreachable'));
	assert.equal(polls[polls.length - 1].action, 'min');
	for (const e of polls) {
		assert.ok(e.rateAfter >= 20 && e.rateAfter <= 130,
		    `rate ${e.rateAfter} within [20, 130]`);
		assert.equal(e.dryRun, false);
	}
	setHealthy();
});

test('dry-run: decides and logs, changes nothing', async (t) => {
	setHealthy();
	const q = createQueue({ rate: 100 });
	t.after(() => run('autorate', 'disable', q.slug));
	let r = await run('autorate', 'set', q.slug, '--allow-private', '1',
	    '--health-url', `${SHOP}/health`, '--rules',
	    'metrics.cpuLoad < 0.8', '--interval', '2', '--min', '20',
	    '--max', '200', '--cut', '50', '--cooldown', '3', '--dry-run', '1');
	assert.equal(r.status, 0, r.stderr);
	assert.equal((await run('autorate', 'test', q.slug)).status, 0);
	assert.equal((await run('autorate', 'enable', q.slug)).status, 0);
	shop.body = '{"metrics":{"cpuLoad":0.95}}';
	await waitFor(async () => (await pollsOf(q.slug))
	    .some((e) => e.action === 'cut'),
	    10000, 200, 'a dry-run cut');
	const cut = (await pollsOf(q.slug)).find((e) => e.action === 'cut');
	assert.equal(cut.dryRun, true);
	assert.deepEqual([cut.rateBefore, cut.rateAfter], [100, 50]);
	assert.equal(show(q.slug).ratePerMinute, 100, 'the rate is unchanged');
	setHealthy();
});

// ---- the REST admin API --------------------------------------------------

// newKey(slug): an API key made by the CLI.
async function newKey(slug) {
	const r = await run('key', 'create', slug, '--name', 'autorate-test');
	const k = /^key: (qak_\S+)$/m.exec(r.stdout);
	assert.ok(k, r.stdout + r.stderr);
	return k[1];
}

// rest(method, path, key, body): resolves {status, json}.
async function rest(method, path, key, body) {
	const res = await fetch(`${env.base}/api/admin/queue${path}`, {
		method,
		headers: { authorization: `Bearer ${key}`,
		    ...(body !== undefined ?
		    { 'content-type': 'application/json' } : {}) },
		body: body !== undefined ? JSON.stringify(body) : undefined,
	});
	const text = await res.text();
	let json = null;
	try {
		json = JSON.parse(text);
	} catch {
		// not JSON
	}
	return { status: res.status, json, text };
}

test('REST: settings, 422 with the field, the test, enabling, the log, ' +
    'scope', async () => {
	setHealthy();
	const q = createQueue({ rate: 100 });
	const other = createQueue({ rate: 100 });
	const id = show(q.slug).id;
	assert.equal(typeof id, 'number');
	const key = await newKey(q.slug);
	const otherKey = await newKey(other.slug);
	const base = `/sites/${id}/autorate`;

	let r = await rest('GET', base, key);
	assert.equal(r.status, 200, r.text);
	assert.equal(r.json.enabled, false);
	assert.equal(r.json.healthUrl, '');
	assert.equal(r.json.intervalSeconds, 10);

	// C20 through the API: 422 naming the field, nothing changed.
	for (const url of ['file:///etc/passwd', 'http://0x7f.1/',
	    'http://169.254.169.254/latest/meta-data/']) {
		r = await rest('PATCH', base, key, { healthUrl: url });
		assert.equal(r.status, 422, url);
		assert.equal(r.json.error, 'invalid_health_url');
		assert.equal(r.json.field, 'healthUrl');
		assert.equal(typeof r.json.message, 'string');
	}
	r = await rest('PATCH', base, key, { cutPercent: '20' });
	assert.equal(r.status, 422);
	assert.deepEqual([r.json.error, r.json.field],
	    ['invalid_value', 'cutPercent']);
	r = await rest('GET', base, key);
	assert.equal(r.json.healthUrl, '');
	assert.equal(r.json.cutPercent, 20);

	// Enabling without a test: 409.
	r = await rest('PATCH', base, key, { enabled: true });
	assert.equal(r.status, 409);
	assert.equal(r.json.error, 'test_required');

	// The private network is the operator's to allow (CLI, console),
	// never a key's: a key sending it unchanged is fine.
	r = await rest('PATCH', base, key, { allowPrivateNetwork: true });
	assert.equal(r.status, 403, r.text);
	assert.deepEqual([r.json.error, r.json.field],
	    ['forbidden', 'allowPrivateNetwork']);
	assert.equal((await run('autorate', 'set', q.slug, '--allow-private',
	    '1', '--health-url', `${SHOP}/health`)).status, 0);
	r = await rest('PATCH', base, key, { healthUrl: `${SHOP}/health`,
	    allowPrivateNetwork: true, rules: ['metrics.cpuLoad < 0.8',
	    'responseTimeMs \u2264 3000'], intervalSeconds: 30, id: 99,
	    unknownField: 'ignored' });
	assert.equal(r.status, 200, r.text);
	assert.equal(r.json.rules, 'metrics.cpuLoad < 0.8, ' +
	    'responseTimeMs <= 3000');
	assert.equal(r.json.intervalSeconds, 30);
	r = await rest('POST', `${base}/test`, key);
	assert.equal(r.status, 200, r.text);
	assert.equal(r.json.passed, true);
	assert.equal(r.json.state, 'healthy');
	assert.equal(r.json.sample['metrics.cpuLoad'], 0.2);
	r = await rest('PATCH', base, key, { enabled: true });
	assert.equal(r.status, 200, r.text);
	assert.equal(r.json.enabled, true);
	// A new URL with "enabled": refused whole (it would need a test).
	r = await rest('PATCH', base, key, { healthUrl: `${SHOP}/other`,
	    enabled: true });
	assert.equal(r.status, 409, r.text);
	assert.equal(r.json.error, 'test_required');
	r = await rest('GET', base, key);
	assert.deepEqual([r.json.healthUrl, r.json.enabled],
	    [`${SHOP}/health`, true]);
	r = await rest('PATCH', base, key, { enabled: false });
	assert.equal(r.json.enabled, false);
	r = await rest('GET', `${base}/log?limit=1`, key);
	assert.equal(r.status, 200);
	assert.equal(r.json.log.length, 1);
	assert.deepEqual([r.json.log[0].kind, r.json.log[0].action],
	    ['test', 'pass']);
	r = await rest('GET', `${base}/log?limit=0`, key);
	assert.equal(r.status, 400);
	assert.equal(r.json.error, 'invalid_limit');

	// Another queue's key: 403 on every route, nothing changed.
	for (const [m, p, b] of [['GET', base], ['PATCH', base,
	    { dryRun: true }], ['POST', `${base}/test`],
	    ['GET', `${base}/log`]]) {
		r = await rest(m, p, otherKey, b);
		assert.equal(r.status, 403, `${m} ${p}`);
		assert.equal(r.json.error, 'forbidden');
	}
	assert.equal((await rest('GET', base, key)).json.dryRun, false);

	// The audit log has the changes, made with the key.
	const audit = (await run('audit', '--queue', q.slug)).stdout
	    .split('\n').filter((l) => l !== '').map((l) => JSON.parse(l));
	const actions = audit.map((e) => e.action);
	assert.ok(actions.includes('autorate_update'), actions.join());
	assert.ok(actions.includes('autorate_enable'), actions.join());
	assert.ok(actions.includes('autorate_disable'), actions.join());
});
