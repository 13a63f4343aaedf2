// worker.js - Cloudflare Worker in front of a shop: every request needs a
// valid aditus-queue pass, verified offline (WebCrypto HMAC-SHA256).
// Settings (Worker variables): ADITUS_SECRET (a secret), ADITUS_QUEUE
// (slug), ADITUS_ROOM (https://queue.example/queue/<slug>).
const COOKIE = 'aditus_queue', PARAM = 'aditus_queue_token';

const b64urlBytes = (s) => Uint8Array.from(atob(s.replace(/-/g, '+')
    .replace(/_/g, '/')), (c) => c.charCodeAt(0));
const b64json = (s) => JSON.parse(new TextDecoder().decode(b64urlBytes(s)));

async function verify(tok, env) {
	try {
		const [h, c, s] = tok.split('.');
		if (s === undefined || tok.split('.').length !== 3)
			return false;
		if (b64json(h).alg !== 'HS256')
			return false;
		const key = await crypto.subtle.importKey('raw',
		    new TextEncoder().encode(env.ADITUS_SECRET),
		    { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
		// crypto.subtle.verify compares in constant time.
		if (!await crypto.subtle.verify('HMAC', key, b64urlBytes(s),
		    new TextEncoder().encode(`${h}.${c}`)))
			return false;
		const cl = b64json(c), now = Math.floor(Date.now() / 1000);
		return cl.iss === 'aditus-queue' && cl.aud === env.ADITUS_QUEUE &&
		    typeof cl.exp === 'number' && cl.exp > now &&
		    (cl.nbf === undefined || cl.nbf <= now);
	} catch {
		return false;
	}
}

function cookies(h, name) {
	return (h || '').slice(0, 8192).split(';').map((p) => {
		const i = p.indexOf('=');
		if (i < 0 || p.slice(0, i).trim() !== name)
			return null;
		return p.slice(i + 1).trim().replace(/^"(.*)"$/, '$1');
	}).filter((v) => v);
}

export default {
	async fetch(request, env) {
		const url = new URL(request.url);
		const tok = url.searchParams.get(PARAM);
		url.searchParams.delete(PARAM);
		const room = () => Response.redirect(`${env.ADITUS_ROOM}?return=` +
		    encodeURIComponent(url.toString()), 302);
		if (tok !== null) {
			if (!await verify(tok, env))
				return room();
			return new Response(null, { status: 302, headers: {
			    Location: url.toString(), 'Set-Cookie': `${COOKIE}=` +
			    `${tok}; Path=/; Secure; HttpOnly; SameSite=Lax` } });
		}
		for (const c of cookies(request.headers.get('Cookie'), COOKIE))
			if (await verify(c, env))
				return fetch(request);
		return room();
	},
};
