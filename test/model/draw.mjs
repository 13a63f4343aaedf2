// test/model/draw.mjs - the fair draw's permutation, ported from
// tools/verify-draw.py (which documents it) so that the model computes
// drawn positions itself from what /info publishes; checkAgainstScript()
// holds the two equal on a few seeds and sizes.

import { createHash, createHmac } from 'node:crypto';
import { execFileSync } from 'node:child_process';

const ROUNDS = 6;
const LABEL = Buffer.from('aditus-draw');

function be64(v) {
	const b = Buffer.alloc(8);
	b.writeBigUInt64BE(BigInt(v));
	return b;
}

// drawIndex(seed, p, x): the drawn index of index x in [0, p) (seed: a
// 32-byte Buffer).
export function drawIndex(seed, p, x) {
	const bits = p - 1 > 0 ? (p - 1).toString(2).length : 0;
	const h = bits < 2 ? 1 : Math.floor((bits + 1) / 2);
	const hb = BigInt(h);
	const mask = (1n << hb) - 1n;
	const pb = be64(p);
	let y = BigInt(x);
	for (;;) {
		let left = y >> hb, right = y & mask;
		for (let i = 0; i < ROUNDS; i++) {
			const msg = Buffer.concat([LABEL, Buffer.from([i]), pb,
			    be64(right)]);
			const f = createHmac('sha256', seed).update(msg)
			    .digest().readBigUInt64BE(0) & mask;
			[left, right] = [right, left ^ f];
		}
		y = (left << hb) | right;
		if (y < BigInt(p))
			return Number(y);
	}
}

// drawPosition(seed, p, n): the admission position of number n >= 1.
export function drawPosition(seed, p, n) {
	return n <= p ? drawIndex(seed, p, n - 1) + 1 : n;
}

export function sha256hex(buf) {
	return createHash('sha256').update(buf).digest('hex');
}

// checkAgainstScript(root): compare drawPosition() with
// tools/verify-draw.py --json for a few seeds and pre-queue sizes;
// throws on the first difference.
export function checkAgainstScript(root) {
	const cases = [
	    ['00'.repeat(32), 1], ['11'.repeat(32), 2], ['a5'.repeat(32), 5],
	    ['0123456789abcdef'.repeat(4), 37], ['fe'.repeat(32), 130],
	];
	for (const [hex, p] of cases) {
		const out = JSON.parse(execFileSync('python3',
		    [`${root}/tools/verify-draw.py`, '--seed', hex,
		    '--pre-queue', String(p), '--json'], { encoding: 'utf8' }));
		const seed = Buffer.from(hex, 'hex');
		for (let n = 1; n <= p; n++) {
			const mine = drawPosition(seed, p, n);
			if (mine !== out.positions[n - 1])
				throw new Error('draw port differs from ' +
				    `verify-draw.py: seed ${hex} P ${p} ` +
				    `number ${n}: ${mine} vs ` +
				    `${out.positions[n - 1]}`);
		}
	}
}
