// The FastCGI pool itself: a private aqueue-fcgi next to the stack's (own
// socket, own config), checked for what the master promises: respawn of a
// dead worker, SIGTERM draining a request in flight, SIGHUP re-reading the
// config (and keeping the old one when the new file is bad), the socket
// handed over on fd 0 by spawn-fcgi, and "-n" checking a config.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { env, createQueue, fcgiRequest, fcgiParams, sleep, waitFor,
    childPids } from './lib.mjs';

const dir = fs.mkdtempSync(path.join(env.vardir, 'pool-'));
const sock = path.join(dir, 'fcgi.sock');
const pidFile = path.join(dir, 'master.pid');
const conf = path.join(dir, 'aqueue.conf');
const binary = path.join(env.root, 'fcgi-app', 'aqueue-fcgi');
let master = null;

// The stack's config with our own listen socket, pid file and pool size.
function writeConf(extra = '') {
	const base = fs.readFileSync(path.join(env.vardir, 'aqueue.conf'), 'utf8')
	    .split('\n')
	    .filter((l) => !/^\s*(listen|pid-file|workers)\s*=/.test(l))
	    .join('\n');
	fs.writeFileSync(conf, `${base}\nlisten = unix:${sock}\n` +
	    `pid-file = ${pidFile}\nworkers = 2\n${extra}`, { mode: 0o600 });
}

function alive(pid) {
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
}

const healthz = (s = sock) => fcgiRequest({ sock: s,
    params: fcgiParams('GET', '/queue/healthz') });

// A join on our pool whose two-byte body is held back until meanwhile()
// has run: the request is inside a worker all that time.
const heldJoin = (slug, meanwhile) => fcgiRequest({ sock,
	params: fcgiParams('POST', `/queue/${slug}/join`, {
		CONTENT_LENGTH: '2',
		CONTENT_TYPE: 'application/json',
	}),
	stdin: '{}',
	beforeStdin: meanwhile,
});

before(async () => {
	writeConf();
	master = spawn(binary, ['-f', conf], { stdio: ['ignore', 'ignore',
	    'pipe'] });
	master.stderr.on('data', (d) => fs.appendFileSync(path.join(dir, 'master.log'), d));
	await waitFor(async () => childPids(master.pid).length === 2 &&
	    fs.existsSync(sock), 10000);
});

after(() => {
	if (master !== null && alive(master.pid))
		master.kill('SIGKILL');
	if (process.env.AQ_KEEP_POOL_LOG === undefined)
		fs.rmSync(dir, { recursive: true, force: true });
});

test('the pool answers with two workers and writes its pid file', async () => {
	assert.equal(Number(fs.readFileSync(pidFile, 'utf8').trim()),
	    master.pid);
	assert.equal(childPids(master.pid).length, 2);
	const r = await healthz();
	assert.equal(r.status, 200);
	assert.deepEqual(r.json, { status: 'ok' });
	assert.equal(fs.statSync(sock).mode & 0o777, 0o666,
	    'listen-mode of the stack config (0666) applied to the socket');
});

test('a killed worker is replaced and nobody notices', async () => {
	const before = childPids(master.pid);
	process.kill(before[0], 'SIGKILL');
	await waitFor(() => {
		const now = childPids(master.pid);
		return now.length === 2 && !now.includes(before[0]);
	}, 5000);
	const now = childPids(master.pid);
	assert.equal(now.length, 2);
	assert.ok(now.includes(before[1]), 'the other worker was left alone');
	for (let i = 0; i < 10; i++)
		assert.equal((await healthz()).status, 200);
});

test('SIGHUP with a bad config keeps the running workers', async () => {
	const before = childPids(master.pid);
	writeConf('no-such-key = 1\n');
	process.kill(master.pid, 'SIGHUP');
	await sleep(500);
	assert.deepEqual(childPids(master.pid), before);
	assert.equal((await healthz()).status, 200);
});

