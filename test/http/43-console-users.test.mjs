// The console's users page (/admin/users) and running instances page
// (/admin/instances) through HTTP.  Users: the list (state, created,
// last log-in from the audit log), add (the password typed twice, the
// rules of aqueuectl user add), disable, enable, a new password; each
// change writes exactly one audit row (action, the console user as the
// actor, the client address, never a secret) and a refused one (CSRF
// token missing or wrong, two passwords that differ, a bad name or
// password, a name taken, an operator disabling themself, no such user)
// changes nothing and writes no row.  A disabled user cannot log in.
// Promises: none of the visitor promises is on these paths (no queue,
// number or token is read or written here); promise 4 (a refused
// request changes nothing) is shown for every refusal above.
// The pages take a console session only, never an API key.
// Instances: the processes and the requests per second by kind as
// tables, the same on the dashboard, and the live JSON.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dbSQL, createQueue, join, waitFor } from './lib.mjs';
import { Client, addUser, ctlIn } from './console.mjs';

const me = addUser();
const c = new Client();

async function loggedIn() {
	if (!c.jar.has('aq_session'))
		assert.equal((await c.login(me.name, me.password)).status, 303);
	return c;
}

// The audit rows about console user name (newest last), as
// [action, actor_kind, actor_name, client_addr, after_json].
function auditOf(name) {
	return dbSQL('SELECT action, actor_kind, actor_name, client_addr, ' +
	    'after_json FROM audit_log WHERE action LIKE \'user\\_%\' AND ' +
	    `JSON_VALUE(after_json, '$.user') = '${name}' ORDER BY id`);
}

function userRow(name) {
	return dbSQL('SELECT id, disabled, password_hash FROM admin_user ' +
	    `WHERE name = '${name}'`)[0] ?? null;
}

// "YYYY-MM-DD HH:MM:SS UTC" of Unix ms, as the console writes it.
function utc(ms) {
	const t = new Date(Number(ms)).toISOString();
	return `${t.slice(0, 10)} ${t.slice(11, 19)} UTC`;
}

// The <tr> of user name in the page's #users table.
function rowOf(html, name) {
	const m = new RegExp(`<tr><th scope="row">${name.replace(/\./g,
	    '\\.')}(?: <small>\\(you\\)</small>)?</th>.*?</tr>`).exec(html);
	return m === null ? null : m[0];
}

test('the list: every user with its state, creation and last log-in ' +
    '(from the audit log); linked from the navigation', async () => {
	await loggedIn();
	const home = await c.get('/admin/');
	assert.match(home.text, /<a href="\/admin\/users">Users<\/a>/);
	assert.match(home.text,
	    /<a href="\/admin\/instances">Instances<\/a>/);
	const other = addUser();
	const p = await c.get('/admin/users');
	assert.equal(p.status, 200);
	const [created, last] = dbSQL('SELECT u.created_ms, (SELECT ' +
	    'MAX(at_ms) FROM audit_log WHERE action = \'login\' AND ' +
	    'actor_kind = \'user\' AND actor_id = u.id) FROM admin_user u ' +
	    `WHERE u.name = '${me.name}'`)[0];
	assert.notEqual(last, 'NULL');
	const mine = rowOf(p.text, me.name);
	assert.ok(mine, p.text);
	assert.match(mine, /<small>\(you\)<\/small>/);
	assert.match(mine, new RegExp(`<td>enabled</td><td>${utc(created)}` +
	    `</td><td>${utc(last)}</td>`));
	// No disable button on one's own row; a new password there is.
	assert.ok(!mine.includes('/admin/users/disable'), mine);
	assert.match(mine, /action="\/admin\/users\/password"/);
	// Never logged in: "-".
	const theirs = rowOf(p.text, other.name);
	assert.match(theirs, /<td>enabled<\/td><td>[^<]+ UTC<\/td><td>-<\/td>/);
	assert.match(theirs, /action="\/admin\/users\/disable"/);
	// Labelled fields of the new user's form; never a hash on the page.
	for (const id of ['new-name', 'new-pw', 'new-again'])
		assert.match(p.text, new RegExp(`<label for="${id}">`));
	assert.ok(!p.text.includes('$argon2'));
	// No session: the page sends to the log-in, a change is 401.
	const anon = new Client();
	const g = await anon.get('/admin/users');
	assert.equal(g.status, 303);
	assert.match(g.location, /\/admin\/login$/);
	const post = await anon.post('/admin/users', { name: 'x-anon',
	    password: 'long-enough-pw-1', again: 'long-enough-pw-1' });
	assert.equal(post.status, 401);
	assert.equal(userRow('x-anon'), null);
	// An API key is no session: it never reaches the console.
	const q = createQueue();
	const key = /key: (qak_\S+)/.exec(ctlIn('', 'key', 'create', q.slug,
	    '--name', 'not-for-the-console').stdout)[1];
	const auth = { authorization: `Bearer ${key}` };
	const kg = await anon.get('/admin/users', { headers: auth });
	assert.equal(kg.status, 303);
	assert.equal((await anon.get('/admin/instances/live',
	    { headers: auth })).status, 401);
	const kp = await anon.post('/admin/users', { name: 'x-key',
	    password: 'long-enough-pw-1', again: 'long-enough-pw-1' },
	    { headers: auth });
	assert.equal(kp.status, 401);
	assert.equal(userRow('x-key'), null);
});

