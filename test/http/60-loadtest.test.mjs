// Built-in load tests (SPEC section 9): asked for in the admin API with
// a console session (never a key) or the CLI, run by the worker through
// the web server in an open loop, kept with their per-second series,
// and flagged when clearly worse than the comparable earlier runs.
// Promises these paths could break, and what shows they hold:
//   promise 3 (only the visitor's own deliberate request takes a
//     number): a load test's joins take numbers, so it runs only
//     against a queue flagged as a test queue; any other queue is
//     refused with 422 whoever asks, and its numbers stay as they were;
//   promise 4 (bad input changes nothing): every refused request
//     (bad profile, rate, duration, queue, a key) leaves no run and no
//     audit row.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
	ctl, ctlRun, createQueue, show, req, env, sleep, waitFor, childPids,
	dbSQL,
} from './lib.mjs';
import { Client, addUser } from './console.mjs';
import { checkOp } from './openapi.mjs';

const API = '/api/admin/loadtests';

// A console session: s(method, path, body) -> {status, json, text}.
async function session() {
	const u = addUser();
	const c = new Client();
	assert.equal((await c.login(u.name, u.password)).status, 303);
	const csrf = await c.csrf();
	return (method, path, body) => req(path, { method, headers: {
	    cookie: c.cookieHeader(), 'x-csrf-token': csrf,
	    'content-type': 'application/json' },
	    body: body === undefined ? undefined : JSON.stringify(body) });
}

function testQueue(rate = 600) {
	const q = createQueue({ rate });
	ctl('update', q.slug, '--load-test-queue', 'on');
	return q;
}

const runsOf = (slug) => Number(dbSQL('SELECT COUNT(*) FROM loadtest l ' +
    `JOIN queue q ON q.id = l.queue_id WHERE q.slug = '${slug}'`)[0][0]);
const auditOf = (slug) => Number(dbSQL('SELECT COUNT(*) FROM audit_log ' +
    `WHERE queue_slug = '${slug}' AND action = 'loadtest.start'`)[0][0]);

// Wait for run id to end; returns its object (with the series).
async function finished(s, id, timeoutMs = 90000) {
	let last = null;
	await waitFor(async () => {
		last = (await s('GET', `${API}/${id}`)).json;
		return last !== null && !['pending', 'running']
		    .includes(last.status);
	}, timeoutMs, 250, `the end of load test ${id}`);
	return last;
}

test('only a console session may ask, and only for a test queue; ' +
    'refused requests leave nothing', async () => {
	const s = await session();
	const prod = createQueue();
	const lt = testQueue();
	const before = show(prod.slug);
	const key = /^key: (qak_\S+)$/m.exec(ctl('key', 'create', lt.slug,
	    '--name', 'k'))[1];
	const good = { queue: lt.slug, profile: 'status', ratePerSecond: 5,
	    durationSeconds: 1 };
	for (const [m, p] of [['POST', API], ['GET', API],
	    ['GET', `${API}/1`]]) {
		const r = await req(p, { method: m, headers: {
		    authorization: `Bearer ${key}`,
		    'content-type': 'application/json' },
		    body: m === 'POST' ? JSON.stringify(good) : undefined });
		assert.equal(r.status, 403, `${m} ${p} with a key: ${r.text}`);
		assert.equal(r.json.error, 'forbidden');
	}
	let r = await s('POST', API, { ...good, queue: prod.slug });
	assert.equal(r.status, 422, r.text);
	checkOp(API, 'post', r);
	assert.equal(r.json.error, 'not_a_test_queue');
	assert.equal(r.json.field, 'queue');
	for (const [body, status, error, field] of [
	    [{ ...good, profile: 'burst' }, 422, 'invalid_value', 'profile'],
	    [{ ...good, profile: 'Status' }, 422, 'invalid_value', 'profile'],
	    [{ ...good, ratePerSecond: 0 }, 422, 'invalid_value',
		'ratePerSecond'],
	    [{ ...good, ratePerSecond: 2001 }, 422, 'invalid_value',
		'ratePerSecond'],
	    [{ ...good, ratePerSecond: '5' }, 422, 'invalid_value',
		'ratePerSecond'],
	    [{ ...good, ratePerSecond: 5.5 }, 422, 'invalid_value',
		'ratePerSecond'],
	    [{ ...good, durationSeconds: 0 }, 422, 'invalid_value',
		'durationSeconds'],
	    [{ ...good, durationSeconds: 601 }, 422, 'invalid_value',
		'durationSeconds'],
	    [{ ...good, queue: undefined }, 422, 'invalid_value', 'queue'],
	    [{ ...good, queue: 'no-such-queue' }, 404, 'queue_not_found',
		'queue']]) {
		r = await s('POST', API, body);
		assert.equal(r.status, status, `${JSON.stringify(body)}: ` +
		    r.text);
		assert.equal(r.json.error, error, JSON.stringify(body));
		assert.equal(r.json.field, field, JSON.stringify(body));
		checkOp(API, 'post', r);
	}
	r = await req(API, { method: 'POST', headers: { cookie: 'x=y',
	    'content-type': 'application/json' },
	    body: JSON.stringify(good) });
	assert.equal(r.status, 401, 'no session: ' + r.text);
	// Nothing was written, and the production queue took no number.
	assert.equal(runsOf(lt.slug), 0);
	assert.equal(runsOf(prod.slug), 0);
	assert.equal(auditOf(lt.slug) + auditOf(prod.slug), 0);
	assert.equal(show(prod.slug).lastNumber, before.lastNumber);
	r = await s('GET', `${API}/999999999`);
	assert.equal(r.status, 404);
	checkOp(`${API}/{id}`, 'get', r);
	assert.equal(r.json.error, 'load_test_not_found');
	// The CLI refuses the same way (exit 2: nothing changed).
	const cli = ctlRun('loadtest', 'run', prod.slug, '--rate', '5',
	    '--duration', '1');
	assert.equal(cli.code, 2, cli.err);
	assert.match(cli.err, /not_a_test_queue/);
	assert.equal(runsOf(prod.slug), 0);
});

