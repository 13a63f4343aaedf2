// Proof of work before a join (SPEC sections 4 and 9, CASES C17, C26,
// C42-C44), end to end through nginx.  Promises these paths could
// break, and what shows they hold:
//   promise 1 (a number is issued once): a solved challenge takes one
//     number; the same body again, another tab racing it, a reload of
//     the pool in between or a second pool do not take a second one
//     for it (the single-use record), and every refusal is followed by
//     the next number in sequence;
//   promise 3 (only the visitor's deliberate request takes a number):
//     another site's join is refused before any challenge is judged; the
//     gateway link and JSON mode take no number while proof of work is
//     on (everyone goes through the room, which solves first);
//     The same without a master (workers = 0, each process started by
//     the web server on its own): two such processes on one run-dir
//     share the record, so a solution replayed at the other process is
//     428 challenge_used and takes no second number;
//   promise 4 (a request answered "failed" left nothing behind; bad
//     input changes nothing): every 428, 400 and 413 leaves lastNumber
//     as it was, and a join refused for another reason (paused) gives
//     its challenge back.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import {
	createQueue, ctl, show, req, postJSON, join, navigateReq, stack,
	startExtraPool, fcgiRequest, fcgiParams, sleep, waitFor, stackConf,
	childPids, env,
} from './lib.mjs';
import {
	challenge, solve, powJoin, solvedJoin, forge, fieldsOf, bitsOf,
} from './pow.mjs';

// A queue with proof of work on at bits (rate 600: joins admitted).
function powQueue(bits = 12, rate = 600) {
	const q = createQueue({ rate });
	ctl('update', q.slug, '--pow', 'on', '--pow-bits', bits);
	return { ...q, id: show(q.slug).id, bits };
}

const lastNumber = (slug) => show(slug).lastNumber;

// A 428 of code: the conventions' body, a fresh challenge unlike sent.
function is428(r, code, sent = null) {
	assert.equal(r.status, 428, r.text);
	assert.equal(r.json.error, code, r.text);
	assert.equal(typeof r.json.message, 'string');
	assert.equal(typeof r.json.challenge, 'string');
	assert.equal(r.json.expiresInSeconds, 300);
	assert.equal(r.json.algorithm, 'sha256');
	assert.equal(typeof r.json.bits, 'number');
	if (sent !== null)
		assert.notEqual(r.json.challenge, sent, 'a fresh challenge');
}

test('off by default: /pow says enabled false, no challenge; joins ' +
    'need none', async () => {
	const q = createQueue();
	const r = await req(`/queue/${q.slug}/pow`);
	assert.equal(r.status, 200, r.text);
	assert.deepEqual(r.json, { queue: q.slug, enabled: false });
	assert.equal(r.headers.get('cache-control'), 'no-store');
	assert.equal((await join(q.slug)).status, 200);
	const s = show(q.slug);
	assert.deepEqual([s.powEnabled, s.powBits], [false, 15]);
});

test('settings: --pow, --pow-bits 8..24 (outside: the CLI exits 2, the ' +
    'API 422 invalid_value naming powBits), audited', async () => {
	const q = createQueue();
	for (const bad of ['7', '25', '-1', '257', 'x'])
		assert.throws(() => ctl('update', q.slug, '--pow-bits', bad),
		    /pow-bits/);
	ctl('update', q.slug, '--pow', 'on', '--pow-bits', '20');
	let s = show(q.slug);
	assert.deepEqual([s.powEnabled, s.powBits], [true, 20]);
	const key = /^key: (qak_\S+)$/m.exec(ctl('key', 'create', q.slug,
	    '--name', 'pow'))[1];
	const patch = (body) => req(`/api/admin/queue/sites/${s.id}`, {
	    method: 'PATCH', headers: { authorization: `Bearer ${key}`,
	    'content-type': 'application/json' }, body: JSON.stringify(body) });
	for (const bad of [7, 25, -1, 257, '15']) {
		const r = await patch({ powBits: bad });
		assert.equal(r.status, 422, `${bad}: ${r.text}`);
		assert.equal(r.json.field, 'powBits');
	}
	let r = await patch({ powEnabled: false, powBits: 8 });
	assert.equal(r.status, 200, r.text);
	s = show(q.slug);
	assert.deepEqual([s.powEnabled, s.powBits], [false, 8]);
	r = await req(`/queue/${q.slug}/pow`);
	assert.equal(r.json.enabled, false);
	const audit = ctl('audit', '--queue', q.slug, '--action', 'update');
	assert.match(audit, /"powBits":8/);
});

