// The deploy matrix: the same visitor flow through every shipped web
// server set-up, all real Debian packages on loopback ports -
//   nginx            the stack's (deploy/local, like deploy/nginx/)
//   proxy_fcgi       Apache 2.4 + mod_proxy_fcgi (deploy/apache-vhost/)
//   fcgid            Apache 2.4 + mod_fcgid, the shared-hosting .htaccess
//                    under /warteraum/ (deploy/apache-shared/), Apache
//                    spawning the program itself
//   lighttpd         lighttpd + mod_fastcgi (deploy/lighttpd/), at the
//   lighttpd-prefix  root and rewritten from under /warteraum/
// - join, status, token, verify, the gateway, the page (its URLs under the
// prefix, its static files), the admin API with a Bearer key, a 40 KB
// body, a too-large body, and the Authorization header reaching the
// program in the forms each server passes it.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import { ctl, createQueue, env, NAVIGATE } from './lib.mjs';
import { startServers } from './servers.mjs';

const PORT = Number(process.env.AQ_PORT);
let srv = null;
let echo = null;

// A FastCGI responder that answers with the request's parameters as
// JSON, spawned by mod_fcgid in place of the program (listening socket
// on fd 0, as the program takes it): shows what each server passes.
const ECHO = `#!${process.execPath}
import net from 'node:net';
import fs from 'node:fs';
function pairs(b) {
	const out = {};
	let i = 0;
	const len = () => {
		const x = b[i];
		if (x < 128) { i += 1; return x; }
		const v = b.readUInt32BE(i) & 0x7fffffff; i += 4; return v;
	};
	while (i < b.length) {
		const n = len(), v = len();
		out[b.subarray(i, i + n).toString()] =
		    b.subarray(i + n, i + n + v).toString();
		i += n + v;
	}
	return out;
}
function rec(type, id, body) {
	const h = Buffer.alloc(8);
	h[0] = 1; h[1] = type; h.writeUInt16BE(id, 2);
	h.writeUInt16BE(body.length, 4);
	return Buffer.concat([h, body]);
}
const srv = net.createServer((c) => {
	let buf = Buffer.alloc(0), params = Buffer.alloc(0);
	c.on('data', (d) => {
		buf = Buffer.concat([buf, d]);
		while (buf.length >= 8) {
			const type = buf[1], id = buf.readUInt16BE(2);
			const n = buf.readUInt16BE(4), pad = buf[6];
			if (buf.length < 8 + n + pad) break;
			const body = buf.subarray(8, 8 + n);
			buf = buf.subarray(8 + n + pad);
			if (type === 4) params = Buffer.concat([params, body]);
			if (type === 5 && n === 0) {
				const out = Buffer.from('Status: 200\\r\\n' +
				    'Content-Type: application/json\\r\\n\\r\\n' +
				    JSON.stringify(pairs(params)));
				const end = Buffer.alloc(8);
				c.end(Buffer.concat([rec(6, id, out),
				    rec(6, id, Buffer.alloc(0)), rec(3, id, end)]));
			}
		}
	});
	c.on('error', () => {});
});
// "--listen PATH": a unix socket of its own; else the one on fd 0.
if (process.argv[2] === '--listen')
	srv.listen(process.argv[3], () => fs.chmodSync(process.argv[3], 0o666));
else
	srv.listen({ fd: 0 });
`;

// Answer of a raw HTTP/1.1 request text: {status, headers, body}.
function raw(base, text) {
	const u = new URL(base);
	return new Promise((resolve, reject) => {
		const s = net.connect({ host: u.hostname, port: Number(u.port) });
		let data = '';
		s.setEncoding('latin1');
		s.on('data', (d) => { data += d; });
		s.on('end', () => {
			const i = data.indexOf('\r\n\r\n');
			const head = data.slice(0, i).split('\r\n');
			const headers = {};
			for (const l of head.slice(1)) {
				const k = l.indexOf(':');
				headers[l.slice(0, k).toLowerCase()] =
				    l.slice(k + 1).trim();
			}
			resolve({ status: Number(head[0].split(' ')[1]),
			    headers, body: data.slice(i + 4) });
		});
		s.on('error', reject);
		s.write(text);
	});
}

// fetch on base + path; {status, headers, text, json}.
async function get(base, path, opts = {}) {
	const res = await fetch(base + path, { redirect: 'manual', ...opts });
	const text = await res.text();
	let json = null;
	try {
		json = JSON.parse(text);
	} catch {
		// not JSON
	}
	return { status: res.status, headers: res.headers, text, json };
}

