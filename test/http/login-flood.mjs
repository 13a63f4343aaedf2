// test/http/login-flood.mjs - a log-in flood from its own process (so
// that its own work never delays the measurements of the test that
// starts it): 20 clients, one per loopback address 127.0.0.2-127.0.0.21,
// each making 10 log-in attempts (the form, then the POST) with random
// user names through nginx.  Prints one JSON line: {answers: [{status,
// retry, ms}]}.  Run by 50-login-protect.test.mjs; by hand:
//   AQ_BASE=http://127.0.0.1:8080 node test/http/login-flood.mjs

import { randomBytes } from 'node:crypto';
import { loop, LoopClient } from './loopback.mjs';

const answers = [];
await Promise.all(Array.from({ length: 20 }, async (_, a) => {
	for (let i = 0; i < 10; i++) {
		const c = new LoopClient(loop(a));
		const r = await c.login(`u${randomBytes(6).toString('hex')}`,
		    'wrong-password-123');
		answers.push({ status: r.status, retry: r.h('retry-after'),
		    ms: r.ms });
	}
}));
process.stdout.write(`${JSON.stringify({ answers })}\n`);
