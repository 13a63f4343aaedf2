// The console's fairness report (/admin/queue/<slug>/fairness) and the
// scheduled opening on the queue's dashboard, through HTTP: the page's
// values are the admin API's report for the same period, cell for cell;
// a bad period is a 400 (page or JSON, API alike) that reads nothing;
// the dashboard shows the opening with its zone, the published seed
// hash while the pre-queue collects, and after the draw the seed and
// the verification command, which reproduces the positions /status
// gives.  Every value the pages show is escaped.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
	createQueue, ctl, dbSQL, env, info, join, show, status, uniqueSlug,
	waitFor,
} from './lib.mjs';
import { fairnessRecords } from './fairness.mjs';
import { Client, addUser } from './console.mjs';

const u = addUser();
const c = new Client();

async function loggedIn() {
	if (!c.jar.has('aq_session'))
		assert.equal((await c.login(u.name, u.password)).status, 303);
	return c;
}

// The text of the element with id in html, and its data-value (JSON).
function cell(html, id) {
	const m = new RegExp(`<td id="${id}" data-value="([^"]*)">` +
	    '([^<]*)</td>').exec(html);
	assert.ok(m, `cell ${id}`);
	return { value: JSON.parse(m[1].replace(/&quot;/g, '"')),
	    text: m[2] };
}

// Six hours back, on the hour: no live sample of a new queue falls
// there, and the worker's retention (48 h) keeps what the test writes.
const T0 = Math.floor((Date.now() - 6 * 3600000) / 3600000) * 3600000;

// A queue with scripted samples (60 numbers joined over a minute,
// admitted 30 a minute, each waiting n seconds) and served records in
// the order 1, 3, 2, 5, 4 (two inversions); returns {slug, id}.
function scripted(name) {
	const q = createQueue({ rate: 30, name });
	const id = show(q.slug).id;
	fairnessRecords(id, T0);
	return { slug: q.slug, id };
}

// What the report pages must never change: the queue's numbers and
// the rows the report reads.  Only the scripted samples are counted:
// the worker's sampler adds this queue's live samples (now, hours after
// T0) whenever its pass comes, whatever the page does.
function stateOf(slug, id) {
	const s = show(slug);
	return [s.lastNumber, s.serving, s.waiting, s.active,
	    s.ratePerMinute, dbSQL('SELECT COUNT(*) FROM queue_served WHERE ' +
	    `queue_id = ${id}`)[0][0], dbSQL('SELECT COUNT(*) FROM ' +
	    `queue_stats WHERE queue_id = ${id} AND sampled_ms <= ` +
	    `${T0 + 120000}`)[0][0]];
}

