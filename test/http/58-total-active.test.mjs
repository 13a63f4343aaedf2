// The total-active-users cap (totalActiveUsers, CLI --total-active-users):
// visitors admitted within any session duration (tokenTtlSeconds) never
// exceed it.  The queue keeps no row per visitor: the admission model is
// a token bucket, so the cap lowers the segment's rate and burst
// (admission.h, adm_cap_limit(); test-admission proves the bound over
// every window by simulation).  Here: the exact lowered values through
// the CLI, the API and the page, the refusals at the boundary, and the
// admissions a burst of joins gets over real time.
//
// The promises these paths could break:
//  1. serving never goes backward: every sample of serving is checked
//     against the one before while the cap is set and the joins come;
//  2. the admitted keep their claim window: places admitted before the
//     cap was set still get their tokens after it;
//  4. bad input changes nothing: a cap below its minimum, or a session
//     duration that makes the cap too small, is refused (CLI exit 2, API
//     422 invalid_value naming the field) and the queue is as before;
//  6. order is join order: the admitted numbers are always a prefix of
//     the numbers issued (serving is a frontier).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
	createQueue, ctl, join, req, show, sleep, status, token, CACHE_MS,
	ctlRun, keyOf as libKeyOf, patchSite,
} from './lib.mjs';

const SITES = '/api/admin/queue/sites';

const keyOf = (slug) => libKeyOf(slug, 'cap');
const patch = patchSite;

// The settings and numbers a refused change must leave as they were.
function stateOf(slug) {
	const s = show(slug);
	return [s.ratePerMinute, s.burst, s.tokenTtlSeconds, s.totalActiveUsers,
	    s.lastNumber, s.queuingMethod];
}

test('the cap lowers rate and burst exactly; the CLI warns; show, the API ' +
    'and the page say so', async () => {
	const q = createQueue({ rate: 500, tokenTtl: 600 });
	assert.equal(show(q.slug).totalActiveUsers, 0, 'no cap by default');
	const r = ctlRun('update', q.slug, '--total-active-users', 1000);
	assert.equal(r.code, 0, r.err);
	assert.match(r.err, /warning: .*\(rate_limited_by_total_active_users\)/);
	// burst' = min(500 / 6 = 83, 999 / 2) = 83; rate' = floor((1000 - 1
	// - 83) * 60 / 600) = 91.
	const s = show(q.slug);
	assert.deepEqual([s.totalActiveUsers, s.ratePerMinute, s.burst],
	    [1000, 91, 83]);
	// A rate asked for later is lowered the same way (and warned of).
	const sr = ctlRun('set-rate', q.slug, 5000);
	assert.equal(sr.code, 0, sr.err);
	assert.match(sr.err, /rate_limited_by_total_active_users/);
	assert.equal(show(q.slug).ratePerMinute, 91);
	// A rate within the cap is taken as it is, without a warning.
	const low = ctlRun('set-rate', q.slug, 30);
	assert.equal(low.code, 0, low.err);
	assert.equal(low.err, '');
	assert.equal(show(q.slug).ratePerMinute, 30);
	// The API shows the same object.
	const id = show(q.slug).id;
	const key = keyOf(q.slug);
	const a = await req(`${SITES}/${id}`,
	    { headers: { authorization: `Bearer ${key}` } });
	assert.equal(a.status, 200, a.text);
	assert.deepEqual([a.json.totalActiveUsers, a.json.ratePerMinute,
	    a.json.burst], [1000, 30, 83]);
	// The page explains the full room: 1000 visitors within 10 min.
	await sleep(CACHE_MS);
	const note = async (slug, lang) => {
		const p = await req(`/queue/${slug}?lang=${lang}`);
		assert.equal(p.status, 200);
		return /<p class="note" id="cap">([^<]*)<\/p>/.exec(p.text)?.[1];
	};
	assert.equal(await note(q.slug, 'en'), 'This shop lets in at most 1000 ' +
	    'visitors within any 10 min. When it is full, the queue moves on ' +
	    'as that time passes.');
	assert.match(await note(q.slug, 'de'), /^Dieser Shop lässt in jedem /);
	assert.match(await note(q.slug, 'de'), / von 10 Min\. höchstens 1000 /);
	// Whole minutes rounded down (the cap holds within any shorter
	// window too); seconds below a minute.
	const odd = createQueue({ rate: 500, tokenTtl: 150 });
	ctl('update', odd.slug, '--total-active-users', 50);
	const short = createQueue({ rate: 500, tokenTtl: 30 });
	ctl('update', short.slug, '--total-active-users', 50);
	await sleep(CACHE_MS);
	assert.match(await note(odd.slug, 'en'),
	    /at most 50 visitors within any 2 min\./);
	assert.match(await note(short.slug, 'en'),
	    /at most 50 visitors within any 30 s\./);
	assert.match(await note(short.slug, 'zh'), /任意 30 秒 内最多接待 50 位/);
	const other = createQueue({ rate: 500 });
	const po = await req(`/queue/${other.slug}?lang=en`);
	assert.equal(po.status, 200);
	assert.ok(!po.text.includes('id="cap"'), 'no note without a cap');
});

