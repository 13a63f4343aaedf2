// vectors.mjs - turn vectors.json into tokens for one queue:
//   node deploy/edge/vectors.mjs SECRET AUDIENCE   (prints JSON)
// or import { materialize } from it.  Plain Node (crypto), no libraries:
// the tokens a verifier must accept or refuse.
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const b64url = (b) => Buffer.from(b).toString('base64url');

function when(v, now) {
	if (typeof v !== 'string' || !v.startsWith('now'))
		return v;
	return now + Number(v.slice(3) || 0);
}

// materialize({secret, audience, now}): [{name, token, valid, reason}].
export function materialize({ secret, audience, now, file }) {
	file ??= fileURLToPath(new URL('./vectors.json', import.meta.url));
	const spec = JSON.parse(readFileSync(file, 'utf8'));
	now ??= Math.floor(Date.now() / 1000);
	return spec.vectors.map((v) => {
		if (v.raw !== undefined)
			return { name: v.name, token: v.raw, valid: v.valid,
			    reason: v.reason };
		const header = v.header ?? { alg: 'HS256', typ: 'JWT' };
		const claims = { iss: spec.issuer, aud: audience, qnr: 7,
		    jti: `${audience}:7`, iat: now, exp: now + 600,
		    ...(v.claims ?? {}) };
		for (const k of Object.keys(claims))
			claims[k] = when(claims[k], now);
		let signing = `${b64url(JSON.stringify(header))}.` +
		    b64url(JSON.stringify(claims));
		const mac = (alg, key) => createHmac(alg, key).update(signing)
		    .digest('base64url');
		let sig;
		switch (v.sign) {
		case 'HS256': sig = mac('sha256', secret); break;
		case 'HS512': sig = mac('sha512', secret); break;
		case 'none': sig = ''; break;
		case 'wrong-secret': sig = mac('sha256', `${secret}x`); break;
		case 'tamper':
			sig = mac('sha256', secret);
			sig = (sig[0] === 'A' ? 'B' : 'A') + sig.slice(1);
			break;
		case 'tamper-claims':
			sig = mac('sha256', secret);
			signing = `${signing.split('.')[0]}.` +
			    b64url(JSON.stringify({ ...claims, qnr: 1 }));
			break;
		default:
			throw new Error(`vector ${v.name}: unknown sign ${v.sign}`);
		}
		return { name: v.name, token: `${signing}.${sig}`,
		    valid: v.valid, reason: v.reason };
	});
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
	const [secret, audience] = process.argv.slice(2);
	if (!secret || !audience) {
		console.error('usage: node vectors.mjs SECRET AUDIENCE');
		process.exit(2);
	}
	console.log(JSON.stringify(materialize({ secret, audience }), null, 1));
}
