// The pool on a 3-node MariaDB Galera cluster (galera-4, nodes on
// loopback ports, test/http/galera.mjs): every process writes through the
// first node of db-hosts that answers (the designated writer), so the
// counter row is never written on two nodes at once.
//   - 64 concurrent joins spread over the pool's connections: numbers
//     unique and consecutive;
//   - two pools that name different writers (a misconfiguration that
//     makes certification conflicts, error 1213): every conflict is
//     retried; numbers still unique and consecutive;
//   - the writer killed mid-load: only requests in flight fail (503, the
//     client retries), the pool writes through node 2 within seconds,
//     numbers stay unique and any gap is a failed request's;
//   - the writer back: the pool's processes return to it within seconds;
//   - GET_LOCK (the worker's leader lock) is node-local;
//   - number blocks through the writer: numbers unique, the last number
//     exactly those received plus those counted unused.
// Figures (joins/s) are printed as TAP diagnostics.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import {
	env, fcgiParams, fcgiRequest, sleep, startExtraPool, stackConf,
} from './lib.mjs';
import { sqlOn, startCluster } from './galera.mjs';

const PORT = Number(process.env.AQ_PORT) + 7;
let cluster = null;
const pools = [];
let conf = null;

const hosts = (order) => order.map((n) => `127.0.0.1:${PORT + n - 1}`)
    .join(',');

// aqueuectl on the cluster.
function ctlCluster(...args) {
	return execFileSync(`${env.root}/fcgi-app/aqueuectl`, ['-f', conf,
	    ...args], { encoding: 'utf8' });
}

before(async () => {
	cluster = await startCluster({ dir: `${env.vardir}/galera`,
	    port: PORT });
	const s1 = cluster.nodes[0].sock;
	sqlOn(s1, 'CREATE DATABASE aqueue CHARACTER SET utf8mb4 ' +
	    'COLLATE utf8mb4_unicode_ci');
	sqlOn(s1, `CREATE USER 'aqueue'@'127.0.0.1' IDENTIFIED BY ` +
	    `'${stackConf('db-password')}'`);
	sqlOn(s1, "GRANT ALL ON aqueue.* TO 'aqueue'@'127.0.0.1'");
	const base = readFileSync(`${env.vardir}/aqueue.conf`, 'utf8')
	    .split('\n').filter((l) => !/^\s*(db-socket|db-host|listen|pid-file)\s*=/
	    .test(l)).join('\n');
	conf = `${env.vardir}/galera/aqueue.conf`;
	writeFileSync(conf, `${base}\ndb-hosts = ${hosts([1, 2, 3])}\n`,
	    { mode: 0o600 });
	ctlCluster('migrate');
});

after(async () => {
	for (const p of pools)
		await p.stop();
	if (cluster !== null)
		await cluster.stop();
});

function createOnCluster(rate = 1000000) {
	const slug = `g-${Math.random().toString(16).slice(2, 10)}`;
	ctlCluster('create', slug, '--name', slug, '--target',
	    'https://shop.example/', '--domains', 'shop.example', '--rate', rate);
	return slug;
}

const lastNumber = (slug, node = 1) => Number(sqlOn(cluster.nodes[node - 1]
    .sock, `SELECT last_number FROM queue WHERE slug = '${slug}'`,
    'aqueue')[0][0]);

async function pool(order, workers) {
	const p = await startExtraPool({ workers, extra:
	    `db-socket =\ndb-hosts = ${hosts(order)}` });
	pools.push(p);
	return p;
}

// n joins from conc loops over the given pools; {numbers, failed, ms}.
async function joins(slug, ps, n, conc) {
	const numbers = [], failed = [];
	let left = n;
	const t0 = Date.now();
	await Promise.all(Array.from({ length: conc }, async (_, i) => {
		const p = ps[i % ps.length];
		while (left > 0) {
			left--;
			const r = await fcgiRequest({ sock: p.sock,
			    params: fcgiParams('POST', `/queue/${slug}/join`) });
			if (r.status === 200)
				numbers.push(JSON.parse(r.body).number);
			else
				failed.push(`${r.status} ${r.body}`);
		}
	}));
	return { numbers, failed, ms: Date.now() - t0 };
}

