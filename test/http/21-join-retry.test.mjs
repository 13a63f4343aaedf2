// A join whose database connection is found dead before the statement
// is sent (the server killed it: KILL CONNECTION, wait_timeout, a
// restart) is retried on a new connection: 200 with the next number, no
// gap, no duplicate.  (The other retried case, a deadlock or Galera
// certification victim, error 1213, cannot be provoked on this stack:
// the join locks one row in one statement, and MariaDB grants a shared
// lock's holder its upgrade ahead of a waiting join.)

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createQueue, join, show, dbSQL } from './lib.mjs';

// KILL every connection of the app's user (every pool worker's), but
// not this session's.  Returns how many were killed.
function killAppConnections() {
	const ids = dbSQL('SELECT ID FROM information_schema.PROCESSLIST ' +
	    'WHERE USER = \'aqueue\' AND ID <> CONNECTION_ID()')
	    .map((row) => row[0]);
	for (const id of ids) {
		try {
			dbSQL(`KILL CONNECTION ${Number(id)}`);
		} catch {
			// gone already
		}
	}
	return ids.length;
}

test('joins on killed connections: 200, consecutive numbers', async () => {
	const q = createQueue({ rate: 6000 });
	const warm = await Promise.all(Array.from({ length: 16 },
	    () => join(q.slug)));
	for (const r of warm)
		assert.equal(r.status, 200, r.text);
	let expect = show(q.slug).lastNumber;
	assert.equal(expect, 16);
	for (let round = 0; round < 3; round++) {
		const killed = killAppConnections();
		assert.ok(killed >= 1, 'the pool had connections to kill');
		const rs = await Promise.all(Array.from({ length: 12 },
		    () => join(q.slug)));
		for (const r of rs)
			assert.equal(r.status, 200, r.text);
		const nums = rs.map((r) => r.json.number).sort((a, b) => a - b);
		assert.deepEqual(nums, Array.from({ length: 12 },
		    (_, i) => expect + 1 + i), 'no gap, no duplicate');
		expect += 12;
		assert.equal(show(q.slug).lastNumber, expect);
	}
});
