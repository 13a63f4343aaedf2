// The queuing method per queue (SPEC section 8): fifo (the default),
// passthrough (fifo without a rate: everyone admitted as they join,
// tokens still issued), hold
// (numbers taken, nobody new admitted); random has its own file
// (59-random).  Each method's behaviour with exact numbers, and every
// switch on a queue with people waiting and some admitted but not yet
// claimed.
//
// The promises (README "promises") these paths could break:
//  1. a number is issued once and serving never goes backward: every
//     sample of serving below is checked against the one before, across
//     every switch, and each join's number is the exact next one (on hold
//     the numbers the burst's headroom would have admitted are skipped,
//     never issued twice);
//  2. no token before admission and the whole claim window for the
//     admitted: /token answers 425 for a waiting number on hold and after
//     passthrough, and every place admitted before a switch still gets
//     its token after it (claimPlaces());
//  4. failed leaves nothing: an unknown method is refused (CLI exit 2,
//     API 422 invalid_value naming the field) and the queue's settings
//     and numbers are as before;
//  6. order is join order: fifo after hold and after passthrough admits
//     the waiting numbers from the lowest up (serving is a frontier; the
//     exact serving numbers are checked).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
	createQueue, ctl, join, status, token, req, show, waitFor, sleep,
	CACHE_MS,
} from './lib.mjs';
import { Client, addUser } from './console.mjs';

const SITES = '/api/admin/queue/sites';

// A method switch takes effect ADM_TICK_MS after it is made, and the
// pool's copy of the row turns over within CACHE_MS.
const settle = () => sleep(CACHE_MS + 300);

// The tracker of one queue: the tickets of its numbers, what each was
// told, and the highest serving seen (promise 1).
function tracker(slug) {
	return { slug, tickets: new Map(), admitted: new Set(), serving: 0 };
}

// note(t, what, serving): serving never goes backward.
function note(t, what, serving) {
	assert.ok(serving >= t.serving,
	    `${what}: serving ${serving} went back from ${t.serving}`);
	t.serving = serving;
}

// take(t, expect): one join; its number must be expect.number and its
// admission expect.admitted.
async function take(t, expect) {
	const j = await join(t.slug);
	assert.equal(j.status, 200, j.text);
	assert.equal(j.json.number, expect.number, 'the exact next number');
	assert.equal(j.json.admitted, expect.admitted,
	    `number ${j.json.number} admitted`);
	if (expect.onHold !== undefined)
		assert.equal(j.json.onHold === true, expect.onHold, j.text);
	note(t, `join ${j.json.number}`, j.json.serving);
	t.tickets.set(j.json.number, j.json.ticket);
	if (j.json.admitted) {
		t.admitted.add(j.json.number);
		// Admitted at once: the token comes with the join.
		assert.equal(typeof j.json.token, 'string', j.text);
	}
	return j.json;
}

// look(t, n): the status of number n; an admitted place stays admitted.
async function look(t, n) {
	const s = await status(t.slug, n);
	assert.equal(s.status, 200, s.text);
	note(t, `status ${n}`, s.json.serving);
	if (t.admitted.has(n))
		assert.equal(s.json.admitted, true,
		    `number ${n} was admitted and still is`);
	if (s.json.admitted)
		t.admitted.add(n);
	return s.json;
}

// lookAll(t): the status of every number taken; returns them by number.
async function lookAll(t) {
	const out = new Map();
	for (const n of [...t.tickets.keys()].sort((a, b) => a - b))
		out.set(n, await look(t, n));
	return out;
}

// method(t, m): switch the queuing method with the CLI and wait until it
// is in effect.  It waits two ticks first, so that the lagged last number
// (admission.h) is the last number at the switch: the serving number the
// new segment starts at is then exact.
async function method(t, m) {
	await sleep(600);
	assert.match(ctl('update', t.slug, '--method', m), /ok/);
	assert.equal(show(t.slug).queuingMethod, m);
	await settle();
}

// claimPlaces(t, numbers): each admitted number gets its token now
// (promise 2: the claim window was not cut by a switch).
async function claimPlaces(t, numbers) {
	for (const n of numbers) {
		const r = await token(t.slug, { number: n,
		    ticket: t.tickets.get(n) });
		assert.equal(r.status, 200, `token of ${n}: ${r.text}`);
		assert.equal(typeof r.json.token, 'string');
	}
}

// early(t, n): a waiting number gets no token: 425 with a JSON error.
async function early(t, n) {
	const r = await token(t.slug, { number: n, ticket: t.tickets.get(n) });
	assert.equal(r.status, 425, r.text);
	assert.equal(r.json.error, 'not_admitted');
}

