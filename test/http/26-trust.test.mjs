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

test('promise 2: abandonment only speeds the line up: numbers admitted ' +
    'by the jump claim their tokens (rate 1/min, window 60 s, grace 60 s; ' +
    '1-4 heartbeat, 5-14 silent)', async () => {
	const q = createQueue({ rate: 1, burst: 1 });
	ctl('update', q.slug, '--claim-window', 60, '--abandon', 'on',
	    '--abandon-grace', 60);
	const v = [];
	for (let i = 0; i < 14; i++) {
		const r = await join(q.slug);
		assert.equal(r.status, 200, r.text);
		v.push(r.json);
	}
	assert.deepEqual(v.map((x) => x.number),
	    Array.from({ length: 14 }, (_, i) => i + 1));
	let stop = false;
	const beats = (async () => {
		while (!stop) {
			await Promise.all(v.slice(0, 4).map((x) =>
			    postJSON(`/queue/${q.slug}/heartbeat`,
			    { number: x.number, ticket: x.ticket })));
			await sleep(15000);
		}
	})();
	// The worker counts 5-14 (silent past the grace): serving jumps.
	const s = await waitFor(async () => {
		const r = await status(q.slug, 4);
		return r.json.admitted ? r.json : null;
	}, 200000, 1000, 'number 4 admitted');
	stop = true;
	// 1 at once, about 2 more by the rate, the jump: 4 is admitted well
	// before its turn at 1/min (which is minute 3).
	assert.ok(s.serving >= 4, JSON.stringify(s));
	for (const x of v.slice(1, 4)) {
		const t = await token(q.slug, { number: x.number,
		    ticket: x.ticket });
		assert.equal(t.status, 200, `number ${x.number}: ${t.text}`);
	}
	// Still within the window a while later.
	await sleep(20000);
	const t4 = await token(q.slug, { number: 4, ticket: v[3].ticket });
	assert.equal(t4.status, 200, t4.text);
	await beats;
});

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
