// CASES C09 and C10: return URLs on the gateway, the waiting-room page and
// POST /token.  No rejected value is ever a redirect target or echoed.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import jwt from 'jsonwebtoken';
import { createQueue, navigate, req, join, token } from './lib.mjs';

const C09 = [
	'//evil.test/', '/\\evil.test/', '\\/evil.test', '/\\/\\evil.test',
	'/\t/evil.test', '/%09/evil.test', '/%0a/evil.test',
	'https:evil.test', 'https:\\\\evil.test', '/a/../\\evil.test',
	'/%5cevil.test', 'javascript:alert(1)', 'data:text/html,x',
	' https://evil.test', 'HTTPS://EVIL.TEST',
];

const C10 = [
	'https://shop.example@evil.test/',
	'https://shop.example:443@evil.test/',
	'https://evil.test#@shop.example/',
	'https://evil.test?.shop.example',
	'https://evil.test\\@shop.example/',
	'https://shop.example.evil.test/',
	'https://evilshop.example/',
	'https://evil.test/shop.example',
	'https://shop.example%2f@evil.test/',
	'https://shop.example%252f@evil.test/',
	'https://sub.shop.example/',
];

// More of the same kinds (control characters, userinfo, other schemes,
// relative references).
const MORE = [
	'/cart', 'cart', '', 'https://shop.example\r\n.evil.test/',
	'https://user:pw@shop.example/', 'https://@shop.example/',
	'ftp://shop.example/', 'http://evil.test/', 'https://shop.example%00.evil.test/',
	'\u0000https://shop.example/', 'https://shop.example\\evil.test/',
	'JaVaScRiPt:alert(1)', 'vbscript:msgbox(1)', 'https://EVIL.test/',
];

const NEGATIVE = [...C09, ...C10, ...MORE];

const TARGET = 'https://shop.example/';

function verifyJWT(q, tok) {
	return jwt.verify(tok, q.secret, { algorithms: ['HS256'],
	    issuer: 'aditus-queue', audience: q.slug });
}

function show(s) {
	return JSON.stringify(s);
}

const q = createQueue({ rate: 6000, burst: 1000,
    domains: 'shop.example,www.shop.example', target: TARGET });

test('gateway: a rejected return URL falls back to the target',
    async (t) => {
	for (const v of NEGATIVE) {
		await t.test(`enter ?return=${show(v)}`, async () => {
			const r = await navigate(`/queue/${q.slug}/enter?return=` +
			    encodeURIComponent(v));
			await r.arrayBuffer();
			assert.equal(r.status, 302);
			const loc = r.headers.get('location') ?? '';
			const prefix = `${TARGET}?aditus_queue_token=`;
			assert.ok(loc.startsWith(prefix), `Location ${loc}`);
			const tok = loc.slice(prefix.length);
			assert.match(tok, /^[\w-]+\.[\w-]+\.[\w-]+$/);
			assert.ok(Number.isInteger(verifyJWT(q, tok).qnr));
			assert.doesNotMatch(loc, /evil\.test/i);
		});
	}
});

test('waiting room: a rejected return URL is dropped', async (t) => {
	for (const v of NEGATIVE) {
		await t.test(`room ?return=${show(v)}`, async () => {
			const r = await req(`/queue/${q.slug}?return=` +
			    encodeURIComponent(v));
			assert.equal(r.status, 200);
			assert.match(r.headers.get('content-type'),
			    /^text\/html/);
			assert.match(r.text, /data-slug="/,
			    'the normal waiting-room page');
			assert.doesNotMatch(r.text, /evil\.test/i);
			assert.doesNotMatch(r.text, /alert\(1\)/);
			assert.doesNotMatch(r.text, /msgbox/);
			assert.doesNotMatch(r.text, /text\/html,x/);
			assert.equal(r.headers.get('location'), null);
			const m = /data-return="([^"]*)"/.exec(r.text);
			if (m !== null) {
				assert.doesNotMatch(m[1],
				    /^\s*(javascript|data|vbscript):/i);
				assert.ok(m[1] === '' ||
				    m[1].startsWith('https://shop.example/'),
				    `data-return="${m[1]}"`);
			}
		});
	}
});