test('default fifo; unknown methods refused, nothing changed',
    async () => {
	// Promise 4: a refused change leaves the queue as it was.
	const q = createQueue({ rate: 1, burst: 2 });
	const t = tracker(q.slug);
	assert.equal(show(q.slug).queuingMethod, 'fifo');
	await take(t, { number: 1, admitted: true });
	assert.throws(() => ctl('update', q.slug, '--method', 'lifo'),
	    /fifo \(admitted in join order at the rate\), random/);
	assert.throws(() => ctl('update', q.slug, '--method', 'FIFO'));
	const key = /^key: (qak_\S+)$/m.exec(ctl('key', 'create', q.slug,
	    '--name', 'method'))[1];
	const id = show(q.slug).id;
	for (const bad of ['Random', 'lifo', '', 1, null]) {
		const r = await req(`${SITES}/${id}`, { method: 'PATCH',
		    headers: { authorization: `Bearer ${key}`,
		    'content-type': 'application/json' },
		    body: JSON.stringify({ queuingMethod: bad, name: 'Other' }) });
		// The API's answer to a value outside a field's rule: 422
		// invalid_value naming the field (a JSON type it cannot
		// take may be 400).
		assert.ok(r.status === 422 || r.status === 400,
		    `${JSON.stringify(bad)}: ${r.text}`);
		assert.equal(typeof r.json.error, 'string');
		if (typeof bad === 'string') {
			assert.equal(r.status, 422, r.text);
			assert.equal(r.json.error, 'invalid_value');
			assert.equal(r.json.field, 'queuingMethod');
		}
		if (bad === 'lifo')
			assert.match(r.json.message, /^queuingMethod must be /);
	}
	const s = show(q.slug);
	assert.equal(s.queuingMethod, 'fifo');
	assert.equal(s.name, q.name, 'the other member was not applied');
	assert.equal(s.lastNumber, 1, 'no number used');
	// The API takes a valid one.
	const r = await req(`${SITES}/${id}`, { method: 'PATCH',
	    headers: { authorization: `Bearer ${key}`,
	    'content-type': 'application/json' },
	    body: JSON.stringify({ queuingMethod: 'hold' }) });
	assert.equal(r.status, 200, r.text);
	assert.equal(show(q.slug).queuingMethod, 'hold');
});

test('hold: numbers taken, nobody new admitted, admitted keep their window',
    async () => {
	// Rate 1 a minute, burst 2: 1 and 2 pass at once, 3 and 4 wait
	// (serving 2 for the minute this test takes at most).
	const q = createQueue({ rate: 1, burst: 2 });
	const t = tracker(q.slug);
	await take(t, { number: 1, admitted: true });
	await take(t, { number: 2, admitted: true });
	await take(t, { number: 3, admitted: false });
	await take(t, { number: 4, admitted: false });
	await method(t, 'hold');
	const s = show(q.slug);
	assert.equal(s.active, true, 'on hold is not paused');
	// Joins still take numbers (not 423), and wait.
	const j = await take(t, { number: 5, admitted: false, onHold: true });
	assert.equal(j.serving, 2);
	assert.equal(j.estimatedWaitSeconds, null, 'no estimate on hold');
	const st = await lookAll(t);
	for (const n of [3, 4, 5]) {
		assert.equal(st.get(n).admitted, false);
		assert.equal(st.get(n).onHold, true);
		assert.equal(st.get(n).active, true);
		assert.equal(st.get(n).serving, 2, 'serving frozen at 2');
		assert.equal(st.get(n).estimatedWaitSeconds, null);
		await early(t, n);
	}
	// The poll document and JSON mode say so too.
	await waitFor(async () => {
		const d = await req(`/queue/${q.slug}/state.json`);
		return d.status === 200 && d.json.onHold === true &&
		    d.json.serving === 2 && d.json.lastNumber === 5;
	}, 5000, 200, 'state.json onHold');
	const wr = await req(`/queue/${q.slug}`,
	    { headers: { accept: 'application/json' } });
	assert.equal(wr.json.WaitingRoom.onHold, true, wr.text);
	assert.equal(wr.json.WaitingRoom.queueAll, true);
	assert.equal(wr.json.WaitingRoom.inWaitingRoom, true);
	assert.equal(wr.json.WaitingRoom.number, 6, 'JSON mode took 6');
	t.tickets.delete(6);
	// The page carries the hold message.
	const page = await req(`/queue/${q.slug}`);
	assert.match(page.text, /data-m-hold="[^"]+"/);
	// Admitted before the hold: still admitted, the token is given.
	await claimPlaces(t, [1, 2]);
	// Paused while on hold: joins refused; resumed: on hold again.
	assert.match(ctl('pause', q.slug), /ok/);
	await settle();
	const p = await join(q.slug);
	assert.equal(p.status, 423, p.text);
	assert.match(ctl('resume', q.slug), /ok/);
	await settle();
	await take(t, { number: 7, admitted: false, onHold: true });
	assert.equal(show(q.slug).lastNumber, 7);
});