test('a status run sends exactly rate x duration requests in an open ' +
    'loop and keeps its per-second series', async () => {
	const s = await session();
	const lt = testQueue();
	const r = await s('POST', API, { queue: lt.slug, profile: 'status',
	    ratePerSecond: 20, durationSeconds: 3 });
	assert.equal(r.status, 202, r.text);
	checkOp(API, 'post', r);
	assert.equal(r.json.status, 'pending');
	assert.equal(r.json.queue, lt.slug);
	const run = await finished(s, r.json.id);
	assert.equal(run.status, 'done', JSON.stringify(run));
	checkOp(`${API}/{id}`, 'get', await s('GET', `${API}/${run.id}`));
	assert.equal(run.sent, 60, 'rate x duration');
	assert.equal(run.ok, 60);
	assert.equal(run.errors, 0);
	assert.equal(run.errorRate, 0);
	assert.match(run.runner, /^worker:/);
	assert.ok(run.latencyMs.p50 > 0 && run.latencyMs.p50 <=
	    run.latencyMs.p95 && run.latencyMs.p95 <= run.latencyMs.p99,
	    JSON.stringify(run.latencyMs));
	assert.ok(run.series.length >= 3 && run.series.length <= 4,
	    `${run.series.length} seconds`);
	assert.equal(run.series.reduce((a, x) => a + x.sent, 0), 60);
	assert.equal(run.series.reduce((a, x) => a + x.ok, 0), 60);
	assert.deepEqual(run.series.map((x) => x.second),
	    run.series.map((x, i) => i));
	// The pool processes that answered: names as in the instances view,
	// every answer counted once (the setup join is not the run's).
	assert.ok(run.servedBy.length >= 1, JSON.stringify(run.servedBy));
	for (const x of run.servedBy)
		assert.match(x.instance, /^pool:[^:]+:\d+$/);
	assert.equal(run.servedBy.reduce((a, x) => a + x.requests, 0), 60);
	// Anyone else's request, or a wrong token, gets no such header.
	for (const h of [{}, { 'x-aqueue-loadtest': 'x'.repeat(43) },
	    { 'x-aqueue-loadtest': '' }]) {
		const a = await req(`/queue/${lt.slug}/info`, { headers: h });
		assert.equal(a.status, 200);
		assert.equal(a.headers.get('x-aqueue-instance'), null);
	}
	// The status profile took one number before its clock started.
	assert.equal(show(lt.slug).lastNumber, 1);
	assert.deepEqual(run.requests, { join: 0, status: 60, token: 0 });
	assert.equal(auditOf(lt.slug), 1);
	// The list shows it, newest first; the CLI too.
	const lr = await s('GET', `${API}?queue=${lt.slug}`);
	checkOp(API, 'get', lr);
	const list = lr.json;
	assert.deepEqual(list.loadtests.map((x) => x.id), [run.id]);
	assert.equal(list.loadtests[0].series, undefined);
	const lines = ctl('loadtest', 'list', lt.slug).trim().split('\n');
	assert.equal(JSON.parse(lines[0]).id, run.id);
	assert.equal(JSON.parse(ctl('loadtest', 'show', String(run.id)))
	    .series.length, run.series.length);
});