function post(base, path, body, headers = {}) {
	return get(base, path, { method: 'POST', body,
	    headers: { 'content-type': 'application/json', ...headers } });
}

// A top-level navigation (fetch metadata of a followed link), no redirect.
function navigate(base, path) {
	const u = new URL(base + path);
	return new Promise((resolve, reject) => {
		http.request({ host: u.hostname, port: u.port,
		    path: u.pathname + u.search, headers: NAVIGATE,
		    agent: false }, (res) => {
			res.resume();
			res.on('end', () => resolve({ status: res.statusCode,
			    location: res.headers.location }));
		}).on('error', reject).end();
	});
}

// The set-ups: name -> (base URL, URL prefix).
function setups() {
	return [
		['nginx', env.base, ''],
		['proxy_fcgi', srv.proxyFcgi, ''],
		['fcgid', srv.fcgid, '/warteraum'],
		['lighttpd', srv.lighttpd, ''],
		['lighttpd-prefix', srv.lighttpd, '/warteraum'],
	];
}

before(async () => {
	srv = await startServers({ port1: PORT + 1, sock: env.fcgiSock,
	    dir: `${env.vardir}/matrix` });
});

after(async () => {
	if (srv !== null)
		await srv.stop();
	if (echo !== null)
		await echo.stop();
});

const NAMES = ['nginx', 'proxy_fcgi', 'fcgid', 'lighttpd',
    'lighttpd-prefix'];