test('SIGHUP re-reads the config and replaces the workers', async () => {
	const before = childPids(master.pid);
	writeConf('status-cache-ms = 500\n');
	process.kill(master.pid, 'SIGHUP');
	await waitFor(() => {
		const now = childPids(master.pid);
		return now.length === 2 && now.every((p) => !before.includes(p));
	}, 10000);
	assert.ok(alive(master.pid), 'the master stays');
	assert.equal((await healthz()).status, 200);
});

test('SIGHUP: new workers answer while an old one finishes its request',
    async () => {
	const { slug } = createQueue({ rate: 600 });
	writeConf('status-cache-ms = 800\n');
	let during = null;
	const r = await heldJoin(slug, async () => {
		await sleep(200);
		process.kill(master.pid, 'SIGHUP');
		await sleep(300);
		// The old worker still holds our request.
		during = await healthz();
	});
	assert.equal(during.status, 200, 'answered during the reload');
	assert.equal(r.status, 200, 'the old worker finished the request');
	assert.equal(r.json.number, 1);
	await waitFor(() => childPids(master.pid).length === 2, 5000);
});

test('a body that stops coming does not hold a worker past ' +
    'request-timeout', async () => {
	const { slug } = createQueue({ rate: 600 });
	writeConf('request-timeout = 1\n');
	const before = childPids(master.pid);
	process.kill(master.pid, 'SIGHUP');
	await waitFor(() => {
		const now = childPids(master.pid);
		return now.length === 2 && now.every((p) => !before.includes(p));
	}, 12000);
	// CONTENT_LENGTH=100, 5 bytes, and the stream stays open.
	const t0 = Date.now();
	const r = await fcgiRequest({ sock,
		params: fcgiParams('POST', `/queue/${slug}/join`, {
			CONTENT_LENGTH: '100',
			CONTENT_TYPE: 'application/json',
		}),
		holdOpen: '{"a":',
		timeoutMs: 8000,
	});
	const took = Date.now() - t0;
	assert.equal(r.status, 400);
	assert.equal(r.json.error, 'incomplete_body');
	assert.ok(took >= 900 && took < 5000, `answered after ${took} ms`);
	writeConf();
	process.kill(master.pid, 'SIGHUP');
	await waitFor(() => childPids(master.pid).length === 2, 12000);
});

// The room page through our pool.
const roomPage = (slug) => fcgiRequest({ sock,
    params: fcgiParams('GET', `/queue/${slug}`) });

// SIGHUP, and wait until our pool has exactly its two workers and none
// of before (sent again while an earlier reload is still draining).
async function reload(before) {
	for (let i = 0; i < 8; i++) {
		process.kill(master.pid, 'SIGHUP');
		const end = Date.now() + 1500;
		while (Date.now() < end) {
			const now = childPids(master.pid);
			if (now.length === 2 &&
			    now.every((p) => !before.includes(p)))
				return;
			await sleep(50);
		}
	}
	throw new Error('the workers were not replaced');
}

test('SIGHUP with a template missing keeps the loaded templates, also ' +
    'for workers started afterwards', async () => {
	const { slug } = createQueue({ rate: 600 });
	const tdir = path.join(dir, 'templates');
	// The templates with their message catalogs (templates/lang/).
	fs.cpSync(path.join(env.root, 'templates'), tdir, { recursive: true });
	const marker = '<!-- templates of this test -->';
	fs.appendFileSync(path.join(tdir, 'waiting-room.html'), marker);
	writeConf(`templates-dir = ${tdir}\n`);
	let before = childPids(master.pid);
	await reload(before);
	let r = await roomPage(slug);
	assert.equal(r.status, 200);
	assert.ok(r.body.endsWith(marker), 'the copied templates are used');

	// A reload whose templates cannot all be read changes nothing.
	fs.rmSync(path.join(tdir, 'unavailable.html'));
	writeConf(`templates-dir = ${tdir}\nstatus-cache-ms = 700\n`);
	before = childPids(master.pid);
	process.kill(master.pid, 'SIGHUP');
	await sleep(700);
	assert.deepEqual(childPids(master.pid), before,
	    'the running workers stay');
	assert.match(fs.readFileSync(path.join(dir, 'master.log'), 'utf8'),
	    /SIGHUP: templates did not load; configuration not reloaded/);
	// A worker started after the failed reload has the old templates.
	process.kill(before[0], 'SIGKILL');
	await waitFor(() => {
		const now = childPids(master.pid);
		return now.length === 2 && !now.includes(before[0]);
	}, 5000);
	for (let i = 0; i < 6; i++) {
		r = await roomPage(slug);
		assert.equal(r.status, 200, r.body.slice(0, 200));
		assert.ok(r.body.endsWith(marker), 'the loaded templates');
	}
	writeConf();
	before = childPids(master.pid);
	await reload(before);
	r = await roomPage(slug);
	assert.equal(r.status, 200);
	assert.ok(!r.body.includes(marker), 'the stack templates again');
});