test('a mix run joins, polls and claims like visitors; the CLI waits ' +
    'for it', async () => {
	// One admission a second: most joiners wait, poll at the room's
	// interval (retryAfterSeconds) and claim a token once admitted.
	const lt = testQueue(60);
	const out = ctl('loadtest', 'run', lt.slug, '--profile', 'mix',
	    '--rate', '20', '--duration', '6', '--wait');
	const id = /^load test (\d+) asked for$/m.exec(out)[1];
	assert.match(out, /^done .* sent 120 {2}errors 0 /m);
	const run = JSON.parse(ctl('loadtest', 'show', id));
	const k = run.requests;
	assert.equal(k.join + k.status + k.token, 120, JSON.stringify(k));
	assert.ok(k.status > 0, `status polls: ${JSON.stringify(k)}`);
	assert.ok(k.token > 0, `token claims: ${JSON.stringify(k)}`);
	// Every join took one number; nothing else did.
	assert.equal(show(lt.slug).lastNumber, k.join);
});

test('a run clearly slower than the comparable earlier ones is flagged ' +
    'in the API, the CLI and /metrics', async () => {
	const s = await session();
	const lt = testQueue();
	const ask = async () => {
		const r = await s('POST', API, { queue: lt.slug,
		    profile: 'status', ratePerSecond: 20,
		    durationSeconds: 2 });
		assert.equal(r.status, 202, r.text);
		return r.json.id;
	};
	const base = [];
	for (let i = 0; i < 3; i++) {
		const run = await finished(s, await ask());
		assert.equal(run.status, 'done');
		// Three runs are too few to compare with: never flagged.
		assert.equal(run.flagged, false, JSON.stringify(run));
		base.push(run.latencyMs.p95);
	}
	// A deliberately slowed server: the pool's processes stopped for
	// 1.5 s in the middle of the run (nginx holds the requests).
	const master = Number(readFileSync(`${env.vardir}/run/` +
	    'aqueue-fcgi.pid', 'utf8'));
	const id = await ask();
	await waitFor(async () => (await s('GET', `${API}/${id}`)).json
	    .sent > 0, 30000, 50);
	const kids = childPids(master);
	assert.ok(kids.length > 0);
	try {
		for (const p of kids)
			process.kill(p, 'SIGSTOP');
		await sleep(1500);
	} finally {
		for (const p of kids)
			process.kill(p, 'SIGCONT');
	}
	const run = await finished(s, id);
	assert.equal(run.status, 'done', JSON.stringify(run));
	assert.ok(run.latencyMs.p95 >= 1000, `p95 ${run.latencyMs.p95} ms`);
	assert.equal(run.flagged, true, `${JSON.stringify(run)}; the ` +
	    `earlier p95s: ${base}`);
	assert.match(run.flagReason, /^p95 [\d.]+ ms against a median of /);
	const shown = JSON.parse(ctl('loadtest', 'show', String(id)));
	assert.equal(shown.flagged, true);
	const w = ctlRun('loadtest', 'wait', String(id));
	assert.equal(w.code, 6, 'the CLI says flagged: ' + w.err);
	const m = await req('/metrics');
	assert.equal(m.status, 200);
	assert.match(m.text, new RegExp('^aqueue_loadtest_flagged\\{queue=' +
	    `"${lt.slug}",profile="status"\\} 1$`, 'm'));
	assert.match(m.text, new RegExp('^aqueue_loadtest_p95_seconds\\{' +
	    `queue="${lt.slug}",profile="status"\\} [1-9]`, 'm'));
});

