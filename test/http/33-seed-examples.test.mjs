// The curl + jq examples and the GitHub Actions step of the product
// description, run by bash exactly as written there (only the base URL
// and the key substituted) against the test stack: read, rate to 300,
// pause, resume; each checked on the queue's row.  Also the example
// workflow shipped in deploy/github-actions/, and a wrong key failing
// the step (curl -f).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { ctl, createQueue, env, show } from './lib.mjs';

const SEED_BASE = 'https://developers.aditus.com/api/admin/queue';
const SEED_KEY = 'qak_\u2026';

// The examples, verbatim (String.raw keeps every backslash).
const READ = String.raw`curl -H "Authorization: Bearer qak_…" \
  https://developers.aditus.com/api/admin/queue/sites`;
const RATE = String.raw`KEY="qak_…"; BASE="https://developers.aditus.com/api/admin/queue"
SITE=$(curl -s -H "Authorization: Bearer $KEY" "$BASE/sites" \
  | jq '.sites[0]')
echo "$SITE" | jq '.ratePerMinute = 300' | curl -s -X PATCH \
  -H "Authorization: Bearer $KEY" -H "Content-Type: application/json" \
  -d @- "$BASE/sites/$(echo "$SITE" | jq -r .id)"`;
const PAUSE = String.raw`echo "$SITE" | jq '.active = false' | curl -s -X PATCH \
  -H "Authorization: Bearer $KEY" -H "Content-Type: application/json" \
  -d @- "$BASE/sites/$(echo "$SITE" | jq -r .id)"`;
// The GitHub Actions step's run: block (its KEY comes from env:).
const STEP = String.raw`BASE="https://developers.aditus.com/api/admin/queue"
# Der Key sieht nur seinen gebundenen Warteraum — .sites[0] genügt.
SITE=$(curl -sf -H "Authorization: Bearer $KEY" "$BASE/sites" \
  | jq '.sites[0]')
echo "$SITE" | jq '.ratePerMinute = 300' \
  | curl -sf -X PATCH \
    -H "Authorization: Bearer $KEY" \
    -H "Content-Type: application/json" \
    -d @- "$BASE/sites/$(echo "$SITE" | jq -r .id)"`;

const BASE = `${env.base}/api/admin/queue`;

// subst(script, key): the base URL and the key put in, nothing else.
function subst(script, key) {
	const s = script.replaceAll(SEED_BASE, BASE).replaceAll(SEED_KEY, key);
	assert.ok(!s.includes('developers.aditus.com'));
	return s;
}

// bash(script, envKey): run script as GitHub Actions runs a step
// (bash --noprofile --norc -eo pipefail); returns {status, stdout}.
function bash(script, envKey) {
	const r = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail',
	    '-c', script], { encoding: 'utf8', env: { PATH: process.env.PATH,
	    ...(envKey !== undefined ? { KEY: envKey } : {}) } });
	return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function setup(rate = 60) {
	const q = createQueue({ rate });
	const out = ctl('key', 'create', q.slug, '--name', 'seed examples');
	return { q, key: /^key: (qak_\S+)$/m.exec(out)[1] };
}

test('curl and jq are there', () => {
	execFileSync('curl', ['--version']);
	execFileSync('jq', ['--version']);
});

test('seed: read the bound queue -> {"sites":[it]}', () => {
	const { q, key } = setup();
	const r = bash(subst(READ, key));
	assert.equal(r.status, 0, r.stderr);
	const j = JSON.parse(r.stdout);
	assert.deepEqual(j.sites.map((s) => s.slug), [q.slug]);
});

test('seed: rate to 300, then pause, then resume (read -> change -> ' +
    'write)', () => {
	const { q, key } = setup();
	let r = bash(subst(RATE, key));
	assert.equal(r.status, 0, r.stderr);
	assert.equal(JSON.parse(r.stdout).ratePerMinute, 300);
	let row = show(q.slug);
	assert.deepEqual([row.ratePerMinute, row.active], [300, true]);
	// the pause example uses the SITE read just before it
	r = bash(subst(RATE.split('\n').slice(0, 3).join('\n') + '\n' + PAUSE,
	    key));
	assert.equal(r.status, 0, r.stderr);
	assert.equal(JSON.parse(r.stdout).active, false);
	row = show(q.slug);
	assert.deepEqual([row.ratePerMinute, row.active], [300, false]);
	// resume: the same with active = true
	r = bash(subst(RATE.split('\n').slice(0, 3).join('\n') + '\n' +
	    PAUSE.replace('.active = false', '.active = true'), key));
	assert.equal(r.status, 0, r.stderr);
	row = show(q.slug);
	assert.deepEqual([row.ratePerMinute, row.active], [300, true]);
});

test('seed: the GitHub Actions step raises the rate to 300', () => {
	const { q, key } = setup(45);
	const r = bash(subst(STEP, key), key);
	assert.equal(r.status, 0, r.stderr);
	assert.equal(JSON.parse(r.stdout).ratePerMinute, 300);
	assert.equal(show(q.slug).ratePerMinute, 300);
});

test('seed: the step fails (curl -f) with a wrong or revoked key, ' +
    'nothing changed', () => {
	const { q, key } = setup(45);
	let r = bash(subst(STEP, key), 'qak_wrong');
	assert.notEqual(r.status, 0);
	const id = /"id":(\d+)/.exec(ctl('key', 'list', q.slug))[1];
	ctl('key', 'revoke', id);
	r = bash(subst(STEP, key), key);
	assert.notEqual(r.status, 0);
	assert.equal(show(q.slug).ratePerMinute, 45);
});

test('deploy/github-actions/onsale.yml: its run: block works as shipped',
    () => {
	const yml = readFileSync(`${env.root}/deploy/github-actions/onsale.yml`,
	    'utf8');
	assert.match(yml, /KEY: \$\{\{ secrets\.ADITUS_QUEUE_API_KEY \}\}/);
	// the block scalar after "run: |", its indentation removed
	const lines = yml.split('\n');
	const at = lines.findIndex((l) => /^\s+run: \|$/.test(l));
	assert.ok(at > 0);
	const ind = /^(\s*)/.exec(lines[at + 1])[1].length;
	const block = [];
	for (const l of lines.slice(at + 1)) {
		if (l.trim() !== '' && /^(\s*)/.exec(l)[1].length < ind)
			break;
		block.push(l.slice(ind));
	}
	const { q, key } = setup(30);
	const r = bash(subst(block.join('\n'), key), key);
	assert.equal(r.status, 0, r.stderr);
	assert.equal(show(q.slug).ratePerMinute, 300);
});
