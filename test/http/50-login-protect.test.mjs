// The console's log-in cannot be turned against the waiting room or its
// operator (SPEC section 10, CASES C55), with real source addresses of
// the loopback range through nginx:
//   - a flood of log-ins (200 attempts with random names from 20
//     addresses, 127.0.0.2-127.0.0.21) leaves /status fast (p99 under
//     50 ms, every answer 200): at most login-hashes password checks run
//     at once in the pool, the others are refused at once (503 with
//     Retry-After), nothing else (no 502/504, no timeout);
//   - failures from one address never lock the user out from another:
//     five wrong passwords for a name from one address throttle that
//     address for that name only; the right password from another
//     address gets in after at most the name's pace (login-user-backoff,
//     4 s), with Retry-After saying how long;
//   - twenty failures from one address throttle that address for every
//     name, before any hash;
//   - every attempt is in the audit log: login, login_failed (with the
//     reason), login_throttled, logout, with the address; never the
//     password.
// Promise 5 (status keeps answering, fast) is the one a log-in flood
// could break; the last test shows it holds.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { createQueue, join, dbSQL, sleep, TIME_SCALE }
    from './lib.mjs';
import { addUser, ctlIn } from './console.mjs';
import { fromAddr, loop, LoopClient } from './loopback.mjs';

// The audit rows of action about user name (after_json.user), oldest
// first, as objects.
function auditOf(name, action) {
	return dbSQL('SELECT actor_name, client_addr, after_json FROM ' +
	    `audit_log WHERE action = '${action}' AND after_json LIKE ` +
	    `'%"user":"${name}"%' ORDER BY id`).map(([actor, addr, after]) =>
	    ({ actor, addr, after: JSON.parse(after) }));
}

// Forget the failures of these addresses (earlier tests' attempts).
function forget(...addrs) {
	dbSQL('DELETE FROM login_failure WHERE client_addr IN (' +
	    addrs.map((a) => `'${a}'`).join(', ') + ')');
}

// p-th percentile of the numbers in a (sorted copy).
function pct(a, p) {
	const s = [...a].sort((x, y) => x - y);
	return s[Math.min(s.length - 1, Math.floor(s.length * p))];
}

test('five wrong passwords from one address lock that address out for ' +
    'that name only: the right password from another address gets in ' +
    'within the pace (Retry-After at most 4 s); audited with reasons ' +
    'and addresses', async () => {
	const u = addUser();
	forget(loop(0), loop(1));
	const bad = new LoopClient(loop(0));
	for (let i = 1; i <= 5; i++) {
		const r = await bad.login(u.name, `wrong-password-${i}x`);
		assert.equal(r.status, 401, `attempt ${i}`);
	}
	// The sixth from that address: refused unchecked, right or not.
	let r = await bad.login(u.name, u.password);
	assert.equal(r.status, 429);
	const retry = Number(r.h('retry-after'));
	assert.ok(retry > 800 && retry <= 900, `Retry-After ${retry}`);
	// Another address: in at once, or after the pace it names.
	const good = new LoopClient(loop(1));
	let paced = 0;
	for (;;) {
		r = await good.login(u.name, u.password);
		if (r.status !== 429)
			break;
		const s = Number(r.h('retry-after'));
		assert.ok(s >= 1 && s <= 4, `the pace's Retry-After ${s}`);
		assert.ok(++paced <= 1, 'paced once at most');
		await sleep(s * 1000);
	}
	assert.equal(r.status, 303, r.text);
	assert.equal(r.h('location'), '/admin/');
	// Still throttled from the first address, for this name only.
	assert.equal((await bad.login(u.name, u.password)).status, 429);
	const v = addUser();
	assert.equal((await new LoopClient(loop(0)).login(v.name,
	    v.password)).status, 303, 'another name from that address');
	// Logged out, audited.
	const page = await good.request('GET', '/admin/');
	const csrf = /name="csrf" value="([^"]*)"/.exec(page.text)[1];
	assert.equal((await good.request('POST', '/admin/logout',
	    { csrf })).status, 303);

	const failed = auditOf(u.name, 'login_failed');
	assert.equal(failed.length, 5);
	for (const f of failed) {
		assert.deepEqual([f.actor, f.addr, f.after.reason],
		    [u.name, loop(0), 'wrong_password']);
		assert.ok(!JSON.stringify(f).includes('wrong-password'));
	}
	const thr = auditOf(u.name, 'login_throttled');
	assert.ok(thr.length >= 2, `${thr.length} throttled rows`);
	assert.deepEqual([thr[0].addr, thr[0].after.reason],
	    [loop(0), 'user_address_failures']);
	const ok = auditOf(u.name, 'login');
	assert.deepEqual(ok.map((x) => x.addr), [loop(1)]);
	assert.equal(typeof ok[0].after.userId, 'number');
	assert.deepEqual(auditOf(u.name, 'logout').map((x) => x.addr),
	    [loop(1)]);
	const all = JSON.stringify(dbSQL('SELECT before_json, after_json ' +
	    `FROM audit_log WHERE after_json LIKE '%"user":"${u.name}"%'`));
	assert.ok(!all.includes(u.password), 'never the password');
});

