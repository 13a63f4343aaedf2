// The audit log: every change by the CLI or an API key, with who, the
// queue, the action, the changed fields before and after (exactly),
// the database's time and the client address; written in the same
// transaction as the change, so that a change that fails leaves no row
// and a row that cannot be written undoes the change.  Never a secret.

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { ctl, createQueue, dbSQL, req, show } from './lib.mjs';

const SITES = '/api/admin/queue/sites';

function idOf(slug) {
	return Number(dbSQL(`SELECT id FROM queue WHERE slug = '${slug}'`)[0][0]);
}

// rows(queueId): the audit rows of a queue, oldest first, parsed.
function rows(queueId) {
	return dbSQL('SELECT actor_kind, actor_name, queue_slug, action, ' +
	    "IFNULL(before_json, 'null'), IFNULL(after_json, 'null'), " +
	    'client_addr, at_ms, IFNULL(actor_id, 0) FROM audit_log WHERE ' +
	    `queue_id = ${queueId} ORDER BY id`).map((r) => ({
		kind: r[0], actor: r[1], slug: r[2], action: r[3],
		before: JSON.parse(r[4]), after: JSON.parse(r[5]), addr: r[6],
		at: Number(r[7]), actorId: Number(r[8]) }));
}

function newKey(slug, name) {
	const out = ctl('key', 'create', slug, '--name', name);
	return { id: Number(/^API key (\d+)/m.exec(out)[1]),
	    key: /^key: (qak_\S+)$/m.exec(out)[1] };
}

function patch(id, key, body) {
	return req(`${SITES}/${id}`, { method: 'PATCH', headers: {
	    authorization: `Bearer ${key}`, 'content-type': 'application/json' },
	    body: JSON.stringify(body) });
}

const LOGIN = `cli:${(await import('node:os')).userInfo().username}`;

test('CLI changes: create, update, set-rate, pause, resume, rotation, ' +
    'with exact before/after', () => {
	const q = createQueue({ rate: 60, domains: 'shop.example',
	    target: 'https://shop.example/' });
	const id = idOf(q.slug);
	ctl('update', q.slug, '--name', 'Renamed', '--token-ttl', '900');
	ctl('set-rate', q.slug, '120');
	ctl('pause', q.slug);
	ctl('pause', q.slug);		// no change: no row
	ctl('resume', q.slug);
	const out = ctl('rotate-secret', q.slug);
	const secret = /^secret: (\S+)$/m.exec(out)[1];
	const r = rows(id);
	assert.deepEqual(r.map((x) => x.action), ['create', 'update',
	    'set_rate', 'pause', 'resume', 'rotate_secret']);
	for (const x of r) {
		assert.equal(x.kind, 'cli');
		assert.equal(x.actor, LOGIN);
		assert.equal(x.slug, q.slug);
		assert.equal(x.addr, '');
		assert.equal(x.actorId, 0);
	}
	assert.equal(r[0].before, null);
	assert.deepEqual(r[0].after, { name: q.name,
	    targetUrl: 'https://shop.example/', shopDomains: 'shop.example',
	    ratePerMinute: 60, burst: 0, tokenTtlSeconds: 600,
	    claimWindowSeconds: 600, headerImageUrl: '', displayName: '',
	    message: '', accentColor: '', jsonQueuedStatus: 200,
	    jsonCookieSuffix: '', opensAt: null, abandonment: false,
	    abandonGraceSeconds: 180, powEnabled: false, powBits: 15,
	    sessionRenewal: false, queuingMethod: 'fifo',
	    totalActiveUsers: 0, loadTestQueue: false, numberBlock: 0,
	    active: true });
	assert.deepEqual(r[1].before, { name: q.name, tokenTtlSeconds: 600 });
	assert.deepEqual(r[1].after, { name: 'Renamed', tokenTtlSeconds: 900 });
	assert.deepEqual([r[2].before, r[2].after], [{ ratePerMinute: 60 },
	    { ratePerMinute: 120 }]);
	assert.deepEqual([r[3].before, r[3].after], [{ active: true },
	    { active: false }]);
	assert.deepEqual([r[4].before, r[4].after], [{ active: false },
	    { active: true }]);
	assert.deepEqual([r[5].before, r[5].after], [null, null]);
	// times are the database's and in order
	const now = Number(dbSQL('SELECT CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 ' +
	    'AS SIGNED)')[0][0]);
	for (let i = 0; i < r.length; i++) {
		assert.ok(r[i].at <= now && r[i].at > now - 60000, `${r[i].at}`);
		if (i > 0)
			assert.ok(r[i].at >= r[i - 1].at);
	}
	// never a secret
	const all = dbSQL('SELECT COUNT(*) FROM audit_log WHERE ' +
	    `INSTR(IFNULL(before_json, ''), '${secret}') > 0 OR ` +
	    `INSTR(IFNULL(after_json, ''), '${secret}') > 0`);
	assert.equal(all[0][0], '0');
});

