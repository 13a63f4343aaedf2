// deploy/local/up as a user's script runs it: in the background, stopped
// with SIGINT (a non-interactive shell starts background jobs with SIGINT
// ignored) or SIGTERM (after setsid nohup); everything it started must be
// gone and a second run must work.  And ensure_packages, dry: one line
// about what it installs, apt-get's output in a log file.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import {
	existsSync, mkdtempSync, readFileSync, readdirSync, rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join as pathJoin } from 'node:path';
import { env, sleep, waitFor } from './lib.mjs';

// The next port after the test stack's, so that checkouts testing side
// by side on their own AQ_TEST_PORT do not meet.
const PORT = Number(process.env.AQ_PORT) + 1;
const BASE = `http://127.0.0.1:${PORT}`;

// ---- ensure_packages, with apt-get replaced by a function ------------

// dry(packages, rc, call): source stack.sh, list packages, make the root
// runner record its command and print 500 lines (as apt-get does), and run
// `call`.  Returns {status, stdout, stderr, calls, log, dir}.
function dry(packages, rc, call) {
	const dir = mkdtempSync(pathJoin(tmpdir(), 'aq-pkg-'));
	const script = `
		. "$AQ_ROOT/deploy/local/stack.sh"
		_st_packages=(${packages.map((p) => `'${p}'`).join(' ')})
		apt-get() { :; }
		apt-cache() { :; }
		_st_run_root() {
			printf '%s\\n' "$*" >>"$DIR/calls"
			for i in $(seq 1 500); do echo "Get:$i fake apt line"; done
			echo "fake warning" >&2
			return ${rc}
		}
		${call}
		echo "rc=$?"`;
	const r = spawnSync('bash', ['-c', script], { encoding: 'utf8',
	    env: { ...process.env, DIR: dir, AQ_SKIP_PACKAGES: '' } });
	const read = (f) => existsSync(f) ? readFileSync(f, 'utf8') : null;
	const out = { status: r.status, stdout: r.stdout, stderr: r.stderr,
	    calls: read(pathJoin(dir, 'calls')), dir };
	out.log = read(pathJoin(dir, 'log', 'packages.log'));
	return out;
}

test('ensure_packages: one line, apt-get quiet into a log', () => {
	const pk = ['aq-fake-one cmd:aq-no-such-command', 'bash cmd:bash',
	    'aq-fake-two pc:aq-no-such-module'];
	const r = dry(pk, 0, 'ensure_packages "$DIR/log/packages.log"');
	try {
		const log = `${r.dir}/log/packages.log`;
		assert.equal(r.stdout, 'stack: installing Debian packages: ' +
		    `aq-fake-one aq-fake-two (apt-get output in ${log})\nrc=0\n`);
		assert.equal(r.stderr, '');
		assert.equal(r.calls,
		    'env DEBIAN_FRONTEND=noninteractive apt-get update -q\n' +
		    'env DEBIAN_FRONTEND=noninteractive apt-get install -y -q ' +
		    '--no-install-recommends aq-fake-one aq-fake-two\n');
		const lines = r.log.split('\n');
		assert.equal(lines.length, 2 * 501 + 1);
		assert.equal(lines[0], 'Get:1 fake apt line');
		assert.equal(lines[500], 'fake warning');
	} finally {
		rmSync(r.dir, { recursive: true, force: true });
	}
});

test('ensure_packages: the default log is var/log of the repository', () => {
	const r = dry(['aq-fake-one cmd:aq-no-such-command'], 0,
	    'STACK_ROOT=$DIR ensure_packages');
	try {
		assert.equal(r.stdout, 'stack: installing Debian packages: ' +
		    'aq-fake-one (apt-get output in ' +
		    `${r.dir}/var/log/packages.log)\nrc=0\n`);
		assert.equal(r.stderr, '');
		assert.ok(existsSync(`${r.dir}/var/log/packages.log`));
	} finally {
		rmSync(r.dir, { recursive: true, force: true });
	}
});

test('ensure_packages: a failed apt-get shows the end of its log', () => {
	const r = dry(['aq-fake-one cmd:aq-no-such-command'], 100,
	    'ensure_packages "$DIR/log/packages.log"');
	try {
		const log = `${r.dir}/log/packages.log`;
		assert.equal(r.stdout, 'stack: installing Debian packages: ' +
		    `aq-fake-one (apt-get output in ${log})\nrc=1\n`);
		const tail = Array.from({ length: 19 },
		    (_, i) => `Get:${482 + i} fake apt line\n`).join('');
		assert.equal(r.stderr, 'stack: error: apt-get update failed\n' +
		    `----- last lines of ${log} -----\n${tail}fake warning\n`);
		assert.equal(r.calls,
		    'env DEBIAN_FRONTEND=noninteractive apt-get update -q\n',
		    'no install after a failed update');
	} finally {
		rmSync(r.dir, { recursive: true, force: true });
	}
});

test('ensure_packages: nothing missing, nothing said or run', () => {
	const r = dry(['bash cmd:bash'], 0,
	    'ensure_packages "$DIR/log/packages.log"');
	try {
		assert.deepEqual([r.stdout, r.stderr, r.calls, r.log],
		    ['rc=0\n', '', null, null]);
	} finally {
		rmSync(r.dir, { recursive: true, force: true });
	}
});