test('hold skips the burst headroom: nobody new passes', async () => {
	// Promise 1: an idle queue serves its burst ahead (serving 5 with
	// no number issued); on hold the join moves past it, so 1-5 are
	// never issued and 6 waits.
	const q = createQueue({ rate: 60, burst: 5 });
	const t = tracker(q.slug);
	await method(t, 'hold');
	const j = await take(t, { number: 6, admitted: false, onHold: true });
	assert.equal(j.serving, 5);
	await take(t, { number: 7, admitted: false, onHold: true });
	await sleep(1500);
	const s = await look(t, 6);
	assert.equal(s.serving, 5, 'still frozen');
	assert.equal(s.admitted, false);
	// Back to fifo: serving grows from 5 at one a second, in join order
	// (promise 6): 6 before 7.
	await method(t, 'fifo');
	await waitFor(async () => (await look(t, 6)).admitted, 5000, 100,
	    '6 admitted after the hold');
	const s7 = await look(t, 7);
	assert.ok(s7.serving >= 6);
	await claimPlaces(t, [6]);
});

test('passthrough: everyone admitted as they join; back to fifo keeps them',
    async () => {
	// Passthrough is fifo without a rate: serving is the lagged last
	// number plus the burst (3), so joins within the burst's headroom
	// are admitted at once, their token in the answer.
	const q = createQueue({ rate: 1, burst: 3 });
	const t = tracker(q.slug);
	await take(t, { number: 1, admitted: true });
	await take(t, { number: 2, admitted: true });
	await take(t, { number: 3, admitted: true });
	await take(t, { number: 4, admitted: false });
	await take(t, { number: 5, admitted: false });
	await method(t, 'passthrough');
	// Switching admits everyone waiting.
	const st = await lookAll(t);
	for (const n of [1, 2, 3, 4, 5])
		assert.equal(st.get(n).admitted, true, `${n} admitted`);
	assert.equal(st.get(5).serving, 8, 'the last number plus the burst');
	// New joins are admitted at once, their token in the answer.
	await take(t, { number: 6, admitted: true });
	await take(t, { number: 7, admitted: true });
	await take(t, { number: 8, admitted: true });
	// Back to fifo: the segment starts at the serving number of its
	// moment (8 + 3), nothing is taken back; 9-11 pass by that
	// headroom, 12 waits, next in line (promise 6).
	await method(t, 'fifo');
	await take(t, { number: 9, admitted: true });
	await take(t, { number: 10, admitted: true });
	await take(t, { number: 11, admitted: true });
	await take(t, { number: 12, admitted: false });
	const after = await lookAll(t);
	for (let n = 1; n <= 11; n++)
		assert.equal(after.get(n).admitted, true, `${n} kept`);
	assert.equal(after.get(12).serving, 11);
	assert.equal(after.get(12).ahead, 0, '12 is next (join order)');
	await early(t, 12);
	await claimPlaces(t, [4, 5, 6, 7, 8, 9, 10, 11]);
});

