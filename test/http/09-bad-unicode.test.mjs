// Promise 4, "bad input changes nothing": every string the product takes
// is Unicode, or the request is refused with nothing stored.
//
// json-c turns an escaped unpaired surrogate ("\ud800") into U+FFFD, so a
// PATCH of a queue's name with it answered 200 and stored an altered
// name.  Here every body of every visitor and admin endpoint that takes
// one gets the escapes and raw bytes that are not UTF-8
// (overlong, encoded surrogate, above U+10FFFF, cut short): each answer
// is exactly 400 invalid_unicode, and the queue's row, its audit log,
// keys, auto-rate settings and log, presence rows and lastNumber are as
// before.  The console's forms and aqueuectl's stored arguments refuse
// the same bytes.  Positive controls: a valid escaped pair and U+FFFD
// are taken, and stored as the characters they stand for.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
	createQueue, ctl, dbSQL, env, join, req, show, uniqueSlug,
} from './lib.mjs';
import { Client, addUser } from './console.mjs';

// The inputs and raw bytes that are not UTF-8, each as a whole
// JSON string (quotes included).
const q8 = (...b) => Buffer.from([0x22, ...b, 0x22]);
const BAD = [
	['"\\ud800"', Buffer.from('"\\ud800"')],
	['"\\udc00"', Buffer.from('"\\udc00"')],
	['"\\ud800x"', Buffer.from('"\\ud800x"')],
	['"\\ud800\\u0041"', Buffer.from('"\\ud800\\u0041"')],
	['raw C3 28', q8(0xc3, 0x28)],
	['raw overlong C0 AF', q8(0xc0, 0xaf)],
	['raw ED A0 80 (an encoded surrogate)', q8(0xed, 0xa0, 0x80)],
	['raw F5 80 80 80', q8(0xf5, 0x80, 0x80, 0x80)],
	['raw C3, cut short', q8(0xc3)],
];

// A JSON object text: pre, then the bad string, then post.
const body = (pre, bad, post = '}') =>
    Buffer.concat([Buffer.from(pre), bad, Buffer.from(post)]);

const JSON_H = { 'content-type': 'application/json' };

function assertInvalidUnicode(r) {
	assert.equal(r.status, 400, r.text);
	assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
	assert.equal(r.json?.error, 'invalid_unicode', r.text);
	assert.match(r.json.message, /Unicode/);
}

const row = (sql) => JSON.stringify(dbSQL(sql));
const idOf = (slug) => Number(dbSQL('SELECT id FROM queue WHERE slug = ' +
    `'${slug}'`)[0][0]);

// What an admin change could touch, for queue id: the row, its audit
// log, its keys, its auto-rate settings and log.
function stateOf(id) {
	return {
		queue: row(`SELECT * FROM queue WHERE id = ${id}`),
		audit: row(`SELECT COUNT(*), MAX(id) FROM audit_log WHERE ` +
		    `queue_id = ${id}`),
		keys: row(`SELECT COUNT(*) FROM api_key WHERE queue_id = ${id}`),
		autorate: row(`SELECT * FROM queue_autorate WHERE ` +
		    `queue_id = ${id}`),
		arlog: row(`SELECT COUNT(*) FROM autorate_log WHERE ` +
		    `queue_id = ${id}`),
	};
}

// fn(bad) for every bad string, each refused with nothing changed.
async function eachRefused(t, id, fn) {
	for (const [name, bad] of BAD) {
		await t.test(name, async () => {
			const before = stateOf(id);
			assertInvalidUnicode(await fn(bad));
			assert.deepEqual(stateOf(id), before, 'nothing changed');
		});
	}
}

// ---- the visitor's bodies ------------------------------------------------

