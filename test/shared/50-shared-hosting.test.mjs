// test/shared/50-shared-hosting.test.mjs - shared hosting for real: two
// unprivileged accounts on one Apache (mod_userdir, suEXEC, mod_fcgid)
// and on one MariaDB server, each database user limited to 25
// connections.  Account A's public_html allows only "AllowOverride
// FileInfo Options=FollowSymLinks,ExecCGI" (no AuthConfig), account B's
// has Debian's stock UserDir settings (no Options, "Require method GET
// POST OPTIONS") with the ExecCGI the README asks the host for.  A
// builds and installs the release with the README's walkthrough,
// command by command, as its own user; B copies A's build (the README's
// "build elsewhere and copy") and runs the rest of the walkthrough.
// Then: the visitor flow, the console under the prefix with its static
// files, the seed's REST call (PATCH), a scheduled opening closed by the
// embedded worker, a leader per account, a 64-client burst against the
// connection limit, what idle costs, a proof-of-work solution replayed
// to another of the account's processes, and Apache's error log.
//
// Needs root (accounts, Apache); without it every test is skipped (and
// test/run says so): never counted as passed.

import { test, before, after } from 'node:test';
import { spawn } from 'node:child_process';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import {
	account, asUser, cannotRun, connections, copyInstall, dropAccount,
	env, fcgiProcesses, giveTarball, makeAccount, openDbFolder, run,
	sleep, sql, startApache, statements, walkthrough,
} from './hosting.mjs';
import { solve } from '../http/pow.mjs';

// Skipped only when not root; as root a missing piece is a failure.
const ROOT = typeof process.getuid === 'function' && process.getuid() === 0;
const skip = ROOT ? false : 'not root: it creates Unix accounts and ' +
    'starts Apache with suEXEC';
if (!ROOT)
	console.log(`SKIPPED: the shared-hosting test: ${skip}`);

const A = account('a');
const B = account('b');
A.kind = 'restricted';
B.kind = 'userdir';
// Apache's port: AQ_SHARED_PORT, else the run's port + 40.
const APORT = Number(process.env.AQ_SHARED_PORT ?? env.port + 40);
let apache = null;
let closeDb = null;
const out = { a: [], b: [] };	// the walkthrough's outputs per account
const keys = {};		// account name -> API key
const admins = {};		// account name -> console password

// The URL of account a's web folder.
const BASE = `http://127.0.0.1:${APORT}`;
const site = (a) => `${BASE}/~${a.name}/warteraum`;

// The walkthrough's command as account a runs it here: the README's
// placeholders made this host's (database name and user, the site's
// URL, the socket this test's MariaDB listens on), make with two jobs.
function localize(a, cmd) {
	return cmd.replaceAll('shopuser_aqueue', a.db)
	    .replaceAll('https://shop.example/warteraum', site(a))
	    .replace('--db-host localhost',
		`--db-socket ${env.vardir}/db/mysqld.sock` +
		(a.kind === 'userdir' ? ' --htaccess userdir' : ''))
	    .replace('&& make &&', '&& make -j2 &&');
}

// Run the walkthrough's commands from index from up to (not including)
// to as account a, answering the password questions on stdin.  Each
// command's {cmd, status, stdout, stderr} goes to list.
function walk(a, from, to, list) {
	const cmds = walkthrough();
	let dir = '~';
	for (const raw of cmds.slice(from, to)) {
		const cmd = localize(a, raw);
		let input = '';
		if (/ init /.test(cmd))
			input = `${a.password}\n`;
		if (/ user add /.test(cmd)) {
			admins[a.name] = `pw-${a.password}`;
			input = `${admins[a.name]}\n`;
		}
		// The folder the first command went into stays (one shell).
		const r = asUser(a.name, `cd ${dir} && ${cmd}`, input);
		const m = /^tar xzf \S+ && cd (\S+)$/.exec(cmd);
		if (m !== null)
			dir = `~/${m[1]}`;
		list.push({ cmd, ...r });
		if (r.status !== 0)
			throw new Error(`${a.name}: ${cmd}: exit ${r.status}\n` +
			    `${r.stdout.slice(-2000)}\n${r.stderr.slice(-2000)}`);
	}
}