test('C26: a solved challenge joins; the same body again, a nonce one ' +
    'bit short, a foreign queue\'s, a tampered or expired one are ' +
    'refused with their codes and a fresh challenge; no number leaks',
    async () => {
	const q = powQueue(12);
	const vip = powQueue(12);
	const c = await challenge(q.slug);
	assert.deepEqual(Object.keys(c).sort(), ['algorithm', 'bits',
	    'challenge', 'enabled', 'expiresInSeconds', 'queue']);
	assert.deepEqual([c.queue, c.enabled, c.bits, c.expiresInSeconds,
	    c.algorithm], [q.slug, true, 12, 300, 'sha256']);
	const n = solve(c.challenge, c.bits);
	// 1. solved: 200 with a number.
	let r = await powJoin(q.slug, c.challenge, n);
	assert.equal(r.status, 200, r.text);
	const first = r.json.number;
	for (const k of ['queue', 'name', 'number', 'ticket', 'serving',
	    'ahead', 'admitted', 'estimatedWaitSeconds',
	    'retryAfterSeconds'])
		assert.ok(k in r.json, k);
	// 2. the same body again.
	r = await powJoin(q.slug, c.challenge, n);
	is428(r, 'challenge_used', c.challenge);
	// 3. A's nonce with B.
	const a = await challenge(q.slug), b = await challenge(q.slug);
	const na = solve(a.challenge, a.bits);
	if (bitsOf(b.challenge, na) < b.bits) {
		r = await powJoin(q.slug, b.challenge, na);
		is428(r, 'insufficient_work', b.challenge);
	}
	// 4. one bit short (exactly bits - 1 zero bits).
	const s4 = await challenge(q.slug);
	r = await powJoin(q.slug, s4.challenge, solve(s4.challenge, 0,
	    { exact: s4.bits - 1 }));
	is428(r, 'insufficient_work', s4.challenge);
	// 5. the other queue's challenge, solved.
	const v = await challenge(vip.slug);
	r = await powJoin(q.slug, v.challenge, solve(v.challenge, v.bits));
	is428(r, 'challenge_mismatch', v.challenge);
	// 6. older than its 300 s (signed with the installation's key).
	const old = forge({ queueId: q.id, issuedMs: Date.now() - 301000,
	    bits: 12 });
	r = await powJoin(q.slug, old, solve(old, 12));
	is428(r, 'challenge_expired', old);
	// 7. difficulty edited down (MAC no longer matches), MAC edited.
	const f = fieldsOf(s4.challenge);
	const raw = Buffer.from(s4.challenge, 'base64url');
	raw[17] = 1;
	const low = raw.toString('base64url');
	r = await powJoin(q.slug, low, solve(low, 1));
	is428(r, 'challenge_invalid', low);
	raw[17] = f.bits;
	raw[40] ^= 1;
	r = await powJoin(q.slug, raw.toString('base64url'), '1');
	is428(r, 'challenge_invalid');
	// 8. none.
	is428(await postJSON(`/queue/${q.slug}/join`, {}), 'pow_required');
	is428(await req(`/queue/${q.slug}/join`, { method: 'POST' }),
	    'pow_required');
	// 9. a 65-character nonce; a 1 MB one (the body limit).
	r = await powJoin(q.slug, s4.challenge, '1'.repeat(65));
	is428(r, 'pow_malformed');
	r = await powJoin(q.slug, s4.challenge, '1'.repeat(1 << 20));
	assert.equal(r.status, 413, r.text);
	assert.equal(r.json.error, 'body_too_large');
	// 10. the nonce as a JSON number.
	r = await postJSON(`/queue/${q.slug}/join`, '{"pow":{"challenge":"' +
	    s4.challenge + '","nonce":12345678901234567890}}');
	is428(r, 'pow_malformed');
	r = await postJSON(`/queue/${q.slug}/join`, { pow: 'x' });
	is428(r, 'pow_malformed');
	// Nothing issued by any of these: the next solved join is next.
	assert.equal(lastNumber(q.slug), first);
	r = await solvedJoin(q.slug);
	assert.equal(r.status, 200, r.text);
	assert.equal(r.json.number, first + 1);
	// A 428's challenge, solved, joins.
	const z = await postJSON(`/queue/${q.slug}/join`, {});
	r = await powJoin(q.slug, z.json.challenge, solve(z.json.challenge,
	    z.json.bits));
	assert.equal(r.status, 200, r.text);
	assert.equal(r.json.number, first + 2);
});