test('visitor bodies: /join, /token, /heartbeat', async (t) => {
	const q = createQueue({ rate: 1, burst: 1 });
	ctl('update', q.slug, '--abandon', 'on');
	const path = (p) => `/queue/${q.slug}/${p}`;
	const first = await join(q.slug);
	assert.equal(first.status, 200, first.text);
	// A number far behind (rate 1, burst 1), for the heartbeats: it
	// stays waiting for minutes.
	let w = await join(q.slug);
	for (let i = 0; i < 5 || w.json.admitted; i++)
		w = await join(q.slug);
	assert.equal(w.json.admitted, false);
	const presence = () => row('SELECT COUNT(*) FROM queue_presence ' +
	    `WHERE queue_id = ${idOf(q.slug)} AND number = ${w.json.number}`);
	const post = (p, b) => req(path(p), { method: 'POST', headers: JSON_H,
	    body: b });

	// Each refused, with no number taken and nothing recorded.
	const refused = async (tt, fn) => {
		for (const [name, bad] of BAD) {
			await tt.test(name, async () => {
				const last = show(q.slug).lastNumber;
				const r = await fn(bad);
				assertInvalidUnicode(r);
				assert.equal(r.json.token, undefined);
				assert.equal(show(q.slug).lastNumber, last,
				    'a number was taken');
				assert.equal(presence(), '[["0"]]');
			});
		}
	};
	await t.test('join', (tt) => refused(tt, (bad) =>
	    post('join', body('{"note":', bad))));
	await t.test('token, with the right ticket', (tt) => refused(tt,
	    (bad) => post('token', body(`{"number":${first.json.number},` +
	    `"ticket":"${first.json.ticket}","x":`, bad))));
	await t.test('token: the ticket itself', (tt) => refused(tt, (bad) =>
	    post('token', body(`{"number":${first.json.number},"ticket":`,
	    bad))));
	await t.test('heartbeat, with the right ticket', (tt) => refused(tt,
	    (bad) => post('heartbeat', body(`{"number":${w.json.number},` +
	    `"ticket":"${w.json.ticket}","x":`, bad))));
	await t.test('the joins around them are consecutive', async () => {
		const last = show(q.slug).lastNumber;
		assert.equal(last, w.json.number);
		const j = await join(q.slug);
		assert.equal(j.json.number, last + 1);
	});
	// Controls: the same bodies with a valid pair are taken.
	await t.test('controls: a valid pair and U+FFFD pass', async () => {
		let r = await post('token', `{"number":${first.json.number},` +
		    `"ticket":"${first.json.ticket}",` +
		    '"x":"\\ud83d\\ude00\\ufffd"}');
		assert.equal(r.status, 200, r.text);
		assert.equal(typeof r.json.token, 'string');
		r = await post('heartbeat', `{"number":${w.json.number},` +
		    `"ticket":"${w.json.ticket}","x":"\\ud83d\\ude00"}`);
		assert.equal(r.status, 204);
		assert.equal(presence(), '[["1"]]', 'the heartbeat counted');
		const last = show(q.slug).lastNumber;
		r = await post('join', '{"note":"\\ud83d\\ude00"}');
		assert.equal(r.status, 200, r.text);
		assert.equal(r.json.number, last + 1);
	});
});

// ---- the admin API -------------------------------------------------------

const SITES = '/api/admin/queue/sites';

