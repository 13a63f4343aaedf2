// test/http/pow.mjs - the proof of work from a client's side: fetch a
// challenge, solve it with node:crypto, join with it; and a challenge
// signed here with the stack's master key (the test can read it), to
// make one older than its life or with edited fields.

import { createHash, createHmac, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { req, postJSON, stackConf } from './lib.mjs';

// Leading zero bits of a digest (bits, not hex digits).
export function zeroBits(buf) {
	let n = 0;
	for (const b of buf) {
		if (b === 0) {
			n += 8;
			continue;
		}
		return n + Math.clz32(b) - 24;
	}
	return n;
}

// The zero bits of SHA-256(challenge "." nonce).
export function bitsOf(ch, nonce) {
	return zeroBits(createHash('sha256').update(`${ch}.${nonce}`)
	    .digest());
}

// solve(ch, bits, {exact, start}): a decimal nonce with at least bits
// zero bits (exactly `exact` when given).
export function solve(ch, bits, { exact = null, start = 0 } = {}) {
	for (let i = start; ; i++) {
		const z = bitsOf(ch, String(i));
		if (exact === null ? z >= bits : z === exact)
			return String(i);
	}
}

// GET /queue/<slug>/pow; resolves the answer's JSON (asserting 200).
export async function challenge(slug) {
	const r = await req(`/queue/${slug}/pow`);
	if (r.status !== 200)
		throw new Error(`pow: ${r.status} ${r.text}`);
	return r.json;
}

// POST /queue/<slug>/join with {"pow": {challenge, nonce, ...extra}}.
export function powJoin(slug, ch, nonce, extra = {}, headers = {}) {
	return postJSON(`/queue/${slug}/join`,
	    { pow: { challenge: ch, nonce, ...extra } }, { headers });
}

// A fresh challenge of slug, solved, joined with: resolves the answer.
export async function solvedJoin(slug) {
	const c = await challenge(slug);
	return powJoin(slug, c.challenge, solve(c.challenge, c.bits));
}

// The stack's proof-of-work key: HMAC-SHA256 of the label under the
// master key (64 hex digits in master-key-file).
function powKey() {
	const hex = readFileSync(stackConf('master-key-file'), 'utf8').trim();
	return createHmac('sha256', Buffer.from(hex, 'hex'))
	    .update('aditus-queue proof-of-work key v1').digest();
}

function be64(v) {
	const b = Buffer.alloc(8);
	b.writeBigInt64BE(BigInt(v));
	return b;
}

function lp(buf) {
	const n = Buffer.alloc(4);
	n.writeUInt32BE(buf.length);
	return Buffer.concat([n, buf]);
}

// forge({queueId, issuedMs, bits, random}): a challenge as the server
// makes them (fields, then the MAC over each field length-prefixed),
// signed with the stack's key.
export function forge({ queueId, issuedMs, bits, random = randomBytes(16) }) {
	const f = Buffer.concat([Buffer.from([1]), be64(queueId),
	    be64(issuedMs), Buffer.from([bits]), random]);
	const mac = createHmac('sha256', powKey()).update(Buffer.concat([
	    lp(Buffer.from('aditus-queue challenge v1')), lp(f.subarray(0, 1)),
	    lp(f.subarray(1, 9)), lp(f.subarray(9, 17)),
	    lp(f.subarray(17, 18)), lp(f.subarray(18))])).digest();
	return Buffer.concat([f, mac]).toString('base64url');
}

// The fields of a challenge (no check).
export function fieldsOf(ch) {
	const b = Buffer.from(ch, 'base64url');
	return { queueId: Number(b.readBigInt64BE(1)),
	    issuedMs: Number(b.readBigInt64BE(9)), bits: b[17],
	    random: b.subarray(18, 34) };
}
