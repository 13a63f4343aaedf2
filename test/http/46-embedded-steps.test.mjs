// The embedded worker (embedded-worker = on) never makes a visitor wait:
// one aqueue-fcgi process without a master (workers = 0, as mod_fcgid
// runs it) on a database of its own, so that it leads and writes the
// poll documents itself, with every job of the table busy: an auto-rate
// whose health URL answers only after SLOW_MS, a scheduled opening with
// a pre-queue, queue samples every second, abandonment detection on two
// queues and a backlog of old auto-rate log entries for the retention.
// Under a steady load of status requests, all of them to this one
// leading process:
//   - the steps between requests (the worker's and the poll documents'
//     writer's) took a few ms: 95 % of them at most 20 ms, 99 % at most
//     50 ms, none STEP_MAX_MS or longer, by the histograms on /metrics
//     (aqueue_embedded_worker_step_seconds and
//     aqueue_poll_documents_step_seconds, and their _max_seconds);
//   - the status p99 while the health request hangs is that of the same
//     load without it (within SLACK_MS), nowhere near SLOW_MS;
//   - the jobs did their work meanwhile (the slow answer was judged, the
//     pre-queue closed, samples of every queue written, both queues
//     with detection looked at, the backlog pruned).
// The promise at stake (SPEC "Failure modes"): status keeps answering
// at once and never waits behind background work stuck elsewhere (here
// the shop's health endpoint, the draw, the samples and the retention
// run in the very process that answers).
//
// The bounds: a step is one leader-lock statement or one job's part (one
// or two statements, a few for an auto-rate decision, about ten for one
// queue's abandonment detection, or a look at the health request without
// waiting); the poll documents' step reads the queues and the time (two
// statements) or writes one document.  Most take under 1 ms, and on
// this 2-core machine shared with other test runs 98-100 % stay under
// 20 ms and 99.6-100 % under 50 ms; the rest is a commit's wait for the
// disk and the wait for a core: the longest was 14-34 ms at a load of
// about 5, 58-104 ms at 9-11, when status requests themselves took up
// to 80-390 ms.  So the longest is held below STEP_MAX_MS = 200 ms, the
// database budget per step, a tenth of the health request's SLOW_MS
// that a step never waits for (a step that waited for it would take
// 2 s).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import http from 'node:http';
import { mkdtempSync } from 'node:fs';
import { promisify } from 'node:util';

import {
	dbSQL, env, fcgiParams, fcgiRequest, sleep, startExtraPool, waitFor,
} from './lib.mjs';

const DB = 'aqueue_steps';
const SLOW_MS = 2000;
const STEP_MAX_MS = 200;
const SLACK_MS = 20;
const BACKLOG = 1000;

let pool = null, shop = null, conf = null, shopPort = 0;