// fetch under the site; {status, headers, text, json}.
async function get(url, opts = {}) {
	const res = await fetch(url, { redirect: 'manual', ...opts });
	const text = await res.text();
	let json = null;
	try {
		json = JSON.parse(text);
	} catch {
		// not JSON
	}
	return { status: res.status, headers: res.headers, text, json };
}

// A top-level navigation (a followed link's fetch metadata), over
// node:http (fetch would send its own Sec-Fetch-Mode); {status,
// location}.
function navigate(url) {
	const u = new URL(url);
	return new Promise((resolve, reject) => {
		http.request({ host: u.hostname, port: u.port,
		    path: u.pathname + u.search, agent: false, headers: {
		    'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document',
		    'sec-fetch-site': 'none', 'sec-fetch-user': '?1' } },
		    (res) => {
			res.resume();
			res.on('end', () => resolve({ status: res.statusCode,
			    location: res.headers.location }));
		}).on('error', reject).end();
	});
}

const post = (url, body, headers = {}) => get(url, { method: 'POST',
    body: typeof body === 'string' ? body : JSON.stringify(body),
    headers: { 'content-type': 'application/json', ...headers } });

// aqueuectl of account a (its default configuration), input on stdin.
function ctlOf(a, args, input = '') {
	const r = asUser(a.name, `~/aqueue/bin/aqueuectl ${args}`, input);
	if (r.status !== 0)
		throw new Error(`aqueuectl ${args}: ${r.status} ${r.stderr}`);
	return r.stdout;
}

before(async () => {
	if (!ROOT)
		return;
	const why = cannotRun();
	if (why !== null)
		throw new Error(why);
	for (const a of [A, B])
		makeAccount(a);
	closeDb = openDbFolder();
	const cmds = walkthrough();
	const init = cmds.findIndex((c) => / init /.test(c));
	// A: the release as a tarball in its home, built, installed, set up.
	giveTarball(A);
	walk(A, 0, init + 1, out.a);
	// B: A's build copied (bin/ and share/), then "init".
	copyInstall(A, B);
	walk(B, init, init + 1, out.b);
	// The web server (it wants the programs to exist), then the rest of
	// the walkthrough, which asks it.
	apache = await startApache({ dir: `${env.vardir}/shared/apache`,
	    port: APORT, accounts: [A, B],
	    // A host that lets B's processes grow far beyond its database
	    // limit, fast: the burst below meets db-max-connections.
	    serverExtra: 'FcgidSpawnScoreUpLimit 256\nFcgidTimeScore 64',
	    cmdOptions: { [B.name]: 'MaxProcesses 40 MinProcesses 2 ' +
	    'IOTimeout 15 MaxRequestsPerProcess 0' } });
	walk(A, init + 1, cmds.length, out.a);
	walk(B, init + 1, cmds.length, out.b);
	for (const [a, o] of [[A, out.a], [B, out.b]]) {
		const k = o.find((x) => / key create /.test(x.cmd));
		keys[a.name] = /^key: (\S+)$/m.exec(k.stdout)[1];
	}
}, { timeout: 1500000 });

after(async () => {
	if (apache !== null)
		await apache.stop();
	if (closeDb !== null)
		closeDb();
	if (!ROOT)
		return;
	for (const a of [A, B])
		dropAccount(a);
});

