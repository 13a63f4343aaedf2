// Instance reports and queue samples: a pool's master writes its row of
// table instance (kind, host, pid, workers, busy, CPU, RSS, requests per
// second by endpoint without healthz) and deletes it on a clean stop;
// the holder of the named lock "aqueue-stats" samples every queue into
// queue_stats with exact waiting/serving/issued, and deletes samples
// older than the retention.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hostname } from 'node:os';
import {
	createQueue, join, dbSQL, startExtraPool, fcgiRequest, fcgiParams,
	waitFor, sleep,
} from './lib.mjs';

function instanceRow(id) {
	const rows = dbSQL('SELECT kind, host, pid, workers, busy, rss_kb, ' +
	    'rps_json, seen_ms, started_ms, ' +
	    'CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED) ' +
	    `FROM instance WHERE id = '${id}'`);
	if (rows.length === 0)
		return null;
	const [kind, host, pid, workers, busy, rss, rps, seen, started,
	    now] = rows[0];
	return { kind, host, pid: Number(pid), workers: Number(workers),
	    busy: Number(busy), rss: Number(rss), rps: JSON.parse(rps),
	    seen: Number(seen), started: Number(started), now: Number(now) };
}

test('a pool reports itself every instance-report-ms and leaves on stop',
    async () => {
	const q = createQueue({ rate: 600 });
	const pool = await startExtraPool({ workers: 3,
	    extra: 'instance-report-ms = 1000\nstats-interval-ms = 0' });
	const id = `pool:${hostname()}:${pool.pid}`;
	try {
		let row = await waitFor(() => instanceRow(id), 5000);
		assert.equal(row.kind, 'pool');
		assert.equal(row.host, hostname());
		assert.equal(row.pid, pool.pid);
		assert.equal(row.workers, 3);
		assert.ok(row.rss > 1000, `rss_kb ${row.rss}`);
		assert.ok(Math.abs(row.now - row.seen) < 3000);
		// Keep joins and healthz going until a report shows joins.
		const send = (m, p) => fcgiRequest({ sock: pool.sock,
		    params: fcgiParams(m, p) });
		let joins = 0;
		row = await waitFor(async () => {
			for (let i = 0; i < 5; i++) {
				const r = await send('POST',
				    `/queue/${q.slug}/join`);
				assert.equal(r.status, 200, r.body);
				joins++;
				await send('GET', '/queue/healthz');
			}
			const x = instanceRow(id);
			return x !== null && x.rps.join > 0 ? x : null;
		}, 8000, 200);
		assert.ok(joins > 0);
		assert.equal(row.rps.healthz, undefined,
		    JSON.stringify(row.rps));
		assert.deepEqual(Object.keys(row.rps), ['join']);
		assert.ok(row.started <= row.seen);
	} finally {
		await pool.stop();
	}
	assert.equal(instanceRow(id), null, 'row deleted on a clean stop');
});

test('one sampler: queue_stats gets exact waiting, serving, issued; old ' +
    'samples are deleted', async () => {
	// rate 1 per minute, burst 1: numbers 1..5, serving 1.
	const q = createQueue({ rate: 1, burst: 1 });
	const qid = Number(dbSQL(`SELECT id FROM queue WHERE slug = ` +
	    `'${q.slug}'`)[0][0]);
	// Two earlier samples: one older than the retention (the sampling
	// pass deletes it, perhaps a pass already under way), and one two
	// minutes back, within it, from which the inflow is counted.
	dbSQL('INSERT INTO queue_stats (queue_id, sampled_ms, waiting, ' +
	    'inflow_per_min, rate_per_minute, serving, issued, active) ' +
	    `VALUES (${qid}, 1000, 0, 0, 1, 0, 0, 1), (${qid}, ` +
	    'CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED) - 120000, 0, 0, 1, ' +
	    '0, 0, 1)');
	for (let i = 1; i <= 5; i++) {
		const r = await join(q.slug);
		assert.equal(r.status, 200, r.text);
		assert.equal(r.json.number, i);
	}
	const t0 = Number(dbSQL('SELECT CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 ' +
	    'AS SIGNED)')[0][0]);
	// The stack's pool samples every 5 s by default.
	const s = await waitFor(() => {
		const rows = dbSQL('SELECT waiting, serving, issued, ' +
		    'rate_per_minute, active, inflow_per_min, sampled_ms ' +
		    `FROM queue_stats WHERE queue_id = ${qid} AND ` +
		    `sampled_ms > ${t0} ORDER BY sampled_ms LIMIT 1`);
		return rows.length ? rows[0].map(Number) : null;
	}, 12000, 250);
	const [waiting, serving, issued, rate, active, inflow] = s;
	assert.deepEqual([waiting, serving, issued, rate, active],
	    [4, 1, 5, 1, 1]);
	// The sample two minutes back had issued 0: 5 numbers in a little
	// over two minutes.
	assert.ok(inflow > 2 && inflow <= 2.5, `inflow ${inflow}`);
	// The same sampling pass deletes it once every queue is sampled.
	const gone = await waitFor(() => dbSQL('SELECT COUNT(*) FROM ' +
	    `queue_stats WHERE queue_id = ${qid} AND sampled_ms = 1000`)
	    [0][0] === '0', 12000, 250);
	assert.equal(gone, true, 'the sample older than the retention is gone');
	// The sampler holds the lock on its own connection.
	const holder = dbSQL('SELECT IS_USED_LOCK(' +
	    "CONCAT('aqueue-stats:', DATABASE()))")[0][0];
	assert.notEqual(holder, 'NULL');
	await sleep(0);
});
