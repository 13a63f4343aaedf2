// The console's users, log-in, sessions and CSRF tokens: aqueuectl user
// (password on stdin, never argv), the cookie's attributes, throttling
// per user name and address and per client address with exact counts
// (failures from one address never lock the name out from another: see
// also 50-login-protect, with real source addresses), logout ending
// every session of the user, idle and absolute expiry, and CSRF
// rejection that leaves the queue as it was.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createQueue, show, startExtraPool, sleep, dbSQL } from './lib.mjs';
import { Client, addUser, ctlIn, csrfOf } from './console.mjs';

let addrN = 0;
// A fresh client address for each throttling test (10.77.0.x).
const freshAddr = () => `10.77.${Math.floor(++addrN / 250)}.${addrN % 250}`;

test('aqueuectl user: add from stdin, duplicates, bad passwords, list',
    () => {
	const u = addUser();
	const hash = dbSQL('SELECT password_hash FROM admin_user WHERE ' +
	    `name = '${u.name}'`)[0][0];
	assert.match(hash, /^\$argon2id\$v=19\$m=65536,t=3,p=1\$/);
	assert.ok(!hash.includes(u.password));
	let r = ctlIn('another-password-1\n', 'user', 'add', u.name);
	assert.equal(r.status, 3, r.stderr);
	assert.match(r.stderr, /exists/);
	r = ctlIn('short\n', 'user', 'add', 'someone-new');
	assert.equal(r.status, 2);
	// A password on the command line is not an option.
	r = ctlIn('', 'user', 'add', 'x-user', 'a-password-in-argv');
	assert.equal(r.status, 2);
	r = ctlIn('', 'user', 'list', '--json');
	assert.equal(r.status, 0);
	const me = JSON.parse(r.stdout).find((x) => x.name === u.name);
	assert.deepEqual([me.name, me.disabled], [u.name, false]);
	r = ctlIn('', 'user', 'disable', 'no-such-user-here');
	assert.equal(r.status, 5);
});

test('log-in sets a session cookie: HttpOnly, SameSite=Strict, ' +
    'Path=/ (the install root); Secure except on plain-http loopback',
async () => {
	const u = addUser();
	const c = new Client();
	const r = await c.login(u.name, u.password);
	assert.equal(r.status, 303, r.text);
	assert.equal(r.location, '/admin/');
	const sc = c.setCookies.find((x) => x.startsWith('aq_session='));
	assert.match(sc, /^aq_session=[A-Za-z0-9_-]{43}; Path=\/; /);
	assert.match(sc, /; HttpOnly/);
	assert.match(sc, /; SameSite=Strict/);
	assert.doesNotMatch(sc, /Secure/);
	// Only the id's SHA-256 is stored.
	const sid = c.jar.get('aq_session');
	const n = dbSQL('SELECT COUNT(*) FROM admin_session WHERE id_hash = ' +
	    `UNHEX(SHA2(FROM_BASE64('${sid.replace(/-/g, '+')
	    .replace(/_/g, '/')}='), 256))`)[0][0];
	assert.equal(n, '1');
	const home = await c.get('/admin/');
	assert.equal(home.status, 200);
	assert.match(home.text, /<h1>Queues<\/h1>/);

	for (const [extra, addr] of [[{ HTTPS: 'on' }, '127.0.0.1'],
	    [{}, '10.1.2.3']]) {
		const f = new Client({ sock: undefined, addr, extra });
		f.sock = process.env.AQ_FCGI_SOCK;
		const x = await f.login(u.name, u.password);
		assert.equal(x.status, 303, x.text);
		assert.match(f.setCookies[0], /; Secure/);
	}
});

test('under a path prefix the console carries it: redirects, the ' +
    'cookie\'s Path and every console URL of its pages', async () => {
	const u = addUser();
	const q = createQueue();
	let r;
	// Installed under /warteraum/ (mod_fcgid style: SCRIPT_NAME and
	// PATH_INFO): the redirect and the cookie carry the prefix.
	const p = new Client({ extra: { SCRIPT_NAME: '/warteraum/aqueue.fcgi',
	    PATH_INFO: '/admin/login' } });
	p.sock = process.env.AQ_FCGI_SOCK;
	const page = await p.get('/warteraum/admin/login');
	assert.equal(page.status, 200, page.text);
	r = await p.post('/warteraum/admin/login', { csrf: csrfOf(page.text),
	    user: u.name, password: u.password });
	assert.equal(r.status, 303, r.text);
	assert.equal(r.location, '/warteraum/admin/');
	assert.match(p.setCookies[0],
	    /^aq_session=[A-Za-z0-9_-]{43}; Path=\/warteraum\/; HttpOnly; /);
	// Every console URL of its pages carries the prefix.
	for (const path of ['/admin/', `/admin/queue/${q.slug}`,
	    `/admin/queue/${q.slug}/keys`, '/admin/audit']) {
		p.extra.PATH_INFO = path;
		const pg = await p.get(`/warteraum${path}`);
		assert.equal(pg.status, 200, `${path}: ${pg.text}`);
		const urls = [...pg.text.matchAll(
		    /(?:href|action|data-live)="(\/[^"]*)"/g)].map((m) => m[1]);
		assert.ok(urls.filter((x) => x.startsWith('/warteraum/admin'))
		    .length >= 4, `${path}: ${urls.join(' ')}`);
		assert.deepEqual(urls.filter((x) => x.startsWith('/admin')),
		    [], `${path}: console URLs without the prefix`);
	}
	p.extra.PATH_INFO = '/admin/';
	const token = csrfOf((await p.get('/warteraum/admin/')).text);
	p.extra.PATH_INFO = '/admin/logout';
	r = await p.post('/warteraum/admin/logout', { csrf: token });
	assert.equal(r.status, 303, r.text);
	assert.equal(r.location, '/warteraum/admin/login');
});

