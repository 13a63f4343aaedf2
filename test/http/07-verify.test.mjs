// CASES C03, C05 and C07 on GET /queue/<slug>/verify, end to end: the
// tokens are built here with an HMAC over the queue's secret.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import {
	admittedToken, createQueue, join, token, req, signJWT, b64url, nowS, fcgiRequest,
	fcgiParams,
} from './lib.mjs';

const sale = createQueue({ rate: 600 });
const vip = createQueue({ rate: 600 });
const HS256 = { alg: 'HS256', typ: 'JWT' };

function claims(over = {}) {
	const now = nowS();
	const c = { iss: 'aditus-queue', aud: sale.slug, qnr: 1, iat: now,
	    exp: now + 600, ...over };
	for (const k of Object.keys(c))
		if (c[k] === undefined)
			delete c[k];
	return c;
}

// verifyRaw(query): GET /queue/sale/verify<query>, answer must be 200 JSON.
async function verifyRaw(query, slug = sale.slug) {
	const r = await req(`/queue/${slug}/verify${query}`);
	assert.equal(r.status, 200, `${r.status} ${r.text.slice(0, 200)}`);
	assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
	return r.json;
}

function verifyTok(tok, slug = sale.slug) {
	return verifyRaw(`?token=${encodeURIComponent(tok)}`, slug);
}

async function expectReason(tok, reason) {
	const v = await verifyTok(tok);
	assert.deepEqual(v, { valid: false, reason });
}

// A real token for sale (positive control) and one for vip.
const realToken = (q) => admittedToken(q.slug);

test('positive control: a token from POST /token is valid', async () => {
	const t = await realToken(sale);
	const v = await verifyTok(t.token);
	const exp = JSON.parse(Buffer.from(t.token.split('.')[1],
	    'base64url')).exp;
	assert.deepEqual(v, { valid: true, number: t.number, expiresAt: exp });
	// And one built here with the same secret.
	const c = claims({ qnr: 7 });
	assert.deepEqual(await verifyTok(signJWT(HS256, c, sale.secret)),
	    { valid: true, number: 7, expiresAt: c.exp });
});

test('C03: algorithm pinned to HS256', async (t) => {
	const body = () => b64url(JSON.stringify(claims()));
	const hmac = (d, s) => b64url(createHmac(d, sale.secret).update(s)
	    .digest());
	const cases = {
		'alg none, empty signature': () =>
		    `${b64url('{"alg":"none","typ":"JWT"}')}.${body()}.`,
		'alg NONE, empty signature': () =>
		    `${b64url('{"alg":"NONE"}')}.${body()}.`,
		'alg None, empty signature': () =>
		    `${b64url('{"alg":"None"}')}.${body()}.`,
		'alg none with an HS256 signature': () => {
			const s = `${b64url('{"alg":"none"}')}.${body()}`;
			return `${s}.${hmac('sha256', s)}`;
		},
		'alg NONE with an HS256 signature': () => {
			const s = `${b64url('{"alg":"NONE"}')}.${body()}`;
			return `${s}.${hmac('sha256', s)}`;
		},
		'alg HS512 signed with the right key': () =>
		    signJWT({ alg: 'HS512', typ: 'JWT' }, claims(),
		    sale.secret, 'sha512'),
		'alg HS384 signed with the right key': () =>
		    signJWT({ alg: 'HS384', typ: 'JWT' }, claims(),
		    sale.secret, 'sha384'),
		'alg RS256, arbitrary signature': () =>
		    `${b64url('{"alg":"RS256","typ":"JWT"}')}.${body()}.` +
		    b64url(Buffer.alloc(256, 7)),
		'alg hs256 (lower case) signed with HS256': () =>
		    signJWT({ alg: 'hs256', typ: 'JWT' }, claims(),
		    sale.secret),
		'no alg, signed with HS256': () =>
		    signJWT({ typ: 'JWT' }, claims(), sale.secret),
	};
	for (const [name, mk] of Object.entries(cases)) {
		await t.test(name, async () => {
			await expectReason(mk(), 'bad_alg');
		});
	}
});

