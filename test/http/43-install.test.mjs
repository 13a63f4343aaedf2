// make install (into a DESTDIR): the programs, the manual pages, the
// templates, the static files, every migration, the sample
// configuration, lighttpd's error documents and the systemd units land in
// their usual places under the configured prefix; the units pass
// systemd-analyze verify and the manual pages format without a warning.
// (make distcheck, run by .ci/run, checks --prefix, DESTDIR and
// uninstall on a VPATH build of the tarball.)

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
	copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync,
	readFileSync, rmSync, statSync, writeFileSync,
} from 'node:fs';
import { env } from './lib.mjs';

const dest = mkdtempSync(`${env.vardir}/destdir-`);

after(() => rmSync(dest, { recursive: true, force: true }));

function run(cmd, args, opts = {}) {
	const r = spawnSync(cmd, args, { encoding: 'utf8', ...opts });
	return { code: r.status, out: r.stdout, err: r.stderr };
}

// A variable of the configured Makefile (prefix, bindir, ...), expanded.
function makeVar(name) {
	const r = run('make', ['-s', '--no-print-directory', '-f', '-',
	    `print-${name}`], { cwd: env.root, input:
	    `include Makefile\nprint-%:\n\t@echo $($*)\n` });
	assert.equal(r.code, 0, r.err);
	return r.out.trim();
}

test('make install DESTDIR=... puts everything in place', () => {
	const r = run('make', ['install', `DESTDIR=${dest}`], { cwd: env.root });
	assert.equal(r.code, 0, r.err + r.out);
	const bindir = makeVar('bindir');
	const pkg = `${dest}${makeVar('pkgdatadir')}`;
	const man = `${dest}${makeVar('mandir')}`;
	const units = `${dest}${makeVar('systemdunitdir')}`;
	for (const p of ['aqueue-fcgi', 'aqueuectl']) {
		const st = statSync(`${dest}${bindir}/${p}`);
		assert.ok(st.mode & 0o111, `${p} executable`);
	}
	if (existsSync(`${env.root}/worker/aqueue-worker`))
		assert.ok(existsSync(`${dest}${bindir}/aqueue-worker`));
	for (const m of ['man8/aqueue-fcgi.8', 'man8/aqueuectl.8',
	    'man5/aqueue.conf.5'])
		assert.ok(existsSync(`${man}/${m}`), m);
	const same = (sub) => {
		const want = readdirSync(`${env.root}/${sub}`)
		    .filter((f) => !f.startsWith('.')).sort();
		assert.deepEqual(readdirSync(`${pkg}/${sub}`).sort(), want, sub);
		for (const f of want) {
			if (statSync(`${env.root}/${sub}/${f}`).isDirectory()) {
				same(`${sub}/${f}`);
				continue;
			}
			assert.deepEqual(readFileSync(`${pkg}/${sub}/${f}`),
			    readFileSync(`${env.root}/${sub}/${f}`), f);
		}
	};
	same('migrations');
	same('templates');
	same('static');
	assert.ok(existsSync(`${pkg}/aqueue.conf.sample`));
	assert.equal(readFileSync(`${pkg}/lighttpd-errors/status-411.html`,
	    'utf8').trim(), JSON.stringify({ error: 'length_required',
	    message: 'A request with a body needs a Content-Length header.' }));
	// The units name the installed program and the configuration.
	const svc = readFileSync(`${units}/aqueue-fcgi.service`, 'utf8');
	assert.match(svc, new RegExp(`^ExecStart=${bindir}/aqueue-fcgi ` +
	    '-f /etc/aqueue/aqueue.conf$', 'm'));
	assert.match(svc, /^StandardInput=socket$/m);
	assert.match(readFileSync(`${units}/aqueue-worker.service`, 'utf8'),
	    new RegExp(`^ExecStart=${bindir}/aqueue-worker -c ` +
	    '/etc/aqueue/aqueue.conf$', 'm'));
	assert.match(readFileSync(`${units}/aqueue-fcgi.socket`, 'utf8'),
	    /^ListenStream=\/run\/aqueue\/fcgi\.sock$/m);
});

test('the installed units pass systemd-analyze verify', () => {
	const units = `${dest}${makeVar('systemdunitdir')}`;
	const bindir = makeVar('bindir');
	// Verify checks that ExecStart's program exists: point the copies
	// at the DESTDIR (and stand the pool in for a worker not built).
	const dir = `${dest}/verify`;
	mkdirSync(dir);
	if (!existsSync(`${dest}${bindir}/aqueue-worker`))
		copyFileSync(`${dest}${bindir}/aqueue-fcgi`,
		    `${dest}${bindir}/aqueue-worker`);
	const names = ['aqueue-fcgi.socket', 'aqueue-fcgi.service',
	    'aqueue-worker.service'];
	for (const n of names)
		writeFileSync(`${dir}/${n}`, readFileSync(`${units}/${n}`, 'utf8')
		    .replaceAll(`${bindir}/`, `${dest}${bindir}/`));
	const r = run('systemd-analyze', ['verify', '--man=no',
	    ...names.map((n) => `${dir}/${n}`)], { timeout: 60000 });
	assert.equal(r.code, 0, r.err);
	assert.equal(r.err, '', 'no warning');
	// Every hardening line sits under a comment that explains it: from
	// NoNewPrivileges to the end of [Service], each directive follows a
	// comment line or a directive of the same commented group.
	for (const n of names.filter((x) => x.endsWith('.service'))) {
		const lines = readFileSync(`${units}/${n}`, 'utf8').split('\n');
		const start = lines.findIndex((l) => l.startsWith('NoNewPriv'));
		const end = lines.findIndex((l, i) => i > start &&
		    l.startsWith('['));
		assert.ok(start > 0 && end > start, n);
		let hardening = 0;
		for (let i = start; i < end; i++) {
			if (!/^[A-Z]/.test(lines[i]))
				continue;
			hardening++;
			assert.match(lines[i - 1], /^(# |[A-Z])/,
			    `${n}: ${lines[i]} has no comment`);
		}
		assert.ok(hardening >= 20, `${n}: ${hardening} lines`);
	}
});

test('the manual pages format without warnings', () => {
	const man = `${dest}${makeVar('mandir')}`;
	for (const m of ['man8/aqueue-fcgi.8', 'man8/aqueuectl.8',
	    'man5/aqueue.conf.5']) {
		const r = run('man', ['--warnings', '-l', `${man}/${m}`],
		    { env: { ...process.env, MANWIDTH: '80', MANPAGER: 'cat',
		    PAGER: 'cat', LC_ALL: 'C.UTF-8' } });
		assert.equal(r.code, 0, r.err);
		assert.equal(r.err, '', `${m}: ${r.err}`);
		assert.match(r.out, /NAME/);
	}
	// aqueue.conf(5) names every key the program reads.
	const cfg = readFileSync(`${env.root}/fcgi-app/lib/cfg.c`, 'utf8');
	const keys = [...cfg.matchAll(/^\t\{ "([a-z-]+)", [SIO]\(/gm)]
	    .map((m) => m[1]);
	assert.ok(keys.length > 20);
	const page = readFileSync(`${man}/man5/aqueue.conf.5`, 'utf8')
	    .replaceAll('\\-', '-');
	for (const k of keys)
		assert.ok(page.includes(k), `aqueue.conf(5) documents ${k}`);
});
