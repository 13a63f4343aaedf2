// The poll document GET /queue/<slug>/state.json (SPEC section 4): its
// exact fields, served by nginx from the file the pool's master rewrites
// (no FastCGI request: 10,000 pages polling with jitter cost the pool
// nothing, counted in nginx's log of the requests that reached it), the
// app's own answer as the fallback; and the JSON mode (SPEC section 8).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import jwt from 'jsonwebtoken';
import {
	createQueue, ctl, env, fcgiParams, fcgiRequest, join, req, show, sleep,
	waitFor,
} from './lib.mjs';

const upstreamLog = () => `${env.vardir}/nginx/logs/upstream.log`;

// Lines of the pool's request log that match re.
function poolHits(re) {
	if (!existsSync(upstreamLog()))
		return 0;
	return readFileSync(upstreamLog(), 'utf8').split('\n')
	    .filter((l) => re.test(l)).length;
}

const DOC_KEYS = ['active', 'lastNumber', 'queue', 'ratePerMinute',
    'refreshSeconds', 'serving', 'updatedAt', 'waiting'];

test('state.json: the exact document, about a second old at most',
    async () => {
	const q = createQueue({ rate: 1, burst: 1 });
	for (let i = 1; i <= 4; i++)
		assert.equal((await join(q.slug)).json.number, i);
	const file = `${env.vardir}/state/${q.slug}.json`;
	// The master writes it within about half a second.
	await waitFor(() => existsSync(file) &&
	    JSON.parse(readFileSync(file, 'utf8')).lastNumber === 4, 5000);
	const r = await req(`/queue/${q.slug}/state.json`);
	assert.equal(r.status, 200);
	assert.match(r.headers.get('content-type'), /^application\/json/);
	assert.equal(r.headers.get('cache-control'), 'public, max-age=1');
	assert.match(r.headers.get('vary') ?? '', /Origin/);
	assert.deepEqual(Object.keys(r.json).sort(), DOC_KEYS);
	const { updatedAt, ...rest } = r.json;
	assert.deepEqual(rest, { queue: q.slug, active: true, serving: 1,
	    ratePerMinute: 1, lastNumber: 4, waiting: 3, refreshSeconds: 2 });
	const age = Date.now() - updatedAt;
	assert.ok(age >= -1000 && age < 1500, `age ${age} ms`);
	// Rewritten while the queue lives: a second later, a newer one.
	await sleep(1100);
	const again = await req(`/queue/${q.slug}/state.json`);
	assert.ok(again.json.updatedAt > updatedAt, 'rewritten');
	assert.ok(Date.now() - again.json.updatedAt < 1500);
	// A pause shows at once (within the rewrite interval).
	ctl('pause', q.slug);
	await waitFor(async () => (await req(`/queue/${q.slug}/state.json`))
	    .json.active === false, 3000);
	// A deleted queue's document goes too: the app then says 404.
	ctl('delete', q.slug, '--yes');
	await waitFor(() => !existsSync(file), 3000);
	// (Each process may answer from its cached row for up to a second.)
	const gone = await waitFor(async () => {
		const g = await req(`/queue/${q.slug}/state.json`);
		return g.status === 404 ? g : null;
	}, 3000);
	assert.equal(gone.json.error, 'queue_not_found');
});

test('state.json: the app answers the same path itself (the fallback)',
    async () => {
	const q = createQueue({ rate: 600 });
	await join(q.slug);
	const r = await fcgiRequest({ params: fcgiParams('GET',
	    `/queue/${q.slug}/state.json`) });
	assert.equal(r.status, 200);
	assert.equal(r.headers['cache-control'], 'public, max-age=1');
	assert.deepEqual(Object.keys(r.json).sort(), DOC_KEYS);
	assert.equal(r.json.lastNumber, 1);
	assert.equal(r.json.queue, q.slug);
	// Through nginx: no file for an unknown slug, so the app says 404.
	const before = poolHits(/^GET \/queue\/no-such-q-state\/state\.json 404$/);
	const u = await req('/queue/no-such-q-state/state.json');
	assert.equal(u.status, 404);
	assert.equal(u.json.error, 'queue_not_found');
	await waitFor(() => poolHits(
	    /^GET \/queue\/no-such-q-state\/state\.json 404$/) === before + 1,
	    3000);
});