test('twenty failures from one address throttle it for every name ' +
    'before any hash (429 with Retry-After); another address logs in; ' +
    'an unknown name is audited as such', async () => {
	const u = addUser();
	const a = loop(2);
	const tag = randomBytes(4).toString('hex');
	forget(a, loop(3));
	for (let i = 1; i <= 20; i++) {
		const r = await new LoopClient(a).login(`nobody-${i}-${tag}`,
		    'wrong-password-123');
		assert.equal(r.status, 401, `attempt ${i}`);
	}
	const r = await new LoopClient(a).login(u.name, u.password);
	assert.equal(r.status, 429);
	assert.ok(Number(r.h('retry-after')) > 800);
	const t = auditOf(u.name, 'login_throttled');
	assert.deepEqual(t.map((x) => [x.addr, x.after.reason]),
	    [[a, 'address_failures']]);
	assert.deepEqual(auditOf(`nobody-3-${tag}`, 'login_failed')
	    .map((x) => x.after.reason), ['unknown_user']);
	assert.equal((await new LoopClient(loop(3)).login(u.name,
	    u.password)).status, 303);
});

test('aqueuectl user add, passwd, disable, enable are audited as the ' +
    'CLI, without the password', () => {
	const u = addUser();
	assert.equal(ctlIn('another-password-9\n', 'user', 'passwd', u.name)
	    .status, 0);
	assert.equal(ctlIn('', 'user', 'disable', u.name).status, 0);
	assert.equal(ctlIn('', 'user', 'enable', u.name).status, 0);
	for (const action of ['user_add', 'user_passwd', 'user_disable',
	    'user_enable']) {
		const rows = auditOf(u.name, action);
		assert.equal(rows.length, 1, action);
		assert.match(rows[0].actor, /^cli:/);
		assert.equal(typeof rows[0].after.userId, 'number');
	}
	const all = JSON.stringify(dbSQL('SELECT before_json, after_json ' +
	    `FROM audit_log WHERE after_json LIKE '%"user":"${u.name}"%'`));
	assert.ok(!all.includes(u.password) &&
	    !all.includes('another-password-9') && !all.includes('argon2'));
	// Through the CLI's audit command too.
	const out = ctlIn('', 'audit', '--action', 'user_disable',
	    '--actor', rowsActor(u.name));
	assert.equal(out.status, 0, out.stderr);
	assert.ok(out.stdout.includes(u.name));
});

// The actor of u's user_add row (the CLI's principal name).
function rowsActor(name) {
	return auditOf(name, 'user_add')[0].actor;
}

test('a log-in flood (200 attempts, random names, 20 addresses) leaves ' +
    '/status fast: p99 under 50 ms, all 200; log-ins answered 401, or ' +
    '503 at once with Retry-After when every hash slot is held',
    async () => {
	// The earlier tests' failures would throttle their addresses.
	dbSQL('DELETE FROM login_failure');
	const q = createQueue({ rate: 60 });
	const j = await join(q.slug);
	assert.equal(j.status, 200, j.text);
	const path = `/queue/${q.slug}/status?number=${j.json.number}`;
	// Idle first, so the flood's effect shows against it.
	const idle = [];
	for (let i = 0; i < 50; i++)
		idle.push((await fromAddr('127.0.0.1', 'GET', path)).ms);
	// The flood in a process of its own (login-flood.mjs).
	const child = spawn(process.execPath, [fileURLToPath(new URL(
	    './login-flood.mjs', import.meta.url))], { env: process.env,
	    stdio: ['ignore', 'pipe', 'inherit'] });
	let out = '';
	child.stdout.on('data', (d) => { out += d; });
	let flooding = true;
	const exited = new Promise((r) => child.on('exit', (code) => {
		flooding = false;
		r(code);
	}));
	const lat = [], bad = [];
	// Two samplers, one request every 10 ms each.
	await Promise.all([0, 1].map(async () => {
		while (flooding) {
			const t = Date.now();
			const r = await fromAddr('127.0.0.1', 'GET', path);
			if (r.status !== 200)
				bad.push(r.status);
			lat.push(r.ms);
			await sleep(Math.max(0, 10 - (Date.now() - t)));
		}
	}));
	assert.equal(await exited, 0, 'the flood ran');
	const answers = JSON.parse(out).answers;
	const by = {};
	for (const a of answers)
		by[a.status] = (by[a.status] ?? 0) + 1;
	assert.equal(answers.length, 200);
	assert.deepEqual(Object.keys(by).filter((s) => s !== '401' &&
	    s !== '503'), [], `answers ${JSON.stringify(by)}`);
	assert.ok(by[401] > 0, `some were checked: ${JSON.stringify(by)}`);
	assert.ok(by[503] > 0, `20 at once find the slot held: ` +
	    JSON.stringify(by));
	for (const a of answers.filter((x) => x.status === 503))
		assert.ok(a.retry === '1' || a.retry === '2',
		    `Retry-After ${a.retry}`);
	assert.deepEqual(bad, [], '/status answered 200 throughout');
	assert.ok(lat.length >= 50, `${lat.length} status samples, answers ` +
	    JSON.stringify(by));
	const p99 = pct(lat, 0.99);
	assert.ok(p99 < 50 * TIME_SCALE,
	    `/status p99 ${p99.toFixed(1)} ms during the ` +
	    `flood (idle p99 ${pct(idle, 0.99).toFixed(1)} ms, ` +
	    `${lat.length} samples, answers ${JSON.stringify(by)})`);
});