test('SIGTERM drains a request in flight, then the master exits',
    async () => {
	const { slug } = createQueue({ rate: 600 });
	const exited = new Promise((resolve) => master.on('exit',
	    (code, sig) => resolve({ code, sig })));
	// A join whose body has not arrived yet is inside a worker, which
	// waits for those two bytes while the master is told to stop.
	const t0 = Date.now();
	const r = await heldJoin(slug, async () => {
		await sleep(300);
		process.kill(master.pid, 'SIGTERM');
		await sleep(700);
	});
	assert.ok(Date.now() - t0 >= 1000, 'the answer came after SIGTERM');
	assert.equal(r.status, 200, 'the request in flight was answered');
	assert.equal(r.json.number, 1);
	assert.equal(r.json.admitted, true);
	const how = await Promise.race([exited, sleep(8000).then(() => null)]);
	assert.deepEqual(how, { code: 0, sig: null }, 'master exited with 0');
	assert.equal(fs.existsSync(sock), false, 'socket removed');
	assert.equal(fs.existsSync(pidFile), false, 'pid file removed');
	master = null;
});

test('spawn-fcgi hands the socket over on fd 0', async (t) => {
	const spawned = path.join(dir, 'spawned.sock');
	writeConf();
	const text = fs.readFileSync(conf, 'utf8').replace(/^listen = .*$/m,
	    'listen =');
	fs.writeFileSync(conf, text, { mode: 0o600 });
	execFileSync('spawn-fcgi', ['-s', spawned, '-M', '0600', '--',
	    binary, '-f', conf], { stdio: 'ignore' });
	const pid = Number(fs.readFileSync(pidFile, 'utf8').trim());
	t.after(() => {
		if (alive(pid))
			process.kill(pid, 'SIGKILL');
	});
	const r = await waitFor(async () => {
		try {
			return await healthz(spawned);
		} catch {
			return null;
		}
	}, 5000);
	assert.equal(r.status, 200);
	process.kill(pid, 'SIGTERM');
	await waitFor(() => !alive(pid), 8000);
});

test('-n checks the config: ok, and file:line for an unknown key', () => {
	writeConf();
	let r = spawnSync(binary, ['-n', '-f', conf], { encoding: 'utf8' });
	assert.equal(r.status, 0);
	assert.match(r.stdout, /configuration ok/);
	writeConf('worker = 3\n');
	const line = fs.readFileSync(conf, 'utf8').split('\n')
	    .indexOf('worker = 3') + 1;
	r = spawnSync(binary, ['-n', '-f', conf], { encoding: 'utf8' });
	assert.equal(r.status, 1);
	assert.ok(r.stderr.includes(`${conf}:${line}: unknown key 'worker'`),
	    r.stderr);
	writeConf('workers = 257\n');
	r = spawnSync(binary, ['-n', '-f', conf], { encoding: 'utf8' });
	assert.equal(r.status, 1);
	assert.match(r.stderr, /bad value for workers: '257'/);
});
