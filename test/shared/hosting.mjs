// test/shared/hosting.mjs - a shared host on this machine, as root sets
// it up for its customers: Unix accounts with a home and a public_html,
// a database and a user each on the stack's MariaDB (WITH
// MAX_USER_CONNECTIONS 25), and one Apache 2.4 with mod_userdir,
// suEXEC (Debian's apache2-suexec-pristine) and mod_fcgid on loopback.
// What runs as the accounts is done with runuser -l, as over SSH.
//
// The environment comes from test/run: AQ_VAR (the stack's folder),
// AQ_ROOT (the checkout), AQ_PORT.  Everything made here lives in
// AQ_VAR/shared and in the accounts (removed by destroy()).

import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
	chmodSync, chownSync, copyFileSync, existsSync, mkdirSync,
	readFileSync, readdirSync, realpathSync, rmSync, statSync,
	writeFileSync,
} from 'node:fs';
import net from 'node:net';
import { randomBytes } from 'node:crypto';

export const MODS = '/usr/lib/apache2/modules';
export const SUEXEC = '/usr/lib/apache2/suexec';

export const env = {
	get vardir() { return process.env.AQ_VAR; },
	get root() { return process.env.AQ_ROOT; },
	get port() { return Number(process.env.AQ_PORT); },
};

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Why this machine cannot run the shared-hosting test, or null.
export function cannotRun() {
	if (typeof process.getuid !== 'function' || process.getuid() !== 0)
		return 'not root (it creates Unix accounts and starts Apache ' +
		    'with suEXEC)';
	for (const f of [`${MODS}/mod_fcgid.so`, `${MODS}/mod_userdir.so`,
	    `${MODS}/mod_suexec.so`, SUEXEC])
		if (!existsSync(f))
			return `${f} is missing (apt-get install ` +
			    'libapache2-mod-fcgid apache2-suexec-pristine)';
	if (!/suexec-pristine$/.test(realpathSync(SUEXEC)))
		return `${SUEXEC} is not Debian's suexec-pristine (its ` +
		    'UserDir suffix is public_html)';
	return null;
}

// run(cmd, args, opts): execFileSync returning {status, stdout, stderr}.
export function run(cmd, args, { input = undefined, timeout = 600000,
    env: e = undefined } = {}) {
	const r = spawnSync(cmd, args, { encoding: 'utf8', input, timeout,
	    env: e, maxBuffer: 64 * 1024 * 1024 });
	return { status: r.status, stdout: r.stdout ?? '',
	    stderr: r.stderr ?? '', signal: r.signal };
}

// asUser(user, command, input): the command line run by a login shell
// of user (runuser -l: HOME, PATH and the working folder as at an SSH
// log-in).  Returns {status, stdout, stderr}.
export function asUser(user, command, input = '', timeout = 900000) {
	return run('runuser', ['-l', user, '-c', command],
	    { input, timeout });
}

// SQL as the database's administrator (root over the stack's socket),
// in database db (or none).  Returns the rows as arrays of strings.
export function sql(query, db = null) {
	const args = ['--no-defaults', `--socket=${env.vardir}/db/mysqld.sock`,
	    '--user=root', '--connect-timeout=3', '--batch',
	    '--skip-column-names'];
	if (db !== null)
		args.push(db);
	args.push('-e', query);
	const out = execFileSync('mariadb', args, { encoding: 'utf8',
	    stdio: ['ignore', 'pipe', 'pipe'] });
	return out.split('\n').filter((l) => l !== '')
	    .map((l) => l.split('\t'));
}

// Whether something accepts on 127.0.0.1:port.
export function listening(port) {
	return new Promise((resolve) => {
		const s = net.connect({ host: '127.0.0.1', port });
		s.on('connect', () => { s.destroy(); resolve(true); });
		s.on('error', () => resolve(false));
	});
}

