// test/browser/lib.mjs - shared helpers of the browser tests: the hosted
// waiting room in real headless Chromium (Debian's /usr/bin/chromium),
// driven by playwright-core.  No browser is ever downloaded.
//
// The environment comes from test/run, as for the HTTP tests: AQ_BASE
// (http://127.0.0.1:PORT) and AQ_CTL ("<root>/fcgi-app/aqueuectl -f
// <conf>") are needed; CHROMIUM overrides the browser's path.  Every test
// creates its own queues with createQueue() and never uses the demo queue.

import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import assert from 'node:assert/strict';
import jwt from 'jsonwebtoken';
import { AxeBuilder } from '@axe-core/playwright';

export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu',
    '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync'];

// The app caches a queue row per process for up to 1 s: after this long
// every process has read the row again.
export const CACHE_MS = 1150;

function need(name) {
	const v = process.env[name];
	if (v === undefined || v === '')
		throw new Error(`environment variable ${name} is not set ` +
		    '(run the browser tests through test/run)');
	return v;
}

export const env = {
	get base() { return need('AQ_BASE').replace(/\/+$/, ''); },
	get ctl() { return need('AQ_CTL'); },
	// The stack's run directory (logs under nginx/logs/).
	get vardir() { return need('AQ_VAR'); },
	// The shop origin, e.g. "http://127.0.0.1:18480".
	get origin() { return new URL(this.base).origin; },
	// The demo shop page that our queues admit to.
	get shop() { return `${this.base}/shop/`; },
};

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ctl(...args): run aqueuectl synchronously, return its stdout.  Throws
// (with stderr in the message) on a non-zero exit.
export function ctl(...args) {
	const parts = env.ctl.split(' ').filter((s) => s !== '');
	try {
		return execFileSync(parts[0],
		    [...parts.slice(1), ...args.map(String)],
		    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
	} catch (e) {
		throw new Error(`aqueuectl ${args.join(' ')} failed: ` +
		    `${e.status} ${e.stderr ?? ''}`);
	}
}

export function uniqueSlug(prefix = 'b') {
	return `${prefix}-${randomBytes(6).toString('hex')}`;
}

// createQueue(opts): a new queue with a unique slug, target the demo
// shop page and the stack's origin as its only shop domain; returns
// {slug, secret, target, ...}.
export function createQueue({ rate = 600, burst, name, slug,
    target = env.shop, domains = env.origin } = {}) {
	slug ??= uniqueSlug();
	name ??= `Browser test ${slug}`;
	const args = ['create', slug, '--name', name, '--target', target,
	    '--domains', domains, '--rate', rate];
	if (burst !== undefined)
		args.push('--burst', burst);
	const out = ctl(...args);
	const m = /^secret: (\S+)$/m.exec(out);
	if (m === null)
		throw new Error(`no secret line in aqueuectl output: ${out}`);
	return { slug, secret: m[1], name, target, domains, rate, burst };
}

// join(slug): POST /queue/<slug>/join from the test itself; returns the
// parsed body (asserts 200).
export async function join(slug) {
	const res = await fetch(`${env.base}/queue/${slug}/join`,
	    { method: 'POST' });
	const text = await res.text();
	assert.equal(res.status, 200, `join ${slug}: ${res.status} ${text}`);
	return JSON.parse(text);
}

// busyQueue(): a queue at rate 1 with burst 1 whose first number is
// taken by the test itself, so the next visitor (number 2) must wait.
export async function busyQueue() {
	const q = createQueue({ rate: 1, burst: 1 });
	const first = await join(q.slug);
	assert.equal(first.number, 1);
	assert.equal(first.admitted, true);
	return q;
}

export function roomUrl(slug, query = '') {
	return `${env.base}/queue/${encodeURIComponent(slug)}${query}`;
}

// ---- the browser --------------------------------------------------------

// launch(): headless Chromium from Debian, never a downloaded one.
export async function launch() {
	let pw;
	try {
		pw = await import('playwright-core');
	} catch (e) {
		throw new Error('playwright-core is not installed (npm ci): ' +
		    e.message);
	}
	const chromium = pw.chromium ?? pw.default?.chromium;
	return chromium.launch({ executablePath: CHROMIUM,
	    args: CHROMIUM_ARGS, timeout: 30000 });
}

// openPage(browser): a page in a fresh context (its own sessionStorage),
// with a record of what it did:
//   dialogs     messages of every alert/confirm/prompt (all dismissed)
//   errors      uncaught page errors
//   requests    every request, as "METHOD URL"
//   bodies      {url, body} of every request with a body
//   offsite     every request to a host other than 127.0.0.1 (aborted)
//   navigations every URL the main frame went to
// Returns {context, page, log}.
export async function openPage(browser) {
	const context = await browser.newContext();
	const log = { dialogs: [], errors: [], requests: [], bodies: [],
	    offsite: [], navigations: [] };
	// Nothing leaves the machine: a URL on another host is recorded and
	// aborted, so a wrong redirect shows up as a failure, not a hang.
	await context.route('**/*', (route) => {
		const url = route.request().url();
		let host = '';
		try {
			host = new URL(url).hostname;
		} catch { /* unparsable: off-site */ }
		if (host !== '127.0.0.1') {
			log.offsite.push(url);
			return route.abort();
		}
		return route.continue();
	});
	const page = await context.newPage();
	page.on('dialog', (d) => {
		log.dialogs.push(`${d.type()}: ${d.message()}`);
		d.dismiss().catch(() => {});
	});
	page.on('pageerror', (e) => log.errors.push(String(e)));
	page.on('request', (r) => {
		log.requests.push(`${r.method()} ${r.url()}`);
		const body = r.postData();
		if (body !== null)
			log.bodies.push({ url: r.url(), body });
	});
	page.on('framenavigated', (f) => {
		if (f === page.mainFrame())
			log.navigations.push(f.url());
	});
	return { context, page, log };
}

// goto(page, url): start loading url; returns once the response started
// (the room's script may navigate on by itself soon after).
export async function goto(page, url) {
	await page.goto(url, { waitUntil: 'commit' });
}

// joinPosts(log, slug): how many POST /queue/<slug>/join the page sent.
export function joinPosts(log, slug) {
	const want = `POST ${env.base}/queue/${slug}/join`;
	return log.requests.filter((r) => r === want).length;
}

// waitShop(page, timeoutMs): wait until the page is on /shop/ (any path
// below it) and return its full URL.
export async function waitShop(page, timeoutMs = 8000) {
	const shopPath = new URL(env.shop).pathname;
	await page.waitForURL((u) => u.origin === env.origin &&
	    u.pathname.startsWith(shopPath),
	    { timeout: timeoutMs, waitUntil: 'commit' });
	return page.url();
}

// textOf(page, selector): the element's textContent.
export function textOf(page, selector) {
	return page.locator(selector).textContent();
}

// waitText(page, selector, want, timeoutMs): wait until the element's
// textContent equals want; returns it (assert it afterwards).
export async function waitText(page, selector, want, timeoutMs = 5000) {
	const end = Date.now() + timeoutMs;
	let last;
	for (;;) {
		last = await page.locator(selector).textContent()
		    .catch(() => null);
		if (last === want || Date.now() >= end)
			return last;
		await sleep(50);
	}
}

const JWT_RE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

// tokenOf(url): the aditus_queue_token query parameter of url (asserts
// there is exactly one and that it looks like a JWT).
export function tokenOf(url) {
	const all = new URL(url).searchParams.getAll('aditus_queue_token');
	assert.equal(all.length, 1, `one aditus_queue_token in ${url}`);
	assert.match(all[0], JWT_RE, `a JWT in ${url}`);
	return all[0];
}

// verifyToken(q, tok): verify with jsonwebtoken as a shop would; returns
// the claims.
export function verifyToken(q, tok) {
	return jwt.verify(tok, q.secret, { issuer: 'aditus-queue',
	    audience: q.slug, algorithms: ['HS256'] });
}

// assertLanded(q, url, want): url is exactly want with
// aditus_queue_token=<jwt> appended to its query (before any fragment),
// and the token verifies for queue q; returns the claims.
export function assertLanded(q, url, want = q.target) {
	const tok = tokenOf(url);
	const hash = want.indexOf('#') < 0 ? '' : want.slice(want.indexOf('#'));
	const bare = hash === '' ? want : want.slice(0, -hash.length);
	const sep = bare.includes('?') ? '&' : '?';
	assert.equal(url, `${bare}${sep}aditus_queue_token=${tok}${hash}`);
	return verifyToken(q, tok);
}

// ---- the stack ----------------------------------------------------------

// stack(cmd): run "$AQ_STACK cmd $AQ_VAR" synchronously (e.g. db-stop,
// db-start).
export function stack(cmd) {
	return execFileSync(need('AQ_STACK'), [cmd, need('AQ_VAR')],
	    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

// For a file that stops the stack's MariaDB (test/run runs one file at a
// time): dbStop() and dbStart() remember whether it is down, and
// dbStartIfStopped() (for an after() hook, so also on failure) starts it
// again only then.
let dbStopped = false;

export function dbStop() {
	dbStopped = true;
	stack('db-stop');
}

export function dbStart() {
	stack('db-start');
	dbStopped = false;
}

export function dbStartIfStopped() {
	if (dbStopped)
		dbStart();
}

// The room script's timers and answers, in order, recorded inside the
// page: {t: 'res', url, status, retryAfter} for every fetch answer (before
// the script sees it) and {t: 'timer', ms} for every setTimeout.  With
// random set (a number in [0, 1)), Math.random returns it, so that the
// drawn waits are exact.  Add to a context before its pages load; read
// with page.evaluate(() => window.__aqTrace).  speed divides the waits
// actually used (the recorded ones are what the script asked for).
export function traceScript({ random = null, speed = 1 } = {}) {
	return `(() => {
	const trace = [];
	window.__aqTrace = trace;
	const st = window.setTimeout.bind(window);
	window.setTimeout = (fn, ms, ...a) => {
		trace.push({ t: 'timer', ms });
		return st(fn, ms / ${Number(speed)}, ...a);
	};
	const f = window.fetch.bind(window);
	window.fetch = (...a) => f(...a).then((r) => {
		trace.push({ t: 'res', url: r.url, status: r.status,
		    retryAfter: r.headers.get('Retry-After') });
		return r;
	});
	if (${JSON.stringify(random)} !== null)
		Math.random = () => ${JSON.stringify(random)};
})();`;
}

// tracedPage(browser, t, url, trace): a page in a new context (closed
// after test t) with traceScript(trace) added, loading url; returns
// {page, errors} (errors: its uncaught page errors).
export async function tracedPage(browser, t, url, trace = {}) {
	const context = await browser.newContext();
	t.after(() => context.close());
	await context.addInitScript(traceScript(trace));
	const page = await context.newPage();
	const errors = [];
	page.on('pageerror', (e) => errors.push(String(e)));
	await goto(page, url);
	return { page, errors };
}

// ---- the console ----------------------------------------------------------

// axeSizes(page, name, sizes, dir): at each size of sizes ({label:
// {width, height}}) no serious or critical axe-core violation (and axe
// ran its rules), nothing wider than the screen; a full-page screenshot
// at each, dir/<name>-<label>.png.
export async function axeSizes(page, name, sizes, dir) {
	for (const [size, vp] of Object.entries(sizes)) {
		await page.setViewportSize(vp);
		await sleep(100);
		const r = await new AxeBuilder({ page }).analyze();
		const bad = r.violations.filter((v) =>
		    v.impact === 'serious' || v.impact === 'critical')
		    .map((v) => `${v.id}: ${v.help} ` +
		    v.nodes.map((n) => n.target.join(' ')).join(', '));
		assert.deepEqual(bad, [], `${name} at ${size}`);
		assert.ok(r.passes.length > 10, 'axe ran its rules');
		const wide = await page.evaluate(() =>
		    document.documentElement.scrollWidth);
		assert.ok(wide <= vp.width, `${name} ${size}: ${wide} px wide`);
		await page.screenshot({ path: `${dir}/${name}-${size}.png`,
		    fullPage: true });
	}
}

const AXE_SIZES = [
	{ name: 'laptop', width: 1366, height: 768 },
	{ name: 'tablet', width: 768, height: 1024 },
];

// axe(page, what, {legacy}): the serious and critical axe violations of
// the page at laptop and tablet sizes, one line each.  legacy: axe's
// legacy mode, which leaves out frames no script may run in (an empty
// sandbox: the template page's previews) instead of waiting on them.
export async function axe(page, what, { legacy = false } = {}) {
	const bad = [];
	for (const s of AXE_SIZES) {
		await page.setViewportSize({ width: s.width,
		    height: s.height });
		const res = await new AxeBuilder({ page })
		    .setLegacyMode(legacy).analyze();
		for (const v of res.violations)
			if (v.impact === 'serious' || v.impact === 'critical')
				bad.push(`${what} @${s.name}: ${v.id} ` +
				    `(${v.impact}): ${v.nodes.map((n) =>
				    n.target.join(' ')).join(', ')}`);
	}
	return bad;
}

// consoleLogin(page, u): log console user u ({name, password}) in from
// the log-in form the console sends a new session to.
export async function consoleLogin(page, u) {
	await page.goto(`${env.base}/admin/`);
	assert.equal(new URL(page.url()).pathname, '/admin/login');
	await page.getByLabel('User name').fill(u.name);
	await page.getByLabel('Password').fill(u.password);
	await Promise.all([page.waitForURL(`${env.base}/admin/`),
	    page.getByRole('button', { name: 'Log in' }).click()]);
}