test('no session: pages redirect to the log-in, JSON and POST get 401',
    async () => {
	const c = new Client();
	let r = await c.get('/admin/');
	assert.equal(r.status, 303);
	assert.equal(r.location, '/admin/login');
	const q = createQueue();
	r = await c.get(`/admin/queue/${q.slug}/live`);
	assert.equal(r.status, 401);
	assert.equal(r.json.error, 'not_logged_in');
	r = await c.post(`/admin/queue/${q.slug}/pause`, { csrf: 'x' });
	assert.equal(r.status, 401);
	assert.equal(show(q.slug).active, true);
	// A forged session id opens nothing.
	c.jar.set('aq_session', 'A'.repeat(43));
	r = await c.get('/admin/');
	assert.equal(r.status, 303);
});

test('CSRF: a change without the session token, or with a wrong one, is ' +
    'refused with 403 and changes nothing', async () => {
	const u = addUser();
	const c = new Client();
	assert.equal((await c.login(u.name, u.password)).status, 303);
	const q = createQueue({ rate: 60 });
	let r = await c.post(`/admin/queue/${q.slug}/pause`, {});
	assert.equal(r.status, 403);
	assert.match(r.text, /CSRF/);
	r = await c.post(`/admin/queue/${q.slug}/rate`,
	    { csrf: 'B'.repeat(43), rate: '5' });
	assert.equal(r.status, 403);
	// Another session's token is no good either.
	const other = new Client();
	await other.login(u.name, u.password);
	r = await c.post(`/admin/queue/${q.slug}/rate`,
	    { csrf: await other.csrf(), rate: '5' });
	assert.equal(r.status, 403);
	const s = show(q.slug);
	assert.equal(s.active, true);
	assert.equal(s.ratePerMinute, 60);
	// The right token works; the header form too.
	r = await c.post(`/admin/queue/${q.slug}/rate`,
	    { csrf: await c.csrf(), rate: '5' });
	assert.equal(r.status, 303, r.text);
	assert.equal(show(q.slug).ratePerMinute, 5);
	r = await c.post(`/admin/queue/${q.slug}/pause`, {},
	    { headers: { 'x-csrf-token': await c.csrf() } });
	assert.equal(r.status, 303);
	assert.equal(show(q.slug).active, false);
	// The log-in form has its own token (cookie and field).
	const fresh = new Client();
	r = await fresh.post('/admin/login', { user: u.name,
	    password: u.password, csrf: 'C'.repeat(43) });
	assert.equal(r.status, 403);
	assert.equal(fresh.jar.has('aq_session'), false);
});

test('logout ends every session of the user', async () => {
	const u = addUser();
	const a = new Client(), b = new Client();
	await a.login(u.name, u.password);
	await b.login(u.name, u.password);
	assert.equal((await b.get('/admin/')).status, 200);
	const r = await a.post('/admin/logout', { csrf: await a.csrf() });
	assert.equal(r.status, 303);
	assert.equal(r.location, '/admin/login');
	assert.equal((await a.get('/admin/')).status, 303);
	assert.equal((await b.get('/admin/')).status, 303);
	assert.equal(dbSQL('SELECT COUNT(*) FROM admin_session s JOIN ' +
	    `admin_user u ON u.id = s.user_id WHERE u.name = '${u.name}'`)
	    [0][0], '0');
});

test('disabling a user ends its sessions and refuses its log-in',
    async () => {
	const u = addUser();
	const c = new Client();
	await c.login(u.name, u.password);
	assert.equal(ctlIn('', 'user', 'disable', u.name).status, 0);
	assert.equal((await c.get('/admin/')).status, 303);
	const d = new Client({ sock: process.env.AQ_FCGI_SOCK,
	    addr: freshAddr() });
	assert.equal((await d.login(u.name, u.password)).status, 401);
	assert.equal(ctlIn('', 'user', 'enable', u.name).status, 0);
	assert.equal((await d.login(u.name, u.password)).status, 303);
});

