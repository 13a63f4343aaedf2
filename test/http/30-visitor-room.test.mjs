// What visitors see: the waiting room's branding settings (validated by
// the field table, escaped on the page), its languages with <html lang
// dir>, the unknown-queue page, its Content-Security-Policy and the
// base URL every script URL is built from.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createQueue, ctl, env, req, show } from './lib.mjs';

// run(args): aqueuectl's exit status and output, never throwing.
function run(args) {
	const parts = env.ctl.split(' ').filter((s) => s !== '');
	try {
		const out = execFileSync(parts[0], [...parts.slice(1), ...args],
		    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
		return { status: 0, stdout: out, stderr: '' };
	} catch (e) {
		return { status: e.status, stdout: e.stdout, stderr: e.stderr };
	}
}

const page = (slug, headers = {}, query = '') =>
    req(`/queue/${slug}${query}`, { headers: { accept: 'text/html',
    ...headers } });

test('branding settings: valid values stored as given', () => {
	const q = createQueue({ rate: 60 });
	ctl('update', q.slug, '--header-image', 'https://cdn.example:8443/b.png',
	    '--display-name', 'Sommerfest 2026', '--message', 'Line 1\nLine 2',
	    '--accent', '#A1B2C3', '--json-status', '202');
	const s = show(q.slug);
	assert.equal(s.headerImageUrl, 'https://cdn.example:8443/b.png');
	assert.equal(s.displayName, 'Sommerfest 2026');
	assert.equal(s.message, 'Line 1\nLine 2');
	assert.equal(s.accentColor, '#a1b2c3', 'stored in lower case');
	assert.equal(s.jsonQueuedStatus, 202);
	// Empty values reset.
	ctl('update', q.slug, '--header-image', '', '--accent', '',
	    '--display-name', '', '--message', '');
	const t = show(q.slug);
	assert.deepEqual([t.headerImageUrl, t.accentColor, t.displayName,
	    t.message], ['', '', '', '']);
	assert.equal(t.jsonQueuedStatus, 202, 'untouched');
});

test('branding settings: invalid values refused, nothing changed', async (t) => {
	const q = createQueue({ rate: 60 });
	const bad = [
		['--header-image', 'http://cdn.example/b.png'],
		['--header-image', 'https://user:pw@cdn.example/b.png'],
		['--header-image', 'javascript:alert(1)'],
		['--header-image', 'https://img.example/a.png?"><script>'],
		['--accent', 'red'],
		['--accent', '#12345g'],
		['--accent', '#1234567'],
		['--accent', '#123'],
		['--accent', '"><script>'],
		['--json-status', '201'],
		['--json-status', '404'],
		['--json-status', 'abc'],
		['--message', 'a\u0007bell'],
		['--message', 'x'.repeat(2001)],
		['--display-name', ' '],
		['--json-cookie', 'has space'],
		['--json-cookie', 'a;b'],
		['--json-cookie', 'x'.repeat(33)],
	];
	for (const [opt, val] of bad)
		await t.test(`${opt} ${JSON.stringify(val.slice(0, 30))}`, () => {
			const r = run(['-f', `${env.vardir}/aqueue.conf`, 'update',
			    q.slug, opt, val]);
			assert.equal(r.status, 2, r.stderr);
			assert.match(r.stderr, new RegExp(opt.slice(2)));
		});
	const s = show(q.slug);
	assert.deepEqual([s.headerImageUrl, s.accentColor, s.message,
	    s.displayName, s.jsonQueuedStatus, s.jsonCookieSuffix],
	    ['', '', '', '', 200, '']);
	ctl('update', q.slug, '--json-cookie', 'Shop_2026-x');
	assert.equal(show(q.slug).jsonCookieSuffix, 'Shop_2026-x');
	ctl('update', q.slug, '--json-cookie', 'x'.repeat(32));
	assert.equal(show(q.slug).jsonCookieSuffix, 'x'.repeat(32));
	// 2000 characters (of several bytes each) are fine.
	ctl('update', q.slug, '--message', 'ü'.repeat(2000));
	assert.equal(show(q.slug).message, 'ü'.repeat(2000));
});

test('create takes branding settings too', () => {
	const q = createQueue({ rate: 60 });
	const slug = `${q.slug}-c`;
	ctl('create', slug, '--name', 'N', '--rate', '5', '--accent', '#00FF00',
	    '--json-status', '429');
	const s = show(slug);
	assert.equal(s.accentColor, '#00ff00');
	assert.equal(s.jsonQueuedStatus, 429);
	const r = run(['-f', `${env.vardir}/aqueue.conf`, 'create',
	    `${slug}-x`, '--name', 'N', '--rate', '5', '--accent', 'green']);
	assert.equal(r.status, 2);
	assert.equal(run(['-f', `${env.vardir}/aqueue.conf`, 'exists',
	    `${slug}-x`]).status, 1, 'nothing created');
});

test('the page shows the branding, every value escaped', async () => {
	const q = createQueue({ rate: 60, name: 'Internal name' });
	ctl('update', q.slug, '--display-name', 'Rock & <Roll> "Tour"',
	    '--message', '<b>Doors</b> open at 19:00\nBring ID & ticket\n\'x\'',
	    '--header-image', 'https://img.example/banner.jpg?a=1&b=2',
	    '--accent', '#C0FFEE');
	const r = await page(q.slug);
	assert.equal(r.status, 200);
	assert.match(r.text, /<h1 id="title" dir="auto">Rock &amp; &lt;Roll&gt; &quot;Tour&quot;<\/h1>|<h1 id="title" dir="auto">Rock &amp; &lt;Roll&gt; "Tour"<\/h1>/);
	assert.ok(!r.text.includes('Internal name'), 'the display name wins');
	assert.ok(r.text.includes(
	    '<p class="message" id="message" dir="auto">' +
	    '&lt;b&gt;Doors&lt;/b&gt; open at 19:00\nBring ID &amp; ticket\n'),
	    'message escaped, line breaks kept');
	assert.ok(!r.text.includes('<b>Doors'));
	assert.ok(r.text.includes('<img class="banner" src="https://img.example/' +
	    'banner.jpg?a=1&amp;b=2" alt="" width="460" ' +
	    'height="190">'), r.text.slice(0, 2000));
	assert.match(r.text, /data-accent="#c0ffee"/);
	assert.match(r.text, /<main id="room" data-base="" /);
	assert.match(r.text, /<a id="back" href="https:\/\/shop\.example\/">Back to the shop<\/a>/);
	const csp = r.headers.get('content-security-policy');
	assert.ok(csp.includes("default-src 'none'; script-src 'self'; " +
	    "style-src 'self'; img-src 'self' https://img.example; " +
	    "connect-src 'self'; base-uri 'none'; form-action 'none'; " +
	    "frame-ancestors 'none'"), csp);
	assert.ok(!/unsafe-inline|unsafe-eval/.test(csp));
	// No inline script or style anywhere: the CSP would block it.
	assert.ok(!/<script(?![^>]*\ssrc=)/.test(r.text), 'no inline script');
	assert.ok(!/\sstyle=|<style/.test(r.text), 'no inline style');
});

test('without branding: the name, no image, no message, own origin only',
    async () => {
	const q = createQueue({ rate: 60, name: 'Plain <queue>' });
	const r = await page(q.slug);
	assert.match(r.text, /<h1 id="title" dir="auto">Plain &lt;queue&gt;<\/h1>/);
	assert.ok(!r.text.includes('class="banner"'));
	assert.ok(!r.text.includes('class="message"'));
	assert.match(r.text, /data-accent=""/);
	assert.ok(r.headers.get('content-security-policy')
	    .includes("img-src 'self'; "));
	// Nothing on the page points off-site but the way back to the shop.
	const urls = [...r.text.matchAll(/(?:src|href)="([^"]*)"/g)]
	    .map((m) => m[1]);
	assert.deepEqual(urls.filter((u) => /^[a-z]+:|^\/\//i.test(u)),
	    ['https://shop.example/']);
});

test('the way back goes to the validated return URL', async () => {
	const q = createQueue({ rate: 60 });
	let r = await page(q.slug, {}, '?return=' +
	    encodeURIComponent('https://shop.example/cart?x=1'));
	assert.match(r.text, /<a id="back" href="https:\/\/shop\.example\/cart\?x=1">/);
	r = await page(q.slug, {}, '?return=' +
	    encodeURIComponent('https://evil.example/'));
	assert.match(r.text, /<a id="back" href="https:\/\/shop\.example\/">/);
	assert.ok(!r.text.includes('evil.example'));
});

const LANGS = [
	['es-ES,es;q=0.9', 'es', 'ltr', 'Su número'],
	['it-IT', 'it', 'ltr', 'Il suo numero'],
	['ar-EG,ar;q=0.9,en;q=0.5', 'ar', 'rtl', 'رقمك'],
	['zh-CN,zh;q=0.9', 'zh', 'ltr', '您的号码'],
	['de-AT', 'de', 'ltr', 'Ihre Nummer'],
	['en-US', 'en', 'ltr', 'Your number'],
];

test('six languages from the catalogs, Arabic right to left', async (t) => {
	const q = createQueue({ rate: 60 });
	for (const [header, lang, dir, text] of LANGS)
		await t.test(header, async () => {
			const r = await page(q.slug,
			    { 'accept-language': header });
			assert.equal(r.status, 200);
			assert.equal(r.headers.get('content-language'), lang);
			assert.match(r.headers.get('vary'), /Accept-Language/);
			assert.ok(r.text.includes(
			    `<html lang="${lang}" dir="${dir}">`));
			assert.ok(r.text.includes(`<dt>${text}</dt>`), text);
			assert.match(r.text, new RegExp(`data-lang="${lang}"`));
			// A link to each of the other five, in its own language.
			const links = [...r.text.matchAll(
			    /<li><a href="[^"]*\?lang=([a-z]{2})" hreflang="\1" lang="\1" dir="(ltr|rtl)">/g)]
			    .map((m) => m[1]);
			assert.deepEqual(links.sort(), ['ar', 'de', 'en', 'es',
			    'it', 'zh'].filter((l) => l !== lang));
		});
	const r = await page(q.slug, { 'accept-language': 'en' }, '?lang=ar');
	assert.equal(r.headers.get('content-language'), 'ar', '?lang= wins');
	assert.ok(r.text.includes('<a href="/queue/' + q.slug +
	    '?lang=de" hreflang="de" lang="de" dir="ltr">Deutsch</a>'));
});

test('an unknown queue: a 404 page in the visitor\'s language', async () => {
	let r = await page('no-such-queue-here', { 'accept-language': 'de' });
	assert.equal(r.status, 404);
	assert.equal(r.headers.get('content-language'), 'de');
	assert.ok(r.text.includes('<html lang="de" dir="ltr">'));
	assert.ok(r.text.includes('<h1>Warteraum nicht gefunden</h1>'));
	assert.ok(r.text.includes('<p role="status">Es gibt hier keinen ' +
	    'Warteraum namens „no-such-queue-here“. Bitte prüfen Sie den ' +
	    'Link, dem Sie gefolgt sind.</p>'), r.text);
	r = await page('no-such-queue-here', { 'accept-language': 'ar' });
	assert.ok(r.text.includes('<html lang="ar" dir="rtl">'));
	// The gateway link's too.
	r = await page('no-such-queue-here/enter', { 'accept-language': 'it' });
	assert.equal(r.status, 404);
	assert.ok(r.text.includes('<html lang="it" dir="ltr">'));
	// A malformed slug is never echoed.
	r = await page('%3Cb%3Ex', { 'accept-language': 'en' });
	assert.equal(r.status, 404);
	assert.ok(r.text.includes('There is no waiting room at this address.'));
	assert.ok(!/<b>|%3C/i.test(r.text));
	r = await req('/queue/no-such-queue-here',
	    { headers: { accept: 'application/json' } });
	assert.equal(r.status, 404);
	assert.deepEqual(r.json, { error: 'queue_not_found',
	    message: 'No such queue.' });
});

test('static files of the page are served', async () => {
	for (const f of ['waiting-room.js', 'waiting-room.css']) {
		const r = await req(`/queue-static/${f}`);
		assert.equal(r.status, 200, f);
	}
});
