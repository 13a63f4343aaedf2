// test/bench/fcgid.mjs - the measuring part of test/bench/fcgid (run it
// through that script, which sets up the stack and the environment).
// For each mod_fcgid setting: start the shipped servers (test/http/
// servers.mjs), warm up, run wrk at each concurrency REPS times (targets
// interleaved), parse with the harness's wrk_parse, print medians.

import { execFileSync, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { startServers } from '../http/servers.mjs';
import { createQueue } from '../http/lib.mjs';

const DUR = Number(process.env.DUR ?? 10);
const REPS = Number(process.env.REPS ?? 3);
const CONC = (process.env.CONC ?? '64 8').split(' ').map(Number);
const PORT = Number(process.env.AQ_PORT);
const VAR = process.env.AQ_VAR;
const LIB = process.env.HARNESS_LIB;

// The baseline's mod_fcgid target: at most 4 processes, defaults else.
const BASELINE = `<IfModule mod_fcgid.c>
	FcgidMaxProcessesPerClass 4
	FcgidMaxProcesses 4
</IfModule>
`;

// wrk once; returns [rps, p50_us, p99_us, errors, requests].
function wrk(url, conc, dur) {
	const out = `${VAR}/wrk.txt`;
	const r = spawnSync('wrk', ['-t2', `-c${conc}`, `-d${dur}s`,
	    '--latency', url], { encoding: 'utf8', timeout: (dur + 30) * 1000 });
	writeFileSync(out, r.stdout ?? '');
	return execFileSync('bash', ['-c', `. "${LIB}"; wrk_parse "${out}"`],
	    { encoding: 'utf8' }).trim().split(' ').map(Number);
}

const median = (a) => {
	const s = [...a].sort((x, y) => x - y);
	return s.length % 2 ? s[(s.length - 1) / 2] :
	    (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const q = createQueue({ rate: 1000000 });
// Number 1, admitted: its status is what the page polls.
execFileSync('curl', ['-s', '-o', '/dev/null', '-X', 'POST',
    `http://127.0.0.1:${PORT}/queue/${q.slug}/join`]);
const path = (pre) => `${pre}/queue/${q.slug}/status?number=1`;
const rows = [];
for (const [label, fcgidConf] of [['shipped', null],
    ['baseline (4 processes)', BASELINE]]) {
	const srv = await startServers({ port1: PORT + 1,
	    sock: `${VAR}/run/fcgi.sock`, dir: `${VAR}/servers`, fcgidConf });
	try {
		const targets = [[`mod_fcgid, ${label}`,
		    srv.fcgid + path('/warteraum')]];
		if (fcgidConf === null)
			targets.push(['nginx -> pool x4',
			    `http://127.0.0.1:${PORT}${path('')}`],
			    ['Apache mod_proxy_fcgi -> pool x4',
			    srv.proxyFcgi + path('')],
			    ['lighttpd -> pool x4', srv.lighttpd + path('')]);
		// Warm-up.  mod_fcgid spawns a process only for a request that
		// found every process busy, slept a second and found none
		// free again: above-peak concurrency for a while grows its pool
		// to the peak, which FcgidMinProcessesPerClass then keeps.
		wrk(targets[0][1], 160, 5);
		wrk(targets[0][1], 160, 5);
		for (const [, url] of targets)
			wrk(url, 64, 3);
		for (const conc of CONC) {
			const res = targets.map(() => []);
			for (let rep = 0; rep < REPS; rep++)
				targets.forEach(([, url], i) =>
				    res[i].push(wrk(url, conc, DUR)));
			targets.forEach(([name], i) => rows.push({ name, conc,
			    rps: median(res[i].map((x) => x[0])),
			    p50: median(res[i].map((x) => x[1])) / 1000,
			    p99: median(res[i].map((x) => x[2])) / 1000,
			    errors: res[i].reduce((s, x) => s + x[3], 0) }));
		}
	} finally {
		await srv.stop();
	}
}
console.log(`DUR=${DUR} REPS=${REPS}: GET status, medians ` +
    '(errors summed over the repetitions)');
console.log('| set-up | conc | req/s | p50 ms | p99 ms | errors |');
console.log('|---|---:|---:|---:|---:|---:|');
for (const r of rows)
	console.log(`| ${r.name} | ${r.conc} | ${Math.round(r.rps)} | ` +
	    `${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${r.errors} |`);