test('the walkthrough: at most ten commands, each printing what the ' +
    'README says', { skip }, () => {
	const cmds = walkthrough();
	assert.ok(cmds.length >= 7 && cmds.length <= 10, `${cmds.length}`);
	const by = (o, re) => o.find((x) => re.test(x.cmd));
	for (const [a, o] of [[A, out.a], [B, out.b]]) {
		const init = by(o, / init /).stdout;
		assert.match(init, new RegExp(`^wrote ${a.home}/aqueue/etc/` +
		    'aqueue.conf \\(mode 0600\\)$', 'm'));
		assert.match(init, new RegExp(`^made ${a.home}/aqueue/etc/` +
		    'master.key \\(mode 0600\\)$', 'm'));
		assert.match(init, new RegExp(`^database ${a.db}: schema up ` +
		    'to date \\(\\d+ applied\\)$', 'm'));
		assert.match(init, new RegExp(`^web folder ${a.web}: ` +
		    `\\.htaccess \\(${a.kind === 'userdir' ? 'userdir' :
		    'standard'}\\), aqueue.fcgi, static/ \\(\\d+ files\\), ` +
		    'state/$', 'm'));
		const doctor = by(o, / doctor /).stdout;
		assert.match(doctor, /^doctor: nothing to fix$/m, doctor);
		assert.doesNotMatch(doctor, /^FIX/m, doctor);
		for (const check of [/^ok {3}Authorization: the header reaches/m,
		    /^ok {3}\S+\/static\/: the static files/m,
		    /^ok {3}\S+\/api\/openapi.json: the OpenAPI document$/m,
		    /^ok {3}worker: worker:\S+ leads \(embedded/m,
		    /^ok {3}connections: db-max-connections = 20 within the account's limit of 25/m])
			assert.match(doctor, check, doctor);
		assert.match(by(o, / create /).stdout, /^secret: \S{43}$/m);
		assert.match(by(o, / user add /).stdout, /^user admin added$/m);
		assert.match(by(o, / key create /).stdout, /^key: qak_\S+$/m);
		const info = JSON.parse(by(o, /curl /).stdout);
		assert.equal(info.queue, 'sale');
		assert.equal(info.name, 'Summer sale');
		assert.equal(info.active, true);
	}
	// The files the account owns, with the modes suEXEC and the
	// secrets want.
	for (const a of [A, B]) {
		for (const f of ['aqueue/etc/aqueue.conf',
		    'aqueue/etc/master.key'])
			assert.equal(statSync(`${a.home}/${f}`).mode & 0o777, 0o600,
			    f);
		assert.equal(statSync(`${a.web}/aqueue.fcgi`).uid, a.uid);
		assert.equal(statSync(`${a.web}/aqueue.fcgi`).mode & 0o777,
		    0o755);
	}
});

test('the program runs as each account through suEXEC, one process one ' +
    'connection, no master', { skip }, async () => {
	for (const a of [A, B]) {
		const r = await get(`${site(a)}/queue/sale/info`);
		assert.equal(r.status, 200, r.text);
	}
	const ps = fcgiProcesses();
	for (const a of [A, B]) {
		const mine = ps.filter((p) => p.user === a.name);
		assert.ok(mine.length >= 1, `${a.name}: ${JSON.stringify(ps)}`);
		// No aqueue-fcgi is the parent of another (workers = 0).
		for (const p of mine)
			assert.equal(ps.some((q) => q.pid === p.ppid), false,
			    `${a.name}: ${p.pid} has a master`);
		assert.ok(connections(a.db) <= mine.length,
		    `${a.name}: ${connections(a.db)} connections for ` +
		    `${mine.length} processes`);
	}
	assert.equal(ps.some((p) => p.user === 'www-data'), false,
	    'nothing runs as the web server');
});

test('visitor flow under /~account/warteraum: join, status, token, ' +
    'verify, gateway, the page and its static files, the poll document ' +
    'from the web folder', { skip }, async () => {
	for (const a of [A, B]) {
		const s = site(a);
		const pre = `/~${a.name}/warteraum`;
		const j = await post(`${s}/queue/sale/join`, '');
		assert.equal(j.status, 200, j.text);
		assert.equal(j.json.admitted, true);
		const st = await get(`${s}/queue/sale/status?number=${
		    j.json.number}`);
		assert.equal(st.status, 200, st.text);
		assert.equal(st.json.admitted, true);
		const t = await post(`${s}/queue/sale/token`,
		    { number: j.json.number, ticket: j.json.ticket });
		assert.equal(t.status, 200, t.text);
		const v = await get(`${s}/queue/sale/verify?token=${
		    encodeURIComponent(t.json.token)}`);
		assert.equal(v.json.valid, true, v.text);
		const e = await navigate(`${s}/queue/sale/enter`);
		assert.equal(e.status, 302);
		assert.match(e.location,
		    /^https:\/\/shop\.example\/checkout\?aditus_queue_token=ey/);
		const page = await get(`${s}/queue/sale?lang=en`);
		assert.equal(page.status, 200, page.text);
		assert.match(page.text, new RegExp(`data-base="${pre}"`));
		// The page's scripts (the proof of work's solver, then the
		// room's), both from the web folder under the prefix.
		const srcs = [...page.text.matchAll(/<script src="([^"]+)"/g)]
		    .map((m) => m[1]);
		assert.deepEqual(srcs, [`${pre}/static/pow.js`,
		    `${pre}/static/waiting-room.js`]);
		for (const js of srcs) {
			const f = await get(`${BASE}${js}`);
			assert.equal(f.status, 200, js);
			assert.match(f.headers.get('content-type'), /javascript/);
		}
		// The poll document: the file the writer keeps in state/,
		// served by Apache (none of the program's headers).
		const file = `${a.web}/state/sale.json`;
		for (let i = 0; i < 50 && !existsSync(file); i++)
			await sleep(100);
		const d = await get(`${s}/queue/sale/state.json`);
		assert.equal(d.status, 200, d.text);
		assert.equal(d.json.queue, 'sale');
		assert.equal(d.headers.get('cache-control'),
		    'public, max-age=1');
		assert.equal(d.headers.get('x-content-type-options'), null,
		    'served by Apache');
		assert.equal(statSync(file).uid, a.uid, 'written as the account');
	}
});

test('the console under the prefix: log-in, dashboard, its static files ' +
    'and its live data', { skip }, async () => {
	for (const a of [A, B]) {
		const s = site(a);
		const pre = `/~${a.name}/warteraum`;
		const jar = new Map();
		const req = async (method, path, form) => {
			const headers = {};
			if (jar.size > 0)
				headers.cookie = [...jar].map(([k, v]) =>
				    `${k}=${v}`).join('; ');
			if (form !== undefined)
				headers['content-type'] =
				    'application/x-www-form-urlencoded';
			const res = await fetch(`${BASE}${path}`, {
			    method, redirect: 'manual', headers,
			    body: form === undefined ? undefined :
			    new URLSearchParams(form).toString() });
			for (const c of res.headers.getSetCookie()) {
				const kv = c.split(';')[0];
				const i = kv.indexOf('=');
				jar.set(kv.slice(0, i), kv.slice(i + 1));
			}
			return { status: res.status, text: await res.text(),
			    location: res.headers.get('location') };
		};
		const form = await req('GET', `${pre}/admin/login`);
		assert.equal(form.status, 200, form.text);
		const csrf = /name="csrf" value="([^"]*)"/.exec(form.text)[1];
		const login = await req('POST', `${pre}/admin/login`,
		    { csrf, user: 'admin', password: admins[a.name] });
		assert.equal(login.status, 303, login.text);
		assert.equal(login.location, `${pre}/admin/`);
		const dash = await req('GET', `${pre}/admin/queue/sale`);
		assert.equal(dash.status, 200, dash.text);
		const urls = [...dash.text.matchAll(
		    /(?:src|href)="([^"]+\.(?:css|js))"/g)].map((m) => m[1]);
		for (const want of ['console.css', 'uPlot.min.css',
		    'uPlot.iife.min.js', 'console.js'])
			assert.ok(urls.includes(`${pre}/static/${want}`),
			    `${want} in ${urls}`);
		for (const u of urls) {
			const r = await fetch(`${BASE}${u}`);
			assert.equal(r.status, 200, u);
			await r.arrayBuffer();
		}
		const live = /data-live="([^"]+)"/.exec(dash.text)[1];
		assert.ok(live.startsWith(`${pre}/admin/`), live);
		const l = await req('GET', live);
		assert.equal(l.status, 200, l.text);
		assert.ok(JSON.parse(l.text) !== null);
	}
});