test('a run asked for before its queue stopped being a test queue sends ' +
    'nothing and fails, saying why', async () => {
	const s = await session();
	const q = createQueue();
	const before = show(q.slug).lastNumber;
	// As if asked for while the queue was a test queue (the flag was
	// turned off before a worker claimed it).
	const id = Number(dbSQL('INSERT INTO loadtest (queue_id, profile, ' +
	    'rate_per_s, duration_s, requested_by, created_ms) SELECT id, ' +
	    `'join', 50, 2, 'test', 0 FROM queue WHERE slug = '${q.slug}'; ` +
	    'SELECT LAST_INSERT_ID()')[0][0]);
	const run = await finished(s, id);
	assert.equal(run.status, 'failed');
	assert.match(run.error, /not a test queue/);
	assert.equal(run.sent, 0);
	assert.equal(show(q.slug).lastNumber, before, 'no number taken');
});

test('turning loadTestQueue off during a run stops it within a second ' +
    'or so', async () => {
	const s = await session();
	const lt = testQueue();
	const r = await s('POST', API, { queue: lt.slug, profile: 'status',
	    ratePerSecond: 20, durationSeconds: 20 });
	assert.equal(r.status, 202, r.text);
	await waitFor(async () => (await s('GET', `${API}/${r.json.id}`)).json
	    .sent >= 20, 30000, 100, 'the run under way');
	ctl('update', lt.slug, '--load-test-queue', 'off');
	const t = Date.now();
	const run = await finished(s, r.json.id, 30000);
	assert.equal(run.status, 'cancelled', JSON.stringify(run));
	assert.match(run.error, /no longer a test queue/);
	assert.ok(Date.now() - t < 10000, 'stopped well before its 20 s');
	assert.ok(run.sent < 400, `${run.sent} of 400 sent`);
});

