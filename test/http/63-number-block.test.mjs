// Number blocks (README "Number blocks", the queue setting numberBlock):
// a pool process takes up to numberBlock numbers with one write and
// hands them out in arrival order for at most 50 ms; the numbers handed
// to nobody are counted (numbersUnused) and passed over by the worker
// with a skip, or left to abandonment detection when it is on.
//
// The promises (README "promises") these paths could break:
//  1. a number is issued once and serving never goes backward: every
//     number of a burst is distinct, the row's last number is exactly
//     the numbers received plus those counted unused, and serving
//     sampled across the skip only grows, by exactly the count;
//  2. no token before admission: after a hold is in effect no join is
//     admitted, whatever a process still holds in its lease; after a
//     pause no join is answered with a number;
//  3. only a visitor's own join takes a number: numbers a lease took
//     for nobody are never admitted to anyone (passed over);
//  4. bad input changes nothing: numberBlock -1, 1001, "x", 2.5 are
//     refused with 422 naming the field, by the API and the CLI, and the
//     queue is as before;
//  6. order is join order: without blocks a join answered before
//     another was sent always has the smaller number; with blocks, only
//     joins less than the lease's 50 ms apart (plus the round trip) are
//     ever ordered the other way.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
	ctl, ctlRun, dbSQL, dbStatus, info, join, keyOf, patchSite, req,
	show, sleep, status, uniqueSlug, waitFor, CACHE_MS,
} from './lib.mjs';

const LEASE_MS = 50;
// The round trips around a lease's 50 ms on a loaded 2-core machine.
const SLACK_MS = 100;

function create(...opts) {
	const slug = uniqueSlug('nb');
	ctl('create', slug, '--name', `Blocks ${slug}`, '--target',
	    'https://shop.example/', '--domains', 'shop.example', ...opts);
	return slug;
}

// burst(slug, n, conc): n joins from conc concurrent loops, each with
// the times it was sent and answered (performance.now(), ms).
async function burst(slug, n, conc) {
	const out = [];
	let left = n;
	await Promise.all(Array.from({ length: conc }, async () => {
		while (left > 0) {
			left--;
			const sent = performance.now();
			const r = await join(slug);
			out.push({ sent, got: performance.now(), status: r.status,
			    number: r.json?.number, admitted: r.json?.admitted,
			    text: r.text });
		}
	}));
	return out;
}

// inversions(list): pairs where a join answered before another was sent
// has the larger number; the largest gap between such a pair.
function inversions(list) {
	const ok = list.filter((x) => x.status === 200)
	    .sort((a, b) => a.got - b.got);
	let n = 0, gap = 0;
	for (const a of ok)
		for (const b of ok)
			if (a.got < b.sent && a.number > b.number) {
				n++;
				gap = Math.max(gap, b.sent - a.got);
			}
	return { n, gap };
}

test('numberBlock: set by the CLI and the API; bad values refused, ' +
    'nothing changed', async () => {
	const slug = create('--rate', 60, '--number-block', 20);
	let s = show(slug);
	assert.equal(s.numberBlock, 20);
	assert.equal(s.numbersUnused, 0);
	for (const bad of ['-1', '1001', 'x', '2.5']) {
		const r = ctlRun('update', slug, '--number-block', bad);
		assert.equal(r.code, 2, `--number-block ${bad}: ${r.err}`);
		assert.match(r.err, /number-block/);
	}
	const key = keyOf(slug, 'blocks');
	const before = show(slug);
	for (const bad of [-1, 1001, 'x', 2.5, null]) {
		const p = await patchSite(s.id, key, { numberBlock: bad });
		assert.equal(p.status, 422, `${JSON.stringify(bad)}: ${p.text}`);
		assert.equal(p.json.field, 'numberBlock');
	}
	s = show(slug);
	assert.equal(s.numberBlock, 20);
	assert.equal(s.updatedAt, before.updatedAt, 'no change, no audit');
	const p = await patchSite(s.id, key, { numberBlock: 0 });
	assert.equal(p.status, 200, p.text);
	assert.equal(show(slug).numberBlock, 0);
});

