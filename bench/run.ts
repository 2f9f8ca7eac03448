// `npm run bench`: the benchmarks, side by side in one run against one fresh dev server.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEphemeralServer } from '../src/temporal/ephemeral-server.js';
import { installRuntime } from '../src/worker/runtime.js';
import { benchFanOut } from './fan-out.js';
import { benchFloor } from './floor.js';
import { benchLocks } from './locks.js';
import { benchLoadFault } from './load-fault.js';
import { benchLongJob } from './long-job.js';
import { benchParsers } from './parsers.js';
import { benchRouting } from './routing.js';

const only = process.argv[2];
if (only === 'parsers' || only === 'routing') {
  // No server needed.
  console.log(only === 'parsers' ? benchParsers() : benchRouting());
  process.exit(0);
}
if (only === 'load-fault') {
  // Its own cluster (temporal-server on PostgreSQL) and hosts; not the dev server.
  process.env.DAGENT_LOG_LEVEL ??= 'ERROR';
  const jobs = process.argv[3] ? Number(process.argv[3]) : undefined;
  const r = await benchLoadFault({ ...(jobs ? { jobs } : {}) });
  console.log(r.text);
  process.exit(r.ok ? 0 : 1); // CI runs it: a failed check fails the run
}
const work = mkdtempSync(path.join(tmpdir(), 'dagent-bench-'));
process.env.DAGENT_HOME ??= path.join(work, 'home');
process.env.DAGENT_LOG_LEVEL ??= 'ERROR';
installRuntime('ERROR');
const server = await startEphemeralServer(work, (l) => console.error(l));
process.env.TEMPORAL_ADDRESS = server.address;
try {
  if (!only || only === 'floor') console.log(`${(await benchFloor()).text}\n`);
  if (!only || only === 'fan-out') console.log(`${await benchFanOut()}\n`);
  if (!only || only === 'long-job') console.log(`${await benchLongJob()}\n`);
  if (!only || only === 'locks') console.log(`${await benchLocks()}\n`);
  if (!only) console.log(`${benchParsers()}\n\n${benchRouting()}\n`);
} finally {
  await server.stop();
}
process.exit(0);
