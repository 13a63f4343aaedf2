// One set of token test vectors (deploy/edge/vectors.json) against every
// verifier that runs here: our /verify, the nginx + njs gate in a real
// nginx (Debian's libnginx-mod-http-js) in front of a dummy shop, Node's
// jsonwebtoken and Python's PyJWT (the backend examples of deploy/edge/).
// Plus the gate's cookie parsing (CASES C15).
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync, existsSync } from 'node:fs';
import { request } from 'node:http';
import { join as pjoin } from 'node:path';
import { createQueue, env, req, sleep, waitFor } from './lib.mjs';
import { materialize } from '../../deploy/edge/vectors.mjs';
import { verifyPass } from '../../deploy/edge/backend/node/verify.mjs';

const EDGE = pjoin(env.root, 'deploy/edge');
const JS_MODULE = '/usr/lib/nginx/modules/ngx_http_js_module.so';
const q = createQueue({ rate: 600 });
const vectors = materialize({ secret: q.secret, audience: q.slug });
const PORT = Number(new URL(env.base).port);
const GATE = PORT + 1, SHOP = PORT + 2;
const ROOM = `https://queue.example/queue/${q.slug}`;

test('the vectors cover what SPEC section 5 names', () => {
	const names = vectors.map((v) => v.name).join('\n');
	for (const kind of ['valid', 'expired', 'wrong audience',
	    'wrong issuer', 'alg none', 'HS512', 'tampered signature',
	    'malformed'])
		assert.ok(names.includes(kind), kind);
	assert.equal(vectors.filter((v) => v.valid).length, 2);
});

test('our GET /verify: every vector, with its reason', async (t) => {
	for (const v of vectors)
		await t.test(v.name, async () => {
			const r = await req(`/queue/${q.slug}/verify?token=` +
			    encodeURIComponent(v.token));
			assert.equal(r.status, 200);
			assert.equal(r.json.valid, v.valid);
			if (!v.valid)
				assert.equal(r.json.reason, v.reason);
			else
				assert.equal(r.json.number, 7);
		});
});

test('Node jsonwebtoken (backend/node/verify.mjs): every vector', () => {
	for (const v of vectors)
		assert.equal(verifyPass(v.token, { secret: q.secret,
		    queue: q.slug }) !== null, v.valid, v.name);
});

test('Python PyJWT (backend/python/verify.py): every vector', () => {
	// Debian's Python, which python3-jwt installs PyJWT for.
	const out = execFileSync('/usr/bin/python3', [
	    pjoin(EDGE, 'backend/python/verify.py'), q.secret, q.slug],
	    { input: JSON.stringify(vectors), encoding: 'utf8' });
	assert.deepEqual(JSON.parse(out), vectors.map((v) =>
	    ({ name: v.name, valid: v.valid })));
});

// ---- the njs gate in a real nginx --------------------------------------

let nginx = null;

function gateConf(dir) {
	return `${process.getuid() === 0 ? 'user root root;\n' : ''}` +
	    `load_module ${JS_MODULE};
worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 256; }
http {
	access_log off;
	client_body_temp_path ${dir}/tmp;
	proxy_temp_path ${dir}/tmp;
	fastcgi_temp_path ${dir}/tmp;
	uwsgi_temp_path ${dir}/tmp;
	scgi_temp_path ${dir}/tmp;
	js_path "${EDGE}/nginx/";
	js_import aditus from aditus_gate.js;
	server {
		listen 127.0.0.1:${GATE};
		set $aditus_queue "${q.slug}";
		set $aditus_room "${ROOM}";
		set $aditus_secret "${q.secret}";
		location / {
			js_content aditus.gate;
		}
		location @shop {
			proxy_pass http://127.0.0.1:${SHOP};
		}
	}
	server {
		listen 127.0.0.1:${SHOP};
		location / {
			default_type text/plain;
			return 200 "shop $request_uri";
		}
	}
}
`;
}

before(async () => {
	assert.ok(existsSync(JS_MODULE), `${JS_MODULE}: install ` +
	    'libnginx-mod-http-js');
	const dir = mkdtempSync(pjoin(env.vardir, 'njs-gate-'));
	mkdirSync(`${dir}/tmp`);
	writeFileSync(`${dir}/nginx.conf`, gateConf(dir));
	execFileSync('nginx', ['-t', '-p', dir, '-c', `${dir}/nginx.conf`],
	    { stdio: 'pipe' });
	nginx = spawn('nginx', ['-p', dir, '-c', `${dir}/nginx.conf`],
	    { stdio: 'ignore' });
	await waitFor(async () => {
		try {
			return (await get('/ping', {})).status > 0;
		} catch {
			return false;
		}
	}, 10000);
});