test('10,000 pages polling state.json with jitter cost the pool nothing',
    async () => {
	const q = createQueue({ rate: 600 });
	await join(q.slug);
	const file = `${env.vardir}/state/${q.slug}.json`;
	await waitFor(() => existsSync(file), 5000);
	const re = new RegExp(`/queue/${q.slug}/`);
	const before = poolHits(re);
	const PAGES = 10000, SPREAD_MS = 4000;
	let ok = 0, bad = 0;
	const t0 = Date.now();
	await Promise.all(Array.from({ length: PAGES }, async () => {
		// Each page polls at its own random moment in the window.
		await sleep(Math.random() * SPREAD_MS);
		try {
			const r = await fetch(`${env.base}/queue/${q.slug}/state.json`);
			const d = await r.json();
			if (r.status === 200 && d.queue === q.slug)
				ok++;
			else
				bad++;
		} catch {
			bad++;
		}
	}));
	const secs = (Date.now() - t0) / 1000;
	assert.equal(bad, 0);
	assert.equal(ok, PAGES);
	await sleep(300);
	assert.equal(poolHits(re) - before, 0,
	    'no poll reached the FastCGI pool');
	// Positive control: a status poll does reach it.
	await req(`/queue/${q.slug}/status?number=1`);
	await waitFor(() => poolHits(re) - before === 1, 3000);
	console.log(`# ${PAGES} polls in ${secs.toFixed(1)} s, 0 reached the pool`);
	assert.ok(statSync(file).size > 0);
});

// ---- JSON mode --------------------------------------------------------------

const JSON_H = { accept: 'application/json' };
const WR_KEYS = ['ahead', 'inWaitingRoom', 'lastUpdated', 'number',
    'queueAll', 'queueIsFull', 'refreshIntervalSeconds', 'serving',
    'waitTime', 'waitTimeFormatted', 'waitTimeKnown'];

function cookieOf(r) {
	const c = r.headers.get('set-cookie');
	assert.ok(c !== null, 'a cookie is set');
	return c;
}