test('add: refusals change nothing; a good one is one user_add row ' +
    'by the console user, and the new user logs in', async () => {
	await loggedIn();
	const csrf = await c.csrf();
	const name = `n-${Date.now().toString(36)}`;
	const pw = 'a-fine-password-1';
	const before = dbSQL('SELECT COUNT(*) FROM audit_log')[0][0];
	const refusals = [
		[{ name, password: pw, again: pw }, 403, /CSRF/],
		[{ csrf: 'A'.repeat(43), name, password: pw, again: pw }, 403,
		    /CSRF/],
		[{ csrf, name, password: pw, again: `${pw}x` }, 422,
		    /The two passwords differ\. Nothing was changed\./],
		[{ csrf, name, password: 'short-pw', again: 'short-pw' }, 422,
		    /A password has 12 to 1024 bytes\./],
		[{ csrf, name: 'bad name', password: pw, again: pw }, 422,
		    /A user name has 1 to 64 characters/],
		[{ csrf, name: me.name.toUpperCase(), password: pw,
		    again: pw }, 409, /A user of that name exists/],
	];
	for (const [form, status, text] of refusals) {
		const r = await c.post('/admin/users', form);
		assert.equal(r.status, status, JSON.stringify(form));
		assert.match(r.text, text);
		assert.equal(userRow(name), null);
	}
	// The name typed is kept in the form; never the password.
	const kept = await c.post('/admin/users', { csrf, name,
	    password: pw, again: 'other-password-2' });
	assert.match(kept.text, new RegExp(`id="new-name"[^>]* value="` +
	    `${name}"`));
	assert.ok(!kept.text.includes(pw));
	assert.equal(dbSQL('SELECT COUNT(*) FROM audit_log')[0][0], before,
	    'no audit row for a refusal');

	const r = await c.post('/admin/users', { csrf, name, password: pw,
	    again: pw });
	assert.equal(r.status, 201, r.text);
	assert.match(r.text, new RegExp(`User ${name} was added\\.`));
	assert.ok(rowOf(r.text, name));
	const [id, disabled, hash] = userRow(name);
	assert.equal(disabled, '0');
	assert.match(hash, /^\$argon2id\$v=19\$/);
	const rows = auditOf(name);
	assert.equal(rows.length, 1);
	const [action, kind, actor, addr, after] = rows[0];
	assert.deepEqual([action, kind, actor, addr], ['user_add', 'user',
	    me.name, '127.0.0.1']);
	assert.deepEqual(JSON.parse(after), { user: name, userId: Number(id) });
	// One table of users with aqueuectl: it finds the name taken.
	assert.equal(ctlIn(`${pw}\n`, 'user', 'add', name).status, 3);
	const n = new Client();
	assert.equal((await n.login(name, pw)).status, 303);
	assert.equal((await n.get('/admin/')).status, 200);
});