test('a change with an API key: the key name, id and client address; ' +
    'key creation never holds the key', async () => {
	const q = createQueue({ rate: 60 });
	const id = idOf(q.slug);
	const k = newKey(q.slug, 'deploy bot');
	let r = await patch(id, k.key, { ratePerMinute: 240, name: 'Via API' });
	assert.equal(r.status, 200, r.text);
	r = await req(`${SITES}/${id}/pause`, { method: 'POST', headers: {
	    authorization: `Bearer ${k.key}` } });
	assert.equal(r.status, 200, r.text);
	const a = rows(id);
	assert.deepEqual(a.map((x) => x.action), ['create', 'key_create',
	    'update', 'pause']);
	assert.deepEqual([a[1].kind, a[1].before, a[1].after],
	    ['cli', null, { keyId: k.id, name: 'deploy bot' }]);
	for (const x of a.slice(2)) {
		assert.equal(x.kind, 'key');
		assert.equal(x.actor, 'deploy bot');
		assert.equal(x.actorId, k.id);
		assert.equal(x.addr, '127.0.0.1');
	}
	// One PATCH, one change: one row with every field it changed.
	assert.deepEqual([a[2].before, a[2].after], [{ name: q.name,
	    ratePerMinute: 60 }, { name: 'Via API', ratePerMinute: 240 }]);
	assert.deepEqual([a[3].before, a[3].after], [{ active: true },
	    { active: false }]);
	const leak = dbSQL('SELECT COUNT(*) FROM audit_log WHERE ' +
	    `INSTR(IFNULL(after_json, ''), '${k.key.slice(4, 20)}') > 0`);
	assert.equal(leak[0][0], '0');
});

test('the API lists the audit of the key\'s own queue, filtered and ' +
    'paginated', async () => {
	const q = createQueue({ rate: 60 });
	const id = idOf(q.slug);
	const k = newKey(q.slug, 'reader');
	for (const rate of [61, 62, 63])
		assert.equal((await patch(id, k.key, { ratePerMinute: rate }))
		    .status, 200);
	const h = { headers: { authorization: `Bearer ${k.key}` } };
	// A PATCH is audited as "update", whatever it changes.
	let r = await req(`${SITES}/${id}/audit?action=update&limit=2`, h);
	assert.equal(r.status, 200, r.text);
	assert.deepEqual(r.json.entries.map((e) => e.after.ratePerMinute),
	    [63, 62]);
	assert.equal(typeof r.json.next, 'string');
	const e = r.json.entries[0];
	assert.deepEqual(Object.keys(e).sort(), ['action', 'actor',
	    'actorKind', 'after', 'at', 'before', 'clientAddr', 'id', 'siteId',
	    'slug'].sort());
	assert.deepEqual([e.actorKind, e.actor, e.siteId, e.slug, e.before],
	    ['key', 'reader', id, q.slug, { ratePerMinute: 62 }]);
	r = await req(`${SITES}/${id}/audit?action=update&limit=2&` +
	    `cursor=${r.json.next}`, h);
	assert.deepEqual(r.json.entries.map((e) => e.after.ratePerMinute),
	    [61]);
	assert.equal(r.json.next, null);
	r = await req(`${SITES}/${id}/audit?actor=reader`, h);
	assert.equal(r.json.entries.length, 3);
	r = await req(`${SITES}/${id}/audit?actor=nobody`, h);
	assert.deepEqual(r.json.entries, []);
	r = await req(`${SITES}/${id}/audit?since=${e.at + 1}`, h);
	assert.deepEqual(r.json.entries.filter((x) => x.id <= e.id), []);
	r = await req(`${SITES}/${id}/audit?until=${e.at}`, h);
	assert.ok(r.json.entries.every((x) => x.at < e.at));
	r = await req(`${SITES}/${id}/audit?limit=0`, h);
	assert.equal(r.status, 400);
	assert.equal(r.json.error, 'invalid_limit');
});

test('same transaction: a change that fails leaves no audit row', async () => {
	const q = createQueue({ rate: 60 });
	const id = idOf(q.slug);
	const k = newKey(q.slug, 'txn');
	const n0 = rows(id).length;
	// refused input: nothing changed, nothing audited
	let r = await patch(id, k.key, { ratePerMinute: 0 });
	assert.equal(r.status, 422);
	// the queue row's write fails inside the transaction
	dbSQL('DELIMITER //\nCREATE TRIGGER aq_test_fail_update BEFORE ' +
	    'UPDATE ON queue ' +
	    "FOR EACH ROW BEGIN IF NEW.name = 'fail-update' THEN " +
	    "SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'test'; END IF; END//");
	try {
		r = await patch(id, k.key, { name: 'fail-update' });
		assert.equal(r.status, 500, r.text);
	} finally {
		dbSQL('DROP TRIGGER aq_test_fail_update');
	}
	assert.equal(rows(id).length, n0);
	assert.equal(show(q.slug).name, q.name);
});

