// Protocol edges: the token parameter spelt another way in a return URL,
// duplicate JSON member names (bodies and token parts), one spelling per
// number (CASES C33), and every answer being ours: nginx's 413 as JSON,
// an unknown queue opened in a browser as a small HTML page.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import jwt from 'jsonwebtoken';
import {
	createQueue, req, join, show, token, verify, signJWT, nowS, navigateReq,
} from './lib.mjs';

const q = createQueue({ rate: 6000, burst: 1000 });

function assertError(r, code, st) {
	assert.equal(r.status, st, `${r.status} ${r.text.slice(0, 200)}`);
	assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
	assert.equal(r.json?.error, code, r.text.slice(0, 200));
	assert.equal(typeof r.json.message, 'string');
}

function postRaw(path, body, type = 'application/json') {
	return req(path, { method: 'POST', headers: { 'content-type': type },
	    body });
}

async function noNumberUsed(fn) {
	const before = show(q.slug).lastNumber;
	await fn();
	const j = await join(q.slug);
	assert.equal(j.status, 200, j.text);
	assert.equal(j.json.number, before + 1, 'no number was issued');
}

test('token parameter spelt another way: the return URL is dropped',
    async (t) => {
	for (const ret of [
		'https://shop.example/a?aditus%5Fqueue_token=forged',
		'https://shop.example/a?aditus%5fqueue%5ftoken=f',
		'https://shop.example/a?x=1&%61ditus_queue_token=f',
		'https://shop.example/a?aditus.queue_token=f',
		'https://shop.example/a?aditus+queue_token=f',
		'https://shop.example/a?aditus_queue_token%5B%5D=f',
		'https://shop.example/a?x=1;aditus_queue_token=f',
		'https://shop.example/a?Aditus%5FQueue%5FToken=f',
	]) {
		await t.test(ret, async () => {
			const r = await navigateReq(`/queue/${q.slug}/enter` +
			    `?return=${encodeURIComponent(ret)}`);
			assert.equal(r.status, 302);
			const loc = r.headers.get('location');
			assert.ok(loc.startsWith('https://shop.example/?' +
			    'aditus_queue_token='), loc);
			const u = new URL(loc);
			assert.equal([...u.searchParams.keys()].length, 1);
			jwt.verify(u.searchParams.get('aditus_queue_token'),
			    q.secret, { algorithms: ['HS256'],
			    issuer: 'aditus-queue', audience: q.slug });
			// The same on /token: 400 invalid_return_url.
			const j = await join(q.slug);
			const tk = await token(q.slug, { number: j.json.number,
			    ticket: j.json.ticket, return: ret });
			assertError(tk, 'invalid_return_url', 400);
		});
	}
	await t.test('a similar but different name is kept', async () => {
		const ret = 'https://shop.example/a?aditus%5Fqueue_tokens=1';
		const r = await navigateReq(`/queue/${q.slug}/enter?return=` +
		    encodeURIComponent(ret));
		assert.ok(r.headers.get('location').startsWith(
		    `${ret}&aditus_queue_token=`), r.headers.get('location'));
	});
});

test('duplicate JSON member names: 400 invalid_json, nothing issued',
    async (t) => {
	for (const body of ['{"pow":1,"pow":2}',
	    '{"pow":{"challenge":"c","nonce":"n","nonce":"m"}}',
	    '{"a":[{"b":1,"b":1}]}', '{\'"\':1,\'"\':2}',
	    '{\'pow\':1}']) {
		await t.test(`join ${body}`, async () => {
			await noNumberUsed(async () => {
				assertError(await postRaw(
				    `/queue/${q.slug}/join`, body),
				    'invalid_json', 400);
			});
		});
	}
	const j = await join(q.slug);
	const { number, ticket } = j.json;
	for (const body of [
		`{"number":1,"number":${number},"ticket":"${ticket}"}`,
		`{"number":${number},"ticket":"x","ticket":"${ticket}"}`,
		`{"number":${number},"ticket":"${ticket}",` +
		    `"return":"https://shop.example/","return":"https://shop.example/"}`,
		// Single-quoted names once hid a duplicate from the check.
		`{'"':0,"number":1,'"':0,"number":${number},` +
		    `"ticket":"${ticket}"}`,
		`{'number':${number},"ticket":"${ticket}"}`,
	]) {
		await t.test(`token ${body}`, async () => {
			assertError(await postRaw(`/queue/${q.slug}/token`,
			    body), 'invalid_json', 400);
		});
	}
	await t.test('token, control without the duplicate: 200', async () => {
		const r = await postRaw(`/queue/${q.slug}/token`,
		    `{"number":${number},"ticket":"${ticket}"}`);
		assert.equal(r.status, 200, r.text);
	});
});