test('POST /token: a rejected return URL is 400 invalid_return_url',
    async (t) => {
	const j = await join(q.slug);
	assert.equal(j.status, 200);
	assert.equal(j.json.admitted, true);
	const { number, ticket } = j.json;
	for (const v of NEGATIVE) {
		await t.test(`token return=${show(v)}`, async () => {
			const r = await token(q.slug,
			    { number, ticket, return: v });
			assert.equal(r.status, 400, r.text);
			// The JSON parser may refuse a NUL in a string first.
			assert.equal(r.json.error, v.includes('\u0000') &&
			    r.json.error === 'invalid_json' ? 'invalid_json' :
			    'invalid_return_url');
			assert.equal(typeof r.json.message, 'string');
			assert.doesNotMatch(r.text, /evil\.test/i);
		});
	}
	for (const v of [1, true, ['https://shop.example/'],
	    { u: 'https://shop.example/' }]) {
		await t.test(`token return of type ${show(v)}`, async () => {
			const r = await token(q.slug,
			    { number, ticket, return: v });
			assert.equal(r.status, 400, r.text);
			assert.equal(r.json.error, 'invalid_return_url');
		});
	}
});

const POSITIVE = [
	['https://shop.example/checkout?step=2#cart',
	    'https://shop.example/checkout?step=2&aditus_queue_token=', '#cart'],
	['https://www.shop.example/',
	    'https://www.shop.example/?aditus_queue_token=', ''],
	['https://shop.example/cart',
	    'https://shop.example/cart?aditus_queue_token=', ''],
];

test('positive return URLs: the visitor lands on them', async (t) => {
	for (const [v, prefix, frag] of POSITIVE) {
		await t.test(`enter ?return=${v}`, async () => {
			const r = await navigate(`/queue/${q.slug}/enter?return=` +
			    encodeURIComponent(v));
			await r.arrayBuffer();
			assert.equal(r.status, 302);
			const loc = r.headers.get('location') ?? '';
			assert.ok(loc.startsWith(prefix), `Location ${loc}`);
			assert.ok(loc.endsWith(frag), `Location ${loc}`);
			const tok = loc.slice(prefix.length,
			    loc.length - frag.length);
			assert.match(tok, /^[\w-]+\.[\w-]+\.[\w-]+$/);
			assert.ok(Number.isInteger(verifyJWT(q, tok).qnr));
		});
		await t.test(`room ?return=${v}`, async () => {
			const r = await req(`/queue/${q.slug}?return=` +
			    encodeURIComponent(v));
			assert.equal(r.status, 200);
			const esc = v.replace(/&/g, '&amp;');
			assert.ok(r.text.includes(`data-return="${esc}"`),
			    `data-return="${esc}" in the page`);
		});
		await t.test(`token return=${v}`, async () => {
			const j = await join(q.slug);
			const r = await token(q.slug, { number: j.json.number,
			    ticket: j.json.ticket, return: v });
			assert.equal(r.status, 200, r.text);
			assert.equal(r.json.targetUrl, v);
			assert.equal(verifyJWT(q, r.json.token).qnr,
			    j.json.number);
		});
	}
});

test('waiting room escapes a valid return URL', async () => {
	const v = 'https://shop.example/p?a=1&b="x"<y>\'z';
	const r = await req(`/queue/${q.slug}?return=` +
	    encodeURIComponent(v));
	assert.equal(r.status, 200);
	assert.doesNotMatch(r.text, /"x"<y>/);
	const m = /data-return="([^"]*)"/.exec(r.text);
	if (m !== null && m[1] !== '') {
		assert.doesNotMatch(m[1], /[<>"']/);
		assert.ok(m[1].startsWith('https://shop.example/p?a=1&amp;b='),
		    m[1]);
	}
});
