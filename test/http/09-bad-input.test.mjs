// Bad input anywhere: a clear 4xx JSON error and nothing written (CASES
// C17 and C22 through nginx, malformed numbers, slugs, paths, methods).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
	createQueue, join, req, status, token, show,
} from './lib.mjs';

const q = createQueue({ rate: 600 });

function assertError(r, code, st) {
	assert.equal(r.status, st, `${r.status} ${r.text.slice(0, 200)}`);
	assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
	assert.equal(r.json?.error, code, r.text.slice(0, 200));
	assert.equal(typeof r.json.message, 'string');
	assert.ok(r.json.message.length > 0);
}

function postRaw(path, body, type = 'application/json') {
	const headers = {};
	if (type !== null)
		headers['content-type'] = type;
	return req(path, { method: 'POST', headers, body });
}

// Each check runs fn() and then asserts that no number was issued: the
// next good join gets last + 1.
async function noNumberUsed(slug, fn) {
	const before = show(slug).lastNumber;
	await fn();
	const j = await join(slug);
	assert.equal(j.status, 200, j.text);
	assert.equal(j.json.number, before + 1, 'no number was issued');
}

function nest(depth) {
	return '{"a":'.repeat(depth - 1) + '{}' + '}'.repeat(depth - 1);
}

const C17 = [
	['trailing garbage', '{"pow":{"challenge":"c","nonce":"n"}}garbage'],
	['two objects', '{"pow":{"challenge":"c","nonce":"n"}}{"x":1}'],
	['single quotes', "{'pow':{'challenge':'c','nonce':'n'}}"],
	['a comment', '/*x*/{"pow":{"challenge":"c","nonce":"n"}}'],
	['NaN', '{"pow":{"nonce":NaN}}'],
	['123e+', '{"pow":{"nonce":123e+}}'],
	['17-deep nesting', nest(17)],
	['17-deep arrays', '['.repeat(17) + ']'.repeat(17)],
	['trailing comma', '{"pow":{"challenge":"c","nonce":"n",}}'],
	// further inputs of the same kinds
	['Infinity', '{"pow":{"nonce":Infinity}}'],
	['-Infinity', '{"pow":{"nonce":-Infinity}}'],
	['a line comment', '//x\n{"a":1}'],
	['unquoted key', '{pow:1}'],
	['trailing comma in an array', '{"a":[1,2,]}'],
	['leading zero', '{"a":01}'],
	['hex number', '{"a":0x10}'],
	['60,000 × [', '['.repeat(60000)],
	['an array, not an object', '[]'],
	['a string, not an object', '"x"'],
	['a number, not an object', '1'],
	['null, not an object', 'null'],
	['truncated', '{"a":'],
	['single-quoted string value', '{"a":\'x\'}'],
	['unterminated string', '{"a":"x}'],
	['raw control character in a string', '{"a":"x\u0001y"}'],
	['trailing garbage after whitespace', '{"a":1} x'],
	['TRUE', '{"a":TRUE}'],
];
// Text that is not Unicode has its own code (more in 09-bad-unicode).
const NOT_UNICODE = [
	['invalid UTF-8', Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22,
	    0xff, 0xfe, 0x22, 0x7d])],
	['an escaped lone surrogate', '{"a":"\\ud800"}'],
];

test('C17 bodies on POST join: 400 invalid_json, nothing issued',
    async (t) => {
	for (const [name, body] of C17) {
		await t.test(name, async () => {
			await noNumberUsed(q.slug, async () => {
				const r = await postRaw(`/queue/${q.slug}/join`,
				    body);
				assertError(r, 'invalid_json', 400);
			});
		});
	}
	for (const [name, body] of NOT_UNICODE) {
		await t.test(`${name}: 400 invalid_unicode`, async () => {
			await noNumberUsed(q.slug, async () => {
				const r = await postRaw(`/queue/${q.slug}/join`,
				    body);
				assertError(r, 'invalid_unicode', 400);
			});
		});
	}
	await t.test('100,000 × [ (above the 64 KB limit): 413', async () => {
		await noNumberUsed(q.slug, async () => {
			const r = await postRaw(`/queue/${q.slug}/join`,
			    '['.repeat(100000));
			assertError(r, 'body_too_large', 413);
		});
	});
	await t.test('the worker is alive: 16-deep nesting is parsed',
	    async () => {
		// Positive control of the parser (proof of work is off, so
		// the join just takes a number).
		const r = await postRaw(`/queue/${q.slug}/join`,
		    '{"pow":{"challenge":"c","nonce":"n"}}');
		assert.equal(r.status, 200, r.text);
		const r2 = await postRaw(`/queue/${q.slug}/join`, '{}');
		assert.equal(r2.status, 200, r2.text);
		assert.equal(r2.json.number, r.json.number + 1);
	});
});