test('C42: the client\'s hash, bits and expiry are never read: one bit ' +
    'short with a forged all-zero hash and bits 0 is refused; a correct ' +
    'nonce with bogus extras joins', async () => {
	const q = powQueue(12);
	let c = await challenge(q.slug);
	let r = await powJoin(q.slug, c.challenge, solve(c.challenge, 0,
	    { exact: c.bits - 1 }), { hash: '0'.repeat(64), bits: 0,
	    expires: 9999999999 });
	is428(r, 'insufficient_work', c.challenge);
	c = await challenge(q.slug);
	r = await powJoin(q.slug, c.challenge, solve(c.challenge, 0,
	    { exact: 0 }), { hash: '0'.repeat(64), bits: 0 });
	is428(r, 'insufficient_work', c.challenge);
	c = await challenge(q.slug);
	r = await powJoin(q.slug, c.challenge, solve(c.challenge, c.bits),
	    { hash: 'f'.repeat(64), bits: 99 });
	assert.equal(r.status, 200, r.text);
});

test('C17 with proof of work on: lenient JSON is 400 invalid_json (not ' +
    '428; above the body limit 413), nothing issued; the positive control ' +
    'is challenge_invalid',
    async () => {
	const q = powQueue(12);
	const before = lastNumber(q.slug);
	const bodies = [
		'{"pow":{"challenge":"c","nonce":"n"}}garbage',
		'{"pow":{"challenge":"c","nonce":"n"}}{"x":1}',
		"{'pow':{'challenge':'c','nonce':'n'}}",
		'/*x*/{"pow":{"challenge":"c","nonce":"n"}}',
		'{"pow":{"nonce":NaN}}',
		'{"pow":{"nonce":123e+}}',
		'['.repeat(60000),
		'{"a":'.repeat(17) + '1' + '}'.repeat(17),
		'{"pow":{"challenge":"c","nonce":"n",}}',
	];
	for (const b of bodies) {
		const r = await postJSON(`/queue/${q.slug}/join`, b);
		assert.equal(r.status, 400, `${b.slice(0, 40)}: ${r.text}`);
		assert.equal(r.json.error, 'invalid_json');
	}
	// 100,000 × [ is above the 64 KB body limit: 413, as without it.
	const big = await postJSON(`/queue/${q.slug}/join`, '['.repeat(100000));
	assert.equal(big.status, 413, big.text);
	is428(await postJSON(`/queue/${q.slug}/join`,
	    '{"pow":{"challenge":"c","nonce":"n"}}'), 'challenge_invalid');
	assert.equal(lastNumber(q.slug), before);
	assert.equal((await solvedJoin(q.slug)).status, 200,
	    'the pool answers on');
});

test('C43: nothing of the client binds a challenge: other headers and ' +
    'addresses, two tabs submitted in the other order, no cookies',
    async () => {
	const q = powQueue(12);
	const c = await challenge(q.slug);
	let r = await powJoin(q.slug, c.challenge, solve(c.challenge, c.bits),
	    {}, { 'user-agent': 'B/1', 'accept-language': 'fr',
	    'x-forwarded-for': '203.0.113.9' });
	assert.equal(r.status, 200, r.text);
	const c1 = await challenge(q.slug), c2 = await challenge(q.slug);
	const n1 = solve(c1.challenge, c1.bits);
	const n2 = solve(c2.challenge, c2.bits);
	const r2 = await powJoin(q.slug, c2.challenge, n2);
	const r1 = await powJoin(q.slug, c1.challenge, n1);
	assert.deepEqual([r2.status, r1.status], [200, 200]);
	assert.notEqual(r1.json.number, r2.json.number, 'each its number');
});

