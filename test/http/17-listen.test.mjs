// CASES C38: FastCGI has no authentication, so a TCP listen that other
// hosts can reach is refused (at -n and at start) unless an allowlist of
// web-server addresses is configured (web-server-addrs, libfcgi's
// FCGI_WEB_SERVER_ADDRS semantics), which is then enforced on every
// accepted connection.  Loopback TCP and unix sockets are fine.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

import { env, fcgiRequest, fcgiParams, waitFor, sleep } from './lib.mjs';

const dir = fs.mkdtempSync(path.join(env.vardir, 'listen-'));
const conf = path.join(dir, 'aqueue.conf');
const binary = path.join(env.root, 'fcgi-app', 'aqueue-fcgi');
const started = [];

// Each pool runs in its own process group: killing the group ends the
// master and its workers, and nothing else.
after(() => {
	for (const p of started) {
		try {
			process.kill(-p.pid, 'SIGKILL');
		} catch {
			// already gone
		}
	}
	fs.rmSync(dir, { recursive: true, force: true });
});

// The stack's config with our own listen, pid file and allowlist lines.
function writeConf(lines) {
	const base = fs.readFileSync(path.join(env.vardir, 'aqueue.conf'),
	    'utf8').split('\n')
	    .filter((l) => !/^\s*(listen|pid-file|workers)\s*=/.test(l))
	    .join('\n');
	fs.writeFileSync(conf, `${base}\nworkers = 1\n${lines.join('\n')}\n`,
	    { mode: 0o600 });
}

function check(lines) {
	writeConf(lines);
	const env2 = { ...process.env };
	delete env2.FCGI_WEB_SERVER_ADDRS;
	return spawnSync(binary, ['-n', '-f', conf], { encoding: 'utf8',
	    env: env2 });
}

async function freePort() {
	const s = net.createServer();
	await new Promise((r) => s.listen(0, '127.0.0.1', r));
	const { port } = s.address();
	await new Promise((r) => s.close(r));
	return port;
}

const REFUSED = /listen = (\S*) is reachable from other hosts, and FastCGI has no authentication/;

test('C38: a wildcard TCP listen is refused at -n', async (t) => {
	for (const l of ['0.0.0.0:9901', ':9901', '192.0.2.1:9901',
	    '10.1.2.3:9000']) {
		await t.test(`listen = ${l}`, () => {
			const r = check([`listen = ${l}`]);
			assert.equal(r.status, 1, r.stdout + r.stderr);
			const m = REFUSED.exec(r.stderr);
			assert.ok(m, r.stderr);
			assert.equal(m[1], l);
			assert.doesNotMatch(r.stdout, /configuration ok/);
		});
	}
});

test('C38: with web-server-addrs the same listens are accepted',
    async (t) => {
	for (const l of ['0.0.0.0:9901', ':9901']) {
		for (const a of ['10.0.0.5', '10.0.0.5, 10.0.0.6',
		    '127.0.0.1']) {
			await t.test(`listen = ${l}, web-server-addrs = ${a}`,
			    () => {
				const r = check([`listen = ${l}`,
				    `web-server-addrs = ${a}`]);
				assert.equal(r.status, 0, r.stderr);
				assert.match(r.stdout, /configuration ok/);
			});
		}
	}
});

test('loopback TCP and unix sockets need no allowlist', async (t) => {
	for (const l of ['127.0.0.1:9901', 'localhost:9901', '127.0.0.2:9000',
	    `unix:${dir}/x.sock`]) {
		await t.test(`listen = ${l}`, () => {
			const r = check([`listen = ${l}`]);
			assert.equal(r.status, 0, r.stderr);
			assert.match(r.stdout, /configuration ok/);
		});
	}
});

test('a malformed web-server-addrs is refused', async (t) => {
	for (const a of ['x', '1.2.3', '10.0.0.256', '::1', '010.0.0.1',
	    '10.0.0.5;10.0.0.6']) {
		await t.test(a, () => {
			const r = check(['listen = :9901',
			    `web-server-addrs = ${a}`]);
			assert.equal(r.status, 1, r.stderr);
			assert.match(r.stderr, /web-server-addrs: '.*' is not an IPv4 address/);
		});
	}
});

test('C38: refused at start too, before any socket is opened',
    async () => {
	const port = await freePort();
	writeConf([`listen = :${port}`, `pid-file = ${dir}/p.pid`]);
	const env2 = { ...process.env };
	delete env2.FCGI_WEB_SERVER_ADDRS;
	const r = spawnSync(binary, ['-f', conf], { encoding: 'utf8',
	    env: env2, timeout: 10000 });
	assert.equal(r.status, 1, r.stderr);
	assert.match(r.stderr, REFUSED);
	await assert.rejects(new Promise((resolve, reject) => {
		const c = net.createConnection({ host: '127.0.0.1', port });
		c.on('connect', () => {
			c.destroy();
			resolve();
		});
		c.on('error', reject);
	}), /ECONNREFUSED/);
});

// Start a pool on TCP with the given allowlist; resolves the process once
// it answers (or, when it must refuse everyone, once it listens).
async function pool(listen, allow) {
	writeConf([`listen = ${listen}`, `web-server-addrs = ${allow}`]);
	const log = fs.openSync(path.join(dir, 'log'), 'a');
	const p = spawn(binary, ['-f', conf], { detached: true,
	    stdio: ['ignore', 'ignore', log] });
	fs.closeSync(log);
	started.push(p);
	return p;
}

test('the allowlist is enforced on accepted connections', async () => {
	const port = await freePort();
	const sock = { host: '127.0.0.1', port };
	const healthz = () => fcgiRequest({ sock, timeoutMs: 3000,
	    params: fcgiParams('GET', '/queue/healthz') });

	// Only 127.0.0.2 may talk: our connection from 127.0.0.1 is closed
	// without an answer.
	let p = await pool(`0.0.0.0:${port}`, '127.0.0.2');
	await waitFor(async () => {
		try {
			await healthz();
			return false;
		} catch (e) {
			return /closed without output|EPIPE|ECONNRESET/.test(e.message);
		}
	}, 10000, 100, 'the pool to listen');
	await assert.rejects(healthz(), /closed without output|EPIPE|ECONNRESET/);
	p.kill('SIGTERM');
	await waitFor(() => p.exitCode !== null, 10000);

	// With 127.0.0.1 on the list, the same request is answered.
	p = await pool(`0.0.0.0:${port}`, '127.0.0.2,127.0.0.1');
	const r = await waitFor(async () => {
		try {
			return await healthz();
		} catch {
			return null;
		}
	}, 10000, 100, 'an answer');
	assert.equal(r.status, 200);
	assert.deepEqual(r.json, { status: 'ok' });
	p.kill('SIGTERM');
	await waitFor(() => p.exitCode !== null, 10000);
	await sleep(10);
});