test("the seed's REST call: PATCH the rate through both .htaccess " +
    'variants; /api/openapi.json under the prefix', { skip }, async () => {
	// The product description's example, its base URL made the site's.
	const RATE = String.raw`SITE=$(curl -s -H "Authorization: Bearer $KEY" "$BASE/sites" \
  | jq '.sites[0]')
echo "$SITE" | jq '.ratePerMinute = 300' | curl -s -X PATCH \
  -H "Authorization: Bearer $KEY" -H "Content-Type: application/json" \
  -d @- "$BASE/sites/$(echo "$SITE" | jq -r .id)"`;
	for (const a of [A, B]) {
		const r = run('bash', ['-c', RATE], { env: { ...process.env,
		    KEY: keys[a.name], BASE: `${site(a)}/api/admin/queue` } });
		assert.equal(r.status, 0, r.stderr);
		const body = JSON.parse(r.stdout);
		assert.equal(body.ratePerMinute, 300, r.stdout);
		const row = sql("SELECT rate_per_minute FROM queue WHERE slug = " +
		    "'sale'", a.db)[0][0];
		assert.equal(row, '300');
		const o = await get(`${site(a)}/api/openapi.json`);
		assert.equal(o.status, 200);
		assert.ok(typeof o.json.openapi === 'string');
		// DELETE reaches the program too: its JSON answer (a key may
		// not delete its queue), not Apache's HTML 403 of "Require
		// method GET POST OPTIONS".
		const d = await get(`${site(a)}/api/admin/queue/sites/sale`,
		    { method: 'DELETE', headers: { authorization:
		    `Bearer ${keys[a.name]}` } });
		assert.equal(d.status, 403, d.text);
		assert.match(d.headers.get('content-type'), /^application\/json/);
		assert.equal(d.json?.error, 'forbidden', d.text);
	}
});

