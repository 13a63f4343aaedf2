// Scheduled opening with a fair draw: before the opening serving stays 0,
// joins take pre-queue numbers, /token refuses and the seed's SHA-256 is
// published; at the opening the pre-queue's order is the permutation of
// the seed, which tools/verify-draw.py recomputes from what /info
// publishes afterwards; later joiners keep their numbers; re-arming
// draws a new seed; joins racing the opening land on exactly one side.
// The worker (started by the stack) draws the seeds.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { execFileSync, spawnSync } from 'node:child_process';
import {
	env, ctl, show, uniqueSlug, join, status, info, token, sleep,
	waitFor, dbSQL, startExtraPool, fcgiRequest, fcgiParams, req,
} from './lib.mjs';

// poolJoin(sock, slug): a join straight at a pool's FastCGI socket;
// returns {status, json}.
async function poolJoin(sock, slug) {
	const r = await fcgiRequest({ sock, stdin: '{}', params: fcgiParams(
	    'POST', `/queue/${slug}/join`, { CONTENT_TYPE: 'application/json',
	    CONTENT_LENGTH: '2' }) });
	let json = null;
	try {
		json = JSON.parse(r.body);
	} catch {
		// not JSON
	}
	return { status: r.status, json, text: r.body };
}

// createOpening(ms, rate): a queue opening ms from now (by the DB's
// clock); returns {slug, opensAt}.
function createOpening(ms, rate = 600, extra = []) {
	const slug = uniqueSlug('draw');
	const now = Number(dbSQL(
	    'SELECT CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED)')[0][0]);
	const opensAt = now + ms;
	ctl('create', slug, '--name', `Draw ${slug}`, '--target',
	    'https://shop.example/', '--domains', 'shop.example', '--rate',
	    rate, '--opens-at', opensAt, ...extra);
	return { slug, opensAt };
}

// The seed's hash, once the worker has drawn it.
async function publishedHash(slug) {
	return waitFor(async () => (await info(slug)).json.drawSeedSha256,
	    5000, 100, 'the seed hash');
}

function verifyDraw(args) {
	return execFileSync('python3', [`${env.root}/tools/verify-draw.py`,
	    ...args], { encoding: 'utf8' });
}