test('a burst with number blocks: every number once, the last number ' +
    'accounted for exactly, fewer writes, order bent only within a ' +
    'lease', async () => {
	const plain = create('--rate', 600);
	const blocks = create('--rate', 600, '--number-block', 50);
	const N = 600;
	const runs = {};
	for (const slug of [plain, blocks, plain, blocks]) {
		const l0 = show(slug).lastNumber;
		const u0 = dbStatus('Handler_update');
		const list = await burst(slug, N, 24);
		const writes = dbStatus('Handler_update') - u0;
		const bad = list.filter((x) => x.status !== 200);
		assert.deepEqual(bad, [], 'every join answered 200');
		const numbers = list.map((x) => x.number);
		assert.equal(new Set(numbers).size, N, 'every number once');
		assert.ok(numbers.every((n) => n > l0), 'all new numbers');
		// Once every lease has ended and been written: exact.
		let s;
		await waitFor(() => {
			s = show(slug);
			return s.lastNumber - l0 === N +
			    s.numbersUnused - (runs[slug]?.unused ?? 0);
		}, 5000);
		const unused = s.numbersUnused - (runs[slug]?.unused ?? 0);
		assert.ok(numbers.every((n) => n <= s.lastNumber));
		const inv = inversions(list);
		runs[slug] = { unused: s.numbersUnused, writes, inv };
		if (slug === plain) {
			assert.equal(unused, 0, 'no block, nothing unused');
			assert.equal(inv.n, 0, 'without blocks, a join answered ' +
			    'before another was sent has the smaller number');
		} else {
			assert.ok(inv.gap < LEASE_MS + SLACK_MS, `inversions ` +
			    `(${inv.n}) only between joins less than a lease ` +
			    `apart: the largest gap ${inv.gap.toFixed(1)} ms`);
			console.log(`# blocks: ${N} joins, ${unused} unused, ` +
			    `${writes} row writes (plain: ` +
			    `${runs[plain].writes}), ${inv.n} inversions, ` +
			    `largest gap ${inv.gap.toFixed(1)} ms`);
			// One statement per lease instead of one per join.
			assert.ok(writes < runs[plain].writes * 0.6,
			    `${writes} writes with blocks, ` +
			    `${runs[plain].writes} without`);
		}
		// Every answer agrees with status: admitted iff <= serving.
		for (const x of list.slice(0, 40)) {
			const st = await status(slug, x.number);
			assert.equal(st.status, 200, st.text);
			assert.equal(st.json.admitted,
			    x.number <= st.json.serving, `number ${x.number}`);
			if (x.admitted)
				assert.equal(st.json.admitted, true,
				    `${x.number} admitted stays admitted`);
		}
	}
});

// sampleUntil(slug, pred): /info every 20 ms until pred(serving), each
// serving checked against the one before; returns the last.
async function sampleUntil(slug, pred, ms = 6000) {
	let last = -1;
	const end = Date.now() + ms;
	while (Date.now() < end) {
		const r = await info(slug);
		assert.equal(r.status, 200, r.text);
		assert.ok(r.json.serving >= last,
		    `serving went back from ${last} to ${r.json.serving}`);
		last = r.json.serving;
		if (pred(last))
			return last;
		await sleep(20);
	}
	return last;
}

test('unused numbers are passed over by a skip once the queue admits ' +
    '(never while paused, never twice with abandonment on), serving ' +
    'never going back', async () => {
	for (const abandon of ['off', 'on']) {
		// Sequential joins: no lease of its own leaves a number.
		// Rate 1 a minute: serving is the burst, 10, for a minute.
		const slug = create('--rate', 1, '--burst', 10,
		    '--abandon', abandon);
		const id = show(slug).id;
		for (let i = 0; i < 15; i++)
			assert.equal((await join(slug)).status, 200);
		ctl('pause', slug);
		await sleep(CACHE_MS);
		const before = await sampleUntil(slug, () => true);
		assert.equal(before, 10, 'serving: the burst');
		dbSQL('UPDATE queue SET lease_unused = lease_unused + 7, ' +
		    `lease_unused_total = lease_unused_total + 7 WHERE id = ${id}`);
		const unusedNow = () => dbSQL('SELECT lease_unused FROM queue ' +
		    `WHERE id = ${id}`)[0][0];
		// Paused: nobody may be admitted, the count waits.
		await sleep(2500);
		assert.equal(unusedNow(), '7', 'paused: not passed over yet');
		assert.equal(await sampleUntil(slug, () => true), before,
		    'paused: serving stands');
		ctl('resume', slug);
		await waitFor(() => unusedNow() === '0', 5000);
		const skip = Number(dbSQL('SELECT skip_count + ' +
		    `IF(pend_at_ms > 0, pend_skip - skip_count, 0) FROM queue ` +
		    `WHERE id = ${id}`)[0][0]);
		if (abandon === 'off') {
			assert.equal(skip, 7, 'skip raised by the 7 unused');
			const after = await sampleUntil(slug,
			    (v) => v >= before + 7);
			assert.equal(after, before + 7, 'serving jumps by 7');
			await sleep(600);
			assert.equal(await sampleUntil(slug, () => true),
			    before + 7, 'and no further (rate 1 a minute)');
		} else {
			assert.equal(skip, 0, 'abandonment counts them itself');
			await sleep(600);
			assert.equal(await sampleUntil(slug, () => true), before);
		}
		assert.equal(show(slug).numbersUnused, 7);
	}
});