test('same transaction: an audit row that cannot be written undoes the ' +
    'change', async () => {
	const q = createQueue({ rate: 60 });
	const id = idOf(q.slug);
	const k = newKey(q.slug, 'audit-fails');
	const n0 = rows(id).length;
	dbSQL('DELIMITER //\nCREATE TRIGGER aq_test_fail_audit BEFORE ' +
	    'INSERT ON audit_log ' +
	    "FOR EACH ROW BEGIN IF NEW.actor_name = 'audit-fails' THEN " +
	    "SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'test'; END IF; END//");
	try {
		let r = await patch(id, k.key, { name: 'Never', ratePerMinute: 99 });
		assert.equal(r.status, 500, r.text);
		r = await req(`${SITES}/${id}/pause`, { method: 'POST',
		    headers: { authorization: `Bearer ${k.key}` } });
		assert.equal(r.status, 500, r.text);
	} finally {
		dbSQL('DROP TRIGGER aq_test_fail_audit');
	}
	const s = show(q.slug);
	assert.deepEqual([s.name, s.ratePerMinute, s.active],
	    [q.name, 60, true]);
	assert.equal(rows(id).length, n0);
});

test('delete: the row stays with the slug, the queue id kept', () => {
	const q = createQueue({ rate: 60 });
	const id = idOf(q.slug);
	ctl('delete', q.slug, '--yes');
	const r = rows(id);
	assert.equal(r.at(-1).action, 'delete');
	assert.equal(r.at(-1).slug, q.slug);
	assert.equal(r.at(-1).after, null);
	assert.equal(r.at(-1).before.ratePerMinute, 60);
});

test('aqueuectl audit prints the rows as JSON lines, filtered', () => {
	const q = createQueue({ rate: 60 });
	ctl('set-rate', q.slug, '70');
	const lines = ctl('audit', '--queue', q.slug, '--action', 'set_rate')
	    .trim().split('\n').map((l) => JSON.parse(l));
	assert.equal(lines.length, 1);
	assert.deepEqual([lines[0].slug, lines[0].action, lines[0].before,
	    lines[0].after, lines[0].actor], [q.slug, 'set_rate',
	    { ratePerMinute: 60 }, { ratePerMinute: 70 }, LOGIN]);
});

after(() => {
	dbSQL('DROP TRIGGER IF EXISTS aq_test_fail_update');
	dbSQL('DROP TRIGGER IF EXISTS aq_test_fail_audit');
});

// Promise 4 (a request answered "failed" left nothing behind) for the
// operator: one PATCH is one change, applied whole or not at all.
test('a PATCH with a valid name, a valid rate and an invalid third ' +
    'field changes nothing and writes no audit row; a valid three-field ' +
    'PATCH writes exactly one', async () => {
	const q = createQueue({ rate: 60 });
	const id = idOf(q.slug);
	const k = newKey(q.slug, 'atomic');
	const before = show(q.slug);
	const n0 = rows(id).length;
	for (const bad of [{ tokenTtlSeconds: 0 }, { accentColor: 'red' },
	    { active: 'no' }, { opensAt: 1000 }, { burst: -1 }]) {
		const r = await patch(id, k.key, { name: 'Half applied',
		    ratePerMinute: 600, ...bad });
		assert.equal(r.status, 422, r.text);
		assert.equal(r.json.error, 'invalid_value');
		assert.equal(r.json.field, Object.keys(bad)[0]);
		const now = show(q.slug);
		assert.deepEqual([now.name, now.ratePerMinute, now.active,
		    now.tokenTtlSeconds, now.accentColor, now.burst],
		    [before.name, 60, true, 600, '', 0], JSON.stringify(bad));
		assert.equal(rows(id).length, n0, 'no audit row');
	}
	const r = await patch(id, k.key, { name: 'Whole', ratePerMinute: 600,
	    active: false });
	assert.equal(r.status, 200, r.text);
	assert.deepEqual([r.json.name, r.json.ratePerMinute, r.json.active],
	    ['Whole', 600, false]);
	const a = rows(id).slice(n0);
	assert.equal(a.length, 1);
	assert.deepEqual([a[0].action, a[0].before, a[0].after], ['update',
	    { name: before.name, ratePerMinute: 60, active: true },
	    { name: 'Whole', ratePerMinute: 600, active: false }]);
	const s = show(q.slug);
	assert.deepEqual([s.name, s.ratePerMinute, s.active],
	    ['Whole', 600, false]);
});
