// index.mjs - AWS Lambda@Edge (viewer request) in front of a shop on
// CloudFront: every request needs a valid aditus-queue pass, verified
// offline.  Lambda@Edge has no environment variables: the three settings
// are constants here (deploy one function per queue; keep the secret in
// the function's code only, or fetch it from Secrets Manager at start).
import { createHmac, timingSafeEqual } from 'node:crypto';

const SECRET = 'REPLACE-WITH-THE-QUEUE-SECRET';
const QUEUE = 'sale';
const ROOM = 'https://queue.example/queue/sale';
const COOKIE = 'aditus_queue', PARAM = 'aditus_queue_token';

function verify(tok) {
	const p = typeof tok === 'string' ? tok.split('.') : [];
	if (p.length !== 3)
		return false;
	try {
		const h = JSON.parse(Buffer.from(p[0], 'base64url'));
		if (h.alg !== 'HS256')
			return false;
		const mac = createHmac('sha256', SECRET).update(`${p[0]}.${p[1]}`)
		    .digest();
		const sig = Buffer.from(p[2], 'base64url');
		if (sig.length !== mac.length || !timingSafeEqual(sig, mac))
			return false;
		const c = JSON.parse(Buffer.from(p[1], 'base64url'));
		const now = Math.floor(Date.now() / 1000);
		return c.iss === 'aditus-queue' && c.aud === QUEUE &&
		    typeof c.exp === 'number' && c.exp > now &&
		    (c.nbf === undefined || c.nbf <= now);
	} catch {
		return false;
	}
}

const redirect = (location, extra = {}) => ({ status: '302',
    headers: { location: [{ key: 'Location', value: location }], ...extra } });

export const handler = async (event) => {
	const req = event.Records[0].cf.request;
	const host = req.headers.host[0].value;
	const qs = new URLSearchParams(req.querystring);
	const tok = qs.get(PARAM);
	qs.delete(PARAM);
	const clean = `https://${host}${req.uri}${qs.size ? `?${qs}` : ''}`;
	const room = () => redirect(`${ROOM}?return=${encodeURIComponent(clean)}`);
	if (tok !== null)
		return verify(tok) ? redirect(clean, { 'set-cookie': [{
		    key: 'Set-Cookie', value: `${COOKIE}=${tok}; Path=/; ` +
		    'Secure; HttpOnly; SameSite=Lax' }] }) : room();
	for (const h of req.headers.cookie ?? [])
		for (const p of h.value.split(';')) {
			const i = p.indexOf('=');
			if (i > 0 && p.slice(0, i).trim() === COOKIE &&
			    verify(p.slice(i + 1).trim().replace(/^"(.*)"$/, '$1')))
				return req;
		}
	return room();
};