test('a lease steps aside: once a hold is in effect nobody new is ' +
    'admitted, whatever a process still holds, and serving stands; ' +
    'paused, no number is handed out', async () => {
	const slug = create('--rate', 100000, '--number-block', 50);
	const key = keyOf(slug, 'aside');
	const id = show(slug).id;
	// 24 loops join until 1.5 s after the hold, so that leases are
	// live at it, however fast this machine is.
	let stopAt = Infinity;
	const list = [];
	const loops = Array.from({ length: 24 }, async () => {
		while (performance.now() < stopAt) {
			const sent = performance.now();
			const r = await join(slug);
			list.push({ sent, got: performance.now(),
			    status: r.status, number: r.json?.number,
			    admitted: r.json?.admitted });
		}
	});
	await sleep(1500);
	const p = await patchSite(id, key, { queuingMethod: 'hold' });
	assert.equal(p.status, 200, p.text);
	const held = performance.now();
	stopAt = held + 1500;
	await Promise.all(loops);
	assert.ok(list.every((x) => x.status === 200), 'every join 200');
	const before = list.filter((x) => x.got < held - 400);
	assert.ok(before.length > 20 && before.every((x) => x.admitted),
	    `fifo at a high rate: everyone admitted at once ` +
	    `(${before.length} joins)`);
	// The hold begins a tick (250 ms) after the call; a process reads
	// the row again within 125 ms before handing out a lease's number.
	const after = list.filter((x) => x.sent > held + 250 + 150);
	assert.ok(after.length > 20, `${after.length} joins after the hold`);
	assert.deepEqual(after.filter((x) => x.admitted)
	    .map((x) => x.number), [], 'on hold: every later join waits');
	// On hold the numbers of ended leases are not passed over.
	const s0 = await sampleUntil(slug, () => true);
	await sleep(1500);
	assert.equal(await sampleUntil(slug, () => true), s0,
	    'on hold: serving stands');
	// Paused: no join gets a number.
	const q = await patchSite(id, key, { queuingMethod: 'fifo' });
	assert.equal(q.status, 200, q.text);
	await burst(slug, 100, 24);
	ctl('pause', slug);
	await sleep(CACHE_MS);
	const l0 = show(slug).lastNumber;
	const paused = await burst(slug, 100, 24);
	assert.deepEqual(paused.filter((x) => x.number !== undefined)
	    .map((x) => x.number), [], 'paused: no number');
	assert.equal(show(slug).lastNumber, l0, 'nothing issued');
	const r = await req(`/queue/${slug}/info`);
	assert.equal(r.json.active, false);
});

test('the fairness report gives the cost: joins admitted at once are ' +
    'served in their arrival order, and only numbers less than a lease ' +
    'apart are served out of order', async (t) => {
	const plain = create('--rate', 1000000);
	const blocks = create('--rate', 1000000, '--number-block', 50);
	const got = {};
	for (const slug of [plain, blocks]) {
		const list = await burst(slug, 400, 24);
		assert.ok(list.every((x) => x.status === 200 && x.admitted),
		    'admitted at once: each join answered with its token');
		// The served order is written between requests, within 1 s.
		let rep;
		await waitFor(() => {
			rep = JSON.parse(ctl('report', slug, '--json'));
			return rep.served === 400;
		}, 5000);
		assert.equal(rep.served, 400, 'every number served once');
		got[slug] = { report: rep.inversions, seen: inversions(list) };
	}
	// Without blocks a number is served when its statement returns:
	// out of order only for joins answered within the same moments.
	assert.equal(got[plain].seen.n, 0);
	assert.ok(got[blocks].seen.gap < LEASE_MS + SLACK_MS);
	t.diagnostic(`fairness report, 400 joins admitted at once: ` +
	    `${got[plain].report} inversions without blocks, ` +
	    `${got[blocks].report} with numberBlock 50 (seen by the ` +
	    `clients: ${got[plain].seen.n} and ${got[blocks].seen.n})`);
});