test('admin API with a key: PATCH, pause, resume, auto-rate', async (t) => {
	const q = createQueue({ rate: 60 });
	const id = idOf(q.slug);
	const key = /^key: (qak_\S+)$/m.exec(ctl('key', 'create', q.slug,
	    '--name', 'unicode'))[1];
	const H = { authorization: `Bearer ${key}`, ...JSON_H };
	const call = (method, p, b) => req(`${SITES}/${id}${p}`,
	    { method, headers: H, body: b });
	// An auto-rate test that runs writes a log row (refused: port 9);
	// the private network is allowed by the operator (never a key).
	ctl('autorate', 'set', q.slug, '--allow-private', '1',
	    '--health-url', 'http://127.0.0.1:9/health');
	let r = await call('PATCH', '/autorate', JSON.stringify({
	    healthUrl: 'http://127.0.0.1:9/health',
	    allowPrivateNetwork: true, rules: 'responseTimeMs < 500' }));
	assert.equal(r.status, 200, r.text);

	await t.test('the issue: PATCH {"name":"\\ud800"}', async () => {
		const before = stateOf(id);
		assertInvalidUnicode(await call('PATCH', '',
		    '{"name":"\\ud800"}'));
		assert.deepEqual(stateOf(id), before);
		assert.equal(show(q.slug).name, q.name);
	});
	await t.test('PATCH name', (tt) => eachRefused(tt, id, (bad) =>
	    call('PATCH', '', body('{"name":', bad))));
	await t.test('PATCH message, with a good rate beside it', (tt) =>
	    eachRefused(tt, id, (bad) => call('PATCH', '',
	    body('{"ratePerMinute":120,"message":', bad))));
	await t.test('PATCH an unknown member', (tt) => eachRefused(tt, id,
	    (bad) => call('PATCH', '', body('{"ratePerMinute":120,"x":',
	    bad))));
	await t.test('pause', (tt) => eachRefused(tt, id, (bad) =>
	    call('POST', '/pause', body('{"reason":', bad))));
	ctl('pause', q.slug);
	await t.test('resume', (tt) => eachRefused(tt, id, (bad) =>
	    call('POST', '/resume', body('{"reason":', bad))));
	ctl('resume', q.slug);
	await t.test('auto-rate PATCH', (tt) => eachRefused(tt, id, (bad) =>
	    call('PATCH', '/autorate', body('{"intervalSeconds":30,"rules":',
	    bad))));
	await t.test('auto-rate test', (tt) => eachRefused(tt, id, (bad) =>
	    call('POST', '/autorate/test', body('{"x":', bad))));

	await t.test('controls: valid text is taken as its characters',
	    async () => {
		const arlog = stateOf(id).arlog;
		r = await call('POST', '/autorate/test', '{}');
		assert.equal(r.status, 200, r.text);
		assert.equal(r.json.passed, false);
		assert.notDeepEqual(stateOf(id).arlog, arlog, 'the test ran');
		r = await call('PATCH', '', '{"name":"Sale \\ud83d\\ude00",' +
		    '"message":"\\ufffd \uFFFD"}');
		assert.equal(r.status, 200, r.text);
		const s = show(q.slug);
		assert.equal(s.name, 'Sale \u{1F600}');
		assert.equal(s.message, '\uFFFD \uFFFD');
		r = await call('PATCH', '/autorate',
		    '{"rules":"responseTimeMs \\u2264 500"}');
		assert.equal(r.status, 200, r.text);
		assert.equal(r.json.rules, 'responseTimeMs <= 500');
	});
});

test('admin API with a console session: create, rotate-secret, keys',
    async (t) => {
	const u = addUser();
	const c = new Client();
	assert.equal((await c.login(u.name, u.password)).status, 303);
	const H = { cookie: c.cookieHeader(), 'x-csrf-token': await c.csrf(),
	    ...JSON_H };
	const q = createQueue({ rate: 60 });
	const id = idOf(q.slug);
	const call = (p, b) => req(`${SITES}${p}`, { method: 'POST',
	    headers: H, body: b });

	await t.test('create', async (tt) => {
		const slug = uniqueSlug('uc');
		for (const [name, bad] of BAD) {
			await tt.test(name, async () => {
				assertInvalidUnicode(await call('', body(
				    `{"slug":"${slug}","ratePerMinute":60,` +
				    '"name":', bad)));
				assert.equal(row('SELECT COUNT(*) FROM queue ' +
				    `WHERE slug = '${slug}'`), '[["0"]]');
				assert.equal(row('SELECT COUNT(*) FROM audit_log ' +
				    `WHERE queue_slug = '${slug}'`), '[["0"]]');
			});
		}
		const r = await call('', `{"slug":"${slug}","ratePerMinute":60,` +
		    '"name":"\\ud83d\\ude00"}');
		assert.equal(r.status, 201, r.text);
		assert.equal(show(slug).name, '\u{1F600}');
	});
	await t.test('rotate-secret', (tt) => eachRefused(tt, id, (bad) =>
	    call(`/${id}/rotate-secret`, body('{"x":', bad))));
	await t.test('keys', (tt) => eachRefused(tt, id, (bad) =>
	    call(`/${id}/keys`, body('{"name":', bad))));
	await t.test('controls: rotate and a key with a valid pair',
	    async () => {
		const before = stateOf(id);
		let r = await call(`/${id}/rotate-secret`, '{"x":"\\ud83d\\ude00"}');
		assert.equal(r.status, 200, r.text);
		r = await call(`/${id}/keys`, '{"name":"k \\ud83d\\ude00"}');
		assert.equal(r.status, 201, r.text);
		assert.equal(r.json.apiKey.name, 'k \u{1F600}');
		const after = stateOf(id);
		assert.notEqual(after.queue, before.queue, 'secret rotated');
		assert.notEqual(after.keys, before.keys, 'key made');
	});
});

