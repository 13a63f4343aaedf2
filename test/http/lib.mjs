// test/http/lib.mjs - shared helpers of the HTTP integration tests.
//
// The environment comes from test/run (see there): AQ_BASE, AQ_CTL,
// AQ_STACK, AQ_VAR, AQ_FCGI_SOCK, AQ_ROOT.  Every test file creates its own
// queues with createQueue() and never relies on the demo queue.

import { execFileSync, spawnSync } from 'node:child_process';
import { spawn as spawnChild } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import {
	appendFileSync, existsSync, mkdtempSync, readFileSync, readdirSync,
	rmSync, writeFileSync,
} from 'node:fs';
import net from 'node:net';
import { userInfo } from 'node:os';
import assert from 'node:assert/strict';

function need(name) {
	const v = process.env[name];
	if (v === undefined || v === '')
		throw new Error(`environment variable ${name} is not set ` +
		    '(run the HTTP tests through test/run)');
	return v;
}

export const env = {
	get base() { return need('AQ_BASE').replace(/\/+$/, ''); },
	get ctl() { return need('AQ_CTL'); },
	get stack() { return need('AQ_STACK'); },
	get vardir() { return need('AQ_VAR'); },
	get fcgiSock() { return need('AQ_FCGI_SOCK'); },
	get root() { return need('AQ_ROOT'); },
};

