// CASES C36: the web server drops the FastCGI connection mid-request.
// Raw FastCGI on the pool's socket: 300 requests closed right after
// sending, 20 joins aborted after the params, 20 token requests with
// CONTENT_LENGTH=100 and 10 bytes, then close.  No worker dies or hangs
// (the same PIDs), the next request is answered at once, and an aborted
// join takes no number.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import {
	env, createQueue, fcgiRequest, fcgiParams, join, show, sleep,
	childPids, fcgiRecord, fcgiParamsBody,
} from './lib.mjs';

const record = (type, content) => fcgiRecord(type, 1, content);

// The request head: BEGIN_REQUEST (responder), PARAMS, empty PARAMS.
function head(params) {
	const begin = Buffer.alloc(8);
	begin.writeUInt16BE(1, 0);
	return Buffer.concat([record(1, begin),
	    record(4, fcgiParamsBody(params)), record(4)]);
}

// Connect, write bytes, close at once (after the bytes are flushed).
function sendAndClose(bytes) {
	return new Promise((resolve) => {
		const c = net.createConnection(env.fcgiSock);
		c.on('error', () => resolve());
		c.on('close', () => resolve());
		c.on('connect', () => c.end(bytes, () => c.destroy()));
	});
}

// The live children of the pool's master.
function workers() {
	return childPids(Number(fs.readFileSync(
	    `${env.vardir}/run/aqueue-fcgi.pid`, 'utf8').trim()));
}

async function answeredAtOnce(slug) {
	const t0 = Date.now();
	const r = await fcgiRequest({ params: fcgiParams('GET',
	    `/queue/${slug}/info`), timeoutMs: 5000 });
	assert.equal(r.status, 200, r.body);
	assert.ok(Date.now() - t0 < 1000, `answered after ${Date.now() - t0} ms`);
}

test('C36: connections dropped mid-request harm no worker', async () => {
	const q = createQueue({ rate: 6000 });
	const pids = workers();
	assert.ok(pids.length >= 1, 'the pool has workers');
	const first = (await join(q.slug)).json.number;

	// 300 complete requests, the connection closed right after.
	const info = Buffer.concat([head(fcgiParams('GET',
	    `/queue/${q.slug}/info`)), record(5)]);
	for (let i = 0; i < 300; i += 30)
		await Promise.all(Array.from({ length: 30 },
		    () => sendAndClose(info)));
	await answeredAtOnce(q.slug);

	// 20 joins aborted after the params (with and without a length).
	for (let i = 0; i < 20; i++) {
		const extra = i % 2 === 0 ? { CONTENT_LENGTH: '2',
		    CONTENT_TYPE: 'application/json' } : {};
		await sendAndClose(head(fcgiParams('POST',
		    `/queue/${q.slug}/join`, extra)));
	}
	await answeredAtOnce(q.slug);

	// 20 token requests: CONTENT_LENGTH=100, 10 bytes, then close.
	const tok = Buffer.concat([head(fcgiParams('POST',
	    `/queue/${q.slug}/token`, { CONTENT_LENGTH: '100',
	    CONTENT_TYPE: 'application/json' })),
	    record(5, Buffer.from('{"number":'))]);
	await Promise.all(Array.from({ length: 20 }, () => sendAndClose(tok)));
	await answeredAtOnce(q.slug);

	await sleep(300);
	assert.deepEqual(workers(), pids, 'the same worker processes');
	for (let i = 0; i < 10; i++)
		await answeredAtOnce(q.slug);
	const next = (await join(q.slug)).json.number;
	assert.equal(next, first + 1, 'the aborted joins took no number');
	assert.equal(show(q.slug).lastNumber, next);
});
