// A pool master killed without draining its workers (SIGKILL: the OOM
// killer, a process manager such as mod_fcgid's) leaves no orphan: every
// worker notices its master's death (PR_SET_PDEATHSIG), exits within 2 s
// and closes its database connection.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
	childPids, dbSQL, sleep, stackConf, startExtraPool, waitFor,
} from './lib.mjs';

const WORKERS = 3;

// Connections of the pool's database user, from the server's process list.
function appConnections() {
	return Number(dbSQL('SELECT COUNT(*) FROM information_schema.PROCESSLIST ' +
	    `WHERE USER = '${stackConf('db-user')}'`)[0][0]);
}

// Whether pid is gone: no such process, or a zombie (it has exited; here
// nobody may reap orphans).
function gone(pid) {
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
		return stat.slice(stat.lastIndexOf(')') + 2)[0] === 'Z';
	} catch {
		return true;
	}
}

test('workers exit within 2 s of their master\'s SIGKILL and close their ' +
    'database connections', async () => {
	const base = appConnections();
	const pool = await startExtraPool({ workers: WORKERS });
	try {
		let workers = [];
		await waitFor(() => (workers = childPids(pool.pid)).length ===
		    WORKERS, 5000);
		assert.equal(workers.length, WORKERS);
		await waitFor(() => appConnections() === base + WORKERS, 5000);
		assert.equal(appConnections(), base + WORKERS,
		    'one connection per worker');
		process.kill(pool.pid, 'SIGKILL');
		const t0 = Date.now();
		while (Date.now() - t0 < 2000 && !workers.every(gone))
			await sleep(20);
		assert.deepEqual(workers.filter((p) => !gone(p)), [],
		    `workers alive ${Date.now() - t0} ms after the master died`);
		while (Date.now() - t0 < 2000 && appConnections() !== base)
			await sleep(50);
		assert.equal(appConnections(), base,
		    'their connections closed within 2 s');
	} finally {
		await pool.stop();
	}
});
