// The scripted records of a fairness report, shared by the API's and the
// console's tests (32-fairness, 55-console-fairness).

import { dbSQL } from './lib.mjs';

// fairnessRecords(id, T0): queue id's samples and served records from
// T0 (Unix ms).  60 numbers joined evenly over the first minute (number
// n at n s), admitted 30 a minute (n <= 30 at 2n s, then 60 + 2(n-30)
// s): every number waits exactly n seconds.  Served (first tokens) in
// the order 1, 3, 2, 5, 4: two inversions.
export function fairnessRecords(id, T0) {
	for (const [dt, issued, serving] of [[0, 0, 0], [60000, 60, 30],
	    [120000, 60, 60]])
		dbSQL('INSERT INTO queue_stats (queue_id, sampled_ms, waiting, ' +
		    'inflow_per_min, rate_per_minute, serving, issued, active) ' +
		    `VALUES (${id}, ${T0 + dt}, ${issued - serving}, 0, 30, ` +
		    `${serving}, ${issued}, 1)`);
	[1, 3, 2, 5, 4].forEach((n, i) => dbSQL('INSERT INTO queue_served ' +
	    `(queue_id, number, served_ms) VALUES (${id}, ${n}, ` +
	    `${T0 + 5000 + i * 1000})`));
}
