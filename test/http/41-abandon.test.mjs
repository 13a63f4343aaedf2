// Abandonment detection: heartbeats record presence (204 always, nothing
// recorded for a wrong ticket or with detection off, one row per number
// changed at most every 10 s); with 30 joiners of whom 10 go silent, the
// worker adds exactly 10 to serving within one cycle of the grace period
// passing, so the remaining 20 are admitted as if the 10 had never
// joined; a returning silent number is admitted normally, nothing is
// revoked.  The grace period's minimum is 60 s, so this file takes a
// little over a minute.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
	ctl, show, uniqueSlug, join, status, token, postJSON, sleep, waitFor,
	dbSQL, CACHE_MS,
} from './lib.mjs';

const beat = (slug, body) => postJSON(`/queue/${slug}/heartbeat`, body);

function presence(slug) {
	return dbSQL('SELECT p.number, p.seen_ms, p.counted FROM ' +
	    'queue_presence p JOIN queue q ON q.id = p.queue_id WHERE ' +
	    `q.slug = '${slug}' ORDER BY p.number`)
	    .map((r) => r.map(Number));
}

test('heartbeat: 204, recorded only with detection on and a right ' +
    'ticket, coalesced; bad bodies get 4xx', async () => {
	const off = uniqueSlug('ab');
	ctl('create', off, '--name', 'No detection', '--rate', 1, '--burst', 1);
	await join(off);
	const j = await join(off);
	let r = await beat(off, { number: j.json.number,
	    ticket: j.json.ticket });
	assert.equal(r.status, 204);
	assert.equal(r.text, '');
	assert.deepEqual(presence(off), [], 'off: nothing recorded');

	const slug = uniqueSlug('ab');
	ctl('create', slug, '--name', 'Detection', '--rate', 1, '--burst', 1,
	    '--abandon', 'on');
	const s = show(slug);
	assert.equal(s.abandonment, true);
	assert.equal(s.abandonGraceSeconds, 180, 'the default grace');
	await join(slug);
	const w = await join(slug);
	assert.equal(w.json.admitted, false);
	r = await beat(slug, { number: w.json.number, ticket: 'x'.repeat(22) });
	assert.equal(r.status, 204, 'a wrong ticket: still 204');
	assert.deepEqual(presence(slug), [], 'and nothing recorded');
	r = await beat(slug, { number: 99, ticket: w.json.ticket });
	assert.equal(r.status, 204);
	assert.deepEqual(presence(slug), [], 'unknown number: nothing');
	r = await beat(slug, { number: w.json.number, ticket: w.json.ticket });
	assert.equal(r.status, 204);
	const p1 = presence(slug);
	assert.equal(p1.length, 1);
	assert.equal(p1[0][0], w.json.number);
	assert.equal(p1[0][2], 0);
	await sleep(300);
	await beat(slug, { number: w.json.number, ticket: w.json.ticket });
	assert.deepEqual(presence(slug), p1, 'coalesced: the row unchanged');

	r = await beat(slug, { ticket: w.json.ticket });
	assert.equal(r.status, 400);
	assert.equal(r.json.error, 'invalid_number');
	r = await postJSON(`/queue/${slug}/heartbeat`, '{"number": 2,');
	assert.equal(r.status, 400);
	assert.equal(r.json.error, 'invalid_json');
	r = await beat('no-such-queue-x', { number: 1, ticket: 'x' });
	assert.equal(r.status, 404);

	assert.throws(() => ctl('update', slug, '--abandon-grace', 59),
	    /status 2/);
	assert.throws(() => ctl('update', slug, '--abandon-grace', 3601),
	    /status 2/);
	ctl('update', slug, '--abandon-grace', 3600);
	assert.equal(show(slug).abandonGraceSeconds, 3600);
	ctl('update', slug, '--abandon', 'off');
	assert.equal(show(slug).abandonment, false, 'off again');
});

test('30 joiners, 10 go silent: serving advances by exactly 10 once the ' +
    'grace period has passed; nothing is revoked', async () => {
	const slug = uniqueSlug('ab');
	// One number per 10 s: without the worker, number 30 would wait
	// about five minutes.
	ctl('create', slug, '--name', 'Abandonment', '--rate', 6, '--burst',
	    1, '--abandon', 'on', '--abandon-grace', 60);
	const all = [];
	for (let k = 0; k < 30; k++) {
		const j = await join(slug);
		assert.equal(j.status, 200, j.text);
		all.push(j.json);
	}
	assert.deepEqual(all.map((a) => a.number),
	    Array.from({ length: 30 }, (_, k) => k + 1));
	// Numbers 12..21 beat once and go silent (serving, at 1 per 10 s,
	// reaches none of them within the grace period: they still wait
	// when counted); the others keep beating.
	const silent = all.slice(11, 21);
	const present = [...all.slice(0, 11), ...all.slice(21)];
	for (const a of all)
		await beat(slug, { number: a.number, ticket: a.ticket });
	const t0 = Date.now();
	let stop = false;
	const beating = (async () => {
		while (!stop) {
			for (const a of present)
				await beat(slug, { number: a.number,
				    ticket: a.ticket });
			await sleep(3000);
		}
	})();
	try {
		const skip = () => Number(dbSQL('SELECT skip_count FROM queue ' +
		    `WHERE slug = '${slug}'`)[0][0]);
		// Before the grace period has passed nothing is counted.
		await sleep(50000);
		assert.equal(skip(), 0, 'nothing counted within the grace');
		const before = (await status(slug, 30)).json.serving;
		// Grace 60 s; the worker notes the last number issued every
		// 10 s (grace / 6) and runs every 2 s: a number is looked at
		// between 60 and 60 + 10 + 2 s after its join (the 30 joins
		// may straddle one note: then the count comes in two steps).
		await waitFor(async () => skip() >= 10, 40000, 250,
		    'the abandoned numbers counted');
		const took = (Date.now() - t0) / 1000;
		assert.equal(skip(), 10, 'exactly the 10 silent numbers');
		assert.ok(took >= 59 && took <= 76,
		    `counted ${took} s after the joins`);
		const total = Number(dbSQL('SELECT abandon_total FROM queue ' +
		    `WHERE slug = '${slug}'`)[0][0]);
		assert.equal(total, 10);
		// Serving = what it would be with 20 joiners, plus the 10
		// (once every process has read the row again).
		await sleep(CACHE_MS);
		const after = (await status(slug, 30)).json.serving;
		const grown = Math.floor((Date.now() - t0) / 10000) + 1;
		assert.ok(after >= before + 10 && after <= grown + 10 + 1,
		    `serving ${before} -> ${after} (would be ~${grown} ` +
		    'without the silent ones)');
		// The present ones: number n is admitted exactly when the
		// n - 10th would be in a queue without the silent ones.
		for (const a of present) {
			const r = await status(slug, a.number);
			assert.equal(r.json.admitted,
			    a.number - 10 <= r.json.serving - 10,
			    `number ${a.number}`);
		}
		// A silent number that comes back is admitted normally.
		const back = silent[0];
		assert.equal((await status(slug, back.number)).json.admitted,
		    true);
		const tk = await token(slug, { number: back.number,
		    ticket: back.ticket });
		assert.equal(tk.status, 200, tk.text);
		// Counted once: another cycle adds nothing.
		await sleep(4500);
		assert.equal(skip(), 10, 'no number counted twice');
	} finally {
		stop = true;
		await beating;
	}
});