// One hosting account: Unix user, home, public_html, database and its
// user (name = the account's), password.
export function account(suffix) {
	const name = `aqs${env.port}${suffix}`;
	const home = `${env.vardir}/shared/home/${name}`;
	return { name, home, db: name, web: `${home}/public_html/warteraum`,
	    password: randomBytes(12).toString('hex') };
}

// Remove what makeAccount() made for a (the Unix account with its home,
// the database and its user).  Never throws.
export function dropAccount(a) {
	run('userdel', ['-r', '-f', a.name]);
	rmSync(a.home, { recursive: true, force: true });
	try {
		sql(`DROP DATABASE IF EXISTS \`${a.db}\`; ` +
		    `DROP USER IF EXISTS '${a.db}'@'localhost'`);
	} catch {
		// the server may be gone already
	}
}

// The account as a host makes it: a Unix user with a home of mode 0711
// (Apache passes through it to public_html), public_html of 0755; a
// database and a user allowed 25 connections at most.
export function makeAccount(a) {
	dropAccount(a);
	mkdirSync(`${env.vardir}/shared/home`, { recursive: true });
	chmodSync(`${env.vardir}/shared`, 0o711);
	chmodSync(`${env.vardir}/shared/home`, 0o711);
	const r = run('useradd', ['-m', '-d', a.home, '-s', '/bin/sh',
	    '-K', 'HOME_MODE=0711', a.name]);
	if (r.status !== 0)
		throw new Error(`useradd ${a.name}: ${r.stderr}`);
	chmodSync(a.home, 0o711);
	const pub = `${a.home}/public_html`;
	mkdirSync(pub);
	const id = userIds(a.name);
	chownSync(pub, id.uid, id.gid);
	chmodSync(pub, 0o755);
	sql(`CREATE DATABASE \`${a.db}\` CHARACTER SET utf8mb4 ` +
	    'COLLATE utf8mb4_unicode_ci; ' +
	    `CREATE USER '${a.db}'@'localhost' IDENTIFIED BY ` +
	    `'${a.password}' WITH MAX_USER_CONNECTIONS 25; ` +
	    `GRANT ALL ON \`${a.db}\`.* TO '${a.db}'@'localhost'`);
	Object.assign(a, id);
}

// {uid, gid} of a user, from getent.
export function userIds(user) {
	const [, , uid, gid] = execFileSync('getent', ['passwd', user],
	    { encoding: 'utf8' }).trim().split(':');
	return { uid: Number(uid), gid: Number(gid) };
}

// The walkthrough's commands, in order: the lines "$ command" of the
// code blocks under "## Walkthrough" in deploy/apache-shared/README.md.
export function walkthrough() {
	const text = readFileSync(`${env.root}/deploy/apache-shared/README.md`,
	    'utf8');
	const start = text.indexOf('\n## Walkthrough\n');
	const end = text.indexOf('\n## ', start + 5);
	return text.slice(start, end).split('\n')
	    .filter((l) => /^\s{4,}\$ /.test(l))
	    .map((l) => l.replace(/^\s+\$ /, ''));
}

// The pids and owners of the running aqueue-fcgi processes: [{pid,
// ppid, user}].
export function fcgiProcesses() {
	const out = run('ps', ['-C', 'aqueue-fcgi', '-o', 'pid=,ppid=,user:32=']);
	return out.stdout.split('\n').filter((l) => l.trim() !== '')
	    .map((l) => {
		const [pid, ppid, user] = l.trim().split(/\s+/);
		return { pid: Number(pid), ppid: Number(ppid), user };
	    });
}

// Statements the server ran for database user u so far
// (performance_schema, by user and event).
export function statements(u) {
	const v = sql('SELECT COALESCE(SUM(COUNT_STAR), 0) FROM ' +
	    'performance_schema.events_statements_summary_by_user_by_event_name ' +
	    `WHERE USER = '${u}'`)[0][0];
	return Number(v);
}

