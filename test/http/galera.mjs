// test/http/galera.mjs - a 3-node MariaDB Galera cluster (Debian's
// galera-4) on loopback ports for the cluster test: node 1 bootstraps,
// nodes 2 and 3 join by rsync state transfer.  The nodes run as the mysql
// user (rsync SST drops to it and must write the joiner's data folder).
// A node that dies is dropped from the cluster after evs.suspect_timeout
// (PT5S by default; PT2S here, on loopback): until then the other nodes
// cannot commit, which bounds how fast the pool's writes move on.
// Every process started here is stopped by PID.

import { spawn, execFileSync } from 'node:child_process';
import { chownSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { sleep } from './lib.mjs';

function uidOf(user) {
	const [, , uid, gid] = execFileSync('getent', ['passwd', user],
	    { encoding: 'utf8' }).trim().split(':');
	return { uid: Number(uid), gid: Number(gid) };
}

// sql(node, text): run text on a node as root over its socket; rows as
// arrays of strings.
export function sqlOn(sock, text, db = '') {
	const out = execFileSync('mariadb', ['--no-defaults', `--socket=${sock}`,
	    '-uroot', '--batch', '--skip-column-names', '--connect-timeout=3',
	    ...(db ? [db] : []), '-e', text], { encoding: 'utf8',
	    stdio: ['ignore', 'pipe', 'pipe'] });
	return out.split('\n').filter((l) => l !== '')
	    .map((l) => l.split('\t'));
}

// startCluster({dir, port}): nodes n = 1..3 with client port port + n - 1
// and Galera ports port + 3n .. port + 3n + 2 (group, IST, SST).
// Resolves {nodes: [{n, port, sock}], pid(n), kill(n), start(n), stop()}.
export async function startCluster({ dir, port }) {
	const mysql = uidOf('mysql');
	rmSync(dir, { recursive: true, force: true });
	mkdirSync(dir, { recursive: true });
	const gport = (n) => port + 3 * n;
	const addrs = [1, 2, 3].map((n) => `127.0.0.1:${gport(n)}`).join(',');
	const nodes = [];
	for (const n of [1, 2, 3]) {
		const d = `${dir}/n${n}`;
		mkdirSync(`${d}/data`, { recursive: true });
		writeFileSync(`${d}/my.cnf`, `[mariadbd]
datadir=${d}/data
socket=${d}/mysqld.sock
pid-file=${d}/mysqld.pid
log-error=${d}/error.log
port=${port + n - 1}
bind-address=127.0.0.1
user=mysql
innodb_buffer_pool_size=64M
max_connections=300
skip-name-resolve
binlog_format=ROW
default_storage_engine=InnoDB
innodb_autoinc_lock_mode=2
wsrep_on=ON
wsrep_provider=/usr/lib/galera/libgalera_smm.so
wsrep_cluster_name=aqueue-test
wsrep_cluster_address=gcomm://${addrs}
wsrep_node_name=n${n}
wsrep_node_address=127.0.0.1:${gport(n)}
wsrep_node_incoming_address=127.0.0.1:${port + n - 1}
wsrep_provider_options="gmcast.listen_addr=tcp://127.0.0.1:${gport(n)};ist.recv_addr=127.0.0.1:${gport(n) + 1};gcache.size=32M;evs.suspect_timeout=PT2S;evs.inactive_timeout=PT4S;evs.keepalive_period=PT0.5S;evs.inactive_check_period=PT0.5S"
wsrep_sst_method=rsync
wsrep_sst_receive_address=127.0.0.1:${gport(n) + 2}
`);
		nodes.push({ n, port: port + n - 1, sock: `${d}/mysqld.sock`,
		    dir: d, child: null });
	}
	const chownAll = (p) => execFileSync('chown', ['-R',
	    `${mysql.uid}:${mysql.gid}`, p]);
	chownAll(dir);
	chownSync(dir, mysql.uid, mysql.gid);
	execFileSync('mariadb-install-db', [`--defaults-file=${dir}/n1/my.cnf`,
	    '--user=mysql', '--auth-root-authentication-method=normal',
	    '--skip-test-db'], { stdio: 'ignore' });

	const state = (node) => {
		try {
			return sqlOn(node.sock, 'SELECT VARIABLE_VALUE FROM ' +
			    'information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME ' +
			    "IN ('WSREP_LOCAL_STATE_COMMENT', 'WSREP_READY') " +
			    'ORDER BY VARIABLE_NAME').map((r) => r[0]).join(' ');
		} catch {
			return '';
		}
	};
	const startNode = async (node, args = []) => {
		node.child = spawn('mariadbd', [`--defaults-file=${node.dir}/my.cnf`,
		    ...args], { stdio: 'ignore' });
		const end = Date.now() + 120000;
		while (state(node) !== 'Synced ON') {
			if (node.child.exitCode !== null ||
			    node.child.signalCode !== null)
				throw new Error(`galera node ${node.n} exited; see ` +
				    `${node.dir}/error.log`);
			if (Date.now() > end)
				throw new Error(`galera node ${node.n} not Synced`);
			await sleep(250);
		}
	};
	const stopNode = async (node, sig = 'SIGTERM') => {
		const c = node.child;
		if (c === null || c.exitCode !== null || c.signalCode !== null)
			return;
		const done = new Promise((r) => c.on('exit', r));
		c.kill(sig);
		const t = setTimeout(() => c.kill('SIGKILL'), 60000);
		await done;
		clearTimeout(t);
	};
	const stop = async () => {
		for (const node of [...nodes].reverse())
			await stopNode(node);
	};
	// A test file stopped from outside (its time limit: the runner's
	// SIGTERM) takes its nodes with it: left running they would hold
	// the ports of the next run's cluster.
	const killAll = () => {
		for (const node of nodes)
			if (node.child !== null && node.child.exitCode === null &&
			    node.child.signalCode === null)
				node.child.kill('SIGKILL');
	};
	process.on('exit', killAll);
	for (const sig of ['SIGTERM', 'SIGINT'])
		process.once(sig, () => process.exit(1));
	try {
		await startNode(nodes[0], ['--wsrep-new-cluster']);
		await startNode(nodes[1]);
		await startNode(nodes[2]);
	} catch (e) {
		await stop();
		throw e;
	}
	return {
		nodes,
		pid: (n) => nodes[n - 1].child.pid,
		kill: (n) => stopNode(nodes[n - 1], 'SIGKILL'),
		// Start node n again (it rejoins the running cluster).
		start: (n) => startNode(nodes[n - 1]),
		stop,
	};
}
