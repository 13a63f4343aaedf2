// CASES C53 (CVE-2025-23016, libfcgi's ReadParams trusting the declared
// name and value lengths): the exact hostile PARAMS streams of the case
// sent raw to the pool's socket, then what must still work.  Promises
// this path could break, and what shows they hold:
//   promise 4 (bad input changes nothing): each hostile request is
//     refused (the connection closed, before libfcgi read it: one
//     warning line each), no worker dies (the same PIDs, no "died" line,
//     no abort in the log), no worker's RSS grows by more than 64 MiB;
//     the same with workers = 0 (one process without a master, as
//     mod_fcgid runs it): the process lives on and answers;
//   promise 5 (status keeps answering, fast): /queue/healthz through
//     nginx answers 200 right after (median of five under 100 ms), a
//     normal request and a 16 KiB cookie through nginx work, raw
//     parameters up to the 64 KiB limit and a stream sent in parts too.
// And aqueue-fcgi --version names the libfcgi it was built against.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import net from 'node:net';
import {
	env, createQueue, fcgiRequest, fcgiParams, fcgiRecord, childPids,
	sleep, startExtraPool,
} from './lib.mjs';

const q = createQueue();
const LOG = `${env.vardir}/log/aqueue-fcgi.log`;
const REFUSED = 'FastCGI connection refused before libfcgi read it';

// One FastCGI record of request 1 (the case's probe: rec(t, 1, content)).
const rec = (type, content) => fcgiRecord(type, 1, content);

function l4(n) {
	const b = Buffer.alloc(4);
	b.writeUInt32BE((n | 0x80000000) >>> 0);
	return b;
}

function l1or4(n) {
	return n < 128 ? Buffer.from([n]) : l4(n);
}

// BEGIN_REQUEST (RESPONDER, flags 0), one PARAMS record with content,
// the empty PARAMS, the empty STDIN.
function stream(params) {
	const begin = Buffer.alloc(8);
	begin.writeUInt16BE(1, 0);
	return Buffer.concat([rec(1, begin), rec(4, params), rec(4),
	    rec(5)]);
}

// The case's input: the first pair's lengths in the 4-byte form, then
// 16 bytes of data.
function hostile(nl, vl) {
	return stream(Buffer.concat([l4(nl), l4(vl), Buffer.alloc(16, 'A')]));
}

// Send bytes on a new connection to the pool's socket (or sock); resolves
// what came back: {data (Buffer), how ('end', 'reset', 'timeout'), ms}.
function sendRaw(bytes, sock = env.fcgiSock, timeoutMs = 5000) {
	return new Promise((resolve) => {
		const t0 = Date.now();
		const c = net.createConnection(sock);
		const got = [];
		let done = false;
		const finish = (how) => {
			if (done)
				return;
			done = true;
			clearTimeout(timer);
			c.destroy();
			resolve({ data: Buffer.concat(got), how,
			    ms: Date.now() - t0 });
		};
		const timer = setTimeout(() => finish('timeout'), timeoutMs);
		c.on('connect', () => c.write(bytes));
		c.on('data', (d) => got.push(d));
		c.on('end', () => finish('end'));
		c.on('close', () => finish('end'));
		c.on('error', (e) => finish(e.code === 'ECONNRESET' ||
		    e.code === 'EPIPE' ? 'reset' : e.code));
	});
}

// The case's four (nameLength, valueLength).
const C53 = [[0x7fffffff, 0x7fffffff], [0x7ffffff0, 0x10],
    [0x10, 0x7ffffff0], [1 << 20, 8]];

function masterPid() {
	return Number(readFileSync(`${env.vardir}/run/aqueue-fcgi.pid`,
	    'utf8').trim());
}

function rssKiB(pid) {
	const m = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(
	    `/proc/${pid}/status`, 'utf8'));
	return m === null ? 0 : Number(m[1]);
}

// What the pool's log got since offset.
function logSince(offset) {
	return readFileSync(LOG).subarray(offset).toString('utf8');
}

async function healthzMs() {
	const t0 = performance.now();
	const r = await fetch(`${env.base}/queue/healthz`);
	await r.arrayBuffer();
	return { status: r.status, ms: performance.now() - t0 };
}

