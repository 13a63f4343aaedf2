// test/http/servers.mjs - the shipped web-server configurations of
// deploy/ (Apache 2.4 with mod_proxy_fcgi, Apache with mod_fcgid and the
// shared-hosting .htaccess under /warteraum/, lighttpd with mod_fastcgi)
// started on loopback ports in front of the stack's pool, for the matrix
// test.  The shipped files are used as they are; only the paths of a
// production install (/run/aqueue/fcgi.sock, /usr/local/share/...,
// /home/shopuser/aqueue) and the listening addresses are replaced.
//
// Apache runs as root with its children as www-data (as on Debian), so
// the mod_fcgid-spawned program meets the shared-hosting permissions:
// its configuration and key belong to www-data (0600) and the database
// socket's folder must be searchable by it.  lighttpd drops to www-data
// too.  So everything these servers read comes from dir (which must lie
// in a folder www-data can pass through, as the stack's folder of
// test/run does), never from the repository, which may sit in a private
// directory: the static files, the templates, the migrations and
// lighttpd's error pages are copied there, as an installation would.

import { spawn, execFileSync } from 'node:child_process';
import {
	chmodSync, chownSync, copyFileSync, cpSync, existsSync, mkdirSync,
	readFileSync, rmSync, statSync, writeFileSync,
} from 'node:fs';
import net from 'node:net';
import { env, sleep } from './lib.mjs';

const MODS = '/usr/lib/apache2/modules';

// The uid/gid of a system user (www-data), from getent.
function ids(user) {
	const [, , uid, gid] = execFileSync('getent', ['passwd', user],
	    { encoding: 'utf8' }).trim().split(':');
	return { uid: Number(uid), gid: Number(gid) };
}

// Whether something listens on 127.0.0.1:port.
function listening(port) {
	return new Promise((resolve) => {
		const s = net.connect({ host: '127.0.0.1', port });
		s.on('connect', () => { s.destroy(); resolve(true); });
		s.on('error', () => resolve(false));
	});
}

// start(cmd, args, ports, log): spawn a server in the foreground and
// wait until every port answers; returns the child.
async function start(cmd, args, ports, log) {
	for (const p of ports)
		if (await listening(p))
			throw new Error(`port ${p} is taken: not starting ${cmd}`);
	const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
	let err = '';
	child.stderr.on('data', (d) => { err += d; });
	const end = Date.now() + 15000;
	for (;;) {
		if (child.exitCode !== null || child.signalCode !== null)
			throw new Error(`${cmd} exited: ${err}` +
			    (existsSync(log) ? readFileSync(log, 'utf8') : ''));
		let all = true;
		for (const p of ports)
			all = all && await listening(p);
		if (all)
			return child;
		if (Date.now() > end) {
			child.kill('SIGKILL');
			throw new Error(`${cmd} did not listen on ${ports}: ${err}`);
		}
		await sleep(50);
	}
}

// stop(child): SIGTERM, then SIGKILL after 10 s; resolves once it exited.
async function stop(child) {
	if (child === null || child.exitCode !== null ||
	    child.signalCode !== null)
		return;
	const done = new Promise((r) => child.on('exit', r));
	child.kill('SIGTERM');
	const t = setTimeout(() => child.kill('SIGKILL'), 10000);
	await done;
	clearTimeout(t);
}

// The stack's aqueue.conf keys a copy for another process needs: its
// database.
function stackKeys() {
	const text = readFileSync(`${env.vardir}/aqueue.conf`, 'utf8');
	return text.split('\n').filter((l) => /^\s*db-[a-z-]+\s*=/.test(l));
}

