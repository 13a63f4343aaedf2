// CASES C32: 400 joins over 32 connections across two pools on one
// database (the stack's pool through nginx, and a second pool of our own
// over raw FastCGI): 400 x 200, the numbers exactly before+1 ... after.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
	createQueue, join, show, startExtraPool, fcgiRequest, fcgiParams,
} from './lib.mjs';

const JOINS = 400;
const CONNECTIONS = 32;

let pool = null;

before(async () => {
	pool = await startExtraPool({ workers: 4 });
});

after(async () => {
	if (pool !== null)
		await pool.stop();
});

test('C32: 400 joins over 32 connections on two pools: unique, gap-free',
    async () => {
	const q = createQueue({ rate: 60 });
	const warm = await join(q.slug);
	assert.equal(warm.status, 200, warm.text);
	const beforeN = show(q.slug).lastNumber;
	assert.equal(beforeN, 1);

	const poolJoin = () => fcgiRequest({ sock: pool.sock,
	    params: fcgiParams('POST', `/queue/${q.slug}/join`) });
	const numbers = [];
	const bad = [];
	let left = JOINS;
	const perPool = { stack: 0, extra: 0 };
	await Promise.all(Array.from({ length: CONNECTIONS }, async (_, c) => {
		const viaExtra = c % 2 === 1;
		while (left > 0) {
			left--;
			const r = viaExtra ? await poolJoin() :
			    await join(q.slug);
			if (r.status !== 200) {
				bad.push(`${r.status} ${viaExtra ? r.body :
				    r.text}`);
				continue;
			}
			perPool[viaExtra ? 'extra' : 'stack']++;
			numbers.push(r.json.number);
		}
	}));
	assert.deepEqual(bad, [], 'every join answered 200');
	assert.equal(numbers.length, JOINS);
	assert.ok(perPool.stack > 0 && perPool.extra > 0,
	    JSON.stringify(perPool));
	const afterN = show(q.slug).lastNumber;
	assert.equal(afterN - beforeN, JOINS);
	numbers.sort((a, b) => a - b);
	assert.deepEqual(numbers, Array.from({ length: JOINS },
	    (_, i) => beforeN + 1 + i));
});