const consecutive = (nums) => {
	const s = [...nums].sort((a, b) => a - b);
	return s.every((x, i) => x === i + 1);
};

test('64 concurrent joins through the designated writer: unique, ' +
    'consecutive', async (t) => {
	const p = await pool([1, 2, 3], 8);
	const slug = createOnCluster();
	const r = await joins(slug, [p], 2000, 64);
	assert.deepEqual(r.failed, []);
	assert.equal(r.numbers.length, 2000);
	assert.equal(new Set(r.numbers).size, 2000, 'unique');
	assert.ok(consecutive(r.numbers), 'consecutive from 1');
	assert.equal(lastNumber(slug, 1), 2000);
	// Replicated: the same row on every node.
	await sleep(500);
	assert.equal(lastNumber(slug, 2), 2000);
	assert.equal(lastNumber(slug, 3), 2000);
	t.diagnostic(`one writer: ${Math.round(2000 / r.ms * 1000)} joins/s ` +
	    '(8 workers, 64 concurrent, 3 nodes on 2 shared cores)');
	await p.stop();
	pools.splice(pools.indexOf(p), 1);
});

test('number blocks through the designated writer: unique numbers, the ' +
    'last number accounted for exactly', async (t) => {
	const p = await pool([1, 2, 3], 8);
	const plain = createOnCluster();
	const blocks = createOnCluster();
	ctlCluster('update', blocks, '--number-block', 100);
	const unusedOf = (slug) => Number(sqlOn(cluster.nodes[0].sock,
	    `SELECT lease_unused_total FROM queue WHERE slug = '${slug}'`,
	    'aqueue')[0][0]);
	const figures = { [plain]: [], [blocks]: [] };
	const got = { [plain]: [], [blocks]: [] };
	// Interleaved, twice each: the machine's noise falls on both.
	for (const slug of [plain, blocks, plain, blocks]) {
		const r = await joins(slug, [p], 2000, 64);
		assert.deepEqual(r.failed, []);
		figures[slug].push(Math.round(2000 / r.ms * 1000));
		got[slug].push(...r.numbers);
	}
	for (const slug of [plain, blocks]) {
		assert.equal(new Set(got[slug]).size, 4000, 'unique');
		// Every lease ended and written (50 ms, then between
		// requests): the last number is received + unused.
		let last = 0, unused = 0;
		for (let i = 0; i < 50; i++) {
			last = lastNumber(slug, 1);
			unused = unusedOf(slug);
			if (last === 4000 + unused)
				break;
			await sleep(100);
		}
		assert.equal(last, 4000 + unused, `${slug}: last number ` +
		    `${last}, 4000 received, ${unused} unused`);
		if (slug === plain)
			assert.equal(unused, 0);
	}
	t.diagnostic(`one writer, joins/s without blocks ` +
	    `${figures[plain].join(', ')}; with numberBlock 100 ` +
	    `${figures[blocks].join(', ')} (8 workers, 64 concurrent, 3 ` +
	    `nodes on 2 shared cores)`);
	await p.stop();
	pools.splice(pools.indexOf(p), 1);
});