test('one leader per account on the one database server', { skip },
    async () => {
	for (const a of [A, B]) {
		let holder = 'NULL';
		for (let i = 0; i < 60 && holder === 'NULL'; i++) {
			await get(`${site(a)}/queue/healthz`);
			holder = sql('SELECT IS_USED_LOCK(' +
			    `'aqueue-worker-leader:${a.db}')`)[0][0];
			if (holder === 'NULL')
				await sleep(250);
		}
		assert.notEqual(holder, 'NULL', `${a.name} has no leader`);
		const [user] = sql('SELECT USER FROM information_schema.' +
		    `PROCESSLIST WHERE ID = ${holder}`)[0];
		assert.equal(user, a.db, 'the lock is held by its own session');
		const rows = sql("SELECT COUNT(*) FROM instance WHERE kind = " +
		    "'worker' AND leader = 1", a.db)[0][0];
		assert.equal(rows, '1');
	}
	assert.notEqual(sql(`SELECT IS_USED_LOCK('aqueue-worker-leader:${
	    A.db}')`)[0][0], sql(`SELECT IS_USED_LOCK('aqueue-worker-leader:${
	    B.db}')`)[0][0]);
});

test('a scheduled opening nobody joins at: the embedded worker closes ' +
    'the pre-queue', { skip }, async () => {
	for (const a of [A, B]) {
		const now = Number(sql('SELECT CAST(UNIX_TIMESTAMP(NOW(3)) * ' +
		    '1000 AS SIGNED)')[0][0]);
		const opens = now + 4000;
		ctlOf(a, `create draw --name Draw --rate 60 --target ` +
		    `https://shop.example/ --domains https://shop.example ` +
		    `--opens-at ${opens}`);
		for (let i = 0; i < 3; i++) {
			const j = await post(`${site(a)}/queue/draw/join`, '');
			assert.equal(j.status, 200, j.text);
			assert.equal(j.json.admitted, false);
		}
		let row;
		for (let i = 0; i < 80; i++) {
			row = sql('SELECT draw_open, draw_count FROM queue ' +
			    "WHERE slug = 'draw'", a.db)[0];
			if (row[0] === '0')
				break;
			await sleep(250);
		}
		assert.deepEqual(row, ['0', '3'],
		    `${a.name}: the pre-queue of 3 closed`);
		const log = readFileSync(`${a.home}/aqueue/var/log/aqueue.log`,
		    'utf8');
		assert.match(log, /aqueue-fcgi\[\d+\]: draw: 1 pre-queue\(s\) closed at the opening/,
		    'closed by a FastCGI process (there is no daemon)');
	}
});

