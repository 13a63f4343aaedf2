// The queuing method random (README "Queuing method"): from the switch
// on, numbers form blocks of the admissions of 10 s, each admitted in a
// keyed random order; serving counts positions and enters a block only
// once all its numbers are issued; the worker seals a block whose
// visitors would otherwise wait for others to join.
//
// The promises (README "promises") these paths could break:
//  1. a number is issued once and serving never goes backward: every
//     serving seen is checked against the one before; the numbers a seal
//     skips are never issued (the next join takes the number after the
//     block);
//  2. no token before admission, the whole claim window after it: a
//     waiting number's /token is 425; each number is claimed as soon as
//     its position is admitted; leaving random keeps every position;
//  4. bad input changes nothing: random with totalActiveUsers, with an
//     opening, and again too soon are refused (422 naming the field) and
//     the queue is as before;
//  6. order is join order or the published rule: a number is admitted
//     exactly when serving reaches its position, the positions of a
//     block are its own numbers, and the fairness report finds no
//     inversion outside the blocks.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
	ctl, join, req, show, sleep, status, token, uniqueSlug, waitFor,
	ctlRun, keyOf as libKeyOf, patchSite,
} from './lib.mjs';

const SITES = '/api/admin/queue/sites';

const keyOf = (slug) => libKeyOf(slug, 'random');
const patch = patchSite;

// A new queue with the given aqueuectl options; returns its slug.
function create(...opts) {
	const slug = uniqueSlug('rnd');
	ctl('create', slug, '--name', `Random ${slug}`, '--target',
	    'https://shop.example/', '--domains', 'shop.example', ...opts);
	return slug;
}

// The settings and numbers a refused change must leave as they were.
function stateOf(slug) {
	const s = show(slug);
	return [s.ratePerMinute, s.burst, s.totalActiveUsers, s.lastNumber,
	    s.queuingMethod, s.opensAt ?? null];
}

// The visitors of one queue: tickets, positions, what was admitted and
// claimed, and the highest serving seen.
function crowd(slug) {
	return { slug, tickets: new Map(), pos: new Map(), admitted: new Set(),
	    claimed: [], serving: 0 };
}

function seen(c, what, serving) {
	assert.ok(serving >= c.serving,
	    `${what}: serving ${serving} went back from ${c.serving}`);
	c.serving = serving;
}

// One join: the exact next number, whether admitted, and its position.
async function take(c, number, admitted) {
	const j = await join(c.slug);
	assert.equal(j.status, 200, j.text);
	assert.equal(j.json.number, number, 'the exact next number');
	assert.equal(j.json.admitted, admitted, `${number} admitted`);
	seen(c, `join ${number}`, j.json.serving);
	c.tickets.set(number, j.json.ticket);
	if (j.json.position !== undefined)
		c.pos.set(number, j.json.position);
	if (admitted)
		c.admitted.add(number);
	return j.json;
}

// The status of n: admitted exactly when serving reached its position
// (its number outside the random order), and never taken back.
async function look(c, n) {
	const s = await status(c.slug, n);
	assert.equal(s.status, 200, s.text);
	seen(c, `status ${n}`, s.json.serving);
	const p = c.pos.get(n) ?? n;
	if (c.pos.has(n))
		assert.equal(s.json.position, p, `${n} keeps its position`);
	assert.equal(s.json.admitted, p <= s.json.serving,
	    `${n} at ${p}, serving ${s.json.serving}`);
	if (c.admitted.has(n))
		assert.equal(s.json.admitted, true, `${n} stays admitted`);
	if (s.json.admitted)
		c.admitted.add(n);
	else
		assert.equal(s.json.ahead, p - s.json.serving - 1, `${n} ahead`);
	return s.json;
}

// Claim the token of every admitted, unclaimed number, in position
// order (the served order the fairness report reads).
async function claimAdmitted(c) {
	const due = [...c.admitted].filter((n) => !c.claimed.includes(n))
	    .sort((a, b) => (c.pos.get(a) ?? a) - (c.pos.get(b) ?? b));
	for (const n of due) {
		const r = await token(c.slug, { number: n,
		    ticket: c.tickets.get(n) });
		assert.equal(r.status, 200, `token of ${n}: ${r.text}`);
		c.claimed.push(n);
	}
}

// Poll the numbers until every one of them is admitted, claiming each
// as it is (and checking a waiting one gets 425).
async function serveAll(c, numbers, timeoutMs) {
	const end = Date.now() + timeoutMs;
	let early = false;
	for (;;) {
		let waiting = 0;
		for (const n of numbers)
			if (!(await look(c, n)).admitted) {
				waiting++;
				if (!early) {
					const r = await token(c.slug, { number: n,
					    ticket: c.tickets.get(n) });
					assert.equal(r.status, 425, r.text);
					early = true;
				}
			}
		await claimAdmitted(c);
		if (waiting === 0)
			return;
		assert.ok(Date.now() < end, `${waiting} still waiting`);
		await sleep(300);
	}
}