test('the report page shows the API report\'s numbers for the same ' +
    'period, escaped; linked from the dashboard', async () => {
	// Promise: "failed leaves nothing" / "only the visitor's own request
	// takes a number": the page only reads; the queue's numbers and the
	// report's rows are the same after it.
	await loggedIn();
	const { slug, id } = scripted('Fair <b>"sale"</b> & more');
	const before = stateOf(slug, id);
	const period = `since=${T0}&until=${T0 + 120000}`;
	const api = await c.get(`/api/admin/queue/sites/${id}/fairness?` +
	    period, { headers: { accept: 'application/json' } });
	assert.equal(api.status, 200, api.text);
	const r = api.json;
	assert.deepEqual([r.served, r.inversions, r.waitSeconds.p50,
	    r.minutes.length], [5, 2, 30, 2], 'the scripted report');

	const dash = await c.get(`/admin/queue/${slug}`);
	assert.equal(dash.status, 200);
	assert.ok(dash.text.includes(`href="/admin/queue/${slug}/fairness"`),
	    'the dashboard links the report');
	const p = await c.get(`/admin/queue/${slug}/fairness?${period}`);
	assert.equal(p.status, 200, p.text);
	assert.ok(p.text.includes('Fair &lt;b&gt;"sale"&lt;/b&gt; &amp; ' +
	    'more') || p.text.includes('Fair &lt;b&gt;&quot;sale&quot;' +
	    '&lt;/b&gt; &amp; more'), 'the name escaped');
	assert.ok(!p.text.includes('<b>"sale"</b>'));
	for (const [cid, v] of [['f-since', r.since], ['f-until', r.until],
	    ['f-from', r.from], ['f-to', r.to], ['f-samples', r.samples],
	    ['f-served', r.served], ['f-inversions', r.inversions],
	    ['f-wait-count', r.waitSeconds.count],
	    ['f-wait-p50', r.waitSeconds.p50],
	    ['f-wait-p90', r.waitSeconds.p90],
	    ['f-wait-p99', r.waitSeconds.p99],
	    ['f-adm-rate', r.admissionsPerMinute],
	    ['f-conf-rate', r.configuredRatePerMinute]])
		assert.equal(cell(p.text, cid).value, v, cid);
	// Durations in words (iso_duration_text) with the exact seconds;
	// times in UTC with their zone.
	assert.equal(cell(p.text, 'f-wait-p50').text, 'under 1 min (30 s)');
	assert.equal(cell(p.text, 'f-wait-p99').text, '1 min (60 s)');
	assert.equal(cell(p.text, 'f-from').text, new Date(T0).toISOString()
	    .replace('T', ' ').replace('.000Z', ' UTC'));
	assert.equal(cell(p.text, 'f-served').text, '5');
	// The per-minute table (the chart's text alternative and data).
	const rows = [...p.text.matchAll(/<tr data-minute="(\d+)" data-admitted="([^"]*)" data-rate="([^"]*)">/g)]
	    .map((m) => ({ minute: Number(m[1]), admitted: Number(m[2]),
	    ratePerMinute: Number(m[3]) }));
	assert.deepEqual(rows, r.minutes);
	assert.match(p.text, /<div id="fair-chart" role="img" aria-label="[^"]+">/);
	// The form keeps the period asked.
	assert.match(p.text, new RegExp(`id="since" [^>]*value="${T0}"`));

	// Without a period: everything retained, as the API without one.
	const all = await c.get(`/admin/queue/${slug}/fairness`);
	assert.equal(all.status, 200);
	const apiAll = await c.get(`/api/admin/queue/sites/${id}/fairness`,
	    { headers: { accept: 'application/json' } });
	assert.equal(cell(all.text, 'f-served').value, apiAll.json.served);
	assert.equal(cell(all.text, 'f-since').value, null);
	assert.equal(cell(all.text, 'f-since').text, '-');
	// Empty fields (the form sent blank) are no bound either.
	const blank = await c.get(`/admin/queue/${slug}/fairness?since=&until=`);
	assert.equal(blank.status, 200);
	assert.equal(cell(blank.text, 'f-served').value, apiAll.json.served);
	assert.deepEqual(stateOf(slug, id), before, 'nothing changed');
});

test('a bad period: 400 with a clear error on the page and in JSON, ' +
    'the API alike; nothing read or changed', async () => {
	// Promise: "failed leaves nothing": a refused period changes no
	// queue number and no row.
	await loggedIn();
	const { slug, id } = scripted('Bad period');
	const before = stateOf(slug, id);
	for (const q of ['since=abc', 'until=0', 'since=-5',
	    `since=${T0}&until=${T0}`, `since=${T0 + 10}&until=${T0}`,
	    'since=1&since=2', 'until=1e9', 'since=%00']) {
		const p = await c.get(`/admin/queue/${slug}/fairness?${q}`);
		assert.equal(p.status, 400, q);
		assert.match(p.text, /<p class="error" role="alert" id="period-error">The period is not valid/, q);
		assert.ok(!p.text.includes('fair-summary'), `no report: ${q}`);
		const j = await c.get(`/admin/queue/${slug}/fairness?${q}`,
		    { headers: { accept: 'application/json' } });
		assert.equal(j.status, 400, q);
		assert.equal(j.json.error, 'invalid_period', q);
		const a = await c.get(`/api/admin/queue/sites/${id}/fairness?` +
		    q, { headers: { accept: 'application/json' } });
		assert.equal(a.status, 400, q);
		assert.equal(a.json.error, 'invalid_period', q);
		const csv = await c.get(`/api/admin/queue/sites/${id}/` +
		    `fairness.csv?${q}`);
		assert.equal(csv.status, 400, q);
	}
	// Another queue's slug that does not exist: 404, not a report.
	const nf = await c.get('/admin/queue/no-such-queue-here/fairness');
	assert.equal(nf.status, 404);
	assert.deepEqual(stateOf(slug, id), before, 'nothing changed');
});

