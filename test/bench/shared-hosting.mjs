// test/bench/shared-hosting.mjs - the figures of deploy/apache-shared/
// README.md and the main README's "Deploying": one hosting account as
// test/shared sets it up (suEXEC, UserDir, mod_fcgid, a database user
// limited to 25 connections, embedded-worker = on, workers = 0), and
//   1. the database statements per second at zero visitors with 4 and
//      with 64 processes alive (performance_schema's count for the
//      account's database user over IDLE_S seconds, after the processes
//      went idle);
//   2. latencies at 64 concurrent clients with the shipped mod_fcgid
//      settings (fcgid-account.conf: at most 8 processes): joins, status
//      of an admitted number, and the poll document (a file), each for
//      DUR seconds after a warm-up, p50/p99 measured by this client.
// Run through test/bench/shared-hosting (a private stack, as root).

import { execFileSync } from 'node:child_process';
import {
	account, asUser, connections, dropAccount, env, fcgiProcesses,
	makeAccount, openDbFolder, run, sleep, startApache, statements,
} from '../shared/hosting.mjs';

const DUR = Number(process.env.DUR ?? 10);
const IDLE_S = Number(process.env.IDLE_S ?? 10);
const PORT = env.port + 50;
const A = account('m');
const base = `http://127.0.0.1:${PORT}/~${A.name}/warteraum`;

// Install the checkout's build into the account's ~/aqueue and set it up
// with the walkthrough's init.
function install() {
	const r = run('make', ['-s', '-C', env.root, 'install',
	    `prefix=${A.home}/aqueue`]);
	if (r.status !== 0)
		throw new Error(`make install: ${r.stderr}`);
	run('chown', ['-R', `${A.uid}:${A.gid}`, `${A.home}/aqueue`]);
	const i = asUser(A.name, `~/aqueue/bin/aqueuectl init --web-dir ` +
	    `~/public_html/warteraum --db-socket ${env.vardir}/db/mysqld.sock ` +
	    `--db-name ${A.db} --db-user ${A.db}`, `${A.password}\n`);
	if (i.status !== 0)
		throw new Error(`init: ${i.stderr}`);
	const c = asUser(A.name, '~/aqueue/bin/aqueuectl create sale --name ' +
	    'Sale --rate 1000000 --target https://shop.example/ --domains ' +
	    'https://shop.example');
	if (c.status !== 0)
		throw new Error(`create: ${c.stderr}`);
}

// n clients for ms milliseconds, each doing f() in a loop; returns the
// latencies (ms) and the answers by status ("closed": no answer).
async function load(n, ms, f) {
	const lat = [], status = new Map();
	const until = Date.now() + ms;
	await Promise.all(Array.from({ length: n }, async () => {
		while (Date.now() < until) {
			const t = performance.now();
			// A connection Apache closes counts as an answer of its
			// own, never stops the run.
			const s = await f().catch(() => 'closed');
			lat.push(performance.now() - t);
			status.set(s, (status.get(s) ?? 0) + 1);
		}
	}));
	return { lat, status };
}

const join = async () => {
	const r = await fetch(`${base}/queue/sale/join`, { method: 'POST' });
	await r.arrayBuffer();
	return r.status;
};
const getter = (path) => async () => {
	const r = await fetch(`${base}${path}`);
	await r.arrayBuffer();
	return r.status;
};

const pct = (a, p) => {
	const s = [...a].sort((x, y) => x - y);
	return s[Math.min(s.length - 1, Math.floor(p * s.length))];
};

const procs = () => fcgiProcesses().filter((p) => p.user === A.name)
    .length;

// Statements per second of the account at zero visitors.
async function idleRate() {
	await sleep(3000);
	const n = procs();
	const t0 = Date.now(), s0 = statements(A.db);
	await sleep(IDLE_S * 1000);
	const rate = (statements(A.db) - s0) / ((Date.now() - t0) / 1000);
	return { n, rate, conns: connections(A.db) };
}

let apache = null;
const closeDb = openDbFolder();
try {
	makeAccount(A);
	install();
	const rows = [];
	// 1. Idle, with 4 and with 64 processes.
	for (const n of [4, 64]) {
		apache = await startApache({ dir: `${env.vardir}/bench-shared`,
		    port: PORT, accounts: [{ ...A, kind: 'restricted' }],
		    serverExtra: 'FcgidSpawnScoreUpLimit 1000\nFcgidTimeScore 100',
		    cmdOptions: { [A.name]: `MaxProcesses ${n} MinProcesses ${n} ` +
		    'IdleTimeout 600 IOTimeout 15 MaxRequestsPerProcess 0' } });
		// Grow the pool to n: twice as many clients as processes.
		for (let i = 0; i < 10 && procs() < n; i++)
			await load(2 * n, 2000, join);
		const r = await idleRate();
		rows.push(r);
		console.log(`idle: ${r.n} processes, ${r.rate.toFixed(1)} ` +
		    `statements/s, ${r.conns} connections`);
		await apache.stop();
		apache = null;
	}
	// 2. 64 clients against the shipped settings (8 processes).
	apache = await startApache({ dir: `${env.vardir}/bench-shared`,
	    port: PORT, accounts: [{ ...A, kind: 'restricted' }] });
	for (let i = 0; i < 10 && procs() < 8; i++)
		await load(64, 3000, join);
	const j0 = await fetch(`${base}/queue/sale/join`, { method: 'POST' });
	const first = (await j0.json()).number;
	for (const [name, f] of [['join', join],
	    ['status', getter(`/queue/sale/status?number=${first}`)],
	    ['state.json (file)', getter('/queue/sale/state.json')]]) {
		const r = await load(64, DUR * 1000, f);
		console.log(`c64 ${name}: ${procs()} processes, ` +
		    `${(r.lat.length / DUR).toFixed(0)} req/s, p50 ${
		    pct(r.lat, 0.5).toFixed(1)} ms, p99 ${
		    pct(r.lat, 0.99).toFixed(1)} ms, answers ${
		    JSON.stringify(Object.fromEntries(r.status))}`);
	}
	console.log(`machine: ${execFileSync('nproc', { encoding: 'utf8' })
	    .trim()} cores, load ${execFileSync('cat', ['/proc/loadavg'],
	    { encoding: 'utf8' }).trim()}`);
} finally {
	if (apache !== null)
		await apache.stop();
	closeDb();
	dropAccount(A);
}