// ---- deploy/local/up in the background --------------------------------

const upVar = () => `${env.vardir}/up`;

// alive(pid): the process exists and is not a zombie.
function alive(pid) {
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
		return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
	} catch {
		return false;
	}
}

// children(pid): the pids whose parent is pid.
function children(pid) {
	const out = [];
	for (const d of readdirSync('/proc')) {
		if (!/^\d+$/.test(d))
			continue;
		try {
			const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
			const ppid = stat.slice(stat.lastIndexOf(')') + 2)
			    .split(' ')[1];
			if (Number(ppid) === pid)
				out.push(Number(d));
		} catch {
			// gone meanwhile
		}
	}
	return out;
}

// started(): every pid the stack recorded, with their children (nginx and
// pool workers).
function started() {
	const pids = [];
	for (const name of ['nginx', 'aqueue-fcgi', 'mariadbd']) {
		const f = `${upVar()}/pids/${name}.pid`;
		assert.ok(existsSync(f), `${name} has a pid file`);
		const pid = Number(readFileSync(f, 'utf8').trim());
		assert.ok(alive(pid), `${name} (pid ${pid}) runs`);
		pids.push(pid, ...children(pid));
	}
	return pids;
}

async function healthy() {
	try {
		const r = await fetch(`${BASE}/queue/healthz`);
		return r.status === 200;
	} catch {
		return false;
	}
}

// runUp(how, signal): start up the way a user's script does (how: the
// line that starts it in the background), wait until it answers, send
// signal, and check that it stopped everything and exited 0.
async function runUp(how, signal) {
	const log = `${upVar()}.log`;
	const script = `cd "$AQ_ROOT" || exit 9
		${how} >"$UPLOG" 2>&1 </dev/null &
		pid=$!
		echo "$pid"
		wait "$pid"
		echo "exit $?"`;
	const child = spawn('bash', ['-c', script], {
		env: { ...process.env, UPLOG: log, AQ_UP_VAR: upVar(),
		    AQ_SKIP_BUILD: '1' },
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	let out = '';
	child.stdout.on('data', (d) => { out += d; });
	const exited = new Promise((r) => child.on('exit', r));
	let pids = [];
	let upPid = 0;
	try {
		const end = Date.now() + 120000;
		while (!(await healthy())) {
			assert.ok(Date.now() < end, 'up answers within 120 s: ' +
			    (existsSync(log) ? readFileSync(log, 'utf8') : ''));
			assert.ok(child.exitCode === null,
			    `up exited early: ${readFileSync(log, 'utf8')}`);
			await sleep(250);
		}
		upPid = Number(out.split('\n')[0]);
		assert.ok(upPid > 0 && alive(upPid), 'up runs');
		// nginx answers a moment before up prints its closing lines.
		const ready = /aditus-queue runs locally \(Ctrl-C or "kill \d+" stops it\)/;
		await waitFor(() => ready.test(readFileSync(log, 'utf8')) &&
		    /aqueuectl -f \S+ list/.test(readFileSync(log, 'utf8')),
		    30000, 100, 'up prints how to stop it');
		const text = readFileSync(log, 'utf8');
		assert.match(text, ready);
		assert.match(text, /fcgi-app\/aqueuectl -f \S+\/aqueue.conf list/);
		pids = started();
		assert.ok(pids.length >= 5, `pids: ${pids}`);

		process.kill(upPid, signal);
		const t0 = Date.now();
		await Promise.race([exited, sleep(60000)]);
		assert.ok(child.exitCode !== null, `up stopped after ${signal}`);
		assert.ok(Date.now() - t0 < 60000);
		assert.equal(out.split('\n')[1], 'exit 0', `exit status: ${out}`);
		assert.ok(!alive(upPid));
		for (const p of pids)
			assert.ok(!alive(p), `pid ${p} is gone`);
		assert.equal(await healthy(), false, 'nothing answers any more');
		assert.match(readFileSync(log, 'utf8'),
		    /stack: stopping nginx[^]*stack: stopping aqueue-fcgi[^]*stack: stopping mariadbd[^]*\nup: stopped\n$/);
		for (const name of ['nginx', 'aqueue-fcgi', 'mariadbd'])
			assert.ok(!existsSync(`${upVar()}/pids/${name}.pid`),
			    `${name}'s pid file removed`);
	} finally {
		if (child.exitCode === null)
			child.kill('SIGKILL');
		// up itself runs in the background of that script.
		if (upPid > 0 && alive(upPid))
			process.kill(upPid, 'SIGKILL');
		spawnSync(env.stack, ['down', upVar()], { stdio: 'ignore' });
	}
}

test('up in the background of a script stops on SIGINT', { timeout: 240000 },
    async () => {
	// The background job of a non-interactive shell: SIGINT ignored at
	// entry, which up must undo to be able to stop on it.
	await runUp(`deploy/local/up ${PORT}`, 'SIGINT');
});

test('up under setsid nohup stops on SIGTERM, and runs again',
    { timeout: 240000 }, async () => {
	await runUp(`setsid nohup deploy/local/up ${PORT}`, 'SIGTERM');
	await runUp(`deploy/local/up ${PORT}`, 'SIGTERM');
});