test('a token with a duplicate header or claim does not verify',
    async (t) => {
	const claims = (extra) => `{"iss":"aditus-queue","aud":"${q.slug}",` +
	    `"qnr":1,"iat":${nowS()},"exp":${nowS() + 600}${extra}}`;
	await t.test('control: a clean hand-made token is valid', async () => {
		const r = await verify(q.slug, signJWT('{"alg":"HS256"}',
		    claims(''), q.secret));
		assert.equal(r.json.valid, true, r.text);
	});
	for (const [name, h, c] of [
		['alg twice', '{"alg":"none","alg":"HS256"}', claims('')],
		['qnr twice', '{"alg":"HS256"}', claims(',"qnr":2')],
		['aud twice', '{"alg":"HS256"}', claims(',"aud":"other"')],
		['exp twice', '{"alg":"HS256"}', claims(',"exp":1')],
	]) {
		await t.test(name, async () => {
			const r = await verify(q.slug, signJWT(h, c, q.secret));
			assert.equal(r.status, 200);
			assert.deepEqual(r.json, { valid: false,
			    reason: 'malformed' });
		});
	}
});

test('C33: status?number= has one spelling', async (t) => {
	await join(q.slug);
	for (const v of ['01', '+1', '%2B1', '%201', '1%20', '1e0', '0x1',
	    '1.0', '-0', '0', '%EF%BC%91', '1%00',
	    '99999999999999999999']) {
		await t.test(`number=${v}: 400 invalid_number`, async () => {
			assertError(await req(`/queue/${q.slug}/status?` +
			    `number=${v}`), 'invalid_number', 400);
		});
	}
	await t.test('number=1: 200 (control)', async () => {
		const r = await req(`/queue/${q.slug}/status?number=1`);
		assert.equal(r.status, 200, r.text);
		assert.equal(r.json.number, 1);
	});
});

test('C33: /token "number" has one spelling', async (t) => {
	const j = await join(q.slug);
	const { ticket } = j.json;
	for (const v of ['13.0', '"13"', '1.3e1', '-0', 'true', '[13]',
	    '9007199254740992']) {
		await t.test(`"number":${v}: 400 invalid_number`, async () => {
			assertError(await postRaw(`/queue/${q.slug}/token`,
			    `{"number":${v},"ticket":"${ticket}"}`),
			    'invalid_number', 400);
		});
	}
	await t.test('"number":013: 400 invalid_json', async () => {
		assertError(await postRaw(`/queue/${q.slug}/token`,
		    `{"number":013,"ticket":"${ticket}"}`), 'invalid_json', 400);
	});
	await t.test('the canonical number: 200 (control)', async () => {
		const r = await postRaw(`/queue/${q.slug}/token`,
		    `{"number":${j.json.number},"ticket":"${ticket}"}`);
		assert.equal(r.status, 200, r.text);
	});
});

test('a body above nginx\'s limit gets JSON 413, not nginx\'s page',
    async (t) => {
	const big = '{"pad":"' + 'x'.repeat(3 * 1024 * 1024) + '"}';
	for (const page of ['join', 'token']) {
		await t.test(page, async () => {
			await noNumberUsed(async () => {
				assertError(await postRaw(
				    `/queue/${q.slug}/${page}`, big),
				    'body_too_large', 413);
			});
		});
	}
});

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,' +
    '*/*;q=0.8';

test('an unknown queue in a browser: a small HTML 404 page', async (t) => {
	for (const path of ['/queue/no-such-queue-here',
	    '/queue/no-such-queue-here/', '/queue/no-such-queue-here/enter']) {
		await t.test(path, async () => {
			const r = await navigateReq(path,
			    { headers: { accept: BROWSER } });
			assert.equal(r.status, 404);
			assert.equal(r.headers.get('content-type'),
			    'text/html; charset=utf-8');
			assert.match(r.text,
			    /^<!doctype html>\n<html lang="en" dir="ltr">/);
			assert.match(r.text, /<title>No such waiting room<\/title>/);
			assert.ok(r.text.includes('called “no-such-queue-here”'),
			    r.text);
			assert.equal(r.headers.get('cache-control'), 'no-store');
			assert.match(r.headers.get('vary'), /Accept/);
		});
	}
	await t.test('an invalid slug is not echoed', async () => {
		const r = await req('/queue/%3Cscript%3Ealert(1)%3C%2Fscript%3E',
		    { headers: { accept: BROWSER } });
		assert.equal(r.status, 404);
		assert.match(r.headers.get('content-type'), /^text\/html/);
		assert.doesNotMatch(r.text, /script|alert|%3C/i);
		assert.match(r.text, /no waiting room at this address/);
	});
	await t.test('API calls and JSON clients still get JSON', async () => {
		for (const [path, accept] of [
			['/queue/no-such-queue-here', 'application/json'],
			['/queue/no-such-queue-here',
			    'application/json, text/html'],
			['/queue/no-such-queue-here', '*/*'],
			['/queue/no-such-queue-here/info', BROWSER],
			['/queue/no-such-queue-here/status?number=1', BROWSER],
		]) {
			assertError(await req(path, { headers: { accept } }),
			    'queue_not_found', 404);
		}
	});
});
