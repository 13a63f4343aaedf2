// test/bench/pow/browser.mjs - the proof of work's solve time in headless
// Chromium (Debian's), with the waiting room's own solver
// (static/pow.js: a Web Worker, WebCrypto): N random challenges at BITS,
// median and 95th percentile, and the hashes per second.  Needs a
// running stack to serve the page and the script (a secure context on
// 127.0.0.1):
//   AQ_BASE=http://127.0.0.1:8080 node test/bench/pow/browser.mjs [BITS [N]]

import { randomBytes } from 'node:crypto';
import { chromium } from 'playwright-core';

const base = (process.env.AQ_BASE ?? 'http://127.0.0.1:8080')
    .replace(/\/+$/, '');
const bits = Number(process.argv[2] ?? 15);
const n = Number(process.argv[3] ?? 50);
const b = await chromium.launch({ executablePath: process.env.CHROMIUM ??
    '/usr/bin/chromium', args: ['--headless', '--no-sandbox',
    '--disable-gpu'] });
try {
	const page = await b.newPage();
	await page.goto(`${base}/shop/`);
	await page.addScriptTag({ url: `${base}/queue-static/pow.js` });
	const chs = Array.from({ length: n }, () =>
	    randomBytes(66).toString('base64url'));
	const r = await page.evaluate(async ({ chs, bits, url }) => {
		const times = [];
		let tried = 0;
		for (const c of chs) {
			const t0 = performance.now();
			const nonce = await window.AditusPow.solve(c, bits,
			    { workerUrl: url }).promise;
			times.push(performance.now() - t0);
			tried += Number(nonce) + 1;
		}
		return { times, tried };
	}, { chs, bits, url: `${base}/queue-static/pow.js` });
	const t = r.times.sort((x, y) => x - y);
	const total = t.reduce((s, x) => s + x, 0);
	console.log(`Chromium (static/pow.js, Web Worker, WebCrypto): ` +
	    `${Math.round(r.tried / total * 1000)} hashes/s; ${n} challenges ` +
	    `at ${bits} bits: median ${t[Math.floor(n / 2)].toFixed(0)} ms, ` +
	    `p95 ${t[Math.floor(n * 0.95)].toFixed(0)} ms`);
} finally {
	await b.close();
}
