// Session duration and session renewal: POST /queue/<slug>/renew with
// the queue's sessionRenewal on exchanges a valid token for one whose
// exp is now + tokenTtlSeconds (same iss, aud, qnr, jti, bypass); off it
// answers 403 renewal_disabled; a missing, expired, tampered or foreign
// token gets 401 invalid_token; it never takes a number.
//
// Promises this path could break, and what shows it does not:
// - a number issued once, serving never backward: a renewal reads no
//   number and writes nothing; lastNumber and serving are the same
//   before and after many renewals ('renewal takes no number').
// - no token before admission; the claim window for the admitted: only
//   a token of this queue, valid and unexpired, is renewed; a forged,
//   foreign, expired or absent one gets nothing ('401' tests), so
//   renewal mints no token for anyone who was not admitted.
// - only the visitor's own request takes a number: the route takes
//   none at all (its number-taking flag is off); a renewal from any
//   origin leaves lastNumber as it was.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020.js';
import {
	admittedToken, createQueue, ctl, dbSQL, decodeJWTPayload, env, info,
	join, postJSON, req, show, signJWT, sleep, verify, waitFor,
} from './lib.mjs';

const doc = JSON.parse(readFileSync(`${env.root}/static/openapi.json`,
    'utf8'));
const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addSchema({ $id: 'api', components: doc.components });

// checkOp(r): r's body matches what the document says renew answers
// with r's status.
function checkOp(r) {
	const op = doc.paths['/queue/{slug}/renew'].post;
	let resp = op.responses[String(r.status)];
	assert.ok(resp, `renew documents ${r.status}`);
	if (resp.$ref)
		resp = doc.components.responses[resp.$ref.split('/').pop()];
	const v = ajv.compile(JSON.parse(JSON.stringify(
	    resp.content['application/json'].schema)
	    .replaceAll('"#/components/', '"api#/components/')));
	assert.ok(v(r.json), `${r.status}: ${ajv.errorsText(v.errors)}\n` +
	    r.text);
}

// A queue with renewal on (set before any request reads it) and one
// with renewal off; both admit at once.
function renewingQueue(ttl) {
	const q = createQueue({ rate: 600, tokenTtl: ttl });
	ctl('update', q.slug, '--session-renewal', 'on');
	return q;
}
const on = renewingQueue(120);
const off = createQueue({ rate: 600, tokenTtl: 120 });
const HS256 = { alg: 'HS256', typ: 'JWT' };

function renewBearer(slug, tok) {
	return req(`/queue/${slug}/renew`, { method: 'POST',
	    headers: { authorization: `Bearer ${tok}` } });
}

function renewBody(slug, body) {
	return postJSON(`/queue/${slug}/renew`, body);
}

// Sleep until the wall clock's second is past s.
async function afterSecond(s) {
	while (Math.floor(Date.now() / 1000) <= s)
		await sleep(50);
}

async function expect401(r, reason) {
	assert.equal(r.status, 401, r.text);
	assert.equal(r.json.error, 'invalid_token', r.text);
	assert.equal(r.json.reason, reason, r.text);
	assert.match(r.headers.get('www-authenticate') ?? '', /^Bearer /);
	checkOp(r);
}

test('the setting: sessionRenewal off by default, on with the CLI, ' +
    'shown by /info and the site object', async () => {
	assert.equal(show(off.slug).sessionRenewal, false);
	assert.equal(show(on.slug).sessionRenewal, true);
	assert.equal(show(on.slug).tokenTtlSeconds, 120);
	assert.equal((await info(off.slug)).json.sessionRenewal, false);
	assert.equal((await info(on.slug)).json.sessionRenewal, true);
	const r = await req(`/queue/${on.slug}/renew`);
	assert.equal(r.status, 405, 'POST only');
});