const range = (a, b) => Array.from({ length: b - a + 1 }, (_, i) => a + i);

// A fifo queue at 60 a minute, burst 1, with 1 admitted and 2..10
// waiting, switched to random: serving needs about 9 s to reach the
// random order, so the joins that fill its first block (the seal waits
// until serving reaches a block) are not raced by the worker.  The
// order begins past the burst's promise: L + burst + 1 = 12 (11 keeps
// its fifo place); the first block is 12..21 (10 s of admissions).
async function randomQueue(c) {
	await take(c, 1, true);
	for (const n of range(2, 10))
		await take(c, n, false);
	assert.match(ctl('update', c.slug, '--method', 'random'), /ok/);
	assert.equal(show(c.slug).queuingMethod, 'random');
	await take(c, 11, false);
	for (const n of range(12, 21))
		await take(c, n, false);
	assert.equal(c.pos.has(11), false, '11 has no position');
	assert.deepEqual([...c.pos.values()].sort((a, b) => a - b),
	    range(12, 21), 'the block\'s positions are its own numbers');
}

test('random: blocks admitted by position, a short block sealed, the ' +
    'fairness report', async () => {
	const slug = create('--rate', 60, '--burst', 1);
	const c = crowd(slug);
	await randomQueue(c);
	await waitFor(async () => {
		const d = await req(`/queue/${slug}/state.json`);
		return d.status === 200 && d.json.randomFrom === 12 &&
		    d.json.randomTo === null && d.json.lastNumber === 21;
	}, 5000, 200, 'state.json: randomFrom 12');
	// At one a second, in position order.
	await serveAll(c, range(1, 21), 45000);
	// 22 alone in the next block: the worker seals it (23..31 are
	// never issued), so 22 is admitted without anyone else joining.
	await take(c, 22, false);
	await waitFor(() => show(slug).lastNumber === 31, 5000, 200,
	    'the block 22..31 sealed');
	await take(c, 32, false);
	assert.ok(c.pos.get(22) >= 22 && c.pos.get(22) <= 31, 'position');
	assert.ok(c.pos.get(32) >= 32 && c.pos.get(32) <= 41, 'position');
	await serveAll(c, [22], 20000);
	// The report: the served order bent nowhere outside the blocks.
	const key = keyOf(slug);
	const id = show(slug).id;
	let rep;
	await waitFor(async () => {
		rep = await req(`${SITES}/${id}/fairness`,
		    { headers: { authorization: `Bearer ${key}` } });
		return rep.status === 200 && rep.json.served >= 22;
	}, 5000, 250, 'the first tokens recorded');
	assert.deepEqual([rep.json.randomOrder.from, rep.json.randomOrder.to,
	    rep.json.randomOrder.blockSize], [12, null, 10], rep.text);
	assert.equal(rep.json.inversions,
	    rep.json.randomOrder.inversionsWithinBlocks,
	    'no inversion outside the blocks');
});

test('random ended by fifo with people waiting: positions kept, random ' +
    'again only once its numbers passed the claim window', async () => {
	const slug = create('--rate', 60, '--burst', 1);
	const c = crowd(slug);
	await randomQueue(c);
	await take(c, 22, false);
	await take(c, 23, false);
	assert.match(ctl('update', slug, '--method', 'fifo'), /ok/);
	// The order ends with the block that holds L + 1 (22..31).
	await waitFor(async () => {
		const d = await req(`/queue/${slug}/state.json`);
		return d.status === 200 && d.json.randomFrom === 12 &&
		    d.json.randomTo === 32;
	}, 5000, 200, 'state.json: randomTo 32');
	// Every position kept (look() compares each with the join's).
	for (const n of range(1, 23))
		await look(c, n);
	// A fifo join inside the ended order's last block keeps that
	// block's order; the seal ends it, and fifo goes on after it.
	await take(c, 24, false);
	assert.ok(c.pos.get(24) >= 22 && c.pos.get(24) <= 31, 'position');
	// Random again at once: refused, nothing changed (promise 4).
	const was = stateOf(slug);
	const r = ctlRun('update', slug, '--method', 'random');
	assert.equal(r.code, 2, r.err);
	assert.match(r.err, /bad value for --method: must be fifo/);
	const key = keyOf(slug);
	const id = show(slug).id;
	const p = await patch(id, key, { queuingMethod: 'random' });
	assert.equal(p.status, 422, p.text);
	assert.deepEqual([p.json.error, p.json.field],
	    ['invalid_value', 'queuingMethod']);
	assert.deepEqual(stateOf(slug), was);
	await serveAll(c, range(1, 21), 45000);
	await waitFor(() => show(slug).lastNumber === 31, 5000, 200,
	    'the block 22..31 sealed');
	const j = await take(c, 32, false);
	assert.equal(j.position, undefined, '32: fifo, no position');
	await serveAll(c, [22, 23, 24, 32], 30000);
	// Every number issued and past the claim window: random again.
	assert.match(ctl('update', slug, '--claim-window', 1), /ok/);
	await waitFor(() => ctlRun('update', slug, '--method', 'random')
	    .code === 0, 15000, 500, 'random again');
	assert.equal(show(slug).queuingMethod, 'random');
	await waitFor(async () => {
		const e = await req(`/queue/${slug}/state.json`);
		return e.status === 200 && e.json.randomFrom > 32 &&
		    e.json.randomTo === null;
	}, 5000, 200, 'a new random order');
});