test('two writers: every certification conflict retried, numbers unique ' +
    'and consecutive', async (t) => {
	const a = await pool([1, 2, 3], 4);
	const b = await pool([2, 1, 3], 4);
	const slug = createOnCluster();
	const logs = () => readFileSync(a.log, 'utf8') + readFileSync(b.log,
	    'utf8');
	const before = (logs().match(/retrying after error 1213/g) ?? []).length;
	const r = await joins(slug, [a, b], 1000, 64);
	const retries = (logs().match(/retrying after error 1213/g) ?? [])
	    .length - before;
	assert.equal(new Set(r.numbers).size, r.numbers.length, 'unique');
	assert.ok(consecutive(r.numbers), 'consecutive: a failed join took ' +
	    'nothing');
	assert.equal(lastNumber(slug, 1), r.numbers.length);
	// A join still in conflict after its retries answers 503 (the
	// client retries later), nothing taken.
	for (const f of r.failed)
		assert.match(f, /^503 /);
	assert.equal(r.numbers.length + r.failed.length, 1000);
	assert.ok(r.numbers.length > 0);
	assert.ok(retries > 0, 'conflicts happened and were retried');
	t.diagnostic(`two writers: ${Math.round(r.numbers.length / r.ms *
	    1000)} joins/s, ${retries} retries after 1213, ` +
	    `${r.failed.length} answered 503`);
	for (const x of [a, b]) {
		await x.stop();
		pools.splice(pools.indexOf(x), 1);
	}
});

let killed = null;	// {pool, slug}: the pool left on node 2

test('the writer killed mid-load: only requests in flight fail, the pool ' +
    'moves on to node 2 within seconds', async (t) => {
	const p = await pool([1, 2, 3], 8);
	const slug = createOnCluster();
	const events = [];
	let stop = false, killedAt = 0, deadAt = 0;
	const loops = Array.from({ length: 16 }, async () => {
		while (!stop) {
			const r = await fcgiRequest({ sock: p.sock, timeoutMs: 15000,
			    params: fcgiParams('POST', `/queue/${slug}/join`) });
			events.push({ at: Date.now(), status: r.status,
			    number: r.status === 200 ? JSON.parse(r.body).number :
			    null, retry: r.headers['retry-after'],
			    body: r.body });
			if (r.status !== 200)
				await sleep(50);
		}
	});
	await sleep(2000);
	killedAt = Date.now();
	await cluster.kill(1);
	deadAt = Date.now();
	await sleep(6000);
	stop = true;
	await Promise.all(loops);
	// Answers after the node had exited came from node 2.
	const after = events.filter((e) => e.at > deadAt);
	const ok = after.filter((e) => e.status === 200);
	const bad = events.filter((e) => e.status !== 200);
	assert.ok(events.some((e) => e.at < killedAt && e.status === 200));
	assert.ok(ok.length > 0, 'joins succeed after the kill');
	const firstOk = ok[0].at - deadAt;
	const lastBad = bad.length ? bad[bad.length - 1].at - killedAt : 0;
	assert.ok(firstOk < 5000, `first join through node 2 after ${firstOk} ms`);
	assert.ok(lastBad < 5000, `last failure ${lastBad} ms after the kill`);
	for (const e of bad) {
		assert.equal(e.status, 503, e.body);
		assert.ok(Number(e.retry) >= 1, 'with Retry-After');
	}
	const nums = events.filter((e) => e.status === 200).map((e) => e.number);
	assert.equal(new Set(nums).size, nums.length, 'unique');
	// Gaps: only numbers whose join failed (in flight when the node
	// died: taken, but never answered) are skipped.
	const last = lastNumber(slug, 2);
	assert.ok(last >= Math.max(...nums));
	assert.ok(last - nums.length <= bad.length,
	    `${last - nums.length} numbers skipped, ${bad.length} failures`);
	t.diagnostic(`writer killed: ${bad.length} requests failed (503), ` +
	    `first success through node 2 after ${firstOk} ms, ` +
	    `${last - nums.length} numbers skipped`);
	killed = { pool: p, slug };
});

// The pool's connections to a node, from its process list.
// 8 workers and the master's own connection (reports, samples, poll
// documents).
const POOL_CONNS = 9;
const poolConns = (n) => Number(sqlOn(cluster.nodes[n - 1].sock,
    'SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ' +
    "USER = 'aqueue'")[0][0]);

