// Every answer is ours, also when nginx cannot reach the pool: its 502
// (and 504) under /queue/ become a small JSON error for API clients and a
// small HTML page for browsers, with Retry-After.
//
// This file stops the stack's FastCGI pool (test/run runs the files one
// at a time); an after() hook starts it again, also on failure.

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createQueue, req, stack, waitFor } from './lib.mjs';

let stopped = false;

after(() => {
	if (stopped)
		stack('app-start');
});

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,' +
    '*/*;q=0.8';

test('the pool down: JSON for API calls, a page for browsers', async () => {
	const q = createQueue({ rate: 600 });
	assert.equal((await req(`/queue/${q.slug}/info`)).status, 200);
	stack('app-stop');
	stopped = true;

	for (const [path, opts] of [
		[`/queue/${q.slug}/info`, {}],
		[`/queue/${q.slug}/join`, { method: 'POST' }],
		[`/queue/${q.slug}/status?number=1`,
		    { headers: { accept: 'application/json' } }],
		['/queue/healthz', {}],
	]) {
		const r = await req(path, opts);
		assert.equal(r.status, 503, `${path}: ${r.text}`);
		assert.match(r.headers.get('content-type'), /^application\/json/);
		assert.equal(r.json.error, 'service_unavailable');
		assert.equal(typeof r.json.message, 'string');
		assert.equal(r.headers.get('retry-after'), '5');
		assert.equal(r.headers.get('cache-control'), 'no-store');
	}
	for (const path of [`/queue/${q.slug}`, `/queue/${q.slug}/enter`]) {
		const r = await req(path, { headers: { accept: BROWSER } });
		assert.equal(r.status, 503, path);
		assert.equal(r.headers.get('content-type'),
		    'text/html; charset=utf-8');
		assert.match(r.text, /^<!doctype html>\n<html lang="en">/);
		assert.match(r.text, /<title>Waiting room<\/title>/);
		assert.doesNotMatch(r.text, /nginx/i);
		assert.equal(r.headers.get('retry-after'), '5');
	}

	stack('app-start');
	stopped = false;
	await waitFor(async () => (await req('/queue/healthz')).status === 200,
	    10000, 100, 'the pool back');
	assert.equal((await req(`/queue/${q.slug}/info`)).status, 200);
});