for (const name of NAMES) {
	const setup = () => setups().find((s) => s[0] === name);

	test(`${name}: join, status, token, verify, gateway`, async () => {
		const [, base, pre] = setup();
		const q = createQueue({ rate: 6000 });
		const h = await get(base, `${pre}/queue/healthz`);
		assert.equal(h.status, 200, h.text);
		assert.deepEqual(h.json, { status: 'ok' });
		const j = await post(base, `${pre}/queue/${q.slug}/join`);
		assert.equal(j.status, 200, j.text);
		assert.equal(j.json.number, 1);
		assert.equal(j.json.admitted, true);
		const s = await get(base,
		    `${pre}/queue/${q.slug}/status?number=1`);
		assert.equal(s.status, 200, s.text);
		assert.equal(s.json.number, 1);
		assert.equal(s.json.admitted, true);
		const t = await post(base, `${pre}/queue/${q.slug}/token`,
		    JSON.stringify({ number: 1, ticket: j.json.ticket }));
		assert.equal(t.status, 200, t.text);
		assert.equal(t.json.number, 1);
		const v = await get(base, `${pre}/queue/${q.slug}/verify?token=` +
		    encodeURIComponent(t.json.token));
		assert.equal(v.status, 200, v.text);
		assert.equal(v.json.valid, true);
		assert.equal(v.json.number, 1);
		const e = await navigate(base, `${pre}/queue/${q.slug}/enter`);
		assert.equal(e.status, 302);
		assert.match(e.location,
		    /^https:\/\/shop\.example\/\?aditus_queue_token=ey/);
		// Paused: the gateway sends the visitor to the room, under the
		// prefix.
		ctl('pause', q.slug);
		const p = await navigate(base, `${pre}/queue/${q.slug}/enter`);
		assert.equal(p.status, 302);
		assert.equal(p.location.split('#')[0], `${pre}/queue/${q.slug}`);
		const pj = await post(base, `${pre}/queue/${q.slug}/join`);
		assert.equal(pj.status, 423, pj.text);
		assert.equal(pj.json.error, 'queue_paused');
	});

	test(`${name}: the admin API with a Bearer key (CASES C01)`,
	    async () => {
		const [, base, pre] = setup();
		const q = createQueue({ rate: 60 });
		const key = /^key: (\S+)$/m.exec(ctl('key', 'create', q.slug,
		    '--name', `matrix-${name}`))[1];
		const r = await get(base, `${pre}/api/admin/queue/sites`,
		    { headers: { authorization: `Bearer ${key}` } });
		assert.equal(r.status, 200, r.text);
		assert.deepEqual(r.json.sites.map((x) => x.slug), [q.slug]);
		// Never from the query string: 401 with the challenge.
		const n = await get(base,
		    `${pre}/api/admin/queue/sites?api_key=${key}`);
		assert.equal(n.status, 401, n.text);
		assert.equal(n.headers.get('www-authenticate'), 'Bearer');
		assert.equal(n.json.error, 'missing_credentials');
	});

	test(`${name}: the page builds its URLs under "${
	    name.endsWith('prefix') || name === 'fcgid' ? '/warteraum' : ''}"`,
	    async () => {
		const [, base, pre] = setup();
		const q = createQueue({ rate: 60 });
		const r = await get(base, `${pre}/queue/${q.slug}?lang=en`);
		assert.equal(r.status, 200, r.text);
		assert.match(r.headers.get('content-type'), /^text\/html/);
		assert.match(r.text, new RegExp(`<main id="room" data-base="${
		    pre}" data-slug="${q.slug}"`));
		assert.match(r.text, new RegExp(`href="${pre}/queue/${
		    q.slug}\\?lang=de"`));
		// The proof-of-work solver, then the page's script.
		const srcs = [...r.text.matchAll(/<script src="([^"]+)"/g)]
		    .map((m) => m[1]);
		const want = name === 'fcgid' ? '/warteraum/static' :
		    '/queue-static';
		assert.deepEqual(srcs, [`${want}/pow.js`,
		    `${want}/waiting-room.js`]);
		for (const js of srcs) {
			const f = await get(base, name === 'lighttpd-prefix' ?
			    `/warteraum${js}` : js);
			assert.equal(f.status, 200, `${js}: ${f.status}`);
			assert.match(f.headers.get('content-type'),
			    /javascript/);
			if (js.endsWith('/waiting-room.js'))
				assert.match(f.text, /data-base/);
		}
	});

	test(`${name}: a 40 KB body reaches the program whole`, async () => {
		const [, base, pre] = setup();
		const q = createQueue({ rate: 6000 });
		const j = await post(base, `${pre}/queue/${q.slug}/join`);
		assert.equal(j.status, 200, j.text);
		// 40 KB of a string member: the token is issued only when the
		// whole body parsed (a cut body is invalid JSON).
		const body = JSON.stringify({ number: j.json.number,
		    ticket: j.json.ticket, pad: 'x'.repeat(40 * 1024) });
		const t = await post(base, `${pre}/queue/${q.slug}/token`, body);
		assert.ok(body.length > 40 * 1024);
		assert.equal(t.status, 200, t.text.slice(0, 300));
		assert.equal(t.json.number, j.json.number);
		// One byte cut: the program's own 400 (it got the bytes).
		const c = await post(base, `${pre}/queue/${q.slug}/token`,
		    body.slice(0, -1));
		assert.equal(c.status, 400, c.text.slice(0, 300));
		assert.equal(c.json.error, 'invalid_json');
	});

	test(`${name}: a too-large body gets the JSON 413`, async () => {
		const [, base, pre] = setup();
		const q = createQueue({ rate: 6000 });
		for (const size of [100 * 1024, 200 * 1024]) {
			const r = await post(base, `${pre}/queue/${q.slug}/join`,
			    JSON.stringify({ pad: 'x'.repeat(size) }));
			if (name === 'fcgid' && size > 128 * 1024) {
				// Above FcgidMaxRequestLen (128 KB): Apache's own
				// 500, outside the program (CASES C22, 7).
				assert.equal(r.status, 500, `${size}: ${r.text}`);
				continue;
			}
			assert.equal(r.status, 413, `${size}: ${r.text}`);
			assert.match(r.headers.get('content-type'),
			    /^application\/json/);
			assert.equal(r.json.error, 'body_too_large');
		}
		// Nothing was taken.
		const j = await post(base, `${pre}/queue/${q.slug}/join`);
		assert.equal(j.json.number, 1);
	});

	test(`${name}: a POST without Content-Length`, async () => {
		const [, base, pre] = setup();
		const q = createQueue({ rate: 6000 });
		const u = new URL(base);
		const r = await raw(base, `POST ${pre}/queue/${q.slug}/join ` +
		    `HTTP/1.1\r\nHost: ${u.host}\r\nConnection: close\r\n\r\n`);
		if (name.startsWith('lighttpd')) {
			// lighttpd answers it itself, in the program's shape.
			assert.equal(r.status, 411, r.body);
			assert.equal(r.headers['content-type'],
			    'application/json');
			assert.equal(JSON.parse(r.body).error,
			    'length_required');
		} else {
			// An empty body: the join happens.
			assert.equal(r.status, 200, r.body);
		}
	});
}