test('C53: the four hostile PARAMS streams are refused; no worker dies',
    async () => {
	const master = masterPid();
	const pids = childPids(master);
	assert.ok(pids.length >= 1, 'the pool has workers');
	const rss = new Map(pids.map((p) => [p, rssKiB(p)]));
	const offset = statSync(LOG).size;

	for (const [nl, vl] of C53) {
		const r = await sendRaw(hostile(nl, vl));
		const what = `(${nl.toString(16)}, ${vl.toString(16)})`;
		assert.notEqual(r.how, 'timeout', `${what}: not left open`);
		assert.ok(r.how === 'end' || r.how === 'reset',
		    `${what}: closed (${r.how})`);
		// Closed without an answer: no STDOUT, no END_REQUEST.
		assert.equal(r.data.length, 0, `${what}: nothing sent back`);
		// Refused from the lengths, not after the 2 s wait.
		assert.ok(r.ms < 1500, `${what}: refused at once (${r.ms} ms)`);
	}

	const h = [];
	for (let i = 0; i < 5; i++)
		h.push(await healthzMs());
	for (const x of h)
		assert.equal(x.status, 200, 'healthz right after: 200');
	const ms = h.map((x) => x.ms).sort((a, b) => a - b);
	assert.ok(ms[2] < 100, `healthz median ${ms[2].toFixed(1)} ms ` +
	    `(all: ${ms.map((x) => x.toFixed(1)).join(', ')})`);

	await sleep(300);	// the master's reaping tick
	assert.deepEqual(childPids(master), pids, 'the same workers');
	for (const p of pids)
		assert.ok(rssKiB(p) - rss.get(p) < 64 * 1024,
		    `worker ${p}: RSS ${rss.get(p)} -> ${rssKiB(p)} KiB`);
	const log = logSince(offset);
	assert.doesNotMatch(log, /died|signal|abort|assert/i, log);
	assert.equal(log.split(REFUSED).length - 1, 4,
	    `one warning line per hostile request:\n${log}`);
	assert.equal(log.split('a name-value pair declares more bytes than ' +
	    'the parameters may hold').length - 1, 4, log);
});

test('workers = 0 (one process, no master, as under mod_fcgid): the ' +
    'C53 streams refused, the process lives on', async () => {
	const pool = await startExtraPool({ workers: 0 });
	try {
		for (const [nl, vl] of C53) {
			const r = await sendRaw(hostile(nl, vl), pool.sock);
			const what = `(${nl.toString(16)}, ${vl.toString(16)})`;
			assert.ok(r.how === 'end' || r.how === 'reset',
			    `${what}: ${r.how}`);
			assert.equal(r.data.length, 0);
		}
		const h = await fcgiRequest({ sock: pool.sock,
		    params: fcgiParams('GET', '/queue/healthz') });
		assert.equal(h.status, 200, h.body);
		assert.equal(process.kill(pool.pid, 0), true, 'still running');
		const log = readFileSync(pool.log, 'utf8');
		assert.equal(log.split(REFUSED).length - 1, 4, log);
		assert.doesNotMatch(log, /died|signal|abort|assert/i, log);
	} finally {
		await pool.stop();
	}
});

test('a pair running past the end of its PARAMS stream: refused',
    async () => {
	const offset = statSync(LOG).size;
	// Name 3 bytes, value 100 bytes declared; 20 bytes sent.
	const r = await sendRaw(stream(Buffer.concat([Buffer.from([3, 100]),
	    Buffer.alloc(20, 'x')])));
	assert.ok(r.how === 'end' || r.how === 'reset', r.how);
	assert.equal(r.data.length, 0);
	assert.match(logSince(offset), /a name-value pair runs past the end/);
});

test('a padded BEGIN_REQUEST hiding a C53 pair: refused, no worker dies',
    async () => {
	// libfcgi does not skip BEGIN_REQUEST's padding: it would read the
	// PARAMS record the 32 bytes of padding seem to cover.
	const master = masterPid();
	const pids = childPids(master);
	const offset = statSync(LOG).size;
	const bytes = hostile(0x10, 0x7ffffff0);
	bytes[6] = 32;
	const r = await sendRaw(bytes);
	assert.ok(r.how === 'end' || r.how === 'reset', r.how);
	assert.equal(r.data.length, 0);
	assert.match(logSince(offset),
	    new RegExp(`${REFUSED}: BEGIN_REQUEST with padding`));
	const h = await healthzMs();
	assert.equal(h.status, 200);
	await sleep(300);
	assert.deepEqual(childPids(master), pids, 'the same workers');
	assert.doesNotMatch(logSince(offset), /died|signal|abort|assert/i);
});

test('a normal request on the socket and through nginx still works',
    async () => {
	const raw = await fcgiRequest({ params: fcgiParams('GET',
	    `/queue/${q.slug}/info`) });
	assert.equal(raw.status, 200, raw.body);
	assert.equal(raw.json.queue, q.slug);
	const r = await fetch(`${env.base}/queue/${q.slug}/info`);
	assert.equal(r.status, 200);
	assert.equal((await r.json()).queue, q.slug);
});