test('the same parser on POST /token', async (t) => {
	const j = await join(q.slug);
	const good = `{"number":${j.json.number},"ticket":"${j.json.ticket}"}`;
	for (const [name, body] of [
		['trailing garbage', good + 'x'],
		['two objects', good + '{}'],
		['trailing comma', good.slice(0, -1) + ',}'],
		['single quotes', good.replace(/"/g, "'")],
		['a comment', '/**/' + good],
		['17-deep nesting', nest(17)],
		['an array', `[${good}]`],
	]) {
		await t.test(name, async () => {
			assertError(await postRaw(`/queue/${q.slug}/token`,
			    body), 'invalid_json', 400);
		});
	}
	await t.test('the good body works (control)', async () => {
		const r = await postRaw(`/queue/${q.slug}/token`, good);
		assert.equal(r.status, 200, r.text);
	});
});

test('POST /token: body and number checks', async (t) => {
	const j = await join(q.slug);
	const { number, ticket } = j.json;
	await t.test('empty body: 400', async () => {
		const r = await postRaw(`/queue/${q.slug}/token`, '');
		assertError(r, 'invalid_json', 400);
	});
	await t.test('no body, no content type: 400', async () => {
		const r = await req(`/queue/${q.slug}/token`,
		    { method: 'POST' });
		assert.equal(r.status, 400, r.text);
		assert.equal(typeof r.json.error, 'string');
	});
	await t.test('{}: 400 invalid_number', async () => {
		assertError(await token(q.slug, {}), 'invalid_number', 400);
	});
	for (const n of ['1', 1.5, -1, 0, null, true, [1], 1e300,
	    9007199254740992]) {
		await t.test(`number ${JSON.stringify(n)}: 400 invalid_number`,
		    async () => {
			assertError(await token(q.slug, { number: n, ticket }),
			    'invalid_number', 400);
		});
	}
	await t.test('number missing with a ticket: 400 invalid_number',
	    async () => {
		assertError(await token(q.slug, { ticket }),
		    'invalid_number', 400);
	});
	await t.test('text/plain: 415', async () => {
		assertError(await postRaw(`/queue/${q.slug}/token`,
		    JSON.stringify({ number, ticket }), 'text/plain'),
		    'unsupported_media_type', 415);
	});
	await t.test('70 KB: 413', async () => {
		const pad = 'x'.repeat(70 * 1024);
		assertError(await postRaw(`/queue/${q.slug}/token`,
		    JSON.stringify({ number, ticket, pad })),
		    'body_too_large', 413);
	});
});

test('body limits and types on POST join (through nginx)', async (t) => {
	await t.test('70 KB body: 413 body_too_large', async () => {
		await noNumberUsed(q.slug, async () => {
			const body = JSON.stringify({ pad: 'x'.repeat(70 * 1024) });
			assertError(await postRaw(`/queue/${q.slug}/join`, body),
			    'body_too_large', 413);
		});
	});
	await t.test('65,537 bytes: 413; 65,536 bytes: accepted', async () => {
		const mk = (n) => {
			const s = '{"pad":"' + 'x'.repeat(n - 10) + '"}';
			assert.equal(s.length, n);
			return s;
		};
		await noNumberUsed(q.slug, async () => {
			assertError(await postRaw(`/queue/${q.slug}/join`,
			    mk(65537)), 'body_too_large', 413);
		});
		const r = await postRaw(`/queue/${q.slug}/join`, mk(65536));
		assert.equal(r.status, 200, r.text.slice(0, 200));
	});
	for (const type of ['text/plain', 'application/x-www-form-urlencoded',
	    'multipart/form-data; boundary=x', 'application/jsonx',
	    'application/json-patch+json']) {
		await t.test(`${type}: 415 unsupported_media_type`, async () => {
			await noNumberUsed(q.slug, async () => {
				assertError(await postRaw(`/queue/${q.slug}/join`,
				    '{"a":1}', type), 'unsupported_media_type',
				    415);
			});
		});
	}
	await t.test('application/json; charset=utf-8: accepted', async () => {
		const r = await postRaw(`/queue/${q.slug}/join`, '{"a":1}',
		    'application/json; charset=utf-8');
		assert.equal(r.status, 200, r.text);
	});
	await t.test('APPLICATION/JSON: accepted', async () => {
		const r = await postRaw(`/queue/${q.slug}/join`, '{"a":1}',
		    'APPLICATION/JSON');
		assert.equal(r.status, 200, r.text);
	});
	await t.test('an empty body needs no content type', async () => {
		const r = await req(`/queue/${q.slug}/join`, { method: 'POST' });
		assert.equal(r.status, 200, r.text);
	});
});

test('status: malformed numbers 400, unknown 404', async (t) => {
	await join(q.slug);
	const bad = ['number=0', 'number=-1', 'number=abc', 'number=1.5',
	    'number=007', 'number=', '', 'number=1&number=1',
	    'number=1&number=2', 'number=%2B1', 'number=%201', 'number=1e3',
	    'number=0x10', 'number=1%00', 'number[]=1',
	    'number=99999999999999999999', 'number=9007199254740992'];
	for (const qs of bad) {
		await t.test(`?${qs}: 400 invalid_number`, async () => {
			const r = await req(`/queue/${q.slug}/status` +
			    (qs === '' ? '' : `?${qs}`));
			assertError(r, 'invalid_number', 400);
		});
	}
	await t.test('never-issued number: 404 number_not_found', async () => {
		const last = show(q.slug).lastNumber;
		assertError(await status(q.slug, last + 1), 'number_not_found',
		    404);
		assertError(await status(q.slug, 9007199254740991),
		    'number_not_found', 404);
	});
	await t.test('status issues nothing', async () => {
		const last = show(q.slug).lastNumber;
		await status(q.slug, last + 5);
		assert.equal(show(q.slug).lastNumber, last);
	});
});

test('methods: 405 method_not_allowed with Allow', async (t) => {
	const cases = [
		['GET', 'join', 'POST'], ['PUT', 'join', 'POST'],
		['GET', 'token', 'POST'], ['POST', 'status?number=1', 'GET'],
		['POST', 'info', 'GET'], ['DELETE', 'verify?token=x', 'GET'],
		['POST', '', 'GET'],
	];
	for (const [method, page, want] of cases) {
		const path = `/queue/${q.slug}${page === '' ? '' : '/' + page}`;
		await t.test(`${method} ${path}`, async () => {
			await noNumberUsed(q.slug, async () => {
				const r = await req(path, { method });
				assertError(r, 'method_not_allowed', 405);
				const allow = (r.headers.get('allow') ?? '')
				    .split(',').map((s) => s.trim());
				assert.ok(allow.includes(want),
				    `Allow: ${r.headers.get('allow')}`);
				assert.ok(!allow.includes(method),
				    `Allow: ${r.headers.get('allow')}`);
			});
		});
	}
	await t.test('POST /queue/healthz: 405', async () => {
		const r = await req('/queue/healthz', { method: 'POST' });
		assertError(r, 'method_not_allowed', 405);
		assert.match(r.headers.get('allow') ?? '', /\bGET\b/);
	});
});

test('slugs and paths: 404 JSON', async (t) => {
	const queueNotFound = [
		'/queue/no-such-queue-here/info', '/queue/Upper/info',
		'/queue/Upper', '/queue/a_b/info', '/queue/a_b',
		'/queue/-x/info', `/queue/${q.slug.toUpperCase()}/info`,
		'/queue/a%2fb/info', '/queue/a.b/info',
		'/queue/no-such-queue-here/status?number=1',
	];
	for (const p of queueNotFound) {
		await t.test(`${p}: 404 queue_not_found`, async () => {
			assertError(await req(p), 'queue_not_found', 404);
		});
	}
	await t.test('a 64-byte slug (one too long): 404 queue_not_found',
	    async () => {
		const long = 'a'.repeat(64);
		assertError(await req(`/queue/${long}/info`),
		    'queue_not_found', 404);
		assertError(await req(`/queue/${long}`), 'queue_not_found',
		    404);
	});
	await t.test('a 63-byte unknown slug: 404 queue_not_found',
	    async () => {
		assertError(await req(`/queue/${'a'.repeat(63)}/info`),
		    'queue_not_found', 404);
	});
	await t.test('POST join on an unknown queue: 404', async () => {
		assertError(await req('/queue/no-such-queue-here/join',
		    { method: 'POST' }), 'queue_not_found', 404);
	});
	const notFound = [
		`/queue/${q.slug}/nope`, `/queue/${q.slug}/join/x`,
		`/queue/${q.slug}//`, '/queue/', '/queue//join',
		`/queue/${q.slug}/INFO`, '/queue/healthz/x',
	];
	for (const p of notFound) {
		await t.test(`${p}: 404 not_found`, async () => {
			assertError(await req(p), 'not_found', 404);
		});
	}
});