// The poll document behind mod_proxy_fcgi: the state-dir's file when it
// is there (no FastCGI request), the program's answer while it is not.
test('proxy_fcgi: state.json from the state-dir, else from the program',
    async () => {
	const q = createQueue({ rate: 60 });
	const doc = JSON.stringify({ queue: q.slug, serving: 7 });
	writeFileSync(`${srv.dir}/state/${q.slug}.json`, doc);
	const f = await get(srv.proxyFcgi, `/queue/${q.slug}/state.json`);
	assert.equal(f.status, 200, f.text);
	assert.equal(f.text, doc);
	assert.match(f.headers.get('content-type'), /^application\/json/);
	assert.equal(f.headers.get('cache-control'), 'public, max-age=1');
	const other = createQueue({ rate: 60 });
	const a = await get(srv.proxyFcgi, `/queue/${other.slug}/state.json`);
	// The program's own answer (JSON, its security headers).
	assert.notEqual(a.text, doc);
	assert.ok(a.json !== null, a.text);
	assert.equal(a.headers.get('x-content-type-options'), 'nosniff');
	assert.equal(a.json.queue, other.slug);
});

// The poll document behind lighttpd, at the root and under the prefix:
// the state-dir's file, served by lighttpd (no FastCGI request: no
// header of the program's); a queue without a file: 404 in the
// program's JSON shape (the page then asks /status).
test('lighttpd: state.json from the state-dir, 404 JSON while missing',
    async () => {
	const q = createQueue({ rate: 60 });
	const doc = JSON.stringify({ queue: q.slug, serving: 9 });
	writeFileSync(`${srv.dir}/state/${q.slug}.json`, doc);
	for (const pre of ['', '/warteraum']) {
		const f = await get(srv.lighttpd,
		    `${pre}/queue/${q.slug}/state.json`);
		assert.equal(f.status, 200, `${pre}: ${f.text}`);
		assert.equal(f.text, doc);
		assert.match(f.headers.get('content-type'),
		    /^application\/json/);
		assert.equal(f.headers.get('cache-control'),
		    'public, max-age=1');
		assert.equal(f.headers.get('x-content-type-options'), null,
		    'served by lighttpd, not the program');
		const m = await get(srv.lighttpd,
		    `${pre}/queue/${q.slug}x/state.json`);
		assert.equal(m.status, 404, m.text);
		assert.equal(m.json?.error, 'not_found', m.text);
	}
	// The rest of /queue/ still reaches the program.
	const i = await get(srv.lighttpd, `/warteraum/queue/${q.slug}/info`);
	assert.equal(i.status, 200, i.text);
	assert.equal(i.json.queue ?? i.json.slug, q.slug, i.text);
});

// Shared hosting: the program (spawned by mod_fcgid) writes the poll
// documents into the web folder's state/, and the .htaccess has Apache
// serve them; a queue without a file gets the program's answer.
test('fcgid: state.json written into the web folder and served by ' +
    'Apache; else the program answers', async () => {
	const q = createQueue({ rate: 60 });
	// A request starts a process; the one that holds the folder's
	// writer lock (no master under mod_fcgid) writes every queue's file.
	const st = await get(srv.fcgid, `/warteraum/queue/${q.slug}/info`);
	assert.equal(st.status, 200, st.text);
	const file = `${srv.dir}/www/warteraum/state/${q.slug}.json`;
	for (let i = 0; i < 50 && !existsSync(file); i++)
		await new Promise((r) => setTimeout(r, 100));
	assert.ok(existsSync(file), 'the program wrote the document');
	const f = await get(srv.fcgid, `/warteraum/queue/${q.slug}/state.json`);
	assert.equal(f.status, 200, f.text);
	assert.equal(f.json.queue, q.slug);
	assert.equal(typeof f.json.updatedAt, 'number');
	assert.equal(f.headers.get('cache-control'), 'public, max-age=1');
	assert.equal(f.headers.get('x-content-type-options'), null,
	    'served by Apache, not the program');
	// No file for this slug: the program's own (JSON) answer.
	const a = await get(srv.fcgid, '/warteraum/queue/no-such-queue-here/' +
	    'state.json');
	assert.equal(a.status, 404, a.text);
	assert.equal(a.json?.error, 'queue_not_found', a.text);
	assert.equal(a.headers.get('x-content-type-options'), 'nosniff');
});