test('disable and enable: a disabled user cannot log in and loses its ' +
    'sessions; an operator cannot disable themself', async () => {
	await loggedIn();
	const csrf = await c.csrf();
	const v = addUser();
	const vc = new Client();
	assert.equal((await vc.login(v.name, v.password)).status, 303);
	assert.equal((await vc.get('/admin/')).status, 200);

	// A wrong token: refused, nothing changed.
	let r = await c.post('/admin/users/disable', { csrf: 'B'.repeat(43),
	    name: v.name });
	assert.equal(r.status, 403);
	assert.equal(userRow(v.name)[1], '0');
	assert.deepEqual(auditOf(v.name).map((x) => x[0]), ['user_add']);

	r = await c.post('/admin/users/disable', { csrf, name: v.name });
	assert.equal(r.status, 200, r.text);
	assert.match(r.text, new RegExp(`User ${v.name} was disabled`));
	assert.match(rowOf(r.text, v.name), /<td>disabled<\/td>/);
	assert.equal(userRow(v.name)[1], '1');
	const rows = auditOf(v.name);
	assert.deepEqual(rows.map((x) => x.slice(0, 4)), [
		['user_add', 'cli', rows[0][2], ''],
		['user_disable', 'user', me.name, '127.0.0.1']]);
	// Its session ended; its log-in fails like a wrong password.
	const gone = await vc.get('/admin/');
	assert.equal(gone.status, 303);
	const again = new Client();
	assert.equal((await again.login(v.name, v.password)).status, 401);

	// Oneself: refused with the reason, nothing changed, no row.
	const mineBefore = auditOf(me.name).length;
	r = await c.post('/admin/users/disable', { csrf, name: me.name });
	assert.equal(r.status, 403);
	assert.match(r.text, /You cannot disable yourself; another user can, /);
	assert.match(r.text, /Nothing was changed\./);
	assert.equal(userRow(me.name)[1], '0');
	assert.equal(auditOf(me.name).length, mineBefore);
	assert.equal((await c.get('/admin/users')).status, 200,
	    'still logged in');
	// Another case of one's own name is still oneself.
	r = await c.post('/admin/users/disable', { csrf,
	    name: me.name.toUpperCase() });
	assert.equal(r.status, 403);
	assert.equal(userRow(me.name)[1], '0');

	// No such user: 404, nothing written.
	const count = dbSQL('SELECT COUNT(*) FROM audit_log')[0][0];
	r = await c.post('/admin/users/enable', { csrf, name: 'no-such-user' });
	assert.equal(r.status, 404);
	assert.match(r.text, /There is no such user\./);
	assert.equal(dbSQL('SELECT COUNT(*) FROM audit_log')[0][0], count);

	// Enabled again: it logs in.
	r = await c.post('/admin/users/enable', { csrf, name: v.name });
	assert.equal(r.status, 200);
	assert.match(r.text, new RegExp(`User ${v.name} was enabled\\.`));
	assert.deepEqual(auditOf(v.name).map((x) => x[0]), ['user_add',
	    'user_disable', 'user_enable']);
	assert.equal((await again.login(v.name, v.password)).status, 303);
});

