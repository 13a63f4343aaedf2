// aqueuectl key create/list/revoke and audit: the same library
// operations as the API (one code path), their exit statuses and output.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { ctl, createQueue, env, req } from './lib.mjs';

// run(...args): aqueuectl's {status, stdout, stderr}.
function run(...args) {
	const parts = env.ctl.split(' ').filter((s) => s !== '');
	const r = spawnSync(parts[0], [...parts.slice(1), ...args],
	    { encoding: 'utf8' });
	return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('key create: the key once, exit 0; a missing queue exit 4, a bad ' +
    'name exit 2, nothing made', () => {
	const q = createQueue();
	let r = run('key', 'create', q.slug, '--name', 'one');
	assert.equal(r.status, 0, r.stderr);
	assert.match(r.stdout, /^API key \d+ of queue \S+ created\.  It is shown only now; keep it secret:\nkey: qak_[A-Za-z0-9_-]{43}\n$/);
	r = run('key', 'create', 'no-such-queue-z', '--name', 'x');
	assert.equal(r.status, 4);
	assert.equal(r.stderr, 'aqueuectl: no such queue: no-such-queue-z\n');
	r = run('key', 'create', q.slug, '--name', '');
	assert.equal(r.status, 2);
	assert.match(r.stderr, /^aqueuectl: bad value for --name: must be /);
	r = run('key', 'create', q.slug);
	assert.equal(r.status, 2);
	assert.match(r.stderr, /^usage: aqueuectl/);
	assert.equal(run('key', 'list', q.slug).stdout.trim().split('\n')
	    .length, 1);
});

test('key list: every queue\'s keys, or one queue\'s; revoke: exit 0, ' +
    'again 0, unknown 1', async () => {
	const a = createQueue(), b = createQueue();
	const ka = /^key: (\S+)$/m.exec(ctl('key', 'create', a.slug, '--name',
	    'ka'))[1];
	ctl('key', 'create', b.slug, '--name', 'kb');
	const all = run('key', 'list').stdout.trim().split('\n')
	    .map((l) => JSON.parse(l));
	const mine = all.filter((k) => [a.slug, b.slug].includes(k.slug));
	assert.deepEqual(mine.map((k) => [k.slug, k.name, k.revokedAt]),
	    [[a.slug, 'ka', null], [b.slug, 'kb', null]]);
	assert.equal(mine[0].prefix, ka.slice(0, 12));
	let r = run('key', 'revoke', String(mine[0].id));
	assert.deepEqual([r.status, r.stdout], [0, 'ok\n']);
	r = run('key', 'revoke', String(mine[0].id));
	assert.equal(r.status, 0);
	const after = JSON.parse(run('key', 'list', a.slug).stdout);
	assert.equal(typeof after.revokedAt, 'number');
	r = await req('/api/admin/queue/sites', { headers: {
	    authorization: `Bearer ${ka}` } });
	assert.equal(r.status, 401);
	r = run('key', 'revoke', '999999999');
	assert.equal(r.status, 1);
	assert.equal(r.stderr, 'aqueuectl: no such API key: 999999999\n');
	r = run('key', 'revoke', 'x');
	assert.equal(r.status, 2);
	// revoking twice wrote one audit row
	const rows = run('audit', '--queue', a.slug, '--action', 'key_revoke')
	    .stdout.trim().split('\n');
	assert.equal(rows.length, 1);
});

test('audit: bad options are usage errors; a missing queue exit 4', () => {
	assert.equal(run('audit', '--limit', '0').status, 2);
	assert.equal(run('audit', '--bogus', 'x').status, 2);
	assert.equal(run('audit', '--queue').status, 2);
	assert.equal(run('audit', '--queue', 'no-such-queue-z').status, 4);
	const r = run('audit', '--limit', '1');
	assert.equal(r.status, 0);
	assert.equal(r.stdout.trim().split('\n').length, 1);
});