test('a 64-client burst under MAX_USER_CONNECTIONS 25: joins 200 or 503 ' +
    'with Retry-After, never over the budget; afterwards every request ' +
    'normal within 10 s, at zero load', { skip }, async () => {
	const s = site(B);
	let stop = false, peakConn = 0, peakProc = 0;
	const sampler = (async () => {
		while (!stop) {
			peakConn = Math.max(peakConn, connections(B.db));
			peakProc = Math.max(peakProc, fcgiProcesses()
			    .filter((p) => p.user === B.name).length);
			await sleep(100);
		}
	})();
	const answers = new Map();
	const bad = [];
	const until = Date.now() + 8000;
	// Apache's event MPM closes idle keep-alive connections when all
	// threads of a child are busy; a POST sent on one at that moment
	// gets no answer at all (the program never saw it: a crashed
	// process would be mod_fcgid's 500).  The test's server has more
	// threads per child than clients (hosting.mjs), so none may.
	let closed = 0;
	try {
		await Promise.all(Array.from({ length: 64 }, async () => {
			while (Date.now() < until) {
				let r;
				try {
					r = await post(`${s}/queue/sale/join`, '');
				} catch (e) {
					if (e.cause?.code !== 'UND_ERR_SOCKET')
						throw e;
					closed++;
					continue;
				}
				answers.set(r.status,
				    (answers.get(r.status) ?? 0) + 1);
				if (r.status !== 200 && !(r.status === 503 &&
				    Number(r.headers.get('retry-after')) > 0 &&
				    r.json?.error !== undefined))
					bad.push(`${r.status} ` +
					    `${r.text.slice(0, 200)}`);
			}
		}));
	} finally {
		stop = true;
		await sampler;
	}
	const total = [...answers.values()].reduce((x, y) => x + y, 0);
	assert.equal(closed, 0, `${closed} of ${total} joins got no answer`);
	const ended = Date.now();
	console.log(`burst: ${JSON.stringify(Object.fromEntries(answers))}, ` +
	    `${closed} closed unanswered, peak ${peakProc} processes, ` +
	    `${peakConn} connections`);
	assert.deepEqual(bad.slice(0, 5), [], `${bad.length} other answers`);
	assert.ok((answers.get(200) ?? 0) > 0);
	assert.ok(peakProc > 20, `the burst grew ${peakProc} processes, ` +
	    'more than db-max-connections');
	assert.ok(peakConn <= 20 + 1, `${peakConn} connections`);
	const log = readFileSync(`${B.home}/aqueue/var/log/aqueue.log`, 'utf8');
	assert.match(log, /all 20 connections of db-max-connections are in use/);
	assert.doesNotMatch(log, /max_user_connections/,
	    'the server never refused a connection');
	// Zero load: within 10 s a whole round of requests (each kind, to
	// many processes) is answered normally, and so is everything after.
	const kinds = ['queue/sale?lang=en', 'queue/sale/info',
	    'queue/sale/status?number=1', 'queue/sale/join'];
	let ok = false;
	while (!ok && Date.now() - ended < 10000) {
		ok = true;
		for (let i = 0; i < 2 * kinds.length && ok; i++) {
			const k = kinds[i % kinds.length];
			const r = k.endsWith('join') ? await post(`${s}/${k}`, '') :
			    await get(`${s}/${k}`);
			ok = r.status === 200;
		}
		if (!ok)
			await sleep(200);
	}
	const took = Date.now() - ended;
	assert.ok(ok && took <= 10000, `normal again after ${took} ms`);
	const after = [];
	for (let i = 0; i < 30; i++) {
		const k = kinds[i % kinds.length];
		const r = k.endsWith('join') ? await post(`${s}/${k}`, '') :
		    await get(`${s}/${k}`);
		after.push(r.status);
	}
	assert.deepEqual(after, Array(30).fill(200));
	console.log(`normal again ${took} ms after the burst`);
});