test('C44: 40 challenges over every worker, one across a reload of the ' +
    'pool, one from pool A spent at pool B (the key is the ' +
    'installation\'s, not a process\'s)', async () => {
	const q = powQueue(10);
	const res = await Promise.all(Array.from({ length: 40 }, () =>
	    solvedJoin(q.slug)));
	assert.deepEqual(res.map((r) => r.status), Array(40).fill(200));
	const c = await challenge(q.slug);
	const n = solve(c.challenge, c.bits);
	process.kill(Number(readFileSync(stackConf('pid-file'), 'utf8')
	    .trim()), 'SIGHUP');
	await sleep(1500);
	let r = await powJoin(q.slug, c.challenge, n);
	assert.equal(r.status, 200, `after a reload: ${r.text}`);
	const pool = await startExtraPool({ workers: 2 });
	try {
		const a = await challenge(q.slug);
		const body = JSON.stringify({ pow: { challenge: a.challenge,
		    nonce: solve(a.challenge, a.bits) } });
		r = await fcgiRequest({ sock: pool.sock, stdin: body,
		    params: fcgiParams('POST', `/queue/${q.slug}/join`, {
		    CONTENT_TYPE: 'application/json',
		    CONTENT_LENGTH: String(Buffer.byteLength(body)) }) });
		assert.equal(r.status, 200, r.body);
		// Within that pool, it is spent for all its processes.
		const again = await fcgiRequest({ sock: pool.sock, stdin: body,
		    params: fcgiParams('POST', `/queue/${q.slug}/join`, {
		    CONTENT_TYPE: 'application/json',
		    CONTENT_LENGTH: String(Buffer.byteLength(body)) }) });
		assert.equal(again.status, 428, again.body);
		assert.equal(again.json.error, 'challenge_used');
	} finally {
		await pool.stop();
	}
});

test('C44: a restart of the pool keeps the challenges valid', async () => {
	const q = powQueue(10);
	const c = await challenge(q.slug);
	const n = solve(c.challenge, c.bits);
	stack('app-stop');
	stack('app-start');
	const r = await waitFor(async () => {
		const x = await powJoin(q.slug, c.challenge, n);
		return x.status === 502 || x.status === 503 ? null : x;
	}, 10000, 200, 'the pool back');
	assert.equal(r.status, 200, r.text);
});

test('single use under concurrency: 20 joins with one solution take one ' +
    'number; a join refused while paused gives its challenge back',
    async () => {
	const q = powQueue(10);
	const c = await challenge(q.slug);
	const n = solve(c.challenge, c.bits);
	const before = lastNumber(q.slug);
	const rs = await Promise.all(Array.from({ length: 20 }, () =>
	    powJoin(q.slug, c.challenge, n)));
	const ok = rs.filter((r) => r.status === 200);
	assert.equal(ok.length, 1, rs.map((r) => r.status).join());
	for (const r of rs.filter((x) => x.status !== 200))
		is428(r, 'challenge_used');
	assert.equal(lastNumber(q.slug), before + 1);
	// Paused: 423, and the same solution works after the resume.
	const p = await challenge(q.slug);
	const pn = solve(p.challenge, p.bits);
	ctl('pause', q.slug);
	let r = await powJoin(q.slug, p.challenge, pn);
	assert.equal(r.status, 423, r.text);
	ctl('resume', q.slug);
	r = await powJoin(q.slug, p.challenge, pn);
	assert.equal(r.status, 200, r.text);
	assert.equal(r.json.number, before + 2);
});

test('with proof of work on nobody passes without the room: the gateway ' +
    'link redirects to the room and takes no number, JSON mode answers ' +
    '428 with a challenge; another site\'s join is 403 before any ' +
    'challenge is judged', async () => {
	const q = powQueue(12, 6000);
	const before = lastNumber(q.slug);
	const g = await navigateReq(`/queue/${q.slug}/enter`);
	assert.equal(g.status, 302);
	const loc = g.headers.get('location');
	assert.equal(loc, `/queue/${q.slug}`, 'the room, no number');
	const j = await req(`/queue/${q.slug}`,
	    { headers: { accept: 'application/json' } });
	is428(j, 'pow_required');
	assert.equal(j.headers.get('set-cookie'), null);
	const c = await challenge(q.slug);
	const x = await powJoin(q.slug, c.challenge, solve(c.challenge,
	    c.bits), {}, { origin: 'https://evil.test' });
	assert.equal(x.status, 403, x.text);
	assert.equal(x.json.error, 'origin_not_allowed');
	assert.equal(lastNumber(q.slug), before, 'nothing issued');
	// That challenge was not spent by the refused request.
	const y = await powJoin(q.slug, c.challenge, solve(c.challenge,
	    c.bits));
	assert.equal(y.status, 200, y.text);
	assert.equal(y.json.admitted, true, 'below the rate, after the work');
	assert.equal(typeof y.json.token, 'string');
});