// ctl(...args): run aqueuectl synchronously, return its stdout.  Throws
// (with stderr in the message) on a non-zero exit.
export function ctl(...args) {
	const parts = env.ctl.split(' ').filter((s) => s !== '');
	try {
		return execFileSync(parts[0], [...parts.slice(1), ...args.map(String)],
		    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
	} catch (e) {
		throw new Error(`aqueuectl ${args.join(' ')} failed: ` +
		    `status ${e.status} signal ${e.signal} ` +
		    `${e.stderr ?? ''}${e.stdout ?? ''}`);
	}
}

// ctlRun(...args): aqueuectl with its exit status and both outputs
// ({code, out, err}), for what must fail.
export function ctlRun(...args) {
	const parts = env.ctl.split(' ').filter((s) => s !== '');
	const r = spawnSync(parts[0], [...parts.slice(1), ...args.map(String)],
	    { encoding: 'utf8' });
	return { code: r.status, out: r.stdout, err: r.stderr };
}

// keyOf(slug, name): a new API key of queue slug (aqueuectl key create).
export function keyOf(slug, name = 'test') {
	return /^key: (qak_\S+)$/m.exec(ctl('key', 'create', slug, '--name',
	    name))[1];
}

// patchSite(id, key, body): PATCH the admin API's site id with a key.
export function patchSite(id, key, body) {
	return req(`/api/admin/queue/sites/${id}`, { method: 'PATCH',
	    headers: { authorization: `Bearer ${key}`,
	    'content-type': 'application/json' }, body: JSON.stringify(body) });
}

// stack(cmd): run "$AQ_STACK cmd $AQ_VAR" synchronously.
export function stack(cmd) {
	return execFileSync(env.stack, [cmd, env.vardir],
	    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

export function show(slug) {
	return JSON.parse(ctl('show', slug));
}

export function uniqueSlug(prefix = 't') {
	return `${prefix}-${randomBytes(6).toString('hex')}`;
}

// createQueue(opts): a new queue with a unique slug; returns
// {slug, secret, ...opts}.
export function createQueue({ rate = 60, domains = 'shop.example',
    target = 'https://shop.example/', burst, tokenTtl, name, slug } = {}) {
	slug ??= uniqueSlug();
	name ??= `Test ${slug}`;
	const args = ['create', slug, '--name', name, '--target', target,
	    '--domains', domains, '--rate', rate];
	if (burst !== undefined)
		args.push('--burst', burst);
	if (tokenTtl !== undefined)
		args.push('--token-ttl', tokenTtl);
	const out = ctl(...args);
	const m = /^secret: (\S+)$/m.exec(out);
	if (m === null)
		throw new Error(`no secret line in aqueuectl output: ${out}`);
	return { slug, secret: m[1], rate, domains, target, burst, name };
}

// api(path, opts): fetch on AQ_BASE with redirect: 'manual'.
export function api(path, opts = {}) {
	return fetch(env.base + path, { redirect: 'manual', ...opts });
}

// jsonOrNull(text): text parsed as JSON, null when it is not JSON.
function jsonOrNull(text) {
	try {
		return JSON.parse(text);
	} catch {
		return null;
	}
}

// readResponse(res): read a Response's body; returns
// {status, headers, text, json} (json null when the body is not JSON).
async function readResponse(res) {
	const text = await res.text();
	return { status: res.status, headers: res.headers, text,
	    json: jsonOrNull(text) };
}

// req(path, opts): api() and read the body with readResponse().
export async function req(path, opts = {}) {
	return readResponse(await api(path, opts));
}

export function postJSON(path, body, opts = {}) {
	return req(path, {
		method: 'POST',
		headers: { 'content-type': 'application/json',
		    ...(opts.headers ?? {}) },
		body: typeof body === 'string' ? body : JSON.stringify(body),
	});
}

export function join(slug) {
	return req(`/queue/${slug}/join`, { method: 'POST' });
}

export function status(slug, number) {
	return req(`/queue/${slug}/status?number=${number}`);
}

export function info(slug) {
	return req(`/queue/${slug}/info`);
}

export function token(slug, body) {
	return postJSON(`/queue/${slug}/token`, body);
}

// admittedToken(slug): join (must be admitted at once) and fetch the
// token; returns the /token body.
export async function admittedToken(slug) {
	const j = await join(slug);
	assert.equal(j.status, 200, j.text);
	assert.equal(j.json.admitted, true);
	const t = await token(slug, { number: j.json.number,
	    ticket: j.json.ticket });
	assert.equal(t.status, 200, t.text);
	return t.json;
}

export function verify(slug, tok) {
	return req(`/queue/${slug}/verify?token=${encodeURIComponent(tok)}`);
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// waitFor(fn, timeoutMs, everyMs): call async fn until it returns a truthy
// value; return that value, or throw after timeoutMs.
export async function waitFor(fn, timeoutMs = 5000, everyMs = 100,
    what = 'condition') {
	const end = Date.now() + timeoutMs;
	let last;
	for (;;) {
		last = await fn();
		if (last)
			return last;
		if (Date.now() >= end)
			throw new Error(`timed out after ${timeoutMs} ms ` +
			    `waiting for ${what}`);
		await sleep(everyMs);
	}
}

// Bounds of time that a test asserts are multiplied by this: 1, except
// in a build with ASan and UBSan (test/run sets AQ_TIME_SCALE there, as
// the instrumented programs run several times slower; the plain build's
// run holds the product to the bounds themselves).
export const TIME_SCALE = Number(process.env.AQ_TIME_SCALE ?? '1') ||
    1;

// The app caches a queue row per process for status-cache-ms (250 ms by
// default, at most 1000 ms in the tests): after this long every process
// has read the row again.
export const CACHE_MS = 1150;

// joinMany(slug, n, workers): n joins from `workers` concurrent loops;
// returns the numbers, sorted.  Every join must answer 200.
export async function joinMany(slug, n, workers = 10) {
	const numbers = [];
	let left = n;
	await Promise.all(Array.from({ length: workers }, async () => {
		while (left > 0) {
			left--;
			const r = await join(slug);
			if (r.status !== 200)
				throw new Error(`join: ${r.status} ${r.text}`);
			numbers.push(r.json.number);
		}
	}));
	return numbers.sort((a, b) => a - b);
}

// sampleServing(slug, ms, every): read /info for ms milliseconds; returns
// [{t, serving, active}].
export async function sampleServing(slug, ms, every = 100) {
	const out = [];
	const end = Date.now() + ms;
	do {
		const r = await info(slug);
		if (r.status !== 200)
			throw new Error(`info: ${r.status} ${r.text}`);
		out.push({ t: Date.now(), serving: r.json.serving,
		    active: r.json.active });
		await sleep(every);
	} while (Date.now() < end);
	return out;
}

// ---- JWT building (for the verify cases) --------------------------------

export function b64url(buf) {
	return Buffer.from(buf).toString('base64url');
}

// signJWT(header, payload, secret, alg): header and payload objects (or
// raw strings), HMAC with the given Node digest ('sha256', 'sha512').
export function signJWT(header, payload, secret, digest = 'sha256') {
	const h = b64url(typeof header === 'string' ? header :
	    JSON.stringify(header));
	const p = b64url(typeof payload === 'string' ? payload :
	    JSON.stringify(payload));
	const sig = createHmac(digest, secret).update(`${h}.${p}`).digest();
	return `${h}.${p}.${b64url(sig)}`;
}

export function decodeJWTPayload(tok) {
	return JSON.parse(Buffer.from(tok.split('.')[1], 'base64url')
	    .toString('utf8'));
}

export const nowS = () => Math.floor(Date.now() / 1000);

// ---- a small FastCGI client over node:net ---------------------------------

const FCGI_BEGIN_REQUEST = 1;
const FCGI_END_REQUEST = 3;
const FCGI_PARAMS = 4;
const FCGI_STDIN = 5;
const FCGI_STDOUT = 6;
const FCGI_STDERR = 7;
const FCGI_RESPONDER = 1;

function record(type, id, content = Buffer.alloc(0)) {
	const out = [];
	let off = 0;
	do {
		const chunk = content.subarray(off, off + 65535);
		const pad = (8 - (chunk.length % 8)) % 8;
		const h = Buffer.alloc(8);
		h[0] = 1;
		h[1] = type;
		h.writeUInt16BE(id, 2);
		h.writeUInt16BE(chunk.length, 4);
		h[6] = pad;
		out.push(h, chunk, Buffer.alloc(pad));
		off += chunk.length;
	} while (off < content.length);
	return Buffer.concat(out);
}

// fcgiRecord(type, id, content): the FastCGI records of one stream
// (content split at 65535 bytes, each padded to 8), for raw tests.
export { record as fcgiRecord };

function nvLen(n) {
	if (n < 128)
		return Buffer.from([n]);
	const b = Buffer.alloc(4);
	b.writeUInt32BE((n | 0x80000000) >>> 0);
	return b;
}

// fcgiParamsBody(params): the name-value pairs of PARAMS records
// (FastCGI 1.0 section 3.4: 1- or 4-byte lengths), for raw tests.
export function fcgiParamsBody(params) {
	const parts = [];
	for (const [k, v] of Object.entries(params)) {
		const kb = Buffer.from(k), vb = Buffer.from(String(v));
		parts.push(nvLen(kb.length), nvLen(vb.length), kb, vb);
	}
	return Buffer.concat(parts);
}

// fcgiRequest({params, stdin, sock, timeoutMs}): one RESPONDER request on
// the app's socket.  stdin (Buffer/string) is sent in STDIN records, then
// the empty STDIN record.  Resolves {status, headers (lower-cased keys),
// body, json, stderr}.  With beforeStdin (an async function), the request
// head goes out first and the STDIN records only once it has resolved:
// the request is then in flight inside the app meanwhile.  With holdOpen
// (a string), only those bytes go out as STDIN and the stream is never
// ended: a client that stops sending.
export function fcgiRequest({ params, stdin = '', sock, timeoutMs = 10000,
    beforeStdin = null, holdOpen = null }) {
	sock ??= env.fcgiSock;
	const id = 1;
	const body = Buffer.isBuffer(stdin) ? stdin : Buffer.from(stdin);
	const begin = Buffer.alloc(8);
	begin.writeUInt16BE(FCGI_RESPONDER, 0);
	const head = Buffer.concat([
		record(FCGI_BEGIN_REQUEST, id, begin),
		record(FCGI_PARAMS, id, fcgiParamsBody(params)),
		record(FCGI_PARAMS, id),
	]);
	const tail = holdOpen !== null ?
	    record(FCGI_STDIN, id, Buffer.from(holdOpen)) : Buffer.concat([
		...(body.length > 0 ? [record(FCGI_STDIN, id, body)] : []),
		record(FCGI_STDIN, id),
	]);
	return new Promise((resolve, reject) => {
		const c = net.createConnection(sock);
		let buf = Buffer.alloc(0);
		const stdout = [], stderr = [];
		let done = false;
		const timer = setTimeout(() => {
			finish(new Error(`FastCGI request timed out after ` +
			    `${timeoutMs} ms`));
		}, timeoutMs);
		function finish(err) {
			if (done)
				return;
			done = true;
			clearTimeout(timer);
			c.destroy();
			if (err)
				return reject(err);
			resolve(parseResponse(Buffer.concat(stdout),
			    Buffer.concat(stderr).toString('utf8')));
		}
		c.on('connect', async () => {
			c.write(head);
			if (beforeStdin !== null)
				await beforeStdin();
			if (!done)
				c.write(tail);
		});
		c.on('error', (e) => finish(e));
		c.on('close', () => finish(stdout.length > 0 ? null :
		    new Error('FastCGI connection closed without output')));
		c.on('data', (d) => {
			buf = Buffer.concat([buf, d]);
			while (buf.length >= 8) {
				const type = buf[1];
				const len = buf.readUInt16BE(4);
				const pad = buf[6];
				if (buf.length < 8 + len + pad)
					break;
				const content = buf.subarray(8, 8 + len);
				buf = buf.subarray(8 + len + pad);
				if (type === FCGI_STDOUT)
					stdout.push(content);
				else if (type === FCGI_STDERR)
					stderr.push(content);
				else if (type === FCGI_END_REQUEST)
					return finish(null);
			}
		});
	});
}

function parseResponse(raw, stderr) {
	let sep = raw.indexOf('\r\n\r\n');
	let seplen = 4;
	if (sep < 0) {
		sep = raw.indexOf('\n\n');
		seplen = 2;
	}
	const head = sep < 0 ? raw.toString('latin1') :
	    raw.subarray(0, sep).toString('latin1');
	const body = sep < 0 ? '' :
	    raw.subarray(sep + seplen).toString('utf8');
	const headers = {};
	for (const line of head.split(/\r?\n/)) {
		const i = line.indexOf(':');
		if (i > 0)
			headers[line.slice(0, i).trim().toLowerCase()] =
			    line.slice(i + 1).trim();
	}
	const status = headers.status !== undefined ?
	    parseInt(headers.status, 10) : 200;
	return { status, headers, body, json: jsonOrNull(body), stderr };
}

// fcgiParams(method, uri, extra): the CGI parameters nginx would send.
export function fcgiParams(method, uri, extra = {}) {
	const q = uri.indexOf('?');
	return {
		GATEWAY_INTERFACE: 'CGI/1.1',
		SERVER_SOFTWARE: 'aqueue-http-test',
		SERVER_PROTOCOL: 'HTTP/1.1',
		SERVER_NAME: '127.0.0.1',
		SERVER_PORT: '80',
		REMOTE_ADDR: '127.0.0.1',
		REMOTE_PORT: '40000',
		REQUEST_METHOD: method,
		REQUEST_URI: uri,
		SCRIPT_NAME: q < 0 ? uri : uri.slice(0, q),
		DOCUMENT_URI: q < 0 ? uri : uri.slice(0, q),
		QUERY_STRING: q < 0 ? '' : uri.slice(q + 1),
		HTTP_HOST: '127.0.0.1',
		...extra,
	};
}

// ---- a browser's top-level navigation --------------------------------------

// Node's fetch always sends "Sec-Fetch-Mode: cors" (it overrides any other
// value), and a fetch is no navigation: the gateway gives it the room
// without a number.  These are the fetch metadata a browser sends when the
// visitor follows a link; navigate() sends them through node:http.
export const NAVIGATE = Object.freeze({
	'sec-fetch-mode': 'navigate',
	'sec-fetch-dest': 'document',
	'sec-fetch-site': 'none',
	'sec-fetch-user': '?1',
});

// navigate(path, opts): like api() (a Response, redirects not followed),
// but over node:http with exactly NAVIGATE's headers plus opts.headers
// (which win) and opts.method (default GET).
export function navigate(path, opts = {}) {
	const u = new URL(env.base + path);
	const headers = { ...NAVIGATE, ...(opts.headers ?? {}) };
	return new Promise((resolve, reject) => {
		const rq = http.request({ host: u.hostname, port: u.port,
		    method: opts.method ?? 'GET', path: u.pathname + u.search,
		    headers, agent: false }, (res) => {
			const chunks = [];
			res.on('data', (d) => chunks.push(d));
			res.on('end', () => {
				const h = new Headers();
				for (const [k, v] of Object.entries(res.headers))
					h.set(k, Array.isArray(v) ? v.join(', ') :
					    v);
				const body = Buffer.concat(chunks);
				resolve(new Response([101, 204, 205, 304]
				    .includes(res.statusCode) ? null : body,
				    { status: res.statusCode, headers: h }));
			});
		});
		rq.on('error', reject);
		rq.end();
	});
}

// navigateReq(path, opts): navigate() read like req(): {status, headers,
// text, json}.
export async function navigateReq(path, opts = {}) {
	return readResponse(await navigate(path, opts));
}

// ---- the stack's database, as its administrator ----------------------------

// The mariadb client on the stack's socket (socket authentication as the
// user running the tests), batch mode, no column names.
function mariadbArgs(sql) {
	return ['--no-defaults', `--socket=${env.vardir}/db/mysqld.sock`,
	    `--user=${userInfo().username}`, '--connect-timeout=3', '--batch',
	    '--skip-column-names', 'aqueue', '-e', sql];
}

// dbSQL(sql): run sql synchronously; returns the rows as arrays of strings.
export function dbSQL(sql) {
	const out = execFileSync('mariadb', mariadbArgs(sql),
	    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
	return out.split('\n').filter((l) => l !== '')
	    .map((l) => l.split('\t'));
}

// dbSession(sql): run sql in its own session in the background; resolves
// {code, stdout, stderr} when the client exits.
export function dbSession(sql) {
	return new Promise((resolve) => {
		const c = spawnChild('mariadb', mariadbArgs(sql),
		    { stdio: ['ignore', 'pipe', 'pipe'] });
		let stdout = '', stderr = '';
		c.stdout.on('data', (d) => { stdout += d; });
		c.stderr.on('data', (d) => { stderr += d; });
		c.on('exit', (code) => resolve({ code, stdout, stderr }));
	});
}

// dbStatus(name): one global status counter of the server, as a number.
export function dbStatus(name) {
	const rows = dbSQL(`SHOW GLOBAL STATUS LIKE '${name}'`);
	return Number(rows[0][1]);
}

// childPids(pid): the live (not zombie) children of pid, sorted.
export function childPids(pid) {
	const out = [];
	for (const d of readdirSync('/proc')) {
		if (!/^\d+$/.test(d))
			continue;
		let stat;
		try {
			stat = readFileSync(`/proc/${d}/stat`, 'utf8');
		} catch {
			continue;
		}
		const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
		if (Number(rest[1]) === pid && rest[0] !== 'Z')
			out.push(Number(d));
	}
	return out.sort((a, b) => a - b);
}

// stackConf(key): a key of the stack's aqueue.conf (null when not set).
export function stackConf(key) {
	const text = readFileSync(`${env.vardir}/aqueue.conf`, 'utf8');
	const m = new RegExp(`^\\s*${key}\\s*=\\s*(.*)$`, 'm').exec(text);
	return m === null ? null : m[1].trim();
}

// ---- a second pool on the stack's database --------------------------------

// startExtraPool({listen, workers, extra, clockOffset}): start one more
// aqueue-fcgi on the stack's database with the stack's config, its own
// listen address (default: a unix socket in a new folder under AQ_VAR),
// pid file and pool size, plus the lines in extra.  clockOffset (e.g.
// '-1h', '+600') runs it under libfaketime (Debian's faketime), so its
// own clock is that far off.  Resolves {dir, sock, conf, pid, log,
// stop()} once the socket answers; sock is a path for a unix socket or
// {host, port} for TCP (for fcgiRequest).  stop() sends SIGTERM and
// resolves when the master has exited.
export async function startExtraPool({ listen, workers = 2, extra = '',
    clockOffset = null } = {}) {
	const childEnv = { ...process.env };
	if (clockOffset !== null) {
		childEnv.LD_PRELOAD = [
		    '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1',
		    '/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1',
		].find((p) => existsSync(p));
		if (childEnv.LD_PRELOAD === undefined)
			throw new Error('libfaketime not installed (faketime)');
		childEnv.FAKETIME = clockOffset;
		childEnv.DONT_FAKE_MONOTONIC = '1';
	}
	const dir = mkdtempSync(`${env.vardir}/extra-pool-`);
	const conf = `${dir}/aqueue.conf`;
	const log = `${dir}/pool.log`;
	listen ??= `unix:${dir}/fcgi.sock`;
	const base = readFileSync(`${env.vardir}/aqueue.conf`, 'utf8')
	    .split('\n')
	    .filter((l) => !/^\s*(listen|pid-file|workers)\s*=/.test(l))
	    .join('\n');
	writeFileSync(conf, `${base}\nlisten = ${listen}\n` +
	    `pid-file = ${dir}/master.pid\nworkers = ${workers}\n${extra}\n`,
	    { mode: 0o600 });
	const child = spawnChild(`${env.root}/fcgi-app/aqueue-fcgi`,
	    ['-f', conf], { env: childEnv,
	    stdio: ['ignore', 'ignore', 'pipe'] });
	child.stderr.on('data', (d) => appendFileSync(log, d));
	const exited = new Promise((resolve) => child.on('exit',
	    (code, sig) => resolve({ code, sig })));
	let sock;
	if (listen.startsWith('unix:'))
		sock = listen.slice(5);
	else {
		const i = listen.lastIndexOf(':');
		sock = { host: listen.slice(0, i) || '127.0.0.1',
		    port: Number(listen.slice(i + 1)) };
	}
	const end = Date.now() + 10000;
	for (;;) {
		if (child.exitCode !== null || child.signalCode !== null)
			throw new Error(`extra pool exited: ` +
			    `${existsSync(log) ? readFileSync(log, 'utf8') : ''}`);
		try {
			const r = await fcgiRequest({ sock, timeoutMs: 2000,
			    params: fcgiParams('GET', '/queue/healthz') });
			if (r.status === 200)
				break;
		} catch {
			// not listening yet
		}
		if (Date.now() > end) {
			child.kill('SIGKILL');
			throw new Error('extra pool did not answer');
		}
		await sleep(50);
	}
	return {
		dir, sock, conf, log, pid: child.pid,
		async stop() {
			if (child.exitCode === null && child.signalCode === null)
				child.kill('SIGTERM');
			const how = await Promise.race([exited,
			    sleep(15000).then(() => null)]);
			if (how === null)
				child.kill('SIGKILL');
			rmSync(dir, { recursive: true, force: true });
			return how;
		},
	};
}

// ---- background workers ---------------------------------------------------

// startWorker({extra}): start one more aqueue-worker on the stack's config
// (plus the lines in extra), its stderr in a log file of a new folder
// under AQ_VAR.  Returns {dir, conf, log, pid, child, exited, text(),
// leads(), kill(sig), stop()}: text() is the log so far, leads() whether
// its last leader event took the lock, stop() sends SIGTERM and resolves
// {code, sig} when it has exited (SIGKILL after 15 s).
export function startWorker({ extra = '' } = {}) {
	const dir = mkdtempSync(`${env.vardir}/extra-worker-`);
	const conf = `${dir}/aqueue.conf`;
	const log = `${dir}/worker.log`;
	const base = readFileSync(`${env.vardir}/aqueue.conf`, 'utf8');
	writeFileSync(conf, `${base}\n${extra}\n`, { mode: 0o600 });
	writeFileSync(log, '');
	const child = spawnChild(`${env.root}/worker/aqueue-worker`,
	    ['-c', conf], { stdio: ['ignore', 'ignore', 'pipe'] });
	child.stderr.on('data', (d) => appendFileSync(log, d));
	const exited = new Promise((resolve) => child.on('exit',
	    (code, sig) => resolve({ code, sig })));
	const text = () => readFileSync(log, 'utf8');
	return {
		dir, conf, log, pid: child.pid, child, exited, text,
		leads() {
			const ev = text().split('\n')
			    .filter((l) => / leader: /.test(l));
			return child.exitCode === null &&
			    child.signalCode === null && ev.length > 0 &&
			    /took the lock/.test(ev[ev.length - 1]);
		},
		kill(sig) {
			child.kill(sig);
			return exited;
		},
		async stop() {
			if (child.exitCode === null && child.signalCode === null)
				child.kill('SIGTERM');
			const how = await Promise.race([exited,
			    sleep(15000).then(() => null)]);
			if (how === null) {
				child.kill('SIGKILL');
				return exited;
			}
			return how;
		},
	};
}

// leaderLockHolder(): the connection id holding the worker leader lock of
// the stack's database (the lock's name carries the database's), or null
// when nobody holds it.
export function leaderLockHolder() {
	const v = dbSQL('SELECT IS_USED_LOCK(' +
	    "CONCAT('aqueue-worker-leader:', DATABASE()))")[0][0];
	return v === 'NULL' ? null : Number(v);
}