test('idle: the statements per second do not grow with the processes',
    { skip }, async () => {
	// B still has the burst's processes (mod_fcgid keeps idle ones for
	// FcgidIdleTimeout), A its few; both have the same queues.  Let
	// them give their connections back, then count both at once.
	await sleep(3000);
	const count = (a) => fcgiProcesses().filter((p) => p.user === a.name)
	    .length;
	const procs = { a: count(A), b: count(B) };
	// Three windows of the sampler's period (stats-interval-ms, 5 s), the
	// least rate of each account compared: a cost per process is paid in
	// every window; the leader's jobs come in bursts (a sampling pass,
	// B's abandonment after its burst) that one window catches and
	// another does not.
	const windows = [];
	let n0 = { a: statements(A.db), b: statements(B.db) };
	let t0 = Date.now();
	for (let i = 0; i < 3; i++) {
		await sleep(5000);
		const n1 = { a: statements(A.db), b: statements(B.db) };
		const t1 = Date.now();
		const dt = (t1 - t0) / 1000;
		windows.push({ a: (n1.a - n0.a) / dt, b: (n1.b - n0.b) / dt });
		[n0, t0] = [n1, t1];
	}
	const rate = { a: Math.min(...windows.map((w) => w.a)),
	    b: Math.min(...windows.map((w) => w.b)) };
	console.log(`idle: ${procs.a} processes ${rate.a.toFixed(1)} ` +
	    `statements/s, ${procs.b} processes ${rate.b.toFixed(1)} ` +
	    `statements/s (windows ${JSON.stringify(windows)})`);
	assert.ok(procs.b > 20 && procs.b >= 5 * procs.a,
	    JSON.stringify(procs));
	// One leader and one writer of the poll documents: a fixed handful
	// per second per installation, whatever the number of processes (a
	// statement every 5 s per process would add 8 per second here).
	assert.ok(rate.b < rate.a + 4, JSON.stringify(windows));
	assert.ok(rate.b < 20, JSON.stringify(windows));
	assert.ok(connections(B.db) <= 3,
	    `${connections(B.db)} connections while idle`);
});

test('a changed aqueue.conf is picked up by every process without a ' +
    'signal', { skip }, async () => {
	const conf = `${A.home}/aqueue/etc/aqueue.conf`;
	const before = readFileSync(conf, 'utf8');
	// A status cache of 0 ms: a new value every process must read.
	const r0 = await get(`${site(A)}/queue/sale/status?number=1`);
	assert.equal(r0.status, 200);
	writeFileSync(conf, `${before}\ndebug = 1\n`);
	const log = `${A.home}/aqueue/var/log/aqueue.log`;
	let seen = false;
	for (let i = 0; i < 40 && !seen; i++) {
		await get(`${site(A)}/queue/sale/info`);
		seen = / changed: starting again with it/.test(readFileSync(log,
		    'utf8'));
		await sleep(250);
	}
	writeFileSync(conf, before);
	assert.ok(seen, 'a process read the changed file by itself');
	const r1 = await get(`${site(A)}/queue/sale/info`);
	assert.equal(r1.status, 200, r1.text);
});