test('before the opening: pre-queue numbers, serving 0, no token, a ' +
    'countdown and the seed hash; after it the drawn order, verifiable',
async () => {
	const { slug, opensAt } = createOpening(5000);
	const hash = await publishedHash(slug);
	assert.match(hash, /^[0-9a-f]{64}$/);
	let i = await info(slug);
	assert.equal(i.status, 200);
	assert.equal(i.json.opensAt, new Date(opensAt).toISOString());
	assert.ok(i.json.opensInSeconds >= 1 && i.json.opensInSeconds <= 5,
	    `countdown ${i.json.opensInSeconds}`);
	assert.equal(i.json.serving, 0);
	assert.equal(i.json.drawSeed, undefined, 'no seed before');
	assert.equal(i.json.preQueue, undefined, 'no P before');
	const s = show(slug);
	assert.equal(s.drawSeedSha256, hash);
	assert.equal(s.serving, 0);

	const joined = [];
	for (let k = 0; k < 30; k++) {
		const j = await join(slug);
		assert.equal(j.status, 200, j.text);
		assert.equal(j.json.number, k + 1);
		assert.equal(j.json.admitted, false, 'nobody before');
		assert.equal(j.json.token, undefined);
		assert.equal(j.json.serving, 0);
		assert.equal(j.json.position, null, 'not drawn yet');
		joined.push(j.json);
	}
	const st = await status(slug, 1);
	assert.equal(st.status, 200);
	assert.equal(st.json.admitted, false);
	assert.equal(st.json.serving, 0);
	assert.equal(st.json.position, null);
	assert.ok(st.json.opensInSeconds >= 1, 'the countdown in status');
	const t = await token(slug, { number: 1, ticket: joined[0].ticket });
	assert.equal(t.status, 425, t.text);
	// The poll document sends pre-queue numbers to /status (their drawn
	// position): it names the opening, and P once the pre-queue closed.
	const doc = await req(`/queue/${slug}/state.json`);
	assert.equal(doc.status, 200, doc.text);
	assert.equal(doc.json.opensAt, opensAt);
	assert.equal(doc.json.preQueue, null);
	assert.equal(doc.json.serving, 0);

	// The opening passes; the worker (or the next join) closes the
	// pre-queue.
	await waitFor(async () => (await info(slug)).json.preQueue === 30,
	    12000, 200, 'the pre-queue closed');
	await waitFor(async () => (await req(`/queue/${slug}/state.json`))
	    .json?.preQueue === 30, 5000, 100, 'P in the poll document');
	i = await info(slug);
	assert.equal(i.json.opensInSeconds, 0);
	await waitFor(async () => (await info(slug)).json.drawSeed, 3000,
	    100, 'the seed published');
	i = await info(slug);
	const seed = i.json.drawSeed;
	assert.match(seed, /^[0-9a-f]{64}$/);
	assert.equal(i.json.drawSeedSha256, hash, 'the hash did not change');
	assert.equal(createHash('sha256').update(Buffer.from(seed, 'hex'))
	    .digest('hex'), hash, 'the seed matches the published hash');

	// The script recomputes every position; the server agrees.
	const out = JSON.parse(verifyDraw(['--seed', seed, '--pre-queue',
	    '30', '--json']));
	assert.equal(out.positions.length, 30);
	assert.deepEqual([...out.positions].sort((a, b) => a - b),
	    Array.from({ length: 30 }, (_, k) => k + 1), 'a permutation');
	assert.notDeepEqual(out.positions,
	    Array.from({ length: 30 }, (_, k) => k + 1), 'not join order');
	for (let n = 1; n <= 30; n++) {
		const r = await status(slug, n);
		assert.equal(r.json.position, out.positions[n - 1],
		    `position of ${n}`);
	}
	const one = verifyDraw(['--seed', seed, '--pre-queue', '30', '--hash',
	    hash, '--number', '7']);
	assert.match(one, /seed matches the published hash/);
	assert.match(one, new RegExp(
	    `number 7 is admitted at position ${out.positions[6]}\\n`));
	const bad = spawnSync('python3', [`${env.root}/tools/verify-draw.py`,
	    '--seed', seed, '--pre-queue', '30', '--hash', '0'.repeat(64)],
	    { encoding: 'utf8' });
	assert.equal(bad.status, 1);
	assert.match(bad.stdout, /does NOT match/);

	// A later joiner keeps its number as its position.
	const late = await join(slug);
	assert.equal(late.json.number, 31);
	assert.equal(late.json.position, 31);

	// Admission follows the drawn positions: the number drawn first is
	// admitted once serving is 1, the one drawn last not before 30.
	const first = out.positions.indexOf(1) + 1;
	const last = out.positions.indexOf(30) + 1;
	await waitFor(async () => (await status(slug, first)).json.admitted,
	    5000, 100, 'the first drawn number admitted');
	const lr = await status(slug, last);
	if (lr.json.serving < 30) {
		assert.equal(lr.json.admitted, false);
		assert.equal(lr.json.ahead, 30 - lr.json.serving - 1);
		const tl = await token(slug, { number: last,
		    ticket: joined[last - 1].ticket });
		assert.equal(tl.status, 425, 'not yet for the last drawn');
	}
	const tf = await token(slug, { number: first,
	    ticket: joined[first - 1].ticket });
	assert.equal(tf.status, 200, tf.text);
	assert.equal(tf.json.number, first);
});

test('an hour before the opening: the wait is unknown, polled every ' +
    '30 s, also in JSON mode', async () => {
	const { slug } = createOpening(3600 * 1000);
	const j = await join(slug);
	assert.equal(j.status, 200, j.text);
	assert.equal(j.json.estimatedWaitSeconds, null);
	assert.equal(j.json.retryAfterSeconds, 30);
	const st = await status(slug, j.json.number);
	assert.equal(st.json.estimatedWaitSeconds, null);
	assert.equal(st.json.retryAfterSeconds, 30);
	assert.equal(st.headers.get('retry-after'), '30');
	const w = await req(`/queue/${slug}`,
	    { headers: { accept: 'application/json' } });
	assert.ok(w.json !== null, w.text);
	assert.equal(w.json.WaitingRoom.inWaitingRoom, true);
	assert.equal(w.json.WaitingRoom.waitTimeKnown, false);
	assert.equal(w.json.WaitingRoom.waitTimeFormatted, 'unknown');
});