test('renew: a later exp, the same sub, aud, qnr, jti; valid at /verify',
    async () => {
	const t = await admittedToken(on.slug);
	const old = decodeJWTPayload(t.token);
	// A second later, so that the new exp is later than the old one.
	await afterSecond(old.iat);
	const r = await renewBearer(on.slug, t.token);
	assert.equal(r.status, 200, r.text);
	checkOp(r);
	assert.equal(r.headers.get('cache-control'), 'no-store');
	const c = decodeJWTPayload(r.json.token);
	const now = Math.floor(Date.now() / 1000);
	assert.ok(c.exp > old.exp, `${c.exp} > ${old.exp}`);
	assert.equal(c.exp, c.iat + 120, 'exp = now + session duration');
	assert.ok(c.iat >= now - 2 && c.iat <= now, `iat ${c.iat} now ${now}`);
	assert.deepEqual([c.iss, c.sub, c.aud, c.qnr, c.jti, c.bypass],
	    [old.iss, old.sub, old.aud, old.qnr, old.jti, old.bypass]);
	assert.equal(c.jti, `${on.slug}:${t.number}`);
	assert.deepEqual(Object.keys(c).sort(), Object.keys(old).sort());
	assert.deepEqual(r.json, { queue: on.slug, number: t.number,
	    token: r.json.token, tokenType: 'JWT', expiresInSeconds: 120,
	    expiresAt: c.exp });
	// Signed as /token signs: HS256 with the queue's secret (RFC 7519).
	const [h, p] = r.json.token.split('.');
	assert.deepEqual(JSON.parse(Buffer.from(h, 'base64url')),
	    { alg: 'HS256', typ: 'JWT' });
	assert.equal(signJWT(Buffer.from(h, 'base64url').toString(),
	    Buffer.from(p, 'base64url').toString(), on.secret), r.json.token);
	assert.deepEqual((await verify(on.slug, r.json.token)).json,
	    { valid: true, number: t.number, expiresAt: c.exp });
	// The body form (what browsers send: CORS allows no Authorization),
	// and the renewed token renews again.
	const b = await renewBody(on.slug, { token: r.json.token });
	assert.equal(b.status, 200, b.text);
	assert.equal(decodeJWTPayload(b.json.token).qnr, t.number);
});

// A bypass code's limits (uses, expiry, disabling) hold when it is
// redeemed and its pass does not name the code: the pass is not renewed
// (it would outlive a disabled or expired code), and nothing changes.
test('a bypass pass is not renewed: 403 bypass_not_renewed', async () => {
	const out = ctl('bypass', 'create', on.slug, '--label', 'renew');
	const code = /^code: (\S+)$/m.exec(out)[1];
	const b = await postJSON(`/queue/${on.slug}/bypass`, { code });
	assert.equal(b.status, 200, b.text);
	const before = show(on.slug);
	for (const r of [await renewBearer(on.slug, b.json.token),
	    await renewBody(on.slug, { token: b.json.token })]) {
		assert.equal(r.status, 403, r.text);
		assert.deepEqual(r.json, { error: 'bypass_not_renewed',
		    message: 'A bypass pass ends at its expiry: its code\'s ' +
		    'limits are checked when it is redeemed, so the pass is ' +
		    'not renewed.' });
	}
	const after = show(on.slug);
	assert.deepEqual([after.lastNumber, after.serving],
	    [before.lastNumber, before.serving]);
});

test('renewal off: 403 renewal_disabled, whatever the token', async () => {
	const t = await admittedToken(off.slug);
	for (const r of [await renewBearer(off.slug, t.token),
	    await renewBody(off.slug, { token: t.token }),
	    await renewBody(off.slug, {}),
	    await renewBearer(off.slug, 'x.y.z')]) {
		assert.equal(r.status, 403, r.text);
		assert.equal(r.json.error, 'renewal_disabled');
		checkOp(r);
	}
	// The pass ends at its time: the token is still the old one.
	assert.equal((await verify(off.slug, t.token)).json.valid, true);
});

test('expired (a 1-second session duration): 401 expired', async () => {
	const q = renewingQueue(1);
	const t = await admittedToken(q.slug);
	const { exp } = decodeJWTPayload(t.token);
	const fresh = await renewBearer(q.slug, t.token);
	assert.equal(fresh.status, 200, fresh.text);
	await afterSecond(exp);
	await expect401(await renewBearer(q.slug, t.token), 'expired');
	await expect401(await renewBody(q.slug, { token: t.token }),
	    'expired');
});