test('random -> hold -> random keeps the order and every position; ' +
    'passthrough ends it',
    async () => {
	const slug = create('--rate', 60, '--burst', 1);
	const c = crowd(slug);
	await randomQueue(c);
	assert.match(ctl('update', slug, '--method', 'hold'), /ok/);
	// On hold a join takes its place in the order's next block.
	const j = await take(c, 22, false);
	assert.equal(j.onHold, true, JSON.stringify(j));
	assert.ok(c.pos.get(22) >= 22 && c.pos.get(22) <= 31, 'position');
	assert.match(ctl('update', slug, '--method', 'random'), /ok/);
	await waitFor(async () => {
		const d = await req(`/queue/${slug}/state.json`);
		return d.status === 200 && d.json.randomFrom === 12 &&
		    d.json.randomTo === null && d.json.onHold !== true;
	}, 5000, 200, 'the same order goes on');
	for (const n of range(1, 22))
		await look(c, n);
	await take(c, 23, false);
	assert.ok(c.pos.get(23) >= 22 && c.pos.get(23) <= 31, 'position');
	// Then passthrough: everyone passes, the order's last block once
	// the worker has sealed it (24..31 never issued); then at once.
	assert.match(ctl('update', slug, '--method', 'passthrough'), /ok/);
	await serveAll(c, range(1, 23), 10000);
	assert.equal(show(slug).lastNumber, 31, 'the block 22..31 sealed');
	await sleep(600);
	const p = await take(c, 32, true);
	assert.equal(p.position, undefined, '32: no position');
});

test('random refused with a total-active-users cap or an opening; nothing ' +
    'changed', async () => {
	const opens = new Date(Date.now() + 3600000).toISOString();
	for (const extra of [['--total-active-users', 1000],
	    ['--opens-at', opens]]) {
		const slug = uniqueSlug('rnd');
		const r = ctlRun('create', slug, '--name', 'R', '--rate', 60,
		    '--method', 'random', ...extra);
		assert.equal(r.code, 2, r.err);
		assert.match(r.err, /bad value for --method: must be fifo/);
		assert.equal(ctlRun('show', slug).code, 4, 'not created');
	}
	// A capped queue: random refused; a random queue: the cap refused.
	const capped = create('--rate', 60, '--total-active-users', 1000);
	const key = keyOf(capped);
	const id = show(capped).id;
	let was = stateOf(capped);
	let p = await patch(id, key, { queuingMethod: 'random' });
	assert.equal(p.status, 422, p.text);
	assert.equal(p.json.field, 'queuingMethod');
	assert.deepEqual(stateOf(capped), was);
	const rnd = create('--rate', 60, '--method', 'random');
	const rkey = keyOf(rnd);
	const rid = show(rnd).id;
	was = stateOf(rnd);
	p = await patch(rid, rkey, { totalActiveUsers: 1000 });
	assert.equal(p.status, 422, p.text);
	assert.equal(p.json.field, 'totalActiveUsers');
	p = await patch(rid, rkey, { opensAt: opens });
	assert.equal(p.status, 422, p.text);
	assert.equal(p.json.field, 'opensAt');
	assert.deepEqual(stateOf(rnd), was);
	// A queue whose pre-queue collects: random refused.
	const pre = create('--rate', 60, '--opens-at', opens);
	was = stateOf(pre);
	const r = ctlRun('update', pre, '--method', 'random');
	assert.equal(r.code, 2, r.err);
	assert.deepEqual(stateOf(pre), was);
});