test('C05: claims checked by the app', async (t) => {
	const now = nowS();
	const cases = [
		['(a) no exp', claims({ exp: undefined }), 'malformed_claim'],
		['(b) exp = now-1', claims({ exp: now - 1 }), 'expired'],
		['(c) exp = now', claims({ exp: now }), 'expired'],
		['(d) exp as a string', claims({ exp: '4102444800' }),
		    'malformed_claim'],
		['(e) exp as a real', '{"iss":"aditus-queue","aud":"' +
		    sale.slug + `","qnr":1,"iat":${now},"exp":4102444800.0}`,
		    'malformed_claim'],
		['(f) nbf = now+600', claims({ nbf: now + 600 }),
		    'not_yet_valid'],
		['(g) nbf as a string', claims({ nbf: '0' }),
		    'malformed_claim'],
		['(h) iat = now+3600', claims({ iat: now + 3600 }),
		    'not_yet_valid'],
		['(i) aud of another queue', claims({ aud: vip.slug }),
		    'wrong_queue'],
		['(j) iss other', claims({ iss: 'other' }), 'wrong_issuer'],
		// The same kinds, further inputs.
		['no qnr', claims({ qnr: undefined }), 'malformed_claim'],
		['qnr as a string', claims({ qnr: '1' }), 'malformed_claim'],
		['qnr as a real', '{"iss":"aditus-queue","aud":"' +
		    sale.slug + `","qnr":1.5,"iat":${now},` +
		    `"exp":${now + 600}}`, 'malformed_claim'],
		['no iat', claims({ iat: undefined }), 'malformed_claim'],
		['iat as a string', claims({ iat: String(now) }),
		    'malformed_claim'],
		['nbf as a real', '{"iss":"aditus-queue","aud":"' +
		    sale.slug + `","qnr":1,"iat":${now},"exp":${now + 600},` +
		    '"nbf":1.0}', 'malformed_claim'],
		['exp as null', claims({ exp: null }), 'malformed_claim'],
		['aud upper case', claims({ aud: sale.slug.toUpperCase() }),
		    'wrong_queue'],
		['iss with a suffix', claims({ iss: 'aditus-queue2' }),
		    'wrong_issuer'],
	];
	for (const [name, c, reason] of cases) {
		await t.test(name, async () => {
			await expectReason(signJWT(HS256, c, sale.secret),
			    reason);
		});
	}
	await t.test('aud as an array: refused', async () => {
		// RFC 7519 allows an array; the product wants the slug
		// exactly, so either reason is right, but never valid.
		const v = await verifyTok(signJWT(HS256,
		    claims({ aud: [sale.slug] }), sale.secret));
		assert.equal(v.valid, false);
		assert.ok(['malformed_claim', 'wrong_queue'].includes(v.reason),
		    v.reason);
	});
	await t.test('nbf = now-5 and iat = now-5 are fine (control)',
	    async () => {
		const c = claims({ nbf: now - 5, iat: now - 5, qnr: 3 });
		assert.deepEqual(await verifyTok(signJWT(HS256, c,
		    sale.secret)), { valid: true, number: 3,
		    expiresAt: c.exp });
	});
});

test('C07: malformed or foreign tokens fail closed', async (t) => {
	const tenK = 'A'.repeat(10240);
	const malformed = [
		['no token', ''],
		['?token=', '?token='],
		['?token=123', '?token=123'],
		['?token[]=x', '?token[]=x'],
		['?token=a&token=b', '?token=a&token=b'],
		['?token=%00', '?token=%00'],
		['?token= a 3-part non-JWT', '?token=a.b.c'],
		['?token= header not JSON', `?token=${b64url('x')}.${b64url('{}')}.x`],
	];
	for (const [name, query] of malformed) {
		await t.test(name, async () => {
			assert.deepEqual(await verifyRaw(query),
			    { valid: false, reason: 'malformed' });
		});
	}
	await t.test('?token= + 10 KB of A (through nginx)', async () => {
		assert.deepEqual(await verifyRaw(`?token=${tenK}`),
		    { valid: false, reason: 'malformed' });
	});
	await t.test('?token= + 10 KB of A (straight to the app)',
	    async () => {
		const r = await fcgiRequest({ params: fcgiParams('GET',
		    `/queue/${sale.slug}/verify?token=${tenK}`) });
		assert.equal(r.status, 200, r.body.slice(0, 200));
		assert.deepEqual(r.json, { valid: false, reason: 'malformed' });
	});
	await t.test('a valid token of another queue: bad_signature',
	    async () => {
		const v = await realToken(vip);
		await expectReason(v.token, 'bad_signature');
		// and the control: it is valid on its own queue.
		assert.equal((await verifyTok(v.token, vip.slug)).valid, true);
	});
	await t.test('a token for sale signed with vip\'s secret', async () => {
		await expectReason(signJWT(HS256, claims(), vip.secret),
		    'bad_signature');
	});
	await t.test('a token with a flipped signature bit', async () => {
		const tok = signJWT(HS256, claims(), sale.secret);
		const sig = Buffer.from(tok.split('.')[2], 'base64url');
		sig[0] ^= 1;
		const bad = tok.split('.').slice(0, 2).join('.') + '.' +
		    b64url(sig);
		await expectReason(bad, 'bad_signature');
	});
	await t.test('expired 1 s ago: expired', async () => {
		const now = nowS();
		await expectReason(signJWT(HS256, claims({ iat: now - 601,
		    exp: now - 1 }), sale.secret), 'expired');
	});
	await t.test('verify on an unknown queue: 404 queue_not_found',
	    async () => {
		const r = await req('/queue/no-such-queue-zz/verify?token=x');
		assert.equal(r.status, 404);
		assert.equal(r.json.error, 'queue_not_found');
	});
});