test('tampered, foreign, malformed and missing tokens: 401', async () => {
	const t = await admittedToken(on.slug);
	const c = decodeJWTPayload(t.token);
	const [h, , s] = t.token.split('.');
	// A later number, the signature kept: tampered.
	const body = Buffer.from(JSON.stringify({ ...c, qnr: c.qnr + 1000,
	    exp: c.exp + 86400 })).toString('base64url');
	await expect401(await renewBearer(on.slug, `${h}.${body}.${s}`),
	    'bad_signature');
	// Signed with another secret (another queue's).
	await expect401(await renewBearer(on.slug, signJWT(HS256, c,
	    off.secret)), 'bad_signature');
	// This queue's secret, another audience.
	await expect401(await renewBearer(on.slug, signJWT(HS256,
	    { ...c, aud: off.slug }, on.secret)), 'wrong_queue');
	// A token of this queue at another queue.
	const other = renewingQueue(120);
	await expect401(await renewBearer(other.slug, t.token),
	    'bad_signature');
	await expect401(await renewBody(on.slug, { token: 'abc' }),
	    'malformed');
	await expect401(await renewBody(on.slug, { token: 7 }), 'missing');
	await expect401(await renewBody(on.slug, {}), 'missing');
	await expect401(await req(`/queue/${on.slug}/renew`,
	    { method: 'POST' }), 'missing');
	await expect401(await req(`/queue/${on.slug}/renew`, { method:
	    'POST', headers: { authorization: `Basic ${t.token}` } }),
	    'malformed');
	// alg none is refused before anything is read.
	await expect401(await renewBearer(on.slug, `${Buffer.from(
	    '{"alg":"none"}').toString('base64url')}.${body}.`), 'bad_alg');
	const bad = await req(`/queue/${on.slug}/renew`, { method: 'POST',
	    headers: { 'content-type': 'application/json' }, body: '{' });
	assert.equal(bad.status, 400, bad.text);
	assert.equal(bad.json.error, 'invalid_json');
});

test('renewal takes no number: last number and serving unchanged',
    async () => {
	const q = renewingQueue(120);
	const t = await admittedToken(q.slug);
	const j = await join(q.slug);
	assert.equal(j.status, 200, j.text);
	const before = show(q.slug);
	assert.equal(before.lastNumber, j.json.number);
	let tok = t.token;
	for (let i = 0; i < 5; i++) {
		const r = await renewBody(q.slug, { token: tok });
		assert.equal(r.status, 200, r.text);
		tok = r.json.token;
		// and refused ones neither
		await renewBody(q.slug, { token: 'x' });
	}
	const after = show(q.slug);
	assert.equal(after.lastNumber, before.lastNumber);
	assert.ok(after.serving >= before.serving);
	assert.equal(after.waiting, before.waiting);
	// One more join still gets the next number: nothing was skipped.
	const k = await join(q.slug);
	assert.equal(k.json.number, before.lastNumber + 1);
});

test('the setting is audited like the others and turns off at once ' +
    'for new renewals', async () => {
	const q = renewingQueue(120);
	const rows = dbSQL('SELECT before_json, after_json FROM audit_log ' +
	    "WHERE action = 'update' AND queue_id = (SELECT id FROM queue " +
	    `WHERE slug = '${q.slug}') ORDER BY id`);
	assert.ok(rows.length >= 1, 'an update row');
	const last = rows[rows.length - 1];
	assert.deepEqual([JSON.parse(last[0]), JSON.parse(last[1])],
	    [{ sessionRenewal: false }, { sessionRenewal: true }]);
	const t = await admittedToken(q.slug);
	ctl('update', q.slug, '--session-renewal', 'off');
	const r = await waitFor(async () => {
		const x = await renewBearer(q.slug, t.token);
		return x.status === 403 ? x : null;
	}, 5000);
	assert.equal(r.json.error, 'renewal_disabled');
});