// startServers({port1, sock, dir, fcgiProgram}): Apache on port1
// (mod_proxy_fcgi vhost) and port1 + 1 (mod_fcgid, .htaccess under
// /warteraum/), lighttpd on port1 + 2 (at the root and, rewritten, under
// /warteraum/), all in front of the FastCGI socket sock (the stack's
// pool).  fcgiProgram (default: the built aqueue-fcgi) is what mod_fcgid
// spawns through the shipped wrapper; extraConf is appended to its
// configuration; fcgidConf, when set, replaces the shipped mod_fcgid
// settings (deploy/apache-shared/fcgid-server.conf server-wide and
// fcgid-account.conf in the mod_fcgid vhost).  Resolves {proxyFcgi,
// fcgid, lighttpd (base URLs), dir, home, stop()}.  The state-dir of
// the configurations is dir/state, the shared-hosting one's
// dir/www/warteraum/state; that installation lives in home/aqueue as
// "make install" with the prefix ~/aqueue puts it.
export async function startServers({ port1, sock, dir,
    fcgiProgram = `${env.root}/fcgi-app/aqueue-fcgi`, extraConf = '',
    fcgidConf = null }) {
	const root = env.root;
	const www = ids('www-data');
	rmSync(dir, { recursive: true, force: true });
	mkdirSync(`${dir}/run/fcgid`, { recursive: true });
	mkdirSync(`${dir}/log`, { recursive: true });
	chmodSync(dir, 0o755);
	chownSync(`${dir}/run/fcgid`, www.uid, www.gid);
	// What make install puts under $(pkgdatadir), for the servers.
	const share = `${dir}/share`;
	cpSync(`${root}/static`, `${share}/static`, { recursive: true });
	cpSync(`${root}/deploy/lighttpd/errors`, `${share}/lighttpd-errors`,
	    { recursive: true });
	const subst = (text) => text
	    .replaceAll('/run/aqueue/fcgi.sock', sock)
	    .replaceAll('/usr/local/share/aditus-queue/static',
		`${share}/static`)
	    .replaceAll('/usr/local/share/aditus-queue/lighttpd-errors',
		`${share}/lighttpd-errors`)
	    .replaceAll('/home/shopuser/public_html/warteraum',
		`${dir}/www/warteraum`)
	    .replaceAll('/home/shopuser/aqueue', `${dir}/home/aqueue`)
	    .replaceAll('/var/lib/aqueue/state', `${dir}/state`);
	mkdirSync(`${dir}/state`, { recursive: true });
	chmodSync(`${dir}/state`, 0o755);

	// ---- shared hosting: the account's folder and the web folder ----
	// The installation as "make install" puts it under the prefix
	// ~/aqueue, and its configuration in ~/aqueue/etc, whose relative
	// paths (templates, migrations, run-dir, log-file) are taken from
	// there.  The program runs as www-data here (no suEXEC).
	const home = `${dir}/home/shopuser`;
	const pre = `${home}/aqueue`;
	mkdirSync(`${pre}/bin`, { recursive: true });
	copyFileSync(fcgiProgram, `${pre}/bin/aqueue-fcgi`);
	chmodSync(`${pre}/bin/aqueue-fcgi`, 0o755);
	for (const d of ['templates', 'migrations'])
		cpSync(`${root}/${d}`, `${pre}/share/aditus-queue/${d}`,
		    { recursive: true });
	mkdirSync(`${pre}/etc`, { recursive: true });
	for (const d of ['var/run', 'var/log']) {
		mkdirSync(`${pre}/${d}`, { recursive: true });
		chownSync(`${pre}/${d}`, www.uid, www.gid);
	}
	const web = `${dir}/www/warteraum`;
	// The database's keys are the stack's; state-dir names the web
	// folder (as "aqueuectl init --web-dir" writes it).
	const shipped = readFileSync(`${root}/deploy/apache-shared/aqueue.conf`,
	    'utf8').split('\n').filter((l) => !/^\s*db-[a-z-]+\s*=/.test(l))
	    .map((l) => l.replace(/^state-dir = .*$/, `state-dir = ${web}/state`));
	writeFileSync(`${pre}/etc/aqueue.conf`, shipped.join('\n') +
	    `\n${stackKeys().join('\n')}\n${extraConf}\n`, { mode: 0o600 });
	copyFileSync(`${env.vardir}/master.key`, `${pre}/etc/master.key`);
	for (const f of ['aqueue.conf', 'master.key']) {
		chmodSync(`${pre}/etc/${f}`, 0o600);
		chownSync(`${pre}/etc/${f}`, www.uid, www.gid);
	}
	mkdirSync(web, { recursive: true });
	chmodSync(`${dir}/www`, 0o755);
	copyFileSync(`${root}/deploy/apache-shared/htaccess`, `${web}/.htaccess`);
	// The shipped wrapper finds the home folder from the account that
	// runs it (www-data here): told the test's home instead.
	writeFileSync(`${web}/aqueue.fcgi`, readFileSync(
	    `${root}/deploy/apache-shared/aqueue.fcgi`, 'utf8')
	    .replace(/^home=.*$/m, `home=${home}`), { mode: 0o755 });
	chmodSync(`${web}/aqueue.fcgi`, 0o755);
	cpSync(`${root}/static`, `${web}/static`, { recursive: true });
	// The poll documents' folder, writable by the program (www-data).
	mkdirSync(`${web}/state`);
	chownSync(`${web}/state`, www.uid, www.gid);
	// CASES C01's three set-ups of the shipped .htaccess, each in its
	// own folder: without either way of passing Authorization, with the
	// rewrite fallback only (as shipped), with CGIPassAuth only (as
	// htaccess-userdir has it where AuthConfig is allowed).
	const hta = readFileSync(`${root}/deploy/apache-shared/htaccess`, 'utf8');
	const withPass = (t) => t.replace(/^RewriteEngine On$/m,
	    'CGIPassAuth On\nRewriteEngine On');
	const noRewrite = (t) => t.replace(
	    /^RewriteCond %\{HTTP:Authorization\} \.\n^RewriteRule .*\n/m, '');
	for (const [name, text] of [['c01-none', noRewrite(hta)],
	    ['c01-rewrite', hta], ['c01-passauth',
	    withPass(noRewrite(hta))]]) {
		const d = `${dir}/www/${name}`;
		mkdirSync(d, { recursive: true });
		if ((text === hta) !== (name === 'c01-rewrite'))
			throw new Error(`${name}: the .htaccess is not as meant`);
		writeFileSync(`${d}/.htaccess`, text);
		copyFileSync(`${web}/aqueue.fcgi`, `${d}/aqueue.fcgi`);
		chmodSync(`${d}/aqueue.fcgi`, 0o755);
	}
	// The database socket's folder: searchable (not readable) by the
	// account the program runs as.
	const dbdir = `${env.vardir}/db`;
	const dbMode = statSync(dbdir).mode & 0o777;
	chmodSync(dbdir, dbMode | 0o011);

	// ---- Apache: one server, the two set-ups as two vhosts ----------
	const p = port1;
	const mods = ['mpm_event', 'authz_core', 'mime', 'rewrite', 'proxy',
	    'proxy_fcgi', 'fcgid', 'alias', 'dir', 'env', 'setenvif',
	    'headers', 'expires'];
	writeFileSync(`${dir}/httpd.conf`, `ServerRoot "${dir}"
ServerName 127.0.0.1
PidFile "${dir}/run/httpd.pid"
Listen 127.0.0.1:${p}
Listen 127.0.0.1:${p + 1}
User www-data
Group www-data
ErrorLog "${dir}/log/apache-error.log"
LogLevel warn
${mods.map((m) => `LoadModule ${m}_module ${MODS}/mod_${m}.so`).join('\n')}
TypesConfig /etc/mime.types
KeepAlive On
FcgidIPCDir "${dir}/run/fcgid"
FcgidProcessTableFile "${dir}/run/fcgid/shm"
Include "${dir}/fcgid.conf"
<VirtualHost 127.0.0.1:${p}>
	DocumentRoot "${dir}/www"
	Include "${dir}/apache-vhost.conf"
</VirtualHost>
<VirtualHost 127.0.0.1:${p + 1}>
	DocumentRoot "${dir}/www"
	Include "${dir}/fcgid-account.conf"
	<Directory "${dir}/www">
		AllowOverride All
		Require all granted
	</Directory>
</VirtualHost>
`);
	writeFileSync(`${dir}/apache-vhost.conf`, subst(readFileSync(
	    `${root}/deploy/apache-vhost/aqueue.conf`, 'utf8')));
	const shippedFcgid = (f) => readFileSync(
	    `${root}/deploy/apache-shared/${f}`, 'utf8');
	writeFileSync(`${dir}/fcgid.conf`, fcgidConf ??
	    shippedFcgid('fcgid-server.conf'));
	writeFileSync(`${dir}/fcgid-account.conf`, fcgidConf !== null ? '' :
	    shippedFcgid('fcgid-account.conf'));

	// ---- lighttpd -----------------------------------------------------
	const lconf = subst(readFileSync(`${root}/deploy/lighttpd/aqueue.conf`,
	    'utf8'))
	    .replace(/^server\.port = .*$/m,
		`server.port = ${p + 2}\nserver.bind = "127.0.0.1"`)
	    .replace(/^server\.pid-file = .*$/m,
		`server.pid-file = "${dir}/run/lighttpd.pid"`)
	    .replace(/^server\.errorlog = .*$/m,
		`server.errorlog = "${dir}/log/lighttpd-error.log"`)
	    // The prefix variant, as its comment shows it.
	    .replace(/^# url\.rewrite-once \+= \(\n((?:# .*\n)*?)# \)$/m,
		(m) => m.replace(/^# ?/gm, ''));
	writeFileSync(`${dir}/lighttpd.conf`, lconf);
	chownSync(`${dir}/log`, www.uid, www.gid);

	const servers = [];
	const stopAll = async () => {
		for (const s of servers.reverse())
			await stop(s);
		servers.length = 0;
		chmodSync(dbdir, dbMode);
	};
	try {
		servers.push(await start('apache2', ['-f', `${dir}/httpd.conf`,
		    '-DFOREGROUND'], [p, p + 1], `${dir}/log/apache-error.log`));
		servers.push(await start('lighttpd', ['-D', '-f',
		    `${dir}/lighttpd.conf`], [p + 2],
		    `${dir}/log/lighttpd-error.log`));
	} catch (e) {
		await stopAll();
		throw e;
	}
	return {
		dir,
		home,
		proxyFcgi: `http://127.0.0.1:${p}`,
		fcgid: `http://127.0.0.1:${p + 1}`,
		lighttpd: `http://127.0.0.1:${p + 2}`,
		stop: stopAll,
	};
}