test('changing the opening time re-arms the draw: a new seed hash; ' +
    'refused in the past and once the queue has opened', async () => {
	const { slug } = createOpening(60000);
	const h1 = await publishedHash(slug);
	await join(slug);
	const now = Number(dbSQL(
	    'SELECT CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED)')[0][0]);
	ctl('update', slug, '--opens-at',
	    new Date(now + 3000).toISOString());
	const h2 = await waitFor(async () => {
		const h = (await info(slug)).json.drawSeedSha256;
		return h && h !== h1 ? h : null;
	}, 5000, 100, 'a new seed hash');
	assert.match(h2, /^[0-9a-f]{64}$/);
	assert.equal(show(slug).opensAt, now + 3000);
	assert.throws(() => ctl('update', slug, '--opens-at', now - 1000),
	    /status 2/, 'an opening in the past is refused');
	assert.throws(() => ctl('update', slug, '--opens-at', 'tomorrow'),
	    /status 2/, 'not a time');
	await waitFor(async () => (await info(slug)).json.preQueue === 1,
	    10000, 200, 'opened');
	assert.throws(() => ctl('update', slug, '--opens-at', now + 600000),
	    /status 2/, 'no re-arming after the opening');
	assert.equal((await info(slug)).json.drawSeedSha256, h2);
});

test('a queue that has issued numbers cannot be armed; one without can',
async () => {
	const slug = uniqueSlug('draw');
	ctl('create', slug, '--name', 'Arm later', '--rate', 60);
	const now = Number(dbSQL(
	    'SELECT CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED)')[0][0]);
	ctl('update', slug, '--opens-at', now + 60000);
	// Serving stays at the burst it had (no observer sees it step back);
	// nobody is admitted before the opening all the same.
	assert.equal(show(slug).serving, 10, 'held at its burst');
	const j = await join(slug);
	assert.equal(j.status, 200, j.text);
	assert.equal(j.json.admitted, false, 'a pre-queue number: not admitted');
	assert.equal(j.json.token, undefined);
	const other = uniqueSlug('draw');
	ctl('create', other, '--name', 'Busy', '--rate', 60);
	await join(other);
	assert.throws(() => ctl('update', other, '--opens-at', now + 60000),
	    /status 2/);
	assert.equal(show(other).opensAt, null, 'nothing changed');
});

test('cancelling an opening: while nobody waits for the draw the queue ' +
    'opens now; once a number waits it is refused and nothing changes',
async () => {
	// The CLI, on an empty pre-queue: no opening, no seed, and the
	// first visitor is admitted at once.
	const a = createOpening(600000);
	await publishedHash(a.slug);
	ctl('update', a.slug, '--opens-at', 'none');
	assert.equal(show(a.slug).opensAt, null, 'no opening');
	// /info answers from each process's cache (status-cache-ms).
	let i = await waitFor(async () => {
		const x = await info(a.slug);
		return x.json.opensAt === undefined ? x : null;
	}, 2000, 50, '/info without the opening');
	assert.equal(i.json.drawSeedSha256, undefined, 'no seed any more');
	// Joined at once after the cancel: the pool's cached row may still
	// hold the opening, yet the answer says what the join statement
	// did (admitted, with its token), consistently.
	const j = await join(a.slug);
	assert.equal(j.status, 200, j.text);
	assert.deepEqual([j.json.number, j.json.admitted, j.json.ahead,
	    typeof j.json.token], [1, true, 0, 'string'], j.text);
	assert.ok(j.json.serving >= 1, j.text);
	// The API: PATCH opensAt null with the queue's key.
	const b = createOpening(600000);
	const id = Number(dbSQL('SELECT id FROM queue WHERE slug = ' +
	    `'${b.slug}'`)[0][0]);
	const key = /^key: (qak_\S+)$/m.exec(ctl('key', 'create', b.slug,
	    '--name', 'cancel'))[1];
	const patch = (body) => req(`/api/admin/queue/sites/${id}`, {
	    method: 'PATCH', headers: { authorization: `Bearer ${key}`,
	    'content-type': 'application/json' },
	    body: JSON.stringify(body) });
	// A number in the pre-queue: refused, with the opening as it was.
	const pre = await join(b.slug);
	assert.deepEqual([pre.status, pre.json.admitted], [200, false]);
	let r = await patch({ opensAt: null, ratePerMinute: 90 });
	assert.equal(r.status, 422, r.text);
	assert.deepEqual([r.json.error, r.json.field], ['invalid_value',
	    'opensAt']);
	const sb = show(b.slug);
	assert.deepEqual([sb.opensAt, sb.ratePerMinute],
	    [b.opensAt, 600], 'nothing changed');
	// An empty pre-queue through the API: cancelled.
	const c = createOpening(600000);
	const idc = Number(dbSQL('SELECT id FROM queue WHERE slug = ' +
	    `'${c.slug}'`)[0][0]);
	const keyc = /^key: (qak_\S+)$/m.exec(ctl('key', 'create', c.slug,
	    '--name', 'cancel'))[1];
	r = await req(`/api/admin/queue/sites/${idc}`, { method: 'PATCH',
	    headers: { authorization: `Bearer ${keyc}`,
	    'content-type': 'application/json' },
	    body: JSON.stringify({ opensAt: null }) });
	assert.equal(r.status, 200, r.text);
	assert.equal(r.json.opensAt, null);
	await waitFor(async () => (await info(c.slug)).json.opensAt ===
	    undefined, 2000, 50, '/info without the opening');
	const jc = await join(c.slug);
	assert.deepEqual([jc.json.number, jc.json.admitted], [1, true]);
	// Sending null again, with nothing armed: nothing to do, 200.
	r = await req(`/api/admin/queue/sites/${idc}`, { method: 'PATCH',
	    headers: { authorization: `Bearer ${keyc}`,
	    'content-type': 'application/json' },
	    body: JSON.stringify({ opensAt: null }) });
	assert.equal(r.status, 200, r.text);
	// Zero is not "none": refused.
	assert.throws(() => ctl('update', b.slug, '--opens-at', '0'),
	    /status 2/, 'zero is no time');
});

