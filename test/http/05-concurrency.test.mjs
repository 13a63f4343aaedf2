// 2,000 concurrent joins over many connections: every one answered 200,
// the numbers exactly 1..2000 (no gap, no duplicate), and the queue row
// agrees.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createQueue, join, show, status } from './lib.mjs';

const WORKERS = 50;
const PER_WORKER = 40;
const TOTAL = WORKERS * PER_WORKER;

test(`${TOTAL} concurrent joins get ${TOTAL} consecutive numbers`,
    async () => {
	const q = createQueue({ rate: 60 });
	const statuses = new Map();
	const numbers = [];
	const tickets = new Map();
	const errors = [];
	const t0 = Date.now();
	await Promise.all(Array.from({ length: WORKERS }, async (_, w) => {
		for (let i = 0; i < PER_WORKER; i++) {
			let r;
			try {
				r = await join(q.slug);
			} catch (e) {
				errors.push(`worker ${w}: ${e.cause ?? e}`);
				continue;
			}
			statuses.set(r.status,
			    (statuses.get(r.status) ?? 0) + 1);
			if (r.status !== 200) {
				if (errors.length < 5)
					errors.push(`${r.status} ${r.text}`);
				continue;
			}
			numbers.push(r.json.number);
			tickets.set(r.json.number, r.json.ticket);
		}
	}));
	const ms = Date.now() - t0;
	assert.deepEqual(errors, [], 'no failed request');
	assert.deepEqual([...statuses], [[200, TOTAL]], 'all answered 200');
	assert.equal(numbers.length, TOTAL);
	const sorted = [...numbers].sort((a, b) => a - b);
	const distinct = new Set(sorted);
	assert.equal(distinct.size, TOTAL, 'no duplicate number');
	assert.equal(sorted[0], 1, 'numbers start at 1');
	assert.equal(sorted.at(-1), TOTAL, 'no gap');
	for (let i = 0; i < TOTAL; i++)
		assert.equal(sorted[i], i + 1);
	assert.equal(tickets.size, TOTAL);
	assert.equal(new Set(tickets.values()).size, TOTAL,
	    'every number has its own ticket');

	const s = show(q.slug);
	assert.equal(s.lastNumber, TOTAL);
	const st = await status(q.slug, TOTAL);
	assert.equal(st.status, 200, st.text);
	assert.equal(st.json.number, TOTAL);
	const over = await status(q.slug, TOTAL + 1);
	assert.equal(over.status, 404);
	assert.equal(over.json.error, 'number_not_found');
	// Recorded for the log (TAP diagnostic), not asserted.
	console.log(`# ${TOTAL} joins in ${ms} ms`);
});