// Promise 1 (a number is issued once; a solved challenge takes one
// number) across the processes of one installation without a master:
// mod_fcgid starts each on its own, and they share the single-use
// record only through the file in run-dir.  The first join is held
// inside its process (a lock the test holds on the queue's row), and
// mod_fcgid gives a process one request at a time: so every replay
// answered before that join's own answer was answered by another
// process, and must be 428 challenge_used; afterwards one number was
// issued.  (Each process with a record of its own would let those
// replays through to the database, and none would answer before the
// first.)
test('a solved challenge is used once across the account\'s processes: ' +
    'replays that reach another process while the first join is held ' +
    'are 428 challenge_used; one number', { skip }, async () => {
	const s = site(B);
	ctlOf(B, 'create powq --name Pow --rate 600 --target ' +
	    'https://shop.example/ --domains https://shop.example');
	ctlOf(B, 'update powq --pow on --pow-bits 8');
	const last = () => Number(sql("SELECT last_number FROM queue WHERE " +
	    "slug = 'powq'", B.db)[0][0]);
	const c = await get(`${s}/queue/powq/pow`);
	assert.equal(c.status, 200, c.text);
	const body = { pow: { challenge: c.json.challenge,
	    nonce: solve(c.json.challenge, c.json.bits) } };
	const before = last();
	// The queue's row locked for 0.7 s (the join waits up to 1 s).
	const locker = spawn('mariadb', ['--no-defaults',
	    `--socket=${env.vardir}/db/mysqld.sock`, '--user=root', B.db,
	    '-e', "BEGIN; SELECT id FROM queue WHERE slug = 'powq' FOR " +
	    'UPDATE; SELECT SLEEP(0.7); COMMIT'], { stdio: 'ignore' });
	const lockerDone = new Promise((r) => locker.on('exit', r));
	let held = false;
	for (let i = 0; i < 100 && !held; i++) {
		held = sql('SELECT COUNT(*) FROM information_schema.PROCESSLIST ' +
		    "WHERE INFO LIKE 'SELECT SLEEP(0.7)%'")[0][0] === '1';
		if (!held)
			await sleep(20);
	}
	assert.ok(held, 'the row lock is held');
	let firstAt = 0;
	const first = post(`${s}/queue/powq/join`, body).then((r) => {
		firstAt = Date.now();
		return r;
	});
	await sleep(100);
	const replays = [];
	for (let i = 0; i < 3; i++) {
		const r = await post(`${s}/queue/powq/join`, body);
		replays.push({ status: r.status, error: r.json?.error,
		    at: Date.now() });
	}
	const r1 = await first;
	await lockerDone;
	assert.equal(r1.status, 200, r1.text);
	for (const r of replays) {
		assert.deepEqual([r.status, r.error], [428, 'challenge_used']);
		assert.ok(r.at < firstAt, 'answered while the first join was ' +
		    'held in its process: by another process');
	}
	const again = await post(`${s}/queue/powq/join`, body);
	assert.deepEqual([again.status, again.json?.error],
	    [428, 'challenge_used'], again.text);
	assert.equal(last(), before + 1, 'one number for one solution');
	for (const f of ['pow-used.shm', 'gates.shm', 'stale-answers.shm'])
		assert.equal(statSync(`${B.home}/aqueue/var/run/${f}`).mode &
		    0o777, 0o600, f);
});

test("Apache's error log: no request denied, none at the server's root",
    { skip }, () => {
	// Every request the tests sent went under /~account/warteraum; a
	// "client denied" line would be a request (or mod_fcgid's look-up of
	// PATH_INFO, see hosting.mjs) that reached the denied root folder.
	const lines = readFileSync(apache.log, 'utf8').split('\n');
	const denied = lines.filter((l) => /client denied/.test(l));
	assert.deepEqual(denied.slice(0, 3), [], `${denied.length} lines`);
	assert.ok(lines.some((l) => /resuming normal operations/.test(l)),
	    'the log is the server\'s');
});