test('joins racing the opening instant land on exactly one side, once',
async () => {
	const { slug, opensAt } = createOpening(2500, 60);
	await publishedHash(slug);
	// A second pool whose clock is an hour ahead: the join statement
	// stamps the database's time, so its joins land like the others.
	const skewed = await startExtraPool({ clockOffset: '+1h' });
	try {
		const answers = [];
		const stopAt = opensAt + 2500;
		const dbNow = () => Number(dbSQL('SELECT CAST(UNIX_TIMESTAMP(' +
		    'NOW(3)) * 1000 AS SIGNED)')[0][0]);
		const offset = dbNow() - Date.now();
		await Promise.all(Array.from({ length: 16 }, async (_, w) => {
			while (Date.now() + offset < stopAt) {
				const r = w % 4 === 0 ?
				    await poolJoin(skewed.sock, slug) :
				    await join(slug);
				assert.equal(r.status, 200, r.text);
				answers.push(r.json);
			}
		}));
		const p = Number(dbSQL('SELECT draw_count, draw_open FROM ' +
		    `queue WHERE slug = '${slug}'`)[0][0]);
		const i = await info(slug);
		assert.equal(i.json.preQueue, p, 'P as the row says');
		const numbers = answers.map((a) => a.number)
		    .sort((a, b) => a - b);
		assert.deepEqual(numbers, Array.from({ length: numbers.length },
		    (_, k) => k + 1), 'every number once, none lost');
		assert.ok(p > 0 && p < numbers.length,
		    `both sides taken (P ${p} of ${numbers.length})`);
		// Every pre-queue number has one drawn place, none twice; its
		// join answered no place (drawn later) or already that one
		// (the answer came after the pre-queue had closed).
		const seen = new Set();
		const drawn = {};
		for (let n = 1; n <= p; n++) {
			const r = await status(slug, n);
			assert.ok(r.json.position >= 1 && r.json.position <= p);
			seen.add(r.json.position);
			drawn[n] = r.json.position;
		}
		let early = 0;
		for (const a of answers) {
			if (a.number <= p) {
				assert.ok(a.position === null ||
				    a.position === drawn[a.number],
				    `pre-queue number ${a.number}: answered ` +
				    `${a.position}, drawn ${drawn[a.number]}`);
				early += a.position === null ? 1 : 0;
			} else
				assert.equal(a.position, a.number,
				    `number ${a.number} after the opening`);
		}
		assert.ok(early > 0, 'pre-queue joins answered before the draw');
		assert.equal(seen.size, p);
	} finally {
		await skewed.stop();
	}
});
