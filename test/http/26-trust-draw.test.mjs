// Promise 6 (and 2) at a scheduled opening with the worker stopped: the
// seed's hash is published when the opening is armed, the first join
// after the opening closes the pre-queue in the row (the worker's
// opening job would do it otherwise), no later number is admitted before
// the whole pre-queue, and a drawn number's claim window starts when it
// is admitted.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
	createQueue, ctl, join, status, token, info, sleep, stack,
} from './lib.mjs';

test('promise 6: the draw needs nobody at the opening: the worker stopped, ' +
    'the seed\'s hash is published when the opening is armed, and no ' +
    'number joined after the opening is admitted before every pre-queue ' +
    'number', async () => {
	stack('worker-stop');
	try {
		const q = createQueue({ rate: 120 });
		const opens = Date.now() + 6000;
		ctl('update', q.slug, '--opens-at', opens, '--claim-window', 2);
		const i0 = await info(q.slug);
		assert.match(i0.json.drawSeedSha256 ?? '', /^[0-9a-f]{64}$/,
		    'the hash is published before the opening');
		const pre = [];
		for (let i = 0; i < 5; i++) {
			const r = await join(q.slug);
			assert.equal(r.status, 200, r.text);
			assert.equal(r.json.admitted, false);
			pre.push(r.json);
		}
		await sleep(Math.max(0, opens - Date.now() + 100));
		const post = [];
		for (let i = 0; i < 2; i++) {
			const r = await join(q.slug);
			assert.equal(r.status, 200, r.text);
			post.push(r.json);
		}
		assert.deepEqual(post.map((x) => x.number), [6, 7]);
		// Watch every number until all are admitted; at no moment is
		// 6 or 7 admitted while a pre-queue number is not.
		const firstSeen = new Map();
		const claims = [];
		const end = Date.now() + 20000;
		while (firstSeen.size < 7 && Date.now() < end) {
			const answers = await Promise.all([...pre, ...post]
			    .map((x) => status(q.slug, x.number)));
			const adm = answers.map((a) => a.json.admitted);
			if (adm[5] || adm[6])
				assert.ok(adm.slice(0, 5).every((a) => a),
				    `a later number before the pre-queue: ` +
				    JSON.stringify(answers.map((a) => a.json)));
			for (const [k, a] of answers.entries()) {
				const x = [...pre, ...post][k];
				if (a.json.admitted && !firstSeen.has(x.number)) {
					firstSeen.set(x.number, Date.now());
					// Its window starts now, not at the
					// opening: it claims.
					claims.push(token(q.slug, { number:
					    x.number, ticket: x.ticket }));
				}
			}
			await sleep(50);
		}
		assert.equal(firstSeen.size, 7, 'all seven admitted');
		for (const c of await Promise.all(claims))
			assert.equal(c.status, 200, c.text);
		const i1 = await info(q.slug);
		assert.equal(i1.json.preQueue, 5);
		assert.equal(i1.json.drawSeedSha256, i0.json.drawSeedSha256,
		    'the hash published before the opening is the draw\'s');
		assert.match(i1.json.drawSeed ?? '', /^[0-9a-f]{64}$/);
	} finally {
		stack('worker-start');
	}
});