// Connections user u holds now.
export function connections(u) {
	return Number(sql('SELECT COUNT(*) FROM information_schema.PROCESSLIST ' +
	    `WHERE USER = '${u}'`)[0][0]);
}

// startApache({dir, port, accounts, cmdOptions}): Apache on 127.0.0.1:
// port, as root with its children as www-data (Debian's compiled-in
// suEXEC caller), mod_userdir for /~<account>/, suEXEC, mod_fcgid with
// the shipped fcgid-server.conf (server-wide; serverExtra appended) and
// fcgid-account.conf (the accounts' vhost); per account a <Directory>
// of its public_html: kind "restricted" (AllowOverride FileInfo
// Options=FollowSymLinks,ExecCGI, no AuthConfig) or "userdir" (Debian's
// stock userdir.conf block, with the ExecCGI the README asks the host
// to add); cmdOptions: per account a FcgidCmdOptions line's options for
// its aqueue.fcgi; the event MPM with more threads per child than the
// tests' 64 clients, the document root served.  Resolves {base, log,
// stop()}.
export async function startApache({ dir, port, accounts, serverExtra = '',
    cmdOptions = {} }) {
	rmSync(dir, { recursive: true, force: true });
	mkdirSync(`${dir}/run/fcgid`, { recursive: true });
	mkdirSync(`${dir}/log`, { recursive: true });
	chmodSync(dir, 0o755);
	const www = userIds('www-data');
	chownSync(`${dir}/run/fcgid`, www.uid, www.gid);
	const shipped = (f) => readFileSync(
	    `${env.root}/deploy/apache-shared/${f}`, 'utf8');
	// Debian's stock UserDir settings, the path made this account's.
	const stock = readFileSync('/etc/apache2/mods-available/userdir.conf',
	    'utf8');
	const stockDir = /<Directory \/home\/\*\/public_html>[\s\S]*?<\/Directory>/
	    .exec(stock)[0];
	const dirs = accounts.map((a) => {
		if (a.kind === 'userdir')
			return stockDir.replace('/home/*/public_html',
			    `${a.home}/public_html`).replace('</Directory>',
			    '\t# Added by the host, as the README asks.\n' +
			    '\tOptions +ExecCGI\n</Directory>');
		return `<Directory ${a.home}/public_html>
	AllowOverride FileInfo Options=FollowSymLinks,ExecCGI
	Options SymLinksIfOwnerMatch
	Require all granted
</Directory>`;
	}).join('\n');
	const cmds = accounts.filter((a) => cmdOptions[a.name] !== undefined)
	    .map((a) => `FcgidCmdOptions ${a.web}/aqueue.fcgi ` +
	    cmdOptions[a.name]).join('\n');
	const mods = ['mpm_event', 'authz_core', 'authz_host', 'authn_core',
	    'mime', 'rewrite', 'fcgid', 'userdir', 'suexec', 'alias', 'dir',
	    'env', 'setenvif', 'headers'];
	writeFileSync(`${dir}/httpd.conf`, `ServerRoot "${dir}"
ServerName 127.0.0.1
PidFile "${dir}/run/httpd.pid"
Listen 127.0.0.1:${port}
User www-data
Group www-data
ErrorLog "${dir}/log/error.log"
LogLevel warn
${mods.map((m) => `LoadModule ${m}_module ${MODS}/mod_${m}.so`).join('\n')}
TypesConfig /etc/mime.types
KeepAlive On
# mod_fcgid holds a thread for as long as a request waits for a free
# process (a whole second at a time): a child whose threads are all busy
# closes its keep-alive connections (mpm_event "All workers are busy",
# trace1), and a request a client sent on one just then gets no answer.
# Threads per child above the 64 clients of the tests: never all busy.
StartServers 2
ServerLimit 4
ThreadLimit 100
ThreadsPerChild 100
MinSpareThreads 100
MaxSpareThreads 300
MaxRequestWorkers 400
FcgidIPCDir "${dir}/run/fcgid"
FcgidProcessTableFile "${dir}/run/fcgid/shm"
# mod_fcgid's own handler, as Debian's fcgid.conf sets it.
AddHandler fcgid-script .fcgi
${shipped('fcgid-server.conf')}
${serverExtra}
${cmds}
DocumentRoot "${dir}/docroot"
<Directory />
	AllowOverride None
	Require all denied
</Directory>
# The document root is served, as on every host (Debian grants
# /var/www).  mod_fcgid looks PATH_INFO up as a URI for PATH_TRANSLATED
# (ap_add_cgi_vars(), a sub-request): /queue/... and /api/... at the
# root, which a denied root logs as "client denied" for every request.
<Directory "${dir}/docroot">
	Require all granted
</Directory>
UserDir public_html
UserDir disabled root
${dirs}
<VirtualHost 127.0.0.1:${port}>
	DocumentRoot "${dir}/docroot"
${shipped('fcgid-account.conf')}
</VirtualHost>
`);
	mkdirSync(`${dir}/docroot`);
	const t = run('apache2', ['-t', '-f', `${dir}/httpd.conf`]);
	if (t.status !== 0)
		throw new Error(`apache2 -t: ${t.stderr}`);
	if (await listening(port))
		throw new Error(`port ${port} is taken`);
	const child = spawn('apache2', ['-f', `${dir}/httpd.conf`,
	    '-DFOREGROUND'], { stdio: ['ignore', 'ignore', 'pipe'] });
	let err = '';
	child.stderr.on('data', (d) => { err += d; });
	const exited = new Promise((r) => child.on('exit', r));
	for (let i = 0; !(await listening(port)); i++) {
		if (child.exitCode !== null || i > 300)
			throw new Error(`apache2 did not start: ${err}` +
			    readFileSync(`${dir}/log/error.log`, 'utf8'));
		await sleep(50);
	}
	return {
		base: `http://127.0.0.1:${port}`,
		log: `${dir}/log/error.log`,
		async stop() {
			if (child.exitCode !== null)
				return;
			child.kill('SIGTERM');
			const t2 = setTimeout(() => child.kill('SIGKILL'), 15000);
			await exited;
			clearTimeout(t2);
		},
	};
}

