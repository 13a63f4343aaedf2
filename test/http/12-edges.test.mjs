// Edges found by trying to break the service: a just-issued number is
// never unknown to another process, HEAD on the gateway takes no number,
// a return URL carrying our own token parameter is refused, every answer
// under /queue/<slug>/ varies by Origin, and "/queue/<slug>/" is the room.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import jwt from 'jsonwebtoken';
import {
	createQueue, ctl, join, status, req, show, navigateReq,
} from './lib.mjs';

test('a number is known to every process right after its join',
    async () => {
	const q = createQueue({ rate: 600000 });
	const seen = {};
	for (let i = 0; i < 300; i++) {
		const j = await join(q.slug);
		assert.equal(j.status, 200, j.text);
		const s = await status(q.slug, j.json.number);
		seen[s.status] = (seen[s.status] ?? 0) + 1;
	}
	assert.deepEqual(seen, { 200: 300 });
});

test('HEAD on the gateway takes no number', async () => {
	const q = createQueue({ rate: 600 });
	const before = show(q.slug).lastNumber;
	for (let i = 0; i < 3; i++) {
		const r = await req(`/queue/${q.slug}/enter`, { method: 'HEAD' });
		assert.equal(r.status, 302);
		assert.equal(r.headers.get('location'), `/queue/${q.slug}`);
	}
	assert.equal(show(q.slug).lastNumber, before);
	const g = await navigateReq(`/queue/${q.slug}/enter`);
	assert.equal(g.status, 302);
	assert.equal(show(q.slug).lastNumber, before + 1, 'GET takes one');
});

test('a return URL with our token parameter in it is dropped', async () => {
	const q = createQueue({ rate: 600, domains: 'shop.example' });
	for (const ret of ['https://shop.example/a?aditus_queue_token=forged',
	    'https://shop.example/a?x=1&ADITUS_QUEUE_TOKEN=f']) {
		const r = await navigateReq(`/queue/${q.slug}/enter?return=` +
		    encodeURIComponent(ret));
		assert.equal(r.status, 302);
		const loc = r.headers.get('location');
		assert.ok(loc.startsWith('https://shop.example/?' +
		    'aditus_queue_token='), loc);
		const tok = new URL(loc).searchParams.getAll(
		    'aditus_queue_token');
		assert.equal(tok.length, 1);
		jwt.verify(tok[0], q.secret, { algorithms: ['HS256'],
		    issuer: 'aditus-queue', audience: q.slug });
	}
});

test('Vary: Origin on every answer under /queue/<slug>/', async () => {
	const q = createQueue({ rate: 600 });
	for (const [path, want] of [[`/queue/${q.slug}/nope`, 404],
	    [`/queue/${q.slug}/embed.jsx`, 404], ['/queue/no-such-q/info', 404],
	    [`/queue/${q.slug}/join`, 405], [`/queue/${q.slug}/info`, 200]]) {
		const r = await req(path);
		assert.equal(r.status, want, path);
		assert.equal(r.headers.get('vary'), 'Origin', path);
	}
});

test('"/queue/<slug>/" is the waiting room too', async () => {
	const q = createQueue({ rate: 600 });
	const r = await req(`/queue/${q.slug}/`);
	assert.equal(r.status, 200);
	assert.match(r.headers.get('content-type'), /^text\/html/);
	assert.match(r.text, new RegExp(`data-slug="${q.slug}"`));
});

test('aqueuectl create refuses bad values and writes nothing', () => {
	const bad = [
		[['--name', 'a\x01b'], /--name/],
		[['--name', '   '], /--name/],
		[['--name', 'x'.repeat(201)], /--name/],
		[['--name', 'ok', '--target', 'https://user:pw@shop.example/'],
		    /--target/],
		[['--name', 'ok', '--target', 'ftp://shop.example/'], /--target/],
		[['--name', 'ok', '--target', 'https:///x'], /--target/],
		[['--name', 'ok', '--domains', 'https://shop.example/path'],
		    /--domains/],
		[['--name', 'ok', '--domains', 'a'.repeat(300) + '.example'],
		    /--domains/],
		[['--name', 'ok', '--rate', '0'], /bad value/],
		[['--name', 'ok', 'extra'], /usage/],
	];
	for (const [args, msg] of bad) {
		const slug = `cli-${Math.random().toString(36).slice(2, 10)}`;
		const withRate = args.includes('--rate') ? args :
		    [...args, '--rate', '60'];
		let err = null;
		try {
			ctl('create', slug, ...withRate);
		} catch (e) {
			err = e;
		}
		assert.ok(err !== null, `refused: ${args.join(' ')}`);
		assert.match(err.message, /status 2 /);
		assert.match(err.message, msg);
		assert.throws(() => ctl('show', slug), /status 4 /,
		    'nothing was created');
	}
});

test('a preflight with an empty requested method is answered at once',
    async () => {
	const q = createQueue({ rate: 600,
	    domains: 'http://127.0.0.1:1234' });
	for (const m of ['', ' ', 'ET', 'GET,', 'get']) {
		const t0 = Date.now();
		const r = await req(`/queue/${q.slug}/status?number=1`, {
			method: 'OPTIONS',
			headers: { origin: 'http://127.0.0.1:1234',
			    'access-control-request-method': m },
		});
		assert.equal(r.status, 405, JSON.stringify(m));
		assert.equal(r.json.error, 'method_not_allowed');
		assert.ok(Date.now() - t0 < 2000);
	}
	const ok = await req(`/queue/${q.slug}/status?number=1`, {
		method: 'OPTIONS',
		headers: { origin: 'http://127.0.0.1:1234',
		    'access-control-request-method': 'HEAD' },
	});
	assert.equal(ok.status, 204);
});

test('invented slugs never push a real queue out: it keeps answering',
    async () => {
	const q = createQueue({ rate: 600 });
	assert.equal((await join(q.slug)).status, 200);
	let flooding = true;
	const other = {};
	const flood = Promise.all(Array.from({ length: 8 }, async () => {
		while (flooding) {
			const slug = 'x' + Math.random().toString(36).slice(2);
			const r = await req(`/queue/${slug}/info`);
			other[r.status] = (other[r.status] ?? 0) + 1;
		}
	}));
	const mine = {};
	const end = Date.now() + 3000;
	while (Date.now() < end) {
		const r = await status(q.slug, 1);
		mine[r.status] = (mine[r.status] ?? 0) + 1;
	}
	flooding = false;
	await flood;
	assert.deepEqual(Object.keys(mine), ['200'], JSON.stringify(mine));
	assert.ok(Object.keys(other).every((s) => s === '404' || s === '503'),
	    JSON.stringify(other));
});
