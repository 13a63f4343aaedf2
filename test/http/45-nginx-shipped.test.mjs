// The shipped nginx server block (deploy/nginx/aqueue.conf) as it is,
// with only the install's paths, the certificate (self-signed here) and
// the listening addresses (loopback ports) replaced: plain HTTP redirects,
// the visitor flow and the admin API over HTTPS, /admin/ and /metrics
// reaching the program, nginx's own 413 as the program's JSON error, the
// static files from disk.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import https from 'node:https';
import http from 'node:http';
import net from 'node:net';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createQueue, ctl, env, sleep } from './lib.mjs';

const HTTP_PORT = Number(process.env.AQ_PORT) + 4;
const HTTPS_PORT = Number(process.env.AQ_PORT) + 5;
const dir = `${env.vardir}/nginx-shipped`;
let nginx = null;

// One request over node:http(s) (self-signed certificate accepted):
// {status, headers, text, json}.
function call(mod, port, path, { method = 'GET', headers = {},
    body = null } = {}) {
	return new Promise((resolve, reject) => {
		const rq = mod.request({ host: '127.0.0.1', port, path, method,
		    headers: { host: 'queue.example.com', ...headers },
		    rejectUnauthorized: false, agent: false }, (res) => {
			const chunks = [];
			res.on('data', (d) => chunks.push(d));
			res.on('end', () => {
				const text = Buffer.concat(chunks).toString();
				let json = null;
				try {
					json = JSON.parse(text);
				} catch {
					// not JSON
				}
				resolve({ status: res.statusCode, headers: res.headers,
				    text, json });
			});
		});
		rq.on('error', reject);
		rq.end(body);
	});
}
const get = (path, opts) => call(https, HTTPS_PORT, path, opts);

before(async () => {
	rmSync(dir, { recursive: true, force: true });
	mkdirSync(`${dir}/logs`, { recursive: true });
	execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes',
	    '-keyout', `${dir}/key.pem`, '-out', `${dir}/cert.pem`, '-days', '1',
	    '-subj', '/CN=queue.example.com'], { stdio: 'ignore' });
	const shipped = readFileSync(`${env.root}/deploy/nginx/aqueue.conf`,
	    'utf8')
	    .replace(/^\tlisten 80;$/m, `\tlisten 127.0.0.1:${HTTP_PORT};`)
	    .replace(/^\tlisten 443 ssl;$/m, `\tlisten 127.0.0.1:${HTTPS_PORT} ssl;`)
	    .replace(/^\tlisten \[::\]:(80|443)( ssl)?;\n/gm, '')
	    .replace(/\/etc\/letsencrypt\/live\/queue\.example\.com\/fullchain\.pem/,
		`${dir}/cert.pem`)
	    .replace(/\/etc\/letsencrypt\/live\/queue\.example\.com\/privkey\.pem/,
		`${dir}/key.pem`)
	    .replaceAll('/run/aqueue/fcgi.sock', env.fcgiSock)
	    .replaceAll('/usr/local/share/aditus-queue/static/',
		`${env.root}/static/`);
	assert.doesNotMatch(shipped, /listen (80|443|\[::\])/);
	writeFileSync(`${dir}/nginx.conf`, `# the shipped server block, wrapped
user root root;
worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/logs/error.log warn;
events { worker_connections 256; }
http {
	types { text/javascript js; text/css css; application/json json; }
	access_log off;
${shipped}
}
`);
	execFileSync('nginx', ['-t', '-q', '-p', dir, '-c', `${dir}/nginx.conf`],
	    { stdio: 'pipe' });
	nginx = spawn('nginx', ['-p', dir, '-c', `${dir}/nginx.conf`],
	    { stdio: 'ignore' });
	for (let i = 0; i < 100; i++) {
		const up = await new Promise((r) => {
			const s = net.connect(HTTPS_PORT, '127.0.0.1');
			s.on('connect', () => { s.destroy(); r(true); });
			s.on('error', () => r(false));
		});
		if (up)
			return;
		await sleep(50);
	}
	throw new Error('the shipped nginx did not listen');
});

after(async () => {
	if (nginx !== null && nginx.exitCode === null) {
		const done = new Promise((r) => nginx.on('exit', r));
		nginx.kill('SIGTERM');
		await done;
	}
});

test('plain HTTP redirects to HTTPS', async () => {
	const r = await call(http, HTTP_PORT, '/queue/healthz');
	assert.equal(r.status, 301);
	assert.equal(r.headers.location, 'https://queue.example.com/queue/healthz');
});

test('the visitor flow and the admin API over HTTPS', async () => {
	const h = await get('/queue/healthz');
	assert.equal(h.status, 200, h.text);
	assert.deepEqual(h.json, { status: 'ok' });
	const q = createQueue({ rate: 6000 });
	const j = await get(`/queue/${q.slug}/join`, { method: 'POST' });
	assert.equal(j.status, 200, j.text);
	assert.equal(j.json.number, 1);
	const t = await get(`/queue/${q.slug}/token`, { method: 'POST',
	    headers: { 'content-type': 'application/json' },
	    body: JSON.stringify({ number: 1, ticket: j.json.ticket }) });
	assert.equal(t.status, 200, t.text);
	const key = /^key: (\S+)$/m.exec(ctl('key', 'create', q.slug, '--name',
	    'nginx-shipped'))[1];
	const a = await get('/api/admin/queue/sites',
	    { headers: { authorization: `Bearer ${key}` } });
	assert.equal(a.status, 200, a.text);
	assert.deepEqual(a.json.sites.map((x) => x.slug), [q.slug]);
	const js = await get('/queue-static/waiting-room.js');
	assert.equal(js.status, 200);
	assert.match(js.headers['content-type'], /javascript/);
});

test('/admin/ and /metrics reach the program', async () => {
	for (const path of ['/admin/', '/metrics']) {
		const r = await get(path);
		// The program's answer: its security headers, never nginx's
		// own page.
		assert.equal(r.headers['x-content-type-options'], 'nosniff', path);
		assert.match(r.headers['content-security-policy'] ?? '', /./, path);
		assert.doesNotMatch(r.text, /<center>nginx<\/center>/, path);
	}
});

test('nginx\'s own 413 is the program\'s JSON error', async () => {
	const q = createQueue({ rate: 60 });
	const r = await get(`/queue/${q.slug}/join`, { method: 'POST',
	    headers: { 'content-type': 'application/json' },
	    body: JSON.stringify({ pad: 'x'.repeat(3 * 1024 * 1024) }) });
	assert.equal(r.status, 413);
	assert.equal(r.json.error, 'body_too_large');
	assert.match(r.headers['content-type'], /^application\/json/);
});