// ---- the console's forms -------------------------------------------------

// Bytes that are not UTF-8 as a form sends them: percent-encoded, and raw.
const FORM_BAD = [
	['%ED%A0%80 (an encoded surrogate)', Buffer.from('%ED%A0%80')],
	['%C3%28', Buffer.from('%C3%28')],
	['%C0%AF (overlong)', Buffer.from('%C0%AF')],
	['%F5%80%80%80', Buffer.from('%F5%80%80%80')],
	['%C3 cut short', Buffer.from('%C3')],
	['raw C3 28', Buffer.from([0xc3, 0x28])],
];

test('console forms refuse text that is not UTF-8', async (t) => {
	const u = addUser();
	const c = new Client();
	assert.equal((await c.login(u.name, u.password)).status, 303);
	const csrf = await c.csrf();
	const q = createQueue({ rate: 60 });
	const id = idOf(q.slug);
	const post = (p, pre, bad, post = '') => req(p, { method: 'POST',
	    headers: { cookie: c.cookieHeader(),
	    'content-type': 'application/x-www-form-urlencoded' },
	    body: Buffer.concat([Buffer.from(`csrf=${csrf}&${pre}`), bad,
	    Buffer.from(post)]) });
	const forms = [
		['edit: name', `/admin/queue/${q.slug}/edit`, 'name=',
		    '&rate=120'],
		['edit: message', `/admin/queue/${q.slug}/edit`,
		    'name=Other&message=', ''],
		['rate, with a stray field', `/admin/queue/${q.slug}/rate`,
		    'rate=120&note=', ''],
		['keys: name', `/admin/queue/${q.slug}/keys`, 'name=', ''],
		['pause, with a stray field', `/admin/queue/${q.slug}/pause`,
		    'x=', ''],
	];
	for (const [what, p, pre, post_] of forms) {
		await t.test(what, async (tt) => {
			for (const [name, bad] of FORM_BAD) {
				await tt.test(name, async () => {
					const before = stateOf(id);
					const r = await post(p, pre, bad, post_);
					assert.equal(r.status, 400, r.text);
					assert.match(r.text, /not UTF-8/);
					assert.deepEqual(stateOf(id), before);
				});
			}
		});
	}
	await t.test('create', async (tt) => {
		const slug = uniqueSlug('uf');
		for (const [name, bad] of FORM_BAD) {
			await tt.test(name, async () => {
				const r = await post('/admin/queues',
				    `slug=${slug}&rate=60&name=`, bad);
				assert.equal(r.status, 400, r.text);
				assert.equal(row('SELECT COUNT(*) FROM queue ' +
				    `WHERE slug = '${slug}'`), '[["0"]]');
			});
		}
	});
	await t.test('log-in: nothing counted as a failure', async (tt) => {
		const failures = () => row('SELECT COUNT(*) FROM login_failure');
		for (const [name, bad] of FORM_BAD) {
			await tt.test(name, async () => {
				const fresh = new Client();
				const page = await fresh.get('/admin/login');
				const tok = /name="csrf" value="([^"]*)"/
				    .exec(page.text)[1];
				const before = failures();
				const r = await req('/admin/login', {
				    method: 'POST', headers: {
				    cookie: fresh.cookieHeader(), 'content-type':
				    'application/x-www-form-urlencoded' },
				    body: Buffer.concat([Buffer.from(`csrf=${tok}` +
				    '&password=wrong-password-1&user='), bad]) });
				assert.equal(r.status, 400, r.text);
				assert.match(r.text, /UTF-8/);
				assert.equal(failures(), before);
			});
		}
	});
	await t.test('control: UTF-8 text is taken', async () => {
		const r = await post(`/admin/queue/${q.slug}/edit`, 'name=',
		    Buffer.from('Sale%20%F0%9F%98%80'), '&rate=60');
		assert.equal(r.status, 200, r.text);
		assert.match(r.text, /Saved\./);
		assert.equal(show(q.slug).name, 'Sale \u{1F600}');
	});
});