test('every switch with people waiting and admitted places unclaimed',
    async () => {
	// Rate 1 a minute, burst 1: serving moves only by the methods.
	const q = createQueue({ rate: 1, burst: 1 });
	const t = tracker(q.slug);
	await take(t, { number: 1, admitted: true });
	await take(t, { number: 2, admitted: false });
	await take(t, { number: 3, admitted: false });
	// fifo -> hold: 2 and 3 keep waiting, 1 keeps its place.
	await method(t, 'hold');
	await take(t, { number: 4, admitted: false, onHold: true });
	let s = await lookAll(t);
	assert.deepEqual([...s.values()].map((x) => x.admitted),
	    [true, false, false, false]);
	assert.equal(t.serving, 1);
	// hold -> fifo: serving from 1; 2 waits for the rate.
	await method(t, 'fifo');
	await take(t, { number: 5, admitted: false });
	s = await lookAll(t);
	assert.equal(s.get(5).ahead, 3, '2, 3, 4 ahead of 5');
	// fifo -> passthrough: everyone waiting passes (serving is the
	// last number plus the burst: 5 + 1).
	await method(t, 'passthrough');
	s = await lookAll(t);
	assert.ok([...s.values()].every((x) => x.admitted), 'all admitted');
	assert.equal(t.serving, 6);
	await take(t, { number: 6, admitted: true });
	// passthrough -> hold: the hold starts at the serving number of its
	// moment, 6 + 1; the join moves past it (7 is never issued) and
	// waits.
	await method(t, 'hold');
	await take(t, { number: 8, admitted: false, onHold: true });
	s = await lookAll(t);
	for (let n = 1; n <= 6; n++)
		assert.equal(s.get(n).admitted, true, `${n} kept`);
	assert.equal(s.get(8).serving, 7, 'frozen where passthrough was');
	assert.equal(s.get(8).ahead, 0);
	await early(t, 8);
	// hold -> passthrough: 8 passes, and so does every new one.
	await method(t, 'passthrough');
	assert.equal((await look(t, 8)).admitted, true);
	await take(t, { number: 9, admitted: true });
	// passthrough -> fifo: serving starts at 9 + 1, so 10 passes by the
	// burst's headroom and 11 waits, next in line.
	await method(t, 'fifo');
	await take(t, { number: 10, admitted: true });
	const n11 = await take(t, { number: 11, admitted: false });
	assert.equal(n11.ahead, 0);
	// fifo -> passthrough -> fifo once more, back to back.
	await method(t, 'passthrough');
	assert.equal((await look(t, 11)).admitted, true);
	await method(t, 'fifo');
	await take(t, { number: 12, admitted: true });
	await take(t, { number: 13, admitted: false });
	// Every place admitted on the way still claims (promise 2).
	await claimPlaces(t, [1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12]);
	await early(t, 13);
	assert.equal(show(q.slug).lastNumber, 13, 'each number issued once ' +
	    '(7 skipped by the hold, never issued)');
});

// The console's dashboard names the state the method gives (its page
// and its live JSON): read-only, it changes nothing (promise 4).
test('the dashboard says on hold, passthrough, running or paused',
    async () => {
	const u = addUser();
	const c = new Client();
	assert.equal((await c.login(u.name, u.password)).status, 303);
	const q = createQueue({ rate: 60 });
	const states = [
		[['--method', 'hold'], 'On hold: joins wait, nobody new is ' +
		    'admitted'],
		[['--method', 'passthrough'], 'Passthrough: everyone is ' +
		    'admitted as they join'],
		[['--method', 'fifo'], 'Running'],
	];
	for (const [args, text] of states) {
		ctl('update', q.slug, ...args);
		const page = await c.request('GET', `/admin/queue/${q.slug}`);
		assert.equal(page.status, 200);
		assert.match(page.text,
		    new RegExp(`<p id="state" role="status">${text}</p>`));
		const live = await c.request('GET',
		    `/admin/queue/${q.slug}/live`);
		assert.equal(live.json.stateText, text);
	}
	ctl('pause', q.slug);
	const live = await c.request('GET', `/admin/queue/${q.slug}/live`);
	assert.equal(live.json.stateText, 'Paused');
});

// Promise 2 under passthrough: a number its join admitted is admitted in
// every answer after it, whichever worker answers and however old its
// copy of the row; a number beyond the burst's headroom waits at most two
// ticks (the lagged last number), and its status never says admitted
// before its answer could.
test('passthrough: admitted at the join, admitted in every status after',
    async () => {
	const q = createQueue({ rate: 1, burst: 3 });
	const t = tracker(q.slug);
	await take(t, { number: 1, admitted: true });
	await method(t, 'passthrough');
	for (let n = 2; n <= 41; n++) {
		const j = await join(t.slug);
		assert.equal(j.status, 200, j.text);
		assert.equal(j.json.number, n, 'the exact next number');
		note(t, `join ${n}`, j.json.serving);
		t.tickets.set(n, j.json.ticket);
		assert.equal(j.json.admitted, n <= j.json.serving,
		    'admitted exactly when within serving');
		if (j.json.admitted)
			t.admitted.add(n);
		await look(t, n);
	}
	// Within two ticks every number is admitted.
	await sleep(600);
	const all = await lookAll(t);
	for (const [n, x] of all)
		assert.equal(x.admitted, true, `${n} admitted`);
	await claimPlaces(t, [...all.keys()]);
});