test('refused at the boundary: the least cap is 2 * ceil(S / 60) + 2; a ' +
    'session duration that makes it too small is refused too; nothing ' +
    'changes', async () => {
	// Session 120 s: the least cap is 2 * 2 + 2 = 6.
	const q = createQueue({ rate: 600, tokenTtl: 120 });
	const id = show(q.slug).id;
	const key = keyOf(q.slug);
	assert.equal((await join(q.slug)).status, 200);
	const before = stateOf(q.slug);
	const cli = ctlRun('update', q.slug, '--total-active-users', 5);
	assert.equal(cli.code, 2, cli.err);
	assert.match(cli.err, /total-active-users/);
	for (const bad of [5, 1, -1, 10000001, '7', 2.5]) {
		const r = await patch(id, key, { totalActiveUsers: bad,
		    name: 'Other' });
		assert.ok(r.status === 422 || r.status === 400,
		    `${JSON.stringify(bad)}: ${r.text}`);
		if (typeof bad === 'number' && Number.isInteger(bad)) {
			assert.equal(r.status, 422, r.text);
			assert.deepEqual([r.json.error, r.json.field],
			    ['invalid_value', 'totalActiveUsers'], r.text);
		}
	}
	assert.deepEqual(stateOf(q.slug), before, 'nothing changed');
	assert.equal(show(q.slug).name, q.name);
	// The least cap is taken: burst' = min(100, 5 / 2 = 2) = 2, rate' =
	// floor((6 - 1 - 2) * 60 / 120) = 1.
	const ok = await patch(id, key, { totalActiveUsers: 6 });
	assert.equal(ok.status, 200, ok.text);
	assert.deepEqual([ok.json.totalActiveUsers, ok.json.ratePerMinute,
	    ok.json.burst], [6, 1, 2]);
	// A longer session needs a larger cap: 121 s needs 2 * 3 + 2 = 8.
	const mid = stateOf(q.slug);
	const t = await patch(id, key, { tokenTtlSeconds: 121 });
	assert.equal(t.status, 422, t.text);
	assert.deepEqual([t.json.error, t.json.field],
	    ['invalid_value', 'tokenTtlSeconds']);
	assert.deepEqual(stateOf(q.slug), mid, 'nothing changed');
	// Both at once are judged together.
	const both = await patch(id, key, { tokenTtlSeconds: 121,
	    totalActiveUsers: 8 });
	assert.equal(both.status, 200, both.text);
	assert.deepEqual([both.json.tokenTtlSeconds,
	    both.json.totalActiveUsers], [121, 8]);
	// 0 removes the cap; the rate stays as lowered until set again.
	const off = await patch(id, key, { totalActiveUsers: 0 });
	assert.equal(off.status, 200, off.text);
	assert.deepEqual([off.json.totalActiveUsers, off.json.ratePerMinute],
	    [0, 1]);
});

test('joins over real time: within any session duration at most the cap ' +
    'is admitted, in join order; places admitted before the cap keep ' +
    'their claim; passthrough is paced', async () => {
	// Session 1 s, cap 4: burst' = min(3, 3 / 2 = 1) = 1, rate' =
	// floor((4 - 1 - 1) * 60 / 1) = 120 a minute: at most floor(2 * 1) +
	// 1 + 1 = 4 admissions in any second.
	const q = createQueue({ rate: 600, burst: 3, tokenTtl: 1 });
	const early = [];
	for (let i = 0; i < 3; i++) {
		const j = await join(q.slug);
		assert.equal(j.status, 200, j.text);
		assert.equal(j.json.admitted, true, j.text);
		early.push(j.json);
	}
	ctl('update', q.slug, '--total-active-users', 4, '--method',
	    'passthrough');
	const s = show(q.slug);
	assert.deepEqual([s.ratePerMinute, s.burst, s.queuingMethod],
	    [120, 1, 'passthrough']);
	await sleep(CACHE_MS);
	// Promise 2: the places admitted before keep their claim window.
	for (const j of early) {
		const t = await token(q.slug, { number: j.number,
		    ticket: j.ticket });
		assert.equal(t.status, 200, `token of ${j.number}: ${t.text}`);
	}
	// What serving was when the cap began (the burst's headroom of
	// then, at most 3 past the 3 numbers issued: promise 1 keeps it).
	const s0 = (await status(q.slug, 1)).json.serving;
	assert.ok(s0 >= 3 && s0 <= 6, `serving ${s0}`);
	// 40 joins at once: numbers 4..43, each once.
	const t0 = Date.now();
	const joins = await Promise.all(Array.from({ length: 40 },
	    () => join(q.slug)));
	for (const j of joins)
		assert.equal(j.status, 200, j.text);
	const numbers = joins.map((j) => j.json.number).sort((a, b) => a - b);
	assert.deepEqual(numbers, Array.from({ length: 40 }, (_, i) => i + 4),
	    'numbers 4..43, each once');
	// Serving sampled for 4 s.  Uncapped passthrough would admit all 40
	// within two ticks; capped, it grows 2 a second past s0 and the
	// burst: s0 + 1 + 1 + 2 * elapsed seconds at most.
	const samples = [];
	let last = s0;
	while (Date.now() - t0 < 4000) {
		const r = await status(q.slug, 43);
		assert.equal(r.status, 200, r.text);
		const v = r.json.serving;
		assert.ok(v >= last, `serving went back from ${last} to ${v}`);
		last = v;
		// Promise 6: number 43 is admitted exactly when serving
		// reaches it (serving is a frontier).
		assert.equal(r.json.admitted, v >= 43, r.text);
		samples.push({ t: Date.now(), serving: v });
		const bound = s0 + 2 + Math.floor(2 * (Date.now() - t0) / 1000);
		assert.ok(v <= bound, `serving ${v} after ${Date.now() - t0} ms ` +
		    `(at most ${bound})`);
		await sleep(100);
	}
	// It did move: at least 2 a second for most of the 4 s.
	assert.ok(last - s0 >= 4, `${last - s0} admitted over 4 s`);
	// Any two samples within 700 ms (a second less the cache's and the
	// clocks' slack) are at most 4 admissions apart.
	for (const x of samples)
		for (const y of samples)
			if (y.t > x.t && y.t - x.t <= 700)
				assert.ok(y.serving - x.serving <= 4,
				    `${y.serving - x.serving} admitted within ` +
				    `${y.t - x.t} ms`);
});