// CASES C01 through Apache + mod_fcgid: no workaround -> 401; the rewrite
// fallback (REDIRECT_HTTP_AUTHORIZATION) and CGIPassAuth -> 200 with
// exactly the key's queue.
test('C01: the Authorization header under mod_fcgid, three .htaccess ' +
    'set-ups', async () => {
	const q = createQueue({ rate: 60 });
	const key = /^key: (\S+)$/m.exec(ctl('key', 'create', q.slug,
	    '--name', 'c01'))[1];
	const call = (dir) => get(srv.fcgid, `/${dir}/api/admin/queue/sites`,
	    { headers: { authorization: `Bearer ${key}` } });
	const none = await call('c01-none');
	assert.equal(none.status, 401, none.text);
	assert.equal(none.headers.get('www-authenticate'), 'Bearer');
	assert.equal(none.json.error, 'missing_credentials');
	for (const dir of ['c01-rewrite', 'c01-passauth']) {
		const r = await call(dir);
		assert.equal(r.status, 200, `${dir}: ${r.text}`);
		assert.deepEqual(r.json.sites.map((x) => x.slug), [q.slug], dir);
	}
	// The self-test notices the dropped header and prints the fix.
	const { spawnSync } = await import('node:child_process');
	const check = (dir) => spawnSync(`${env.root}/deploy/apache-shared/` +
	    'check-auth', [`${srv.fcgid}/${dir}`], { encoding: 'utf8' });
	const bad = check('c01-none');
	assert.equal(bad.status, 1, bad.stdout + bad.stderr);
	assert.match(bad.stdout, /drops the Authorization header/);
	assert.match(bad.stdout, /^\tCGIPassAuth On$/m);
	assert.match(bad.stdout,
	    /^\tRewriteRule \.\* - \[E=HTTP_AUTHORIZATION:%\{HTTP:Authorization\}\]$/m);
	for (const dir of ['c01-rewrite', 'c01-passauth', 'warteraum']) {
		const good = check(dir);
		assert.equal(good.status, 0, `${dir}: ${good.stdout}${good.stderr}`);
		assert.match(good.stdout, /^check-auth: ok/);
	}
});

// The Authorization header through every set-up (CASES C01): the same
// configurations in front of a FastCGI responder that echoes what it got.
test('Authorization reaches the FastCGI program behind every server',
    async () => {
	const dir = `${env.vardir}/matrix-echo`;
	const prog = `${env.vardir}/fcgi-echo.mjs`;
	writeFileSync(prog, ECHO, { mode: 0o755 });
	chmodSync(prog, 0o755);
	// A second set of servers on the next ports, in front of the echo
	// (listening on its own socket for proxy_fcgi and lighttpd; mod_fcgid
	// spawns its own copies).
	const { spawn } = await import('node:child_process');
	const { existsSync, mkdirSync } = await import('node:fs');
	const sockDir = `${env.vardir}/echo-run`;
	mkdirSync(sockDir, { recursive: true });
	chmodSync(sockDir, 0o755);
	const sock = `${sockDir}/echo.sock`;
	const child = spawn(prog, ['--listen', sock],
	    { stdio: ['ignore', 'ignore', 'inherit'] });
	echo = { async stop() { child.kill('SIGTERM'); } };
	for (let i = 0; i < 100 && !existsSync(sock); i++)
		await new Promise((r) => setTimeout(r, 50));
	const es = await startServers({ port1: PORT + 4, sock, dir,
	    fcgiProgram: prog });
	try {
		const key = 'Bearer qak_EXAMPLEKEY0123456789abcdef';
		for (const [name, base, pre] of [
			['proxy_fcgi /api/', es.proxyFcgi, ''],
			['proxy_fcgi /queue/', es.proxyFcgi, ''],
			['fcgid', es.fcgid, '/warteraum'],
			['lighttpd', es.lighttpd, ''],
			['lighttpd-prefix', es.lighttpd, '/warteraum'],
		]) {
			const path = name.endsWith('/queue/') ?
			    `${pre}/queue/x/info` : `${pre}/api/admin/queue/sites`;
			const r = await get(base, path,
			    { headers: { authorization: key } });
			assert.equal(r.status, 200, `${name}: ${r.text}`);
			const got = r.json.HTTP_AUTHORIZATION ??
			    r.json.REDIRECT_HTTP_AUTHORIZATION;
			assert.equal(got, key, `${name}: ${r.text}`);
		}
	} finally {
		await es.stop();
		child.kill('SIGTERM');
		echo = null;
	}
});
