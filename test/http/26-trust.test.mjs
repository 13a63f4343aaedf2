// The promises on the paths where they broke once (each case as it was
// found, with the exact answers it must give now):
//   promise 1: serving never goes backward for any observer, also one
//     that asks two pools in turn while others join at full speed and
//     the operator changes the rate;
//   promise 2: no token for a number not yet admitted; an admitted,
//     present visitor claims during its whole claim window, whatever the
//     operator (two quick rate changes), the worker (abandonment jumps)
//     or JSON mode did meanwhile, and a window that has passed is passed
//     on every path (/token and JSON mode alike);
//   promise 6: order is join order, or the published draw, also when the
//     worker is not running at the opening.
// Scenarios run concurrently where they only wait (see SCENARIOS below).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
	createQueue, ctl, join, status, token, info, req, sleep, show,
	startExtraPool, fcgiRequest, fcgiParams, stack, waitFor,
	decodeJWTPayload, postJSON,
} from './lib.mjs';

let pool = null;

before(async () => {
	pool = await startExtraPool({ workers: 2 });
});

after(async () => {
	if (pool !== null)
		await pool.stop();
});

// A status answer from pool 2 (raw FastCGI), shaped like req()'s.
async function status2(slug, number) {
	const r = await fcgiRequest({ sock: pool.sock, params:
	    fcgiParams('GET', `/queue/${slug}/status?number=${number}`) });
	return { status: r.status, json: r.json, text: r.body };
}

async function join2(slug) {
	const r = await fcgiRequest({ sock: pool.sock, params:
	    fcgiParams('POST', `/queue/${slug}/join`) });
	return { status: r.status, json: r.json, text: r.body };
}

// JSON mode on the waiting room's address, with the number cookie jar.
async function jsonRoom(slug, cookie) {
	const headers = { accept: 'application/json' };
	if (cookie !== null)
		headers.cookie = cookie;
	return req(`/queue/${slug}`, { headers });
}

test('promise 1: two observers polling two pools in turn while two ' +
    'others join at full speed and the rate changes twice: serving ' +
    'never steps back in 20,000 polls', async () => {
	const q = createQueue({ rate: 600 });
	const first = await join(q.slug);
	assert.equal(first.status, 200, first.text);
	let stop = false;
	const joins = { ok: 0, other: [] };
	async function joiner(fn) {
		while (!stop) {
			const r = await fn(q.slug);
			if (r.status === 200)
				joins.ok++;
			else
				joins.other.push(r.status);
		}
	}
	const back = [];
	let polls = 0;
	async function observer(k) {
		let seen = -1;
		for (let i = 0; i < 10000; i++) {
			const r = i % 2 === k ? await status(q.slug, 1) :
			    await status2(q.slug, 1);
			assert.equal(r.status, 200, r.text);
			polls++;
			const s = r.json.serving;
			if (s < seen)
				back.push({ observer: k, poll: i, seen, s,
				    pool: i % 2 === k ? 1 : 2 });
			seen = Math.max(seen, s);
		}
	}
	async function operator() {
		await sleep(3000);
		ctl('set-rate', q.slug, 300);
		await sleep(3000);
		ctl('set-rate', q.slug, 900);
	}
	const j = [joiner(join), joiner(join2)];
	await Promise.all([observer(0), observer(1), operator()]);
	stop = true;
	await Promise.all(j);
	assert.equal(polls, 20000);
	assert.ok(joins.ok > 200, `joins ${joins.ok}`);
	assert.deepEqual(joins.other, [], 'every join answered 200');
	assert.deepEqual(back, [], `${back.length} steps back in ${polls} ` +
	    'polls');
});

test('promise 2: JSON mode keeps the claim window: a number taken on an ' +
    'idle queue (window 3 s) gets its token at once, and once the ' +
    'window has passed JSON mode and /token both answer 403 ' +
    'ticket_expired', async () => {
	const q = createQueue({ rate: 60 });
	ctl('update', q.slug, '--claim-window', 3);
	const r1 = await jsonRoom(q.slug, null);
	assert.equal(r1.status, 200, r1.text);
	assert.equal(r1.json.WaitingRoom.inWaitingRoom, false);
	const set = r1.headers.get('set-cookie');
	const m = /^(aditus_wr_[^=]+)=(\d+)\.([^;]+);/.exec(set);
	assert.ok(m !== null, `cookie: ${set}`);
	const cookie = `${m[1]}=${m[2]}.${m[3]}`;
	const number = Number(m[2]);
	const r2 = await jsonRoom(q.slug, cookie);
	assert.equal(r2.status, 200, r2.text);
	assert.equal(decodeJWTPayload(r2.json.WaitingRoom.token).qnr, number);
	// The grid of a 3 s window is 4 s: expired at most 8 s after.
	await sleep(9000);
	const r3 = await jsonRoom(q.slug, cookie);
	assert.equal(r3.status, 403, r3.text);
	assert.equal(r3.json.error, 'ticket_expired');
	assert.equal(r3.json.WaitingRoom, undefined, 'no token');
	assert.match(r3.headers.get('set-cookie'),
	    new RegExp(`^${m[1]}=; .*Max-Age=0`), 'the cookie is dropped');
	const t = await token(q.slug, { number, ticket: m[3] });
	assert.equal(t.status, 403, t.text);
	assert.equal(t.json.error, 'ticket_expired');
	// Hoarding is over: the same cookie again, again refused.
	const r4 = await jsonRoom(q.slug, cookie);
	assert.equal(r4.status, 403, r4.text);
});

test('promise 2: two quick rate changes (600, then 6, then 7 per minute, ' +
    'burst 1, window 60 s) never cut a window short: every number ' +
    'admitted before them gets its token afterwards', async () => {
	const q = createQueue({ rate: 600, burst: 1 });
	ctl('update', q.slug, '--claim-window', 60);
	const held = [];
	await Promise.all(Array.from({ length: 10 }, async () => {
		for (let i = 0; i < 30; i++) {
			const r = await join(q.slug);
			assert.equal(r.status, 200, r.text);
			held.push(r.json);
		}
	}));
	await sleep(20000);
	ctl('set-rate', q.slug, 6);
	ctl('set-rate', q.slug, 7);
	const serving = show(q.slug).serving;
	assert.ok(serving >= 150 && serving < 300,
	    `serving ${serving}: some admitted, some waiting`);
	const admitted = held.filter((h) => h.number <= serving);
	// Those admitted last came in seconds before the changes.
	const answers = await Promise.all(admitted.map((h) =>
	    token(q.slug, { number: h.number, ticket: h.ticket })));
	const bad = answers.filter((a) => a.status !== 200)
	    .map((a) => `${a.status} ${a.text}`);
	assert.deepEqual(bad, [], 'every admitted number claims');
	assert.ok(admitted.length >= 150, `${admitted.length} admitted`);
	// Those waiting are not admitted: 425, never a token.
	const waiting = held.filter((h) => h.number > serving + 3);
	const w = await token(q.slug, { number: waiting[0].number,
	    ticket: waiting[0].ticket });
	assert.equal(w.status, 425, w.text);
	assert.equal(w.json.error, 'not_admitted');
});