test('dashboard: the opening with its zone and a countdown, the seed ' +
    'hash before the draw, the seed and the command after', async () => {
	// Promise: "order is join order or the published draw": the seed and
	// command the console shows are /info's, and the command recomputes
	// the very positions /status gives.  Promise: "no token before
	// admission": the page only reads (serving stays 0 before).
	await loggedIn();
	const slug = uniqueSlug('cdraw');
	const now = Number(dbSQL(
	    'SELECT CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED)')[0][0]);
	const opensAt = now + 6000;
	ctl('create', slug, '--name', 'Draw <i>x</i>', '--target',
	    'https://shop.example/', '--domains', 'shop.example', '--rate',
	    600, '--opens-at', opensAt);
	const hash = await waitFor(async () => (await info(slug)).json
	    .drawSeedSha256, 5000, 100, 'the seed hash');
	for (let k = 0; k < 5; k++)
		assert.equal((await join(slug)).json.number, k + 1);
	let d = await c.get(`/admin/queue/${slug}`);
	assert.equal(d.status, 200);
	assert.ok(d.text.includes('Draw &lt;i&gt;x&lt;/i&gt;'));
	assert.match(d.text, /<h2 id="opening-h">Scheduled opening<\/h2>/);
	const t = new Date(opensAt).toISOString();
	assert.ok(d.text.includes(`<time id="opens-at" datetime="${t}">` +
	    `${t.slice(0, 10)} ${t.slice(11, 19)} UTC</time>`),
	    'the time with its zone');
	const left = /<span id="opens-in" role="timer" aria-live="off" data-left-ms="(\d+)">([^<]+)<\/span>/
	    .exec(d.text);
	assert.ok(left, 'the countdown');
	assert.ok(Number(left[1]) > 0 && Number(left[1]) <= 6000, left[1]);
	assert.equal(left[2], 'under 1 min');
	assert.ok(d.text.includes(`<code id="seed-hash" class="hex">${hash}` +
	    '</code>'), 'the published hash');
	assert.match(d.text, /<span id="pre-queue">open:/);
	assert.ok(!d.text.includes('id="draw-seed"'), 'no seed before');
	assert.ok(!d.text.includes('id="verify-cmd"'), 'no command before');
	assert.equal(show(slug).serving, 0, 'nobody admitted before');

	// The opening passes: the pre-queue closes, /info publishes the seed.
	const seed = await waitFor(async () => {
		const i = (await info(slug)).json;
		return i.preQueue === 5 && i.drawSeed;
	}, 15000, 200, 'the draw published');
	d = await c.get(`/admin/queue/${slug}`);
	assert.equal(d.status, 200);
	assert.ok(d.text.includes(`<code id="draw-seed" class="hex">${seed}` +
	    '</code>'), 'the seed after the draw');
	assert.ok(d.text.includes(`<code id="seed-hash" class="hex">${hash}` +
	    '</code>'), 'the same hash');
	assert.match(d.text, /<span id="pre-queue">closed: 5 numbers drawn/);
	assert.match(d.text, /data-left-ms="-?\d+">opened<\/span>/);
	const cmd = /<code id="verify-cmd">([^<]+)<\/code>/.exec(d.text);
	assert.ok(cmd, 'the command');
	assert.equal(cmd[1], `tools/verify-draw.py --seed ${seed} ` +
	    `--pre-queue 5 --hash ${hash} --order`);
	// The command as shown, run from the source tree.
	const args = cmd[1].split(' ');
	const out = execFileSync('python3', [`${env.root}/${args[0]}`,
	    ...args.slice(1)], { encoding: 'utf8' });
	assert.match(out, new RegExp(`seed matches the published hash ${hash}`));
	const order = [...out.matchAll(/^(\d+)\t(\d+)$/gm)]
	    .map((m) => [Number(m[1]), Number(m[2])]);
	assert.equal(order.length, 5);
	for (const [pos, n] of order)
		assert.equal((await status(slug, n)).json.position, pos,
		    `number ${n}`);
});

test('a queue without an opening shows no opening section', async () => {
	await loggedIn();
	const q = createQueue({ rate: 60 });
	const d = await c.get(`/admin/queue/${q.slug}`);
	assert.equal(d.status, 200);
	assert.ok(!d.text.includes('id="opening"'));
	assert.ok(!d.text.includes('seed-hash'));
});
