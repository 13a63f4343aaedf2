// Upgrades: a database made by the first release's migrations only
// (0001-0002: the migration table and the queue table), filled the way
// that release filled it, then "aqueuectl migrate" with every migration
// of this one: every row and every value kept, the queues work on it (a
// join continues their numbering; tokens verify with the secrets shown
// when they were created; the operator CLI reads them).

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
	copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync,
	writeFileSync,
} from 'node:fs';
import { createHmac, randomBytes } from 'node:crypto';
import {
	createQueue, dbSQL, env, fcgiParams, fcgiRequest, startExtraPool,
} from './lib.mjs';

const DB = `aqueue_up_${randomBytes(4).toString('hex')}`;
const FIRST = ['0001-schema-migrations.sql', '0002-queue.sql'];
// The queue table's columns in the first release.
const COLS = ['id', 'slug', 'name', 'target_url', 'shop_domains',
    'rate_per_minute', 'burst', 'anchor_number', 'anchor_time_ms',
    'last_number', 'skip_count', 'active', 'token_ttl_s',
    'HEX(secret_sealed)', 'HEX(ticket_key_sealed)', 'created_at',
    'updated_at'];

let pool = null;
const dir = `${env.vardir}/upgrade`;

after(async () => {
	if (pool !== null)
		await pool.stop();
	dbSQL(`DROP DATABASE IF EXISTS ${DB}`);
	rmSync(dir, { recursive: true, force: true });
});

// aqueuectl with a config of its own: the stack's, on database DB with
// migrations from migdir.
function ctlOn(migdir, ...args) {
	const base = readFileSync(`${env.vardir}/aqueue.conf`, 'utf8')
	    .split('\n').filter((l) => !/^\s*(db-name|migrations-dir)\s*=/
	    .test(l)).join('\n');
	const conf = `${dir}/aqueue.conf`;
	writeFileSync(conf, `${base}\ndb-name = ${DB}\n` +
	    `migrations-dir = ${migdir}\n`, { mode: 0o600 });
	return execFileSync(`${env.root}/fcgi-app/aqueuectl`,
	    ['-f', conf, ...args], { encoding: 'utf8' });
}

function rows(db) {
	return dbSQL(`SELECT ${COLS.join(', ')} FROM ${db}.queue ORDER BY id`);
}

// An HS256 token's signature checks with secret.
function signedWith(tok, secret) {
	const [h, p, s] = tok.split('.');
	return createHmac('sha256', secret).update(`${h}.${p}`)
	    .digest('base64url') === s;
}

test('aqueuectl migrate on a first-release database keeps every row',
    async () => {
	mkdirSync(`${dir}/first`, { recursive: true });
	for (const f of FIRST)
		copyFileSync(`${env.root}/migrations/${f}`, `${dir}/first/${f}`);
	dbSQL(`CREATE DATABASE ${DB} CHARACTER SET utf8mb4 ` +
	    'COLLATE utf8mb4_unicode_ci');
	dbSQL(`GRANT ALL ON ${DB}.* TO 'aqueue'@'localhost'`);
	ctlOn(`${dir}/first`, 'migrate');
	assert.deepEqual(dbSQL(`SELECT version FROM ${DB}.schema_migrations ` +
	    'ORDER BY version'), [['1'], ['2']]);

	// Fill it as the first release did: queues with sealed secrets
	// (made by this release's CLI under the same master key, copied in
	// with the first release's columns only), numbers issued, one
	// paused, one with a name outside ASCII.
	const qs = [createQueue({ rate: 6000 }), createQueue({ rate: 30 }),
	    createQueue({ rate: 120, name: 'Sommerfest – Grüße 🎟' })];
	const old = COLS.filter((c) => !c.startsWith('HEX')).concat(
	    ['secret_sealed', 'ticket_key_sealed']);
	for (const q of qs)
		dbSQL(`INSERT INTO ${DB}.queue (${old.join(', ')}) SELECT ` +
		    `${old.join(', ')} FROM aqueue.queue WHERE slug = '${q.slug}'`);
	dbSQL(`UPDATE ${DB}.queue SET last_number = 41, skip_count = 2, ` +
	    `anchor_number = 40 WHERE slug = '${qs[0].slug}'`);
	dbSQL(`UPDATE ${DB}.queue SET active = 0, last_number = 7 ` +
	    `WHERE slug = '${qs[1].slug}'`);
	const before = rows(DB);
	assert.equal(before.length, 3);
	const applied = dbSQL(`SELECT version, name, applied_at FROM ${DB}.` +
	    'schema_migrations ORDER BY version');

	// The upgrade.
	const all = readdirSync(`${env.root}/migrations`)
	    .filter((f) => /^\d{4}-.*\.sql$/.test(f)).sort();
	ctlOn(`${env.root}/migrations`, 'migrate');
	assert.deepEqual(rows(DB), before, 'every first-release value kept');
	const after = dbSQL(`SELECT version, name, applied_at FROM ${DB}.` +
	    'schema_migrations ORDER BY version');
	assert.deepEqual(after.slice(0, 2), applied);
	assert.deepEqual(after.map((r) => r[1]), all);
	// Idempotent: a second run changes nothing.
	ctlOn(`${env.root}/migrations`, 'migrate');
	assert.deepEqual(rows(DB), before);

	// The CLI reads them.
	const shown = JSON.parse(ctlOn(`${env.root}/migrations`, 'show',
	    qs[0].slug));
	assert.equal(shown.lastNumber, 41);
	assert.equal(shown.active, true);
	assert.equal(JSON.parse(ctlOn(`${env.root}/migrations`, 'show',
	    qs[1].slug)).active, false);
	assert.equal(JSON.parse(ctlOn(`${env.root}/migrations`, 'show',
	    qs[2].slug)).name, 'Sommerfest – Grüße 🎟');

	// A pool on the upgraded database continues the numbering, and its
	// tokens carry the secret shown when the queue was created.
	pool = await startExtraPool({ workers: 2, extra: `db-name = ${DB}` });
	const j = await fcgiRequest({ sock: pool.sock,
	    params: fcgiParams('POST', `/queue/${qs[0].slug}/join`) });
	assert.equal(j.status, 200, j.body);
	const jj = JSON.parse(j.body);
	assert.equal(jj.number, 42);
	assert.equal(jj.admitted, true);
	assert.ok(signedWith(jj.token, qs[0].secret), 'secret kept');
	const p = await fcgiRequest({ sock: pool.sock,
	    params: fcgiParams('POST', `/queue/${qs[1].slug}/join`) });
	assert.equal(p.status, 423, p.body);
});