// aqueuectl on this test's configuration; its stdout.
function ctl(...args) {
	return execFileSync(`${env.root}/fcgi-app/aqueuectl`,
	    ['-f', conf, ...args.map(String)],
	    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

// The same without blocking this process (the shop answers from it).
async function ctlAsync(...args) {
	const r = await promisify(execFile)(`${env.root}/fcgi-app/aqueuectl`,
	    ['-f', conf, ...args.map(String)], { encoding: 'utf8' });
	return r.stdout;
}

const sql = (q) => dbSQL(q.replaceAll('@', `${DB}.`));
const send = (uri) => fcgiRequest({ sock: pool.sock, timeoutMs: 10000,
    params: fcgiParams('GET', uri) });

// The samples of the metrics text m: {name{labels}: value}.
function samples(m) {
	const o = {};
	for (const l of m.split('\n'))
		if (l !== '' && !l.startsWith('#')) {
			const i = l.lastIndexOf(' ');
			o[l.slice(0, i)] = Number(l.slice(i + 1));
		}
	return o;
}

// n clients sending status requests for ms; the latencies (ms), sorted.
async function load(slug, n, ms) {
	const lat = [];
	const until = Date.now() + ms;
	await Promise.all(Array.from({ length: n }, async () => {
		while (Date.now() < until) {
			const t = performance.now();
			const r = await send(`/queue/${slug}/status?number=1`);
			lat.push(performance.now() - t);
			assert.equal(r.status, 200);
		}
	}));
	return lat.sort((a, b) => a - b);
}
const pct = (s, p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];

before(async () => {
	// The shop: /health answers after SLOW_MS.
	shop = http.createServer((req, res) => {
		setTimeout(() => {
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end('{"ok":1}');
		}, SLOW_MS);
	});
	await new Promise((r) => shop.listen(0, '127.0.0.1', r));
	shopPort = shop.address().port;
	dbSQL(`DROP DATABASE IF EXISTS ${DB}; CREATE DATABASE ${DB} ` +
	    'CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci; ' +
	    `GRANT ALL ON ${DB}.* TO 'aqueue'@'localhost'`);
	const state = mkdtempSync(`${env.vardir}/steps-state-`);
	const extra = `db-name = ${DB}\nembedded-worker = on\n` +
	    `state-dir = ${state}\nstats-interval-ms = 1000\n` +
	    'stats-retention = 60\n';
	pool = await startExtraPool({ workers: 0, extra });
	conf = pool.conf;
	ctl('migrate');
});

after(async () => {
	if (pool !== null)
		await pool.stop();
	if (shop !== null) {
		shop.closeAllConnections();
		await new Promise((r) => shop.close(r));
	}
	dbSQL(`DROP DATABASE IF EXISTS ${DB}`);
});

test('the embedded worker: every step a few ms while each job has work; ' +
    'status p99 unchanged while the health request hangs', async (t) => {
	const common = ['--target', 'https://shop.example/', '--domains',
	    'https://shop.example', '--rate', 600];
	ctl('create', 'st', '--name', 'Status', ...common);
	ctl('create', 'ar', '--name', 'Auto', ...common);
	const opens = Number(sql('SELECT CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 ' +
	    'AS SIGNED)')[0][0]) + 4000;
	ctl('create', 'dr', '--name', 'Draw', ...common, '--opens-at', opens);
	// Abandonment detection on two queues with waiting numbers: one
	// queue a step, each writes its issue mark.
	for (const slug of ['ab1', 'ab2'])
		ctl('create', slug, '--name', slug, '--target',
		    'https://shop.example/', '--domains', 'https://shop.example',
		    '--rate', 1, '--burst', 1, '--abandon', 'on');
	for (const slug of ['st', 'dr', 'dr', 'dr', 'ab1', 'ab1', 'ab2',
	    'ab2']) {
		const r = await fcgiRequest({ sock: pool.sock,
		    params: fcgiParams('POST', `/queue/${slug}/join`) });
		assert.equal(r.status, 200, r.body);
	}
	// A backlog for the retention: entries a day old.
	const [qid] = sql("SELECT id FROM @queue WHERE slug = 'ar'")[0];
	sql('INSERT INTO @autorate_log (queue_id, at_ms, kind, dry_run, ' +
	    'action, state, reason, rate_before, rate_after) SELECT ' +
	    `${qid}, CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED) - ` +
	    "86400000, 'poll', 0, 'hold', 'healthy', 'ok', 600, 600 " +
	    `FROM seq_1_to_${BACKLOG}`);
	ctl('autorate', 'set', 'ar', '--allow-private', 1, '--health-url',
	    `http://127.0.0.1:${shopPort}/health`, '--rules',
	    'responseTimeMs < 10000', '--interval', 2);
	// Enabling needs a passing test (which waits SLOW_MS).
	assert.equal(JSON.parse(await ctlAsync('autorate', 'test', 'ar'))
	    .state, 'healthy');

	// The process has led since its first request; its connection is
	// killed, so that it takes the lead again: then every job is due at
	// once, the retention with its backlog too.
	const holder = sql("SELECT IS_USED_LOCK('aqueue-worker-leader:" +
	    `${DB}')`)[0][0];
	if (holder !== 'NULL')
		sql(`KILL CONNECTION ${holder}`);
	// It leads again (it answered a request: a standby tries then).
	await waitFor(async () => {
		await send('/queue/healthz');
		return sql("SELECT IS_USED_LOCK('aqueue-worker-leader:" +
		    `${DB}')`)[0][0] !== 'NULL';
	}, 10000, 200, 'the process leads');

	// Without the slow health request, then with it.
	const quiet = await load('st', 4, 5000);
	ctl('autorate', 'enable', 'ar');
	await sleep(500);
	const slow = await load('st', 4, 8000);
	const p99 = [pct(quiet, 0.99), pct(slow, 0.99)];
	t.diagnostic(`status: ${quiet.length} quiet p50 ${
	    pct(quiet, 0.5).toFixed(1)} p99 ${p99[0].toFixed(1)} ms, ` +
	    `${slow.length} while the health request hangs p50 ${
	    pct(slow, 0.5).toFixed(1)} p99 ${p99[1].toFixed(1)} max ${
	    slow[slow.length - 1].toFixed(1)} ms`);

	// The jobs did their work meanwhile.
	await waitFor(() => Number(sql('SELECT COUNT(*) FROM @autorate_log ' +
	    "WHERE kind = 'poll' AND response_ms >= " + SLOW_MS)[0][0]) > 0,
	    5000, 200, 'a slow answer judged');
	await waitFor(() => sql("SELECT draw_open FROM @queue WHERE slug = " +
	    "'dr'")[0][0] === '0', 5000, 200, 'the pre-queue closed');
	assert.ok(Number(sql('SELECT COUNT(DISTINCT queue_id) FROM ' +
	    '@queue_stats')[0][0]) === 5, 'samples of every queue');
	assert.deepEqual(sql('SELECT q.slug, COUNT(*) > 0 FROM ' +
	    '@queue_issue_mark m JOIN @queue q ON q.id = m.queue_id GROUP BY ' +
	    'q.slug ORDER BY q.slug'), [['ab1', '1'], ['ab2', '1']],
	    'abandonment detection looked at both queues');
	await waitFor(() => Number(sql('SELECT COUNT(*) FROM @autorate_log ' +
	    "WHERE response_ms = -1 AND action = 'hold' AND at_ms < " +
	    'CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED) - 3600000')[0][0]) ===
	    0, 10000, 200, 'the backlog pruned');

	const m = await send('/metrics');
	assert.equal(m.status, 200);
	const text = m.body.toString();
	assert.match(text,
	    /^# TYPE aqueue_embedded_worker_step_seconds histogram$/m);
	assert.match(text,
	    /^# TYPE aqueue_poll_documents_step_max_seconds gauge$/m);
	assert.ok(text.endsWith('# EOF\n'));
	const s = samples(text);
	// Without a master the answering process is the pool's one.
	assert.equal(s['aqueue_workers'], 1);
	for (const f of ['aqueue_embedded_worker_step',
	    'aqueue_poll_documents_step']) {
		const n = s[`${f}_seconds_count`];
		const under = s[`${f}_seconds_bucket{le="0.02"}`];
		const max = s[`${f}_max_seconds`];
		const le = Object.keys(s).filter((k) =>
		    k.startsWith(`${f}_seconds_bucket`)).map((k) =>
		    `${/le="([^"]+)"/.exec(k)[1]}:${s[k]}`).join(' ');
		t.diagnostic(`${f}: ${n} steps, ${under} under 20 ms, ` +
		    `longest ${(max * 1000).toFixed(2)} ms, mean ${
		    (s[`${f}_seconds_sum`] / n * 1000).toFixed(2)} ms; ${le}`);
		assert.ok(n >= 10, `${f}: ${n} steps`);
		const under50 = s[`${f}_seconds_bucket{le="0.05"}`];
		assert.ok(under >= 0.95 * n, `${f}: ${n - under} of ${n} ` +
		    'steps over 20 ms');
		assert.ok(under50 >= 0.99 * n, `${f}: ${n - under50} of ${n} ` +
		    'steps over 50 ms');
		assert.ok(max > 0 && max * 1000 < STEP_MAX_MS, `${f}: ${max}`);
		assert.equal(s[`${f}_seconds_bucket{le="+Inf"}`], n);
	}
	assert.ok(p99[1] <= p99[0] + SLACK_MS, `status p99 ${p99[0]} ms ` +
	    `without, ${p99[1]} ms while the health request hangs`);
	assert.ok(slow[slow.length - 1] < SLOW_MS / 2, 'no request waited ' +
	    'for the health answer');
});
