// `npm test`: typecheck, then every test file against ONE real Temporal dev server started here.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnDevServer, waitForServer } from '../src/temporal/dev-server.js';
import { locateTemporalCli } from '../src/temporal/locate-cli.js';
import { bundleWorkflows } from '../src/worker/bundle.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const started = Date.now();
const say = (l: string) => process.stderr.write(`[test] ${l}\n`);

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

const filter = process.argv.slice(2);
const files = ['unit', 'integration']
  .flatMap((dir) => readdirSync(path.join(root, 'tests', dir)).filter((f) => f.endsWith('.test.ts')).map((f) => path.join('tests', dir, f)))
  .filter((f) => filter.length === 0 || filter.some((x) => f.includes(x)));

if (filter.length === 0) {
  say('typecheck (tsc --noEmit)…');
  const tsc = spawnSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '--noEmit', '-p', root], { stdio: 'inherit' });
  if (tsc.status !== 0) process.exit(tsc.status ?? 1);
}

const work = mkdtempSync(path.join(tmpdir(), 'dagent-test-'));
const cliPath = await locateTemporalCli((l) => say(l));
const port = await freePort();
const address = `127.0.0.1:${port}`;
say(`Temporal dev server ${cliPath} on ${address}…`);
const server = spawnDevServer({ cliPath, port, logFile: path.join(work, 'server.log') });
let code = 1;
try {
  await waitForServer(address, 60_000, server, path.join(work, 'server.log'));
  const bundle = await bundleWorkflows(path.join(work, 'workflows.js'));
  say(`server up and workflows bundled in ${((Date.now() - started) / 1000).toFixed(1)} s; ${files.length} test files`);
  const env: NodeJS.ProcessEnv = { ...process.env, TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: 'default', DAGENT_WORKFLOW_BUNDLE: bundle, DAGENT_HOME: path.join(work, 'home'), DAGENT_LOG_LEVEL: process.env.DAGENT_LOG_LEVEL ?? 'ERROR', DAGENT_TEST_SERVER_LOG: path.join(work, 'server.log') };
  delete env.OPENAI_BASE_URL;
  delete env.OPENAI_API_KEY;
  code = await new Promise<number>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=4', '--test-reporter=spec', ...files], { cwd: root, env, stdio: 'inherit' });
    child.on('close', (c) => resolve(c ?? 1));
  });
} finally {
  server.kill('SIGTERM');
  await new Promise((r) => server.once('close', r));
  if (code === 0) rmSync(work, { recursive: true, force: true });
  else say(`kept ${work} (server log, bundle) for inspection`);
}
say(`finished in ${((Date.now() - started) / 1000).toFixed(1)} s, exit code ${code}`);
process.exit(code);