test('schedules: an interval runs at once and then every N minutes; a ' +
    'weekly one at its weekday and time in the operator\'s zone; ' +
    'refusals change nothing', async () => {
	const s = await session();
	const SCH = '/api/admin/loadtest-schedules';
	const lt = testQueue();
	const prod = createQueue();
	const count = () => Number(dbSQL('SELECT COUNT(*) FROM ' +
	    'loadtest_schedule')[0][0]);
	const n0 = count();
	const key = /^key: (qak_\S+)$/m.exec(ctl('key', 'create', lt.slug,
	    '--name', 'k'))[1];
	const base = { queue: lt.slug, profile: 'status', ratePerSecond: 10,
	    durationSeconds: 1 };
	for (const [m, p] of [['GET', SCH], ['POST', SCH],
	    ['DELETE', `${SCH}/1`]]) {
		const r = await req(p, { method: m, headers: {
		    authorization: `Bearer ${key}`,
		    'content-type': 'application/json' },
		    body: m === 'POST' ? JSON.stringify({ ...base,
		    everyMinutes: 60 }) : undefined });
		assert.equal(r.status, 403, `${m} ${p} with a key`);
	}
	const weekly = (w) => ({ ...base, weekly: { weekday: 'monday',
	    time: '09:00', timeZone: 'Europe/Madrid', ...w } });
	for (const [body, error, field] of [
	    [{ ...base, everyMinutes: 0 }, 'invalid_value', 'everyMinutes'],
	    [{ ...base, everyMinutes: 40321 }, 'invalid_value',
		'everyMinutes'],
	    [{ ...base }, 'invalid_value', 'everyMinutes'],
	    [weekly({ weekday: 'funday' }), 'invalid_value', 'weekday'],
	    [weekly({ time: '24:00' }), 'invalid_value', 'time'],
	    [weekly({ time: '9:00' }), 'invalid_value', 'time'],
	    [weekly({ timeZone: 'Mars/Olympus' }), 'invalid_value',
		'timeZone'],
	    [weekly({ timeZone: '../../etc/passwd' }), 'invalid_value',
		'timeZone'],
	    [{ ...base, everyMinutes: 60, queue: prod.slug },
		'not_a_test_queue', 'queue'],
	    [{ ...base, everyMinutes: 60, profile: 'nope' },
		'invalid_value', 'profile'],
	    [{ ...base, everyMinutes: 1, durationSeconds: 60 },
		'invalid_value', 'everyMinutes']]) {
		const r = await s('POST', SCH, body);
		assert.equal(r.status, 422, `${JSON.stringify(body)}: ${r.text}`);
		assert.equal(r.json.error, error, JSON.stringify(body));
		assert.equal(r.json.field, field, JSON.stringify(body));
		checkOp(SCH, 'post', r);
	}
	assert.equal(count(), n0, 'nothing written');

	// Weekly: Monday 09:00 in Madrid, the next one.
	let r = await s('POST', SCH, weekly({}));
	assert.equal(r.status, 201, r.text);
	checkOp(SCH, 'post', r);
	const w = r.json;
	assert.equal(w.everyMinutes, null);
	assert.deepEqual(w.weekly, { weekday: 'monday', time: '09:00',
	    timeZone: 'Europe/Madrid' });
	const next = Date.parse(w.nextRunAt);
	assert.ok(next > Date.now() && next <= Date.now() + 7 * 86400000,
	    w.nextRunAt);
	const local = new Intl.DateTimeFormat('en-GB', { timeZone:
	    'Europe/Madrid', weekday: 'long', hour: '2-digit',
	    minute: '2-digit', hour12: false }).format(new Date(next));
	assert.equal(local, 'Monday 09:00');

	// Every 60 minutes: the first run at once (the worker's leader asks
	// for it within its 5 s step), the next an hour after it was due.
	r = await s('POST', SCH, { ...base, everyMinutes: 60 });
	assert.equal(r.status, 201, r.text);
	const e = r.json;
	const due = Date.parse(e.nextRunAt);
	let run = null;
	await waitFor(async () => {
		const l = (await s('GET', `${API}?queue=${lt.slug}`)).json;
		run = l.loadtests.find((x) => x.requestedBy ===
		    `schedule:${e.id}`);
		return run !== undefined;
	}, 30000, 250, 'the schedule\'s first run');
	run = await finished(s, run.id);
	assert.equal(run.status, 'done');
	assert.equal(run.sent, 10);
	const list = await s('GET', SCH);
	assert.equal(list.status, 200);
	checkOp(SCH, 'get', list);
	const now = list.json.schedules.find((x) => x.id === e.id);
	assert.equal(now.lastRunId, run.id);
	assert.equal(Date.parse(now.nextRunAt), due + 3600000,
	    'an hour after it was due');
	// One run only: the next is an hour away.
	assert.equal(runsOf(lt.slug), 1);

	// Delete: 204, gone, audited; a second delete is 404.
	r = await s('DELETE', `${SCH}/${e.id}`);
	assert.equal(r.status, 204);
	r = await s('DELETE', `${SCH}/${e.id}`);
	assert.equal(r.status, 404);
	checkOp(`${SCH}/{id}`, 'delete', r);
	assert.ok(!(await s('GET', SCH)).json.schedules.some((x) =>
	    x.id === e.id));
	const acts = dbSQL('SELECT action FROM audit_log WHERE queue_slug = ' +
	    `'${lt.slug}' ORDER BY id`).map((x) => x[0]);
	assert.deepEqual(acts.filter((a) => a.startsWith('loadtest.')),
	    ['loadtest.schedule', 'loadtest.schedule', 'loadtest.unschedule']);
	// The CLI: weekly in another zone, listed, deleted.
	const out = ctl('loadtest', 'schedule', 'add', lt.slug, '--rate', '5',
	    '--duration', '1', '--weekly', 'friday', '18:30',
	    'America/New_York');
	const cid = Number(/^load-test schedule (\d+) made$/m.exec(out)[1]);
	const mine = ctl('loadtest', 'schedule', 'list').trim().split('\n')
	    .map((l) => JSON.parse(l)).find((x) => x.id === cid);
	assert.deepEqual(mine.weekly, { weekday: 'friday', time: '18:30',
	    timeZone: 'America/New_York' });
	const bad = ctlRun('loadtest', 'schedule', 'add', lt.slug, '--rate',
	    '5', '--duration', '1', '--weekly', 'friday', '18:30', 'Nowhere');
	assert.equal(bad.code, 2, bad.err);
	ctl('loadtest', 'schedule', 'delete', String(cid));
	ctl('loadtest', 'schedule', 'delete', String(w.id));
	assert.equal(count(), n0);
});