test('JSON mode: queued with the configured status, number in a signed cookie',
    async () => {
	const q = createQueue({ rate: 1, burst: 1 });
	ctl('update', q.slug, '--json-status', '202');
	assert.equal((await join(q.slug)).json.number, 1);
	const r = await req(`/queue/${q.slug}`, { headers: JSON_H });
	assert.equal(r.status, 202);
	assert.match(r.headers.get('content-type'), /^application\/json/);
	assert.ok(/^[0-9]+$/.test(r.headers.get('retry-after')));
	const c = cookieOf(r);
	const m = /^aditus_wr_([a-z0-9-]+)=(\d+)\.([A-Za-z0-9_-]{22}); Path=\/queue\/([a-z0-9-]+); HttpOnly; SameSite=Lax$/
	    .exec(c);
	assert.ok(m, c);
	assert.equal(m[1], q.slug);
	assert.equal(m[2], '2');
	assert.equal(m[4], q.slug);
	const w = r.json.WaitingRoom;
	assert.deepEqual(Object.keys(r.json), ['WaitingRoom']);
	assert.deepEqual(Object.keys(w).sort(), WR_KEYS);
	assert.equal(w.inWaitingRoom, true);
	assert.equal(w.number, 2);
	assert.equal(w.serving, 1);
	assert.equal(w.ahead, 0);
	assert.equal(w.waitTime, 1);
	assert.equal(w.waitTimeKnown, true);
	assert.equal(w.waitTimeFormatted, '1 minute');
	assert.equal(w.queueIsFull, false);
	assert.equal(w.queueAll, false);
	assert.match(w.lastUpdated, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
	assert.ok(Math.abs(Date.parse(w.lastUpdated) - Date.now()) < 5000);
	assert.equal(typeof w.refreshIntervalSeconds, 'number');

	// The cookie keeps the number: no second one is taken.
	const cookie = `${c.split(';')[0]}`;
	const again = await req(`/queue/${q.slug}`,
	    { headers: { ...JSON_H, cookie: `theme=a=b; ${cookie}` } });
	assert.equal(again.status, 202);
	assert.equal(again.json.WaitingRoom.number, 2);
	assert.equal(again.headers.get('set-cookie'), null, 'no new cookie');
	assert.equal(show(q.slug).lastNumber, 2, 'still two numbers issued');

	// A forged cookie (someone else's number, or a changed ticket) is
	// not believed: a new number.
	const forged = cookie.replace(/=2\./, '=1.');
	const f = await req(`/queue/${q.slug}`,
	    { headers: { ...JSON_H, cookie: forged } });
	assert.equal(f.json.WaitingRoom.number, 3);
	// An empty duplicate before the real one does not hide it.
	const dup = await req(`/queue/${q.slug}`, { headers: { ...JSON_H,
	    cookie: `aditus_wr_${q.slug}=; ${cookie}` } });
	assert.equal(dup.json.WaitingRoom.number, 2);

	// The cookie shapes of CASES C15: the number is found in each.
	const [, value] = cookie.split(/=(.*)/s);
	const name = `aditus_wr_${q.slug}`;
	const shapes = {
		'flag; theme=a=b; pair': `flag; theme=a=b; ${name}=${value}`,
		'empty duplicate first': `${name}=; ${name}=${value}`,
		'forged duplicate first': `${forged}; ${name}=${value}`,
		quoted: `${name}="${value}"`,
		'no space': `${name}=${value}`,
		'spaces around =': `${name} = ${value}`,
	};
	for (const [what, c] of Object.entries(shapes)) {
		const x = await req(`/queue/${q.slug}`,
		    { headers: { ...JSON_H, cookie: c } });
		assert.equal(x.json.WaitingRoom.number, 2, what);
		assert.equal(x.headers.get('set-cookie'), null, what);
	}
	assert.equal(show(q.slug).lastNumber, 3,
	    'only the forged cookie took a number');
});

test('JSON mode: the cookie name takes the configured suffix', async () => {
	const q = createQueue({ rate: 1, burst: 1 });
	ctl('update', q.slug, '--json-cookie', 'Shop_A');
	const a = await req(`/queue/${q.slug}`, { headers: JSON_H });
	const c = cookieOf(a);
	assert.match(c, /^aditus_wr_Shop_A=1\.[A-Za-z0-9_-]{22}; Path=\/queue\//);
	const b = await req(`/queue/${q.slug}`, { headers: { ...JSON_H,
	    cookie: c.split(';')[0] } });
	assert.equal(b.json.WaitingRoom.number, 1, 'found under that name');
	// The slug-named cookie is not this queue's any more.
	const d = await req(`/queue/${q.slug}`, { headers: { ...JSON_H,
	    cookie: c.split(';')[0].replace('Shop_A', q.slug) } });
	assert.equal(d.json.WaitingRoom.number, 2);
});

test('JSON mode: 200 by default, 429 when configured, admitted with a token',
    async () => {
	const q = createQueue({ rate: 1, burst: 1 });
	// Number 1 is admitted at once: 200 and a token.
	const a = await req(`/queue/${q.slug}`, { headers: JSON_H });
	assert.equal(a.status, 200);
	const w = a.json.WaitingRoom;
	assert.equal(w.inWaitingRoom, false);
	assert.equal(w.number, 1);
	assert.equal(w.waitTime, 0);
	assert.equal(w.targetUrl, 'https://shop.example/');
	const claims = jwt.verify(w.token, q.secret, { algorithms: ['HS256'],
	    issuer: 'aditus-queue', audience: q.slug });
	assert.equal(claims.qnr, 1);
	// Number 2 waits: 200 (the default status).
	const b = await req(`/queue/${q.slug}`, { headers: JSON_H });
	assert.equal(b.status, 200);
	assert.equal(b.json.WaitingRoom.inWaitingRoom, true);
	assert.equal(b.json.WaitingRoom.token, undefined);
	ctl('update', q.slug, '--json-status', '429');
	await sleep(1200);
	const c = await req(`/queue/${q.slug}`, { headers: JSON_H });
	assert.equal(c.status, 429);
	assert.ok(Number(c.headers.get('retry-after')) >= 1);
	// Paused: 423, no number.
	ctl('pause', q.slug);
	await sleep(1200);
	const p = await req(`/queue/${q.slug}`, { headers: JSON_H });
	assert.equal(p.status, 423);
	assert.equal(p.json.error, 'queue_paused');
	assert.equal(p.headers.get('set-cookie'), null);
	// A HEAD takes no number.
	ctl('resume', q.slug);
	await sleep(1200);
	const before = show(q.slug).lastNumber;
	const hd = await req(`/queue/${q.slug}`, { method: 'HEAD',
	    headers: JSON_H });
	assert.equal(hd.status, 405);
	assert.equal(show(q.slug).lastNumber, before);
	// The browser's page is unchanged.
	const h = await req(`/queue/${q.slug}`, { headers: { accept:
	    'text/html,application/xhtml+xml,application/json;q=0.9' } });
	assert.equal(h.status, 200);
	assert.match(h.headers.get('content-type'), /^text\/html/);
	assert.equal(h.headers.get('set-cookie'), null);
});

test('embed.js is served, cacheable, as JavaScript', async () => {
	const q = createQueue({ rate: 60 });
	const r = await req(`/queue/${q.slug}/embed.js`);
	assert.equal(r.status, 200);
	assert.match(r.headers.get('content-type'), /^text\/javascript/);
	assert.equal(r.headers.get('cache-control'), 'public, max-age=300');
	assert.match(r.text, /aditus_queue_token/);
	const u = await req('/queue/no-such-embed/embed.js');
	assert.equal(u.status, 404);
});