test('throttling per user name and address: 5 failures of a name from ' +
    'one address, the 6th attempt from it is 429 even with the right ' +
    'password; from another address the name gets in after at most its ' +
    'pace; other users are not affected', async () => {
	const u = addUser(), v = addUser();
	const addr = freshAddr();
	const from = (a) => new Client({ sock: process.env.AQ_FCGI_SOCK,
	    addr: a });
	// Failures count by the name in any case.
	const first = Date.now();
	for (let i = 1; i <= 5; i++) {
		const r = await from(addr).login(i % 2 ? u.name :
		    u.name.toUpperCase(), 'wrong-password-123');
		assert.equal(r.status, 401, `attempt ${i}`);
		assert.match(r.text, /Wrong user name or password/);
	}
	let r = await from(addr).login(u.name, u.password);
	const since = Date.now() - first;
	assert.equal(r.status, 429);
	// The seconds until the first failure leaves the 900 s window
	// (login-window), rounded up: at most 900, and less by no more than
	// the time since that failure was sent.
	const retry = Number(r.h('retry-after'));
	assert.ok(Number.isInteger(retry) && retry <= 900 &&
	    retry >= 900 - Math.ceil(since / 1000),
	    `Retry-After ${retry}, ${since} ms after the first failure`);
	// Another address: the name's pace (at most login-user-backoff,
	// 4 s, after its last failure), never the window.
	const other = freshAddr();
	r = await from(other).login(u.name, u.password);
	if (r.status === 429) {
		const s = Number(r.h('retry-after'));
		assert.ok(s >= 1 && s <= 4, `pace ${s}`);
		await sleep(s * 1000);
		r = await from(other).login(u.name, u.password);
	}
	assert.equal(r.status, 303);
	assert.equal((await from(freshAddr()).login(v.name, v.password))
	    .status, 303);
	// A success forgets the failures of its own address.
	const mine = freshAddr();
	for (let i = 1; i <= 4; i++)
		assert.equal((await from(mine).login(v.name, 'nope-nope-nope'))
		    .status, 401);
	assert.equal((await from(mine).login(v.name, v.password)).status, 303);
	for (let i = 1; i <= 4; i++)
		assert.equal((await from(mine).login(v.name, 'nope-nope-nope'))
		    .status, 401, `after reset ${i}`);
	assert.equal((await from(mine).login(v.name, v.password)).status, 303);
});

test('throttling per address: 20 failures from one address, the 21st ' +
    'attempt from it is 429; another address logs in', async () => {
	const u = addUser();
	const addr = freshAddr();
	const c = () => new Client({ sock: process.env.AQ_FCGI_SOCK, addr });
	for (let i = 1; i <= 20; i++) {
		const r = await c().login(`nobody-${i}-${addr}`,
		    'wrong-password-123');
		assert.equal(r.status, 401, `attempt ${i}`);
	}
	assert.equal((await c().login(u.name, u.password)).status, 429);
	const other = new Client({ sock: process.env.AQ_FCGI_SOCK,
	    addr: freshAddr() });
	assert.equal((await other.login(u.name, u.password)).status, 303);
});

test('session expiry: idle (session-idle) and absolute (session-max)',
    async () => {
	const u = addUser();
	const pool = await startExtraPool({ workers: 2,
	    extra: 'session-idle = 2\nsession-max = 5\n' +
	    'stats-interval-ms = 0' });
	try {
		const c = new Client({ sock: pool.sock });
		assert.equal((await c.login(u.name, u.password)).status, 303);
		assert.equal((await c.get('/admin/')).status, 200);
		await sleep(2300);
		let r = await c.get('/admin/');
		assert.equal(r.status, 303, 'idle for 2.3 s > 2 s');
		assert.equal(r.location, '/admin/login');

		// Never idle for 2 s, yet over after 5 s.  The pool sees a
		// request between its sending and its answer, and the session
		// begins between the log-in's: so a request answered less than
		// 5 s after the log-in was sent and less than 2 s after the
		// previous one was sent must find the session (a slower answer
		// on a loaded machine proves nothing and ends the checks), and
		// one sent 5 s after the log-in's answer must not.
		const d = new Client({ sock: pool.sock });
		const t0 = Date.now();
		assert.equal((await d.login(u.name, u.password)).status, 303);
		const t1 = Date.now();
		let prev = t0, alive = 0;
		while (Date.now() - t1 < 4200) {
			const sent = Date.now();
			r = await d.get('/admin/');
			const at = Date.now();
			if (at - t0 >= 5000 || at - prev >= 2000)
				break;
			assert.equal(r.status, 200, `at ${at - t0} ms`);
			alive = sent;
			prev = sent;
			await sleep(1000);
		}
		assert.ok(alive - t1 > 2000, 'used, the session outlived ' +
		    `session-idle: last seen ${alive - t1} ms after the log-in`);
		await sleep(Math.max(0, 5300 - (Date.now() - t1)));
		r = await d.get('/admin/');
		assert.equal(r.status, 303, 'past session-max');
	} finally {
		await pool.stop();
	}
});

test('the log-in page and errors escape what the user typed', async () => {
	const c = new Client({ sock: process.env.AQ_FCGI_SOCK,
	    addr: freshAddr() });
	const r = await c.login('<script>x</script>', 'whatever-long-pw');
	assert.equal(r.status, 401);
	assert.ok(!r.text.includes('<script>x'));
	assert.match(r.text, /&lt;script&gt;x&lt;\/script&gt;/);
	assert.ok(csrfOf(r.text) !== null);
});