test('a new password: refusals keep the old one; a good one ends the ' +
    'sessions, the old password fails, the new one works', async () => {
	await loggedIn();
	const csrf = await c.csrf();
	const v = addUser();
	const vc = new Client();
	assert.equal((await vc.login(v.name, v.password)).status, 303);
	const hash = userRow(v.name)[2];
	const np = 'the-new-password-9';
	for (const [form, status] of [
		[{ name: v.name, password: np, again: np }, 403],
		[{ csrf, name: v.name, password: np, again: `${np}!` }, 422],
		[{ csrf, name: v.name, password: 'short', again: 'short' },
		    422],
		[{ csrf, name: 'no-such-user', password: np, again: np }, 404],
	]) {
		const r = await c.post('/admin/users/password', form);
		assert.equal(r.status, status, JSON.stringify(form));
		assert.ok(!r.text.includes(np));
		assert.equal(userRow(v.name)[2], hash);
	}
	assert.deepEqual(auditOf(v.name).map((x) => x[0]), ['user_add']);
	assert.equal((await vc.get('/admin/')).status, 200, 'session kept');

	const r = await c.post('/admin/users/password', { csrf,
	    name: v.name, password: np, again: np });
	assert.equal(r.status, 200, r.text);
	assert.match(r.text, new RegExp(`The password of ${v.name} was ` +
	    'changed, and its sessions were ended\\.'));
	assert.ok(!r.text.includes(np));
	assert.notEqual(userRow(v.name)[2], hash);
	const rows = auditOf(v.name);
	assert.deepEqual(rows.at(-1).slice(0, 4), ['user_passwd', 'user',
	    me.name, '127.0.0.1']);
	assert.ok(!rows.at(-1)[4].includes(np) &&
	    !rows.at(-1)[4].includes('argon2'), 'no secret in the row');
	assert.equal((await vc.get('/admin/')).status, 303, 'session ended');
	assert.equal((await new Client().login(v.name, v.password)).status,
	    401);
	assert.equal((await new Client().login(v.name, np)).status, 303);
});

test('running instances: processes and requests per second by kind ' +
    'as tables, on the page, its live JSON and the dashboard', async () => {
	await loggedIn();
	const q = createQueue({ rate: 60 });
	for (let i = 0; i < 3; i++)
		assert.equal((await join(q.slug)).status, 200);
	// The pool reports its rates every instance-report-ms.
	const live = await waitFor(async () => {
		const r = await c.get('/admin/instances/live');
		assert.equal(r.status, 200, r.text);
		return r.json.instances.some((i) => i.kind === 'pool' &&
		    i.requestsPerSecond.join > 0) ? r.json : null;
	}, 20000, 500);
	assert.ok(Math.abs(live.nowMs - Date.now()) < 60000);
	const pool = live.instances.find((i) => i.kind === 'pool' &&
	    i.requestsPerSecond.join > 0);
	const p = await c.get('/admin/instances');
	assert.equal(p.status, 200);
	assert.match(p.text, /data-live="\/admin\/instances\/live"/);
	const kinds = 'room join status token enter verify info admin api ' +
	    'metrics other';
	for (const html of [p.text, (await c.get(`/admin/queue/${q.slug}`))
	    .text]) {
		assert.match(html, new RegExp('<table id="instance-rates" ' +
		    `data-kinds="${kinds}"><caption>Requests per second by ` +
		    'kind</caption><thead><tr><th scope="col">Instance</th>' +
		    kinds.split(' ').map((k) => '<th scope="col" ' +
		    `class="num">${k} /s</th>`).join('') + '</tr>'));
		assert.ok(!html.includes('{&quot;') && !html.includes('{"'),
		    'no raw JSON');
		// The pool's row: its name, then a rate with two decimals
		// per kind.
		const row = new RegExp(`<tr><th scope="row">pool ${pool.host} ` +
		    `${pool.pid}</th>((?:<td class="num">[0-9]+\\.[0-9]{2}` +
		    '</td>){11})</tr>').exec(html);
		assert.ok(row, html);
		assert.match(html, new RegExp(`<td>pool</td><td>${pool.host}` +
		    `</td><td class="num">${pool.pid}</td>`));
		// Started and last report: a time and its age in words.
		assert.match(html, new RegExp('<td>\\d{4}-\\d\\d-\\d\\d ' +
		    '\\d\\d:\\d\\d:\\d\\d UTC \\((under 1 min|\\d+ min|' +
		    '\\d+ h( \\d+ min)?|\\d+ d( \\d+ h)?) ago\\)</td>'));
	}
});