// POST the join body (a JSON string) straight to the FastCGI process p.
const joinAt = (p, slug, body) => fcgiRequest({ sock: p.sock, stdin: body,
    params: fcgiParams('POST', `/queue/${slug}/join`, {
    CONTENT_TYPE: 'application/json',
    CONTENT_LENGTH: String(Buffer.byteLength(body)) }) });

// Two processes without a master (workers = 0) with the extra lines
// extra; resolves them (each stopped by the caller).
async function twoSingles(extra) {
	const ps = [];
	try {
		for (let i = 0; i < 2; i++)
			ps.push(await startExtraPool({ workers: 0, extra }));
	} catch (e) {
		for (const p of ps)
			await p.stop();
		throw e;
	}
	return ps;
}

test('without a master (workers = 0): two processes started on their ' +
    'own with one run-dir share the single-use record: a solution spent ' +
    'at one is 428 challenge_used at the other, one number each',
    async () => {
	const q = powQueue(10);
	const runDir = mkdtempSync(`${env.vardir}/single-run-`);
	const ps = await twoSingles(`run-dir = ${runDir}`);
	try {
		assert.notEqual(ps[0].pid, ps[1].pid);
		// Each answers by itself: no master, no children.
		for (const p of ps)
			assert.deepEqual(childPids(p.pid), [], 'no children');
		const before = lastNumber(q.slug);
		for (let k = 0; k < 4; k++) {
			const [one, other] = k % 2 === 0 ? ps : [ps[1], ps[0]];
			const c = await challenge(q.slug);
			const body = JSON.stringify({ pow: { challenge:
			    c.challenge, nonce: solve(c.challenge, c.bits) } });
			const r = await joinAt(one, q.slug, body);
			assert.equal(r.status, 200, r.body);
			assert.equal(r.json.number, before + k + 1);
			const again = await joinAt(other, q.slug, body);
			assert.equal(again.status, 428, again.body);
			assert.equal(again.json.error, 'challenge_used');
			assert.notEqual(again.json.challenge, c.challenge);
		}
		assert.equal(lastNumber(q.slug), before + 4);
		// The records are the installation's files, its user's only.
		for (const f of ['pow-used.shm', 'gates.shm',
		    'stale-answers.shm'])
			assert.equal(statSync(`${runDir}/${f}`).mode & 0o777,
			    0o600, f);
	} finally {
		for (const p of ps)
			await p.stop();
		rmSync(runDir, { recursive: true, force: true });
	}
});

test('without a master and without run-dir: each process has a record ' +
    'of its own, and says so when it starts', async () => {
	const q = powQueue(10);
	const ps = await twoSingles('run-dir =');
	try {
		const c = await challenge(q.slug);
		const body = JSON.stringify({ pow: { challenge: c.challenge,
		    nonce: solve(c.challenge, c.bits) } });
		assert.equal((await joinAt(ps[0], q.slug, body)).status, 200);
		assert.equal((await joinAt(ps[0], q.slug, body)).status, 428,
		    'spent within its process');
		// The documented weakness of this setting, shown so that the
		// shared case above is known to be able to fail.
		assert.equal((await joinAt(ps[1], q.slug, body)).status, 200,
		    'another process has its own record');
		for (const p of ps)
			assert.match(readFileSync(p.log, 'utf8'), new RegExp(
			    "run-dir is not set: the proof of work's single " +
			    'use, the log-in hash limit and the stale ' +
			    "answers' floor hold per process only"));
	} finally {
		for (const p of ps)
			await p.stop();
	}
});