after(async () => {
	if (nginx === null || nginx.exitCode !== null)
		return;
	const done = new Promise((r) => nginx.once('exit', r));
	nginx.kill('SIGTERM');
	await Promise.race([done, sleep(5000)]);
});

// get(path, headers): GET on the gate; {status, location, cookie, body}.
function get(path, headers) {
	return new Promise((resolve, reject) => {
		const r = request({ host: '127.0.0.1', port: GATE, path,
		    headers }, (res) => {
			let body = '';
			res.on('data', (d) => { body += d; });
			res.on('end', () => resolve({ status: res.statusCode,
			    location: res.headers.location ?? null,
			    cookie: res.headers['set-cookie'] ?? null, body }));
		});
		r.on('error', reject);
		r.end();
	});
}

const roomFor = (path) => `${ROOM}?return=` +
    encodeURIComponent(`http://127.0.0.1:${GATE}${path}`);

test('njs gate: token in the URL, every vector', async (t) => {
	for (const v of vectors)
		await t.test(v.name, async () => {
			const r = await get('/tickets?x=1&aditus_queue_token=' +
			    encodeURIComponent(v.token) + '&y=2', {});
			assert.equal(r.status, 302);
			if (v.valid) {
				assert.equal(r.location,
				    `http://127.0.0.1:${GATE}/tickets?x=1&y=2`);
				assert.deepEqual(r.cookie, [`aditus_queue=${v.token}; ` +
				    'Path=/; HttpOnly; SameSite=Lax']);
			} else {
				assert.equal(r.location, roomFor('/tickets?x=1&y=2'));
				assert.equal(r.cookie, null);
			}
		});
});

test('njs gate: pass in the cookie, every vector', async (t) => {
	for (const v of vectors)
		await t.test(v.name, async () => {
			const r = await get('/tickets',
			    { cookie: `aditus_queue=${v.token}` });
			if (v.valid) {
				assert.equal(r.status, 200);
				assert.equal(r.body, 'shop /tickets');
			} else {
				assert.equal(r.status, 302);
				assert.equal(r.location, roomFor('/tickets'));
			}
		});
});

test('njs gate: cookie header shapes of CASES C15', async (t) => {
	const good = vectors.find((v) => v.name === 'valid').token;
	const expired = vectors.find((v) => v.name.startsWith('expired')).token;
	const admitted = {
		'1 flag; theme=a=b; pass': `flag; theme=a=b; aditus_queue=${good}`,
		'2 empty duplicate first': `aditus_queue=; aditus_queue=${good}`,
		'3 expired duplicate first': `aditus_queue=${expired}; ` +
		    `aditus_queue=${good}`,
		'4 quoted': `aditus_queue="${good}"`,
		'5a no space': `aditus_queue=${good}`,
		'5b spaces around =': `aditus_queue = ${good}`,
	};
	for (const [name, cookie] of Object.entries(admitted))
		await t.test(name, async () => {
			const r = await get('/a', { cookie });
			assert.equal(r.status, 200, `${r.status} ${r.location}`);
			assert.equal(r.body, 'shop /a');
		});
	await t.test('6 a 16 KB Cookie header, the pass last', async () => {
		const many = Array.from({ length: 450 }, (_, i) =>
		    `c${i}=${'v'.repeat(30)}`).join('; ');
		const r = await get('/a', { cookie: `${many}; aditus_queue=${good}` });
		assert.ok(r.status === 302 || r.status === 400, String(r.status));
		if (r.status === 302)
			assert.equal(r.location, roomFor('/a'));
	});
	await t.test('6 a few cookies, the pass last, within the cap', async () => {
		const some = Array.from({ length: 20 }, (_, i) =>
		    `c${i}=${'v'.repeat(30)}`).join('; ');
		const r = await get('/a', { cookie: `${some}; aditus_queue=${good}` });
		assert.equal(r.status, 200);
	});
	await t.test('no cookie at all: the waiting room', async () => {
		const r = await get('/a?b=c', {});
		assert.equal(r.status, 302);
		assert.equal(r.location, roomFor('/a?b=c'));
	});
});