test('the writer back: the pool returns to it within seconds', async (t) => {
	assert.ok(killed !== null, 'the kill test ran');
	const { pool: p, slug } = killed;
	assert.equal(poolConns(2), POOL_CONNS, 'the whole pool on node 2');
	const t0 = Date.now();
	await cluster.start(1);
	const synced = Date.now();
	const before = lastNumber(slug, 2);
	// Joins keep coming; each worker tries node 1 again 5 s after it
	// moved, then after 10 s, 20 s ... (at most 60 s) while it is gone.
	// While the rejoined node settles a join may still fail: 503 with
	// Retry-After (the client retries), never a number twice.
	let back = 0;
	const nums = [], bad = [];
	while (Date.now() - synced < 30000) {
		const rs = await Promise.all(Array.from({ length: 16 }, () =>
		    fcgiRequest({ sock: p.sock,
		    params: fcgiParams('POST', `/queue/${slug}/join`) })));
		for (const r of rs) {
			if (r.status === 200) {
				nums.push(JSON.parse(r.body).number);
				continue;
			}
			assert.equal(r.status, 503, r.body);
			assert.ok(Number(r.headers['retry-after']) >= 1);
			bad.push(r.body);
		}
		if (poolConns(1) === POOL_CONNS && poolConns(2) === 0) {
			back = Date.now() - synced;
			break;
		}
		await sleep(200);
	}
	assert.ok(back > 0, `on node 1: ${poolConns(1)}, node 2: ${poolConns(2)}`);
	assert.ok(back <= 25000, `back after ${back} ms`);
	// Once back, every join succeeds.
	const rs = await Promise.all(Array.from({ length: 32 }, () =>
	    fcgiRequest({ sock: p.sock,
	    params: fcgiParams('POST', `/queue/${slug}/join`) })));
	for (const r of rs) {
		assert.equal(r.status, 200, r.body);
		nums.push(JSON.parse(r.body).number);
	}
	assert.equal(new Set(nums).size, nums.length, 'unique');
	const last = lastNumber(slug, 1);
	assert.equal(Math.max(...nums), last);
	assert.ok(last - before - nums.length <= bad.length,
	    'a number is skipped only for a failed join');
	t.diagnostic(`node 1 rejoined in ${synced - t0} ms; all 8 workers ` +
	    `back on it ${back} ms later; ${bad.length} joins answered 503 ` +
	    'meanwhile');
	for (const l of readFileSync(p.log, 'utf8').split('\n')
	    .filter((x) => /WARN|ERR|db:/.test(x)).slice(-12))
		t.diagnostic(l);
	await p.stop();
	pools.splice(pools.indexOf(p), 1);
});

test('GET_LOCK is node-local on the cluster: one leader only among ' +
    'workers on the same node (db-hosts)', async () => {
	const { spawn } = await import('node:child_process');
	const name = `aqueue-leader-${Date.now()}`;
	// A session on node 2 takes the lock and holds it for 4 s.
	const holder = spawn('mariadb', ['--no-defaults',
	    `--socket=${cluster.nodes[1].sock}`, '-uroot', '--batch',
	    '--skip-column-names', '--unbuffered', '-e',
	    `SELECT GET_LOCK('${name}', 0); SELECT SLEEP(4);`],
	    { stdio: ['ignore', 'pipe', 'ignore'] });
	let out = '';
	holder.stdout.on('data', (d) => { out += d; });
	const done = new Promise((r) => holder.on('exit', r));
	for (let i = 0; i < 40 && !out.startsWith('1'); i++)
		await sleep(50);
	assert.equal(out.split('\n')[0], '1', 'the holder has the lock');
	const take = (n) => sqlOn(cluster.nodes[n - 1].sock,
	    `SELECT GET_LOCK('${name}', 0)`)[0][0];
	assert.equal(take(2), '0', 'a second session on the same node waits');
	assert.equal(take(3), '1', 'a session on another node gets it too');
	await done;
});