test('a 16 KiB cookie through nginx: answered', async () => {
	const r = await fetch(`${env.base}/queue/${q.slug}/info`, {
		headers: { cookie: `big=${'c'.repeat(16384)}` } });
	assert.equal(r.status, 200);
	assert.equal((await r.json()).queue, q.slug);
});

test('raw parameters: 60 KiB answered, over 64 KiB refused', async () => {
	const ok = await fcgiRequest({ params: fcgiParams('GET',
	    `/queue/${q.slug}/info`, { HTTP_COOKIE: 'c'.repeat(60 * 1024) }) });
	assert.equal(ok.status, 200, ok.body);
	assert.equal(ok.json.queue, q.slug);
	const offset = statSync(LOG).size;
	await assert.rejects(fcgiRequest({ params: fcgiParams('GET',
	    `/queue/${q.slug}/info`, { HTTP_COOKIE: 'c'.repeat(66 * 1024) }),
	    timeoutMs: 5000 }), /closed without output|ECONNRESET|EPIPE/);
	// The cookie's pair alone declares more than 64 KiB: refused from
	// its lengths, before the rest arrives.
	assert.match(logSince(offset), new RegExp(`${REFUSED}: a name-value ` +
	    'pair declares more bytes than the parameters may hold'));
});

test('a request sent in parts (a pair split across records) waits and ' +
    'is answered', async () => {
	const p = fcgiParams('GET', `/queue/${q.slug}/info`);
	const parts = [];
	for (const [k, v] of Object.entries(p)) {
		const kb = Buffer.from(k), vb = Buffer.from(v);
		parts.push(l1or4(kb.length), l1or4(vb.length), kb, vb);
	}
	const params = Buffer.concat(parts);
	const cut = 21;		// inside a pair
	const begin = Buffer.alloc(8);
	begin.writeUInt16BE(1, 0);
	const all = Buffer.concat([rec(1, begin), rec(4, params.subarray(0,
	    cut)), rec(4, params.subarray(cut)), rec(4), rec(5)]);
	const r = await new Promise((resolve) => {
		const c = net.createConnection(env.fcgiSock);
		const got = [];
		c.on('connect', async () => {
			c.write(all.subarray(0, 30));
			await sleep(200);
			c.write(all.subarray(30));
		});
		c.on('data', (d) => got.push(d));
		c.on('close', () => resolve(Buffer.concat(got)));
		c.on('error', () => resolve(Buffer.concat(got)));
		setTimeout(() => c.destroy(), 5000);
	});
	const text = r.toString('latin1');
	assert.match(text, /"queue":"[^"]+"/, 'answered');
	assert.ok(text.includes(`"queue":"${q.slug}"`), text.slice(0, 300));
});

test('aqueue-fcgi --version: the program and its libfcgi', () => {
	const out = execFileSync(`${env.root}/fcgi-app/aqueue-fcgi`,
	    ['--version'], { encoding: 'utf8' });
	const lines = out.trimEnd().split('\n');
	const ac = readFileSync(`${env.root}/configure.ac`, 'utf8');
	const version = /AC_INIT\(\[aditus-queue\],\[([^\]]+)\]/.exec(ac)[1];
	assert.equal(lines[0], `aqueue-fcgi ${version}`);
	// What this machine's dpkg says of the package that has fcgi.pc.
	const pc = execFileSync('pkg-config', ['--variable=pcfiledir',
	    'fcgi'], { encoding: 'utf8' }).trim();
	const pkg = execFileSync('dpkg-query', ['-S', `${pc}/fcgi.pc`],
	    { encoding: 'utf8' }).split(':')[0];
	const deb = execFileSync('dpkg-query', ['-W', '-f=${Version}', pkg],
	    { encoding: 'utf8' });
	const up = execFileSync('pkg-config', ['--modversion', 'fcgi'],
	    { encoding: 'utf8' }).trim();
	assert.equal(lines[1], `libfcgi (built against): Debian package ` +
	    `${deb}, upstream ${up}`);
	let old = false;
	try {
		execFileSync('dpkg', ['--compare-versions', deb, 'lt',
		    '2.4.2-2+deb12u1']);
		old = true;
	} catch {
		old = false;
	}
	if (old) {
		assert.equal(lines.length, 3);
		assert.match(lines[2], new RegExp('^warning: this libfcgi ' +
		    'lacks the fix for CVE-2025-23016 .*the pool\'s own ' +
		    'check of the FastCGI parameter stream is active$'));
	} else
		assert.equal(lines.length, 2, out);
});