// ---- aqueuectl -----------------------------------------------------------

// aqueuectl through /bin/sh, so that arguments can hold any bytes
// (printf's octal escapes); returns {status, stderr}.
function ctlShell(words) {
	const r = spawnSync('/bin/sh', ['-c', `${env.ctl} ${words}`],
	    { encoding: 'buffer' });
	return { status: r.status, stderr: r.stderr.toString() };
}

const CTL_BAD = [
	['an encoded surrogate', '\\355\\240\\200'],
	['C3 28', 'a\\303\\050'],
	['overlong C0 AF', '\\300\\257'],
	['F4 90 80 80 (above U+10FFFF)', '\\364\\220\\200\\200'],
	['cut short', 'x\\342\\202'],
];

test('aqueuectl refuses stored arguments that are not UTF-8', async (t) => {
	const q = createQueue({ rate: 60 });
	const id = idOf(q.slug);
	const cases = [
		['update --name', (b) => `update ${q.slug} --name "$(printf '${b}')"`,
		    /--name: not valid UTF-8/],
		['update --message', (b) => `update ${q.slug} --message ` +
		    `"$(printf '${b}')"`, /--message: not valid UTF-8/],
		['update --display-name', (b) => `update ${q.slug} ` +
		    `--display-name "$(printf '${b}')"`,
		    /--display-name: not valid UTF-8/],
		['key create --name', (b) => `key create ${q.slug} --name ` +
		    `"$(printf '${b}')"`, /bad value/],
		['autorate set --rules', (b) => `autorate set ${q.slug} --rules ` +
		    `"$(printf 'cpu < 1${b}')"`, /rules: not valid UTF-8/],
	];
	for (const [what, cmd, msg] of cases) {
		await t.test(what, async (tt) => {
			for (const [name, b] of CTL_BAD) {
				await tt.test(name, () => {
					const before = stateOf(id);
					const r = ctlShell(cmd(b));
					assert.equal(r.status, 2, r.stderr);
					assert.match(r.stderr, msg);
					assert.deepEqual(stateOf(id), before);
				});
			}
		});
	}
	await t.test('create --name', async (tt) => {
		for (const [name, b] of CTL_BAD) {
			await tt.test(name, () => {
				const slug = uniqueSlug('uc');
				const r = ctlShell(`create ${slug} --rate 60 ` +
				    `--name "$(printf '${b}')"`);
				assert.equal(r.status, 2, r.stderr);
				assert.match(r.stderr, /--name: not valid UTF-8/);
				assert.equal(ctlShell(`exists ${slug}`).status, 1);
			});
		}
	});
	await t.test('control: UTF-8 arguments are stored', () => {
		const r = ctlShell(`update ${q.slug} --name ` +
		    '"$(printf \'Sale \\360\\237\\230\\200\')"');
		assert.equal(r.status, 0, r.stderr);
		assert.equal(show(q.slug).name, 'Sale \u{1F600}');
	});
});