test('a replay sends a past event\'s arrival curve, scaled in time and ' +
    'volume, each arrival then a visitor; refusals change nothing',
    async () => {
	const s = await session();
	const lt = testQueue(6000);
	const src = createQueue();
	// The event: 40 joins in 10 s, then 20 in 10 s (the worker's samples
	// of src, written here at fixed times an hour ago).
	const t0 = Date.now() - 3600000;
	dbSQL('INSERT INTO queue_stats (queue_id, sampled_ms, waiting, ' +
	    'inflow_per_min, rate_per_minute, serving, issued, active) ' +
	    `SELECT id, ${t0}, 0, 0, 60, 0, 100, 1 FROM queue WHERE slug = ` +
	    `'${src.slug}' UNION ALL SELECT id, ${t0 + 10000}, 0, 240, 60, ` +
	    `0, 140, 1 FROM queue WHERE slug = '${src.slug}' UNION ALL ` +
	    `SELECT id, ${t0 + 20000}, 0, 120, 60, 0, 160, 1 FROM queue ` +
	    `WHERE slug = '${src.slug}'`);
	const replay = { queue: src.slug, from: new Date(t0).toISOString(),
	    to: t0 + 20000, speed: 5 };
	const n0 = runsOf(lt.slug);
	for (const [rp, status, error, field] of [
	    [{ ...replay, to: t0 }, 422, 'invalid_value', 'replay.to'],
	    [{ ...replay, from: t0 - 7200000, to: t0 - 3600000 }, 422,
		'invalid_value', 'replay.from'],
	    [{ ...replay, speed: 0 }, 422, 'invalid_value', 'replay.speed'],
	    [{ ...replay, speed: 0.01 }, 422, 'invalid_value',
		'replay.speed'],
	    [{ ...replay, volume: 1000 }, 422, 'invalid_value',
		'replay.volume'],
	    [{ ...replay, queue: 'no-such-queue' }, 404, 'queue_not_found',
		'replay.queue'],
	    [{ ...replay, from: 'yesterday' }, 422, 'invalid_value',
		'replay.from']]) {
		const r = await s('POST', API, { queue: lt.slug,
		    profile: 'replay', replay: rp });
		assert.equal(r.status, status, `${JSON.stringify(rp)}: ` +
		    r.text);
		assert.equal(r.json.error, error, JSON.stringify(rp));
		assert.equal(r.json.field, field, JSON.stringify(rp));
		checkOp(API, 'post', r);
	}
	assert.equal(runsOf(lt.slug), n0, 'nothing written');
	const r = await s('POST', API, { queue: lt.slug, profile: 'replay',
	    replay });
	assert.equal(r.status, 202, r.text);
	checkOp(API, 'post', r);
	// 20 s five times faster: 4 s; the busiest second has 20 joins.
	assert.equal(r.json.durationSeconds, 4);
	assert.equal(r.json.ratePerSecond, 20);
	assert.deepEqual(r.json.replay, { queue: src.slug,
	    from: new Date(t0).toISOString(),
	    to: new Date(t0 + 20000).toISOString(), speed: 5, volume: 1 });
	const run = await finished(s, r.json.id);
	assert.equal(run.status, 'done', JSON.stringify(run));
	checkOp(`${API}/{id}`, 'get', await s('GET', `${API}/${run.id}`));
	assert.equal(run.requests.join, 60, 'every arrival joined');
	assert.equal(show(lt.slug).lastNumber, 60);
	assert.equal(run.errors, 0);
	// The visitors polled and claimed on top of the arrivals (6000/min
	// admits at once or within a poll).
	assert.equal(run.sent, run.requests.join + run.requests.status +
	    run.requests.token);
	// The curve: the first two seconds carry 40 joins, the last two 20
	// (sent counts polls and claims too, so at least those).
	const sent = run.series.map((x) => x.sent);
	assert.ok(sent[0] + sent[1] >= 40 && sent[2] + sent[3] >= 20,
	    `${sent}`);
	// Twice the volume: 120 joins.
	const r2 = await s('POST', API, { queue: lt.slug, profile: 'replay',
	    replay: { ...replay, volume: 2 } });
	assert.equal(r2.status, 202, r2.text);
	assert.equal(r2.json.ratePerSecond, 40);
	const run2 = await finished(s, r2.json.id);
	assert.equal(run2.requests.join, 120);
	assert.equal(show(lt.slug).lastNumber, 180);
});
