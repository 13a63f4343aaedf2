// The fairness report: exact values over scripted samples and served
// records (aqueuectl report --json / --csv, and the REST routes), and a
// real token issuance recording the number's first token once.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import {
	createQueue, ctl, dbSQL, env, join, joinMany, show, sleep, token,
	waitFor,
} from './lib.mjs';
import { fairnessRecords } from './fairness.mjs';

// A past window that no live sample of the test's new queue falls into
// (it did not exist then), yet within stats-retention (48 h), so that
// the worker's retention, which may run at any moment, keeps the rows
// the test writes: six hours ago, on the hour.
const T0 = Math.floor((Date.now() - 6 * 3600000) / 3600000) * 3600000;
// An instant as the CSV writes it: ISO 8601 in UTC, to the second.
const iso = (ms) => new Date(ms).toISOString().replace('.000Z', 'Z');

test('report: inversions, wait percentiles, admissions per minute vs ' +
    'the rate, as JSON and CSV', () => {
	const q = createQueue({ rate: 30 });
	const id = show(q.slug).id;
	fairnessRecords(id, T0);
	const r = JSON.parse(ctl('report', q.slug, '--json', '--since', T0,
	    '--until', T0 + 120000));
	assert.deepEqual(r, {
		queue: q.slug, since: T0, until: T0 + 120000, from: T0,
		to: T0 + 120000, samples: 3, served: 5, inversions: 2,
		waitSeconds: { count: 60, p50: 30, p90: 54, p99: 60 },
		minutes: [
			{ minute: T0, admitted: 30, ratePerMinute: 30 },
			{ minute: T0 + 60000, admitted: 30, ratePerMinute: 30 },
		],
		admissionsPerMinute: 30, configuredRatePerMinute: 30,
	});
	const csv = ctl('report', q.slug, '--csv', '--since', T0, '--until',
	    T0 + 120000);
	assert.equal(csv, [
		'metric,minute,value',
		'served,,5',
		'inversions,,2',
		'wait_count,,60',
		'wait_p50_s,,30',
		'wait_p90_s,,54',
		'wait_p99_s,,60',
		'admissions_per_minute,,30',
		'configured_rate_per_minute,,30',
		`admitted,${iso(T0)},30`,
		`rate_per_minute,${iso(T0)},30`,
		`admitted,${iso(T0 + 60000)},30`,
		`rate_per_minute,${iso(T0 + 60000)},30`,
		'',
	].join('\r\n'));

	// An empty window: nulls, no minutes.
	const e = JSON.parse(ctl('report', q.slug, '--since', T0 - 10000,
	    '--until', T0 - 5000));
	assert.deepEqual([e.samples, e.served, e.inversions, e.waitSeconds,
	    e.admissionsPerMinute, e.minutes], [0, 0, 0,
	    { count: 0, p50: null, p90: null, p99: null }, null, []]);

	// A period the API refuses (invalid_period) the CLI refuses too:
	// exit 2, nothing read.
	for (const [args, why] of [[['--until', '0'], 'a time in'],
	    [['--since', T0, '--until', T0], 'after --since'],
	    [['--since', T0, '--until', T0 - 1], 'after --since']])
		assert.throws(() => ctl('report', q.slug, ...args),
		    new RegExp(`status 2 .*--until: ${why}`));
});

test('a real first token is recorded once; /status writes nothing',
    async () => {
	const q = createQueue({ rate: 6000 });
	const id = show(q.slug).id;
	const j = await join(q.slug);
	assert.equal(j.status, 200, j.text);
	assert.equal(j.json.number, 1);
	for (let i = 0; i < 5; i++) {
		const t = await token(q.slug, { number: 1,
		    ticket: j.json.ticket });
		assert.equal(t.status, 200, t.text);
	}
	// Written after the answers, within a second (batched), once.
	const rows = () => dbSQL('SELECT number FROM queue_served WHERE ' +
	    `queue_id = ${id}`);
	await waitFor(() => rows().length > 0, 3000, 50,
	    'the first token to be recorded');
	await sleep(1500);
	assert.deepEqual(rows(), [['1']]);
	const r = JSON.parse(ctl('report', q.slug));
	assert.equal(r.served, 1);
	assert.equal(r.inversions, 0);
});

test('tokens handed out at join are recorded too, each number once, ' +
    'more than a batch of them', async () => {
	// Below the rate: every join is admitted at once and its answer
	// carries the token; 150 of them (more than one batch of 64 in a
	// process) over 8 connections.
	const q = createQueue({ rate: 60000, burst: 1000 });
	const id = show(q.slug).id;
	const nums = await joinMany(q.slug, 150, 8);
	assert.deepEqual(nums, Array.from({ length: 150 }, (_, i) => i + 1));
	const count = () => Number(dbSQL('SELECT COUNT(*), COUNT(DISTINCT ' +
	    `number) FROM queue_served WHERE queue_id = ${id}`)[0][0]);
	await waitFor(() => count() === 150, 4000, 100,
	    'every first token to be recorded');
	await sleep(1500);
	assert.deepEqual(dbSQL('SELECT COUNT(*), COUNT(DISTINCT number), ' +
	    'MIN(number), MAX(number) FROM queue_served WHERE ' +
	    `queue_id = ${id}`), [['150', '150', '1', '150']]);
	assert.equal(JSON.parse(ctl('report', q.slug)).served, 150);
});

test('REST: the report as JSON and CSV, in scope only', async () => {
	const q = createQueue({ rate: 60 });
	const other = createQueue({ rate: 60 });
	const id = show(q.slug).id;
	const key = /^key: (qak_\S+)$/m.exec(ctl('key', 'create', q.slug,
	    '--name', 'fair'))[1];
	const otherKey = /^key: (qak_\S+)$/m.exec(ctl('key', 'create',
	    other.slug, '--name', 'fair'))[1];
	const get = (path, k) => fetch(`${env.base}/api/admin/queue/sites/` +
	    `${id}/${path}`, { headers: { authorization: `Bearer ${k}` } });
	let res = await get('fairness', key);
	assert.equal(res.status, 200);
	const j = await res.json();
	assert.equal(j.queue, q.slug);
	assert.equal(typeof j.served, 'number');
	res = await get('fairness.csv', key);
	assert.equal(res.status, 200);
	assert.equal(res.headers.get('content-type'),
	    'text/csv; charset=utf-8');
	assert.match(await res.text(), /^metric,minute,value\r\nserved,,/);
	res = await get('fairness', otherKey);
	assert.equal(res.status, 403);
	assert.equal((await res.json()).error, 'forbidden');
});
