// /metrics: OpenMetrics text (content type, "# EOF" last), per queue
// gauges and counters with exact values, per pool requests by endpoint
// and status and a latency histogram; the address allowlist and the
// bearer token; and a real Prometheus (Debian's package) started here on
// a loopback port scrapes it through nginx, and a series is queried back
// through its HTTP API.

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import {
	env, createQueue, join, req, startExtraPool,
	fcgiRequest, fcgiParams, sleep, waitFor,
} from './lib.mjs';

const OM = 'application/openmetrics-text; version=1.0.0; charset=utf-8';

// Parse the samples of an exposition: {"name{labels}": value}.
function samples(text) {
	const out = {};
	for (const line of text.split('\n')) {
		if (line === '' || line.startsWith('#'))
			continue;
		const i = line.lastIndexOf(' ');
		out[line.slice(0, i)] = Number(line.slice(i + 1));
	}
	return out;
}

test('/metrics: OpenMetrics text with exact per-queue values', async () => {
	const q = createQueue({ rate: 600, burst: 3 });
	for (let i = 0; i < 7; i++)
		assert.equal((await join(q.slug)).status, 200);
	const r = await req('/metrics');
	assert.equal(r.status, 200);
	assert.equal(r.headers.get('content-type'), OM);
	assert.ok(r.text.endsWith('# EOF\n'));
	assert.equal(r.text.split('# EOF').length, 2);
	const s = samples(r.text);
	const l = `{queue="${q.slug}"}`;
	assert.equal(s[`aqueue_queue_issued${l}`], 7);
	assert.equal(s[`aqueue_queue_joins_total${l}`], 7);
	assert.equal(s[`aqueue_queue_rate_per_minute${l}`], 600);
	assert.equal(s[`aqueue_queue_active${l}`], 1);
	assert.equal(s[`aqueue_queue_serving${l}`] +
	    s[`aqueue_queue_waiting${l}`], 7);
	assert.ok(s['aqueue_http_requests_total{endpoint="join",' +
	    'status="200"}'] >= 1);
	assert.equal(s['aqueue_workers'], 4);
	assert.ok(s['aqueue_workers_busy'] >= 1, 'this scrape is busy');
	// Histogram: buckets cumulative, +Inf equals _count.
	const inf = s['aqueue_http_request_duration_seconds_bucket{' +
	    'endpoint="join",le="+Inf"}'];
	assert.equal(inf, s['aqueue_http_request_duration_seconds_count{' +
	    'endpoint="join"}']);
	assert.ok(s['aqueue_http_request_duration_seconds_bucket{' +
	    'endpoint="join",le="0.001"}'] <= inf);
	assert.match(r.text, /^# TYPE aqueue_queue_joins counter$/m);
	assert.match(r.text,
	    /^# TYPE aqueue_http_request_duration_seconds histogram$/m);
});

test('/metrics: tokens_total counts the tokens this pool issued',
    async () => {
	const pool = await startExtraPool({ workers: 1,
	    extra: 'stats-interval-ms = 0' });
	try {
		const q = createQueue({ rate: 600 });
		const send = (m, p, body) => fcgiRequest({ sock: pool.sock,
		    stdin: body ?? '', params: fcgiParams(m, p,
		    body === undefined ? {} : {
		    CONTENT_TYPE: 'application/json',
		    CONTENT_LENGTH: String(Buffer.byteLength(body)) }) });
		for (let i = 0; i < 3; i++) {
			const j = await send('POST', `/queue/${q.slug}/join`);
			assert.equal(j.status, 200, j.body);
			assert.equal(typeof j.json.token, 'string');
		}
		const m = await send('GET', '/metrics');
		assert.equal(m.status, 200, m.body);
		const s = samples(m.body);
		assert.equal(s[`aqueue_queue_tokens_total{queue="${q.slug}"}`],
		    3);
		assert.equal(s['aqueue_workers'], 1);
	} finally {
		await pool.stop();
	}
});

test('/metrics protection: allowlist with networks, bearer token',
    async () => {
	const tok = 'metrics-token-0123456789abcdef0123456789';
	const pool = await startExtraPool({ workers: 1, extra:
	    'stats-interval-ms = 0\nmetrics-allow = 10.5.0.0/16, 2001:db8::1\n' +
	    `metrics-token = ${tok}` });
	try {
		const get = (addr, extra = {}) => fcgiRequest({
		    sock: pool.sock, params: fcgiParams('GET', '/metrics',
		    { REMOTE_ADDR: addr, ...extra }) });
		assert.equal((await get('10.5.200.7')).status, 200);
		assert.equal((await get('2001:db8::1')).status, 200);
		let r = await get('127.0.0.1');
		assert.equal(r.status, 401);
		assert.equal(r.json.error, 'missing_credentials');
		assert.equal(r.headers['www-authenticate'], 'Bearer');
		r = await get('10.6.0.1', { HTTP_AUTHORIZATION:
		    `Bearer ${tok}x` });
		assert.equal(r.status, 401);
		assert.equal(r.json.error, 'invalid_token');
		r = await get('10.6.0.1', { HTTP_AUTHORIZATION:
		    `Bearer ${tok}` });
		assert.equal(r.status, 200);
		assert.ok(r.body.endsWith('# EOF\n'));
	} finally {
		await pool.stop();
	}
	// The stack's pool (no token) refuses an address not listed.
	const r = await fcgiRequest({ params: fcgiParams('GET', '/metrics',
	    { REMOTE_ADDR: '192.0.2.9' }) });
	assert.equal(r.status, 403);
	assert.equal(r.json.error, 'forbidden');
});

let prom = null;
let promDir = null;

after(async () => {
	if (prom !== null && prom.exitCode === null) {
		prom.kill('SIGTERM');
		await new Promise((res) => prom.on('exit', res));
	}
	if (promDir !== null)
		rmSync(promDir, { recursive: true, force: true });
});

test('a real Prometheus scrapes /metrics; a series comes back through ' +
    'its query API with the exact value', async () => {
	const q = createQueue({ rate: 600 });
	for (let i = 0; i < 4; i++)
		assert.equal((await join(q.slug)).status, 200);
	const port = Number(process.env.AQ_PORT) + 1;
	const target = new URL(env.base).host;
	promDir = mkdtempSync(`${env.vardir}/prometheus-`);
	writeFileSync(`${promDir}/prometheus.yml`,
	    'global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n' +
	    'scrape_configs:\n  - job_name: aqueue\n' +
	    '    metrics_path: /metrics\n' +
	    `    static_configs:\n      - targets: ['${target}']\n`);
	prom = spawn('prometheus', [
	    `--config.file=${promDir}/prometheus.yml`,
	    `--storage.tsdb.path=${promDir}/data`,
	    `--web.listen-address=127.0.0.1:${port}`],
	    { stdio: ['ignore', 'ignore', 'pipe'] });
	let log = '';
	prom.stderr.on('data', (d) => { log += d; });
	const api = `http://127.0.0.1:${port}`;
	await waitFor(async () => {
		try {
			return (await fetch(`${api}/-/ready`)).ok;
		} catch {
			return false;
		}
	}, 30000, 200).catch((e) => {
		throw new Error(`prometheus not ready: ${e.message}\n${log}`);
	});
	const query = async (expr) => {
		const r = await fetch(`${api}/api/v1/query?query=` +
		    encodeURIComponent(expr));
		const j = await r.json();
		assert.equal(j.status, 'success', JSON.stringify(j));
		return j.data.result;
	};
	const res = await waitFor(async () => {
		const x = await query(`aqueue_queue_issued{queue="${q.slug}"}`);
		return x.length === 1 ? x : null;
	}, 30000, 500).catch((e) => {
		throw new Error(`no series: ${e.message}\n${log}`);
	});
	assert.equal(res[0].metric.job, 'aqueue');
	assert.equal(res[0].value[1], '4');
	const joins = await query(
	    `aqueue_queue_joins_total{queue="${q.slug}"}`);
	assert.equal(joins[0].value[1], '4');
	const t = await (await fetch(`${api}/api/v1/targets`)).json();
	const active = t.data.activeTargets[0];
	assert.equal(active.health, 'up', active.lastError);
	assert.equal(active.lastError, '');
	await sleep(0);
});