// The database socket's folder must let the accounts through (search,
// not read).  Returns a function that puts the old mode back.
export function openDbFolder() {
	const d = `${env.vardir}/db`;
	const mode = statSync(d).mode & 0o777;
	chmodSync(d, mode | 0o011);
	return () => chmodSync(d, mode);
}

// The release tarball (make dist in the checkout), copied into the
// account's home.  Returns its file name.
export function giveTarball(a) {
	const r = run('make', ['-s', '-C', env.root, 'dist'], { timeout: 300000 });
	if (r.status !== 0)
		throw new Error(`make dist: ${r.stderr}${r.stdout}`);
	const tar = readdirSync(env.root).filter((f) =>
	    /^aditus-queue-.*\.tar\.gz$/.test(f)).sort().pop();
	copyFileSync(`${env.root}/${tar}`, `${a.home}/${tar}`);
	chownSync(`${a.home}/${tar}`, a.uid, a.gid);
	rmSync(`${env.root}/${tar}`, { force: true });
	return tar;
}

// Copy the installation a built into b's home (bin/ and share/ of
// ~/aqueue: the README's "build on another machine and copy").
export function copyInstall(a, b) {
	const r = run('cp', ['-a', `${a.home}/aqueue`, `${b.home}/aqueue`]);
	if (r.status !== 0)
		throw new Error(`cp: ${r.stderr}`);
	rmSync(`${b.home}/aqueue/etc`, { recursive: true, force: true });
	rmSync(`${b.home}/aqueue/var`, { recursive: true, force: true });
	run('chown', ['-R', `${b.uid}:${b.gid}`, `${b.home}/aqueue`]);
}
