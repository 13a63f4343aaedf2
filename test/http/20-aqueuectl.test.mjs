// aqueuectl as a new user meets it: --help, a missing configuration, an
// unknown queue, list (table and JSON), update, delete (only with --yes)
// and rotate-secret, with exact output and exit status.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join as pathJoin } from 'node:path';
import {
	env, createQueue, join, show, uniqueSlug, admittedToken, verify, sleep,
	CACHE_MS,
} from './lib.mjs';

// run(args, {conf}): aqueuectl with AQ_CTL's config (or none when conf
// is false, or the given file); returns {status, stdout, stderr}.
function run(args, { conf = true } = {}) {
	const parts = env.ctl.split(' ').filter((s) => s !== '');
	const bin = parts[0];
	const pre = conf === true ? parts.slice(1) :
	    conf === false ? [] : ['-f', conf];
	const envv = { ...process.env };
	delete envv.AQUEUE_CONF;
	const r = spawnSync(bin, [...pre, ...args.map(String)],
	    { encoding: 'utf8', env: envv, stdio: ['ignore', 'pipe', 'pipe'] });
	return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const USAGE = `usage: aqueuectl [-f config] command [arguments]

commands:
  init [--web-dir DIR] [--htaccess standard|userdir] [--db-host H|
         --db-socket S] [--db-user U] [--db-name N]
         [--db-password-file F] [--force]
                       a new installation in one step: the
                       configuration (0600), the master key, the
                       schema, the web folder (shared hosting)
  doctor [--url URL]   check the installation as its user sees it;
                       one line per check, what to fix
  migrate              apply pending database migrations
  create SLUG --name NAME --rate N [the options of update]
                       make a queue; prints its signing secret once
  update SLUG [--name NAME] [--rate N] [--target URL] [--domains LIST]
         [--burst N] [--token-ttl S] [--claim-window S]
         [--header-image URL] [--display-name TEXT] [--message TEXT]
         [--accent #rrggbb] [--json-status 200|202|429]
         [--json-cookie SUFFIX] [--opens-at MS|ISO-8601|none]
         [--abandon on|off] [--abandon-grace S] [--pow on|off]
         [--pow-bits N] [--session-renewal on|off]
         [--method fifo|passthrough|hold] [--total-active-users N]
         [--load-test-queue on|off] [--number-block N]
                       change settings (--target '' removes it)
  list [--json]        every queue: slug, name, active, rate,
                       last number issued, serving
  show SLUG            one queue's settings and state, as JSON
  exists SLUG          exit 0 if the queue exists, 1 if not
  pause SLUG           stop admitting (serving freezes)
  resume SLUG          admit again from where it stopped
  set-rate SLUG N      admit N visitors per minute
  rotate-secret SLUG   new signing secret, printed once
  delete SLUG --yes    remove a queue for good
  user add|passwd|disable|enable NAME, user list [--json]
                       console users (passwords asked, never argv)
  autorate show SLUG   auto-rate settings and state, as JSON
  autorate set SLUG [--health-url URL] [--rules 'PATH OP N, ...']
         [--allow-private 0|1] [--interval S] [--min N] [--max N]
         [--step N] [--cut PCT] [--cooldown S] [--band PCT]
         [--failures N] [--dry-run 0|1]
                       change auto-rate settings (a new URL or
                       rules turn it off until tested again)
  autorate test SLUG   poll the health URL once and judge it; a
                       pass is recorded (exit 1 if it fails)
  autorate enable SLUG | autorate disable SLUG
                       turn auto-rate on (needs a passing test) or off
  autorate log SLUG [--limit N]
                       the latest decisions, newest first, as JSON
  report SLUG [--json|--csv] [--since MS] [--until MS]
                       fairness: served-order inversions, waits
                       P50/P90/P99, admissions per minute vs rate
  key create SLUG --name NAME
                       make an API key for the queue; prints it once
  key list [SLUG]      API keys (id, queue, name, prefix, last use)
  key revoke ID        refuse the key from now on
  bypass create SLUG --label LABEL [--uses N] [--expires TIME]
                       a VIP bypass code; prints it (and its
                       gateway link) once
  bypass list SLUG     the queue's codes as JSON lines, never the
                       code itself
  bypass disable ID | bypass enable ID | bypass delete ID
  template set SLUG FILE|-
                       store the queue's custom waiting-room
                       template (HTML, at most 51200 bytes)
  template reset SLUG  back to the default room page
  template show SLUG   print the stored template
  loadtest run SLUG --rate N --duration S [--profile mix|status|join]
         [--wait]      a load test against a test queue (a worker
                       with loadtest-url runs it); --wait follows it
  loadtest run SLUG --profile replay --source SRC --from TIME --to TIME
         [--speed X] [--volume Y] [--wait]
                       replay SRC's arrivals in that window, X times
                       faster, Y times as many
  loadtest list [SLUG] [--limit N] | loadtest show ID | loadtest wait ID
                       runs as JSON lines; one with its series
  loadtest schedule add SLUG --rate N --duration S [--profile P]
         (--every MINUTES | --weekly DAY HH:MM ZONE)
                       a recurring load test (an interval's first
                       run now; DAY sunday..saturday, ZONE an IANA
                       time zone such as Europe/Madrid)
  loadtest schedule list | loadtest schedule delete ID
  audit [--queue SLUG] [--actor NAME] [--action ACTION] [--limit N]
                       the audit log, newest first, as JSON lines

options:
  -f config            configuration file (default: $AQUEUE_CONF,
                       else PREFIX/etc/aqueue.conf of this
                       installation if it exists, else
                       /etc/aqueue/aqueue.conf)
  -h, --help           this text

exit status: 0 done, 1 failed, 2 bad usage or value, 3 queue or
user exists, 4 no such queue, 5 no such user, 6 a load test
flagged as a regression
`;

test('--help and -h print the usage to stdout and exit 0', () => {
	for (const args of [['--help'], ['-h'], ['create', '--help'],
	    ['list', '-h']]) {
		// No configuration is needed for help.
		const r = run(args, { conf: '/nonexistent/aqueue.conf' });
		assert.equal(r.status, 0, args.join(' '));
		assert.equal(r.stdout, USAGE, args.join(' '));
		assert.equal(r.stderr, '', args.join(' '));
	}
});

test('no command or an unknown one: usage on stderr, exit 2', () => {
	for (const args of [[], ['frobnicate'], ['show'], ['delete']]) {
		const r = run(args);
		assert.equal(r.status, 2, args.join(' '));
		assert.equal(r.stdout, '', args.join(' '));
		assert.equal(r.stderr, USAGE, args.join(' '));
	}
});

const LOGLINE = /^\[\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\] ERROR aqueuectl\[\d+\]: /;

test('a missing configuration is an ERROR and exits 1', () => {
	const r = run(['show', 'demo'], { conf: '/nonexistent/aqueue.conf' });
	assert.equal(r.status, 1);
	assert.equal(r.stdout, '');
	const lines = r.stderr.split('\n');
	assert.equal(lines.length, 3, r.stderr);
	assert.match(lines[0], LOGLINE);
	assert.equal(lines[0].replace(LOGLINE, ''),
	    'config /nonexistent/aqueue.conf: No such file or directory');
	assert.equal(lines[1], 'aqueuectl: cannot use the configuration ' +
	    '/nonexistent/aqueue.conf (name another with -f FILE or ' +
	    'AQUEUE_CONF)');
	assert.equal(lines[2], '');
	assert.doesNotMatch(r.stderr, /WARN/);
});

test('a configuration with a bad key is an ERROR and exits 1', () => {
	const dir = mkdtempSync(pathJoin(tmpdir(), 'aqctl-'));
	const f = pathJoin(dir, 'aqueue.conf');
	writeFileSync(f, '# test\nlisten-nope = 1\n');
	try {
		const r = run(['list'], { conf: f });
		assert.equal(r.status, 1);
		assert.equal(r.stdout, '');
		const lines = r.stderr.split('\n');
		assert.equal(lines.length, 3, r.stderr);
		assert.match(lines[0], LOGLINE);
		assert.equal(lines[0].replace(LOGLINE, ''),
		    `${f}:2: unknown key 'listen-nope'`);
		assert.doesNotMatch(r.stderr, /WARN/);
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
});

test('show of an unknown queue says so on stderr and exits 4', () => {
	for (const slug of ['nope', uniqueSlug('nope')]) {
		const r = run(['show', slug]);
		assert.equal(r.status, 4, slug);
		assert.equal(r.stdout, '');
		assert.equal(r.stderr, `aqueuectl: no such queue: ${slug}\n`);
	}
	const bad = run(['show', 'Not_A_Slug']);
	assert.equal(bad.status, 4);
	assert.equal(bad.stderr,
	    'aqueuectl: no such queue (not a valid slug)\n');
	// exists stays a silent probe.
	const e = run(['exists', 'nope']);
	assert.deepEqual(e, { status: 1, stdout: '', stderr: '' });
	for (const cmd of ['pause', 'resume', 'rotate-secret']) {
		const p = run([cmd, 'nope']);
		assert.equal(p.status, 4, cmd);
		assert.equal(p.stderr, 'aqueuectl: no such queue: nope\n', cmd);
	}
});

// Three numbers at 1/min with burst 1, then paused: serving is exactly 1.
async function pausedWithThree(name) {
	const q = createQueue({ rate: 1, burst: 1, name });
	for (let i = 1; i <= 3; i++) {
		const j = await join(q.slug);
		assert.equal(j.status, 200, j.text);
		assert.equal(j.json.number, i);
	}
	assert.equal(run(['pause', q.slug]).stdout, 'ok\n');
	return q;
}

test('list: a table of slug, name, active, rate, last, serving', async () => {
	const pre = uniqueSlug('ls');
	const a = await pausedWithThree('List A');
	const b = createQueue({ slug: `${pre}-b`, rate: 600, burst: 7,
	    name: 'Ünïcode name that is far longer than the column allows' });
	const r = run(['list']);
	assert.equal(r.status, 0, r.stderr);
	assert.equal(r.stderr, '');
	const lines = r.stdout.split('\n');
	assert.equal(lines.at(-1), '');
	assert.match(lines[0],
	    /^SLUG {2,}NAME {2,}ACTIVE {2}RATE\/MIN {8}LAST {5}SERVING$/);
	const row = (slug) => lines.find((l) => l.startsWith(slug + ' '));
	assert.match(row(a.slug),
	    new RegExp(`^${a.slug} +List A +no +1 +3 +1$`));
	// A long name is cut at 32 characters, counted as characters.
	assert.match(row(b.slug), new RegExp(`^${b.slug} +` +
	    'Ünïcode name that is far long\\.\\.\\. +yes +600 +0 +7$'));
	// The columns line up: every row is as wide as the header.
	const width = [...lines[0]].length;
	for (const l of lines.slice(1, -1))
		assert.equal([...l].length, width, l);
});

test('list --json: the same objects as show, which are the admin API\'s ' +
    'site objects', async () => {
	const a = await pausedWithThree('Json A');
	const r = run(['list', '--json']);
	assert.equal(r.status, 0, r.stderr);
	const all = JSON.parse(r.stdout);
	assert.ok(Array.isArray(all));
	const slugs = all.map((x) => x.slug);
	assert.deepEqual(slugs, [...slugs].sort(), 'ordered by slug');
	const got = all.find((x) => x.slug === a.slug);
	assert.deepEqual(got, {
		id: show(a.slug).id, slug: a.slug, name: 'Json A',
		targetUrl: 'https://shop.example/', shopDomains: 'shop.example',
		ratePerMinute: 1, burst: 1, active: false, lastNumber: 3,
		serving: 1, tokenTtlSeconds: 600, claimWindowSeconds: 600,
		headerImageUrl: '', displayName: '', message: '',
		accentColor: '', jsonQueuedStatus: 200, jsonCookieSuffix: '',
		opensAt: null, abandonment: false, abandonGraceSeconds: 180,
		powEnabled: false, powBits: 15, sessionRenewal: false,
		totalActiveUsers: 0,
		queuingMethod: 'fifo', loadTestQueue: false, numberBlock: 0,
		numbersUnused: 0, waiting: 2, createdAt: got.createdAt, updatedAt: got.updatedAt,
	});
	assert.ok(got.createdAt > Date.now() - 60000 &&
	    got.updatedAt >= got.createdAt, JSON.stringify(got));
	assert.deepEqual(show(a.slug), got);
	assert.equal(run(['list', '--yaml']).status, 2);
});

test('delete refuses without --yes, then removes the queue', async () => {
	const q = createQueue({ rate: 60 });
	const no = run(['delete', q.slug]);
	assert.equal(no.status, 2);
	assert.equal(no.stdout, '');
	assert.equal(no.stderr, 'aqueuectl: delete removes the queue, its ' +
	    'numbers and its secrets for good;\nrun it again with --yes to ' +
	    'confirm\n');
	assert.equal(show(q.slug).slug, q.slug, 'still there');

	const yes = run(['delete', q.slug, '--yes']);
	assert.deepEqual(yes, { status: 0, stdout: `queue ${q.slug} deleted\n`,
	    stderr: '' });
	assert.equal(run(['show', q.slug]).status, 4);
	assert.equal(run(['exists', q.slug]).status, 1);
	const again = run(['delete', '--yes', q.slug]);
	assert.deepEqual(again, { status: 4, stdout: '',
	    stderr: `aqueuectl: no such queue: ${q.slug}\n` });
});

test('update changes the given settings only; warns off the domains',
    () => {
	const q = createQueue({ rate: 60, burst: 3, tokenTtl: 300 });
	const r = run(['update', q.slug, '--name', 'New name', '--domains',
	    'Shop.Example:443, www.shop.example', '--token-ttl', '120']);
	assert.deepEqual(r, { status: 0, stdout: 'ok\n', stderr: '' });
	let s = show(q.slug);
	assert.equal(s.name, 'New name');
	assert.equal(s.shopDomains, 'shop.example,www.shop.example');
	assert.equal(s.tokenTtlSeconds, 120);
	assert.equal(s.ratePerMinute, 60);
	assert.equal(s.burst, 3);
	assert.equal(s.targetUrl, 'https://shop.example/');

	const w = run(['update', q.slug, '--target',
	    'https://checkout.example/pay', '--rate', '120']);
	assert.equal(w.status, 0);
	assert.equal(w.stdout, 'ok\n');
	assert.equal(w.stderr, 'aqueuectl: warning: the target URL is not ' +
	    'on one of the shop domains (target_outside_domains)\n');
	s = show(q.slug);
	assert.equal(s.targetUrl, 'https://checkout.example/pay');
	assert.equal(s.ratePerMinute, 120);

	const none = run(['update', q.slug, '--target', '']);
	assert.deepEqual(none, { status: 0, stdout: 'ok\n', stderr: '' });
	assert.equal(show(q.slug).targetUrl, null);

	const bad = run(['update', q.slug, '--rate', '0', '--name', 'X']);
	assert.equal(bad.status, 2);
	assert.equal(bad.stderr, 'aqueuectl: bad value for --rate: must be ' +
	    'an integer from 1 to 1000000\n');
	assert.equal(show(q.slug).name, 'New name', 'nothing changed');
	assert.deepEqual(run(['update', q.slug]), { status: 2, stdout: '',
	    stderr: 'aqueuectl: update: nothing to change\n' });
	assert.equal(run(['update', 'nope', '--rate', '5']).stderr,
	    'aqueuectl: no such queue: nope\n');
});

test('the claim window is set at create and update, within 1 to 86400 s',
    () => {
	const slug = uniqueSlug('cw');
	const c = run(['create', slug, '--name', 'Claim', '--rate', '60',
	    '--claim-window', '30']);
	assert.equal(c.status, 0, c.stderr);
	assert.equal(show(slug).claimWindowSeconds, 30);
	assert.deepEqual(run(['update', slug, '--claim-window', '86400']),
	    { status: 0, stdout: 'ok\n', stderr: '' });
	assert.equal(show(slug).claimWindowSeconds, 86400);
	const bad = run(['update', slug, '--claim-window', '0']);
	assert.equal(bad.status, 2);
	assert.equal(bad.stderr, 'aqueuectl: bad value for --claim-window: ' +
	    'must be an integer from 1 to 86400 (seconds after admission in ' +
	    'which a ticket obtains tokens)\n');
	assert.equal(show(slug).claimWindowSeconds, 86400, 'nothing changed');
	const q = createQueue({ rate: 60 });
	assert.equal(show(q.slug).claimWindowSeconds, 600, 'the default');
});

test('create names what is missing or wrong, with exit 2 or 3', () => {
	const slug = uniqueSlug('cr');
	assert.deepEqual(run(['create', slug, '--name', 'X']), { status: 2,
	    stdout: '', stderr: 'aqueuectl: --rate is required\n' });
	assert.deepEqual(run(['create', slug, '--rate', '5']), { status: 2,
	    stdout: '', stderr: 'aqueuectl: --name is required\n' });
	assert.deepEqual(run(['create', 'Bad_Slug', '--name', 'X', '--rate',
	    '5']), { status: 2, stdout: '', stderr: 'aqueuectl: bad slug: ' +
	    'must be 1-63 of a-z 0-9 -, starting with a letter or digit\n' });
	const ok = run(['create', slug, '--name', 'X', '--rate', '5',
	    '--domains', 'shop.example', '--target', 'https://other.example/']);
	assert.equal(ok.status, 0);
	assert.match(ok.stdout, new RegExp(`^queue ${slug} created ` +
	    '\\(id \\d+\\)\\nThe signing secret is shown only now; keep it ' +
	    'for token verification:\\nsecret: [A-Za-z0-9_-]{43}\\n$'));
	assert.equal(ok.stderr, 'aqueuectl: warning: the target URL is not ' +
	    'on one of the shop domains (target_outside_domains)\n');
	assert.deepEqual(run(['create', slug, '--name', 'X', '--rate', '5']),
	    { status: 3, stdout: '', stderr: `aqueuectl: queue exists: ${slug}\n` });
});

test('rotate-secret: old tokens stop verifying, new ones verify',
    async () => {
	const q = createQueue({ rate: 600 });
	const before = await admittedToken(q.slug);
	assert.equal((await verify(q.slug, before.token)).json.valid, true);
	const r = run(['rotate-secret', q.slug]);
	assert.equal(r.status, 0, r.stderr);
	const m = /^new signing secret of (\S+) \(tokens signed with the old one no longer verify\):\nsecret: ([A-Za-z0-9_-]{43})\n$/
	    .exec(r.stdout);
	assert.ok(m !== null, r.stdout);
	assert.equal(m[1], q.slug);
	assert.notEqual(m[2], q.secret);
	// Every process has re-read the row after its cache lifetime.
	await sleep(CACHE_MS);
	for (let i = 0; i < 8; i++)
		assert.deepEqual((await verify(q.slug, before.token)).json,
		    { valid: false, reason: 'bad_signature' });
	const after = await admittedToken(q.slug);
	const hmac = (await import('node:crypto')).createHmac;
	const [h, p, sig] = after.token.split('.');
	assert.equal(hmac('sha256', m[2]).update(`${h}.${p}`)
	    .digest('base64url'), sig, 'signed with the new secret');
});
