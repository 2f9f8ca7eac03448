// `npm test`: build and typecheck, then every test file against ONE real Temporal dev server
// started here. `npm test -- NAME…` runs the files whose path contains a NAME; `npm run test:unit`
// (`--unit`) runs the unit tests alone, with no server.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEphemeralServer } from '../src/temporal/ephemeral-server.js';
import { bundleWorkflows } from '../src/worker/bundle.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const started = Date.now();
const say = (l: string) => process.stderr.write(`[test] ${l}\n`);
/** A test that runs longer than this fails the run instead of hanging it. */
const TEST_TIMEOUT_MS = 240_000;

const args = process.argv.slice(2);
const unitOnly = args.includes('--unit');
const filter = args.filter((a) => a !== '--unit');
const files = (unitOnly ? ['unit'] : ['unit', 'integration'])
  .flatMap((dir) =>
    readdirSync(path.join(root, 'tests', dir))
      .filter((f) => f.endsWith('.test.ts'))
      .map((f) => path.join('tests', dir, f)),
  )
  .filter((f) => filter.length === 0 || filter.some((x) => f.includes(x)));

const tsc = (what: string, tscArgs: string[]) => {
  say(`${what}…`);
  const r = spawnSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), ...tscArgs], {
    stdio: 'inherit',
  });
  if (r.status !== 0) process.exit(r.status ?? 1);
};

const runTests = (env: NodeJS.ProcessEnv) =>
  new Promise<number>((resolve) => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '--test',
        '--test-concurrency=4',
        `--test-timeout=${TEST_TIMEOUT_MS}`,
        '--test-reporter=spec',
        ...files,
      ],
      { cwd: root, env, stdio: 'inherit' },
    );
    child.on('close', (c) => resolve(c ?? 1));
  });

const work = mkdtempSync(path.join(tmpdir(), 'dagent-test-'));
const baseEnv: NodeJS.ProcessEnv = {
  ...process.env,
  DAGENT_HOME: path.join(work, 'home'),
  DAGENT_LOG_LEVEL: process.env.DAGENT_LOG_LEVEL ?? 'ERROR',
};
delete baseEnv.OPENAI_BASE_URL;
delete baseEnv.OPENAI_API_KEY;
delete baseEnv.TEMPORAL_ADDRESS;

let code = 1;
if (unitOnly) {
  say(`${files.length} unit test files, no server`);
  code = await runTests(baseEnv);
  rmSync(work, { recursive: true, force: true });
} else {
  // The library's compiled output (dist/): the package's entry points, which examples and tests import.
  tsc('build (tsc -p tsconfig.build.json)', ['-p', path.join(root, 'tsconfig.build.json')]);
  if (filter.length === 0) {
    tsc('typecheck (tsc --noEmit)', ['--noEmit', '-p', root]);
    tsc('typecheck the ui page (tsc --noEmit -p src/ui/page)', ['--noEmit', '-p', path.join(root, 'src/ui/page')]);
  }
  const server = await startEphemeralServer(work, say);
  try {
    const bundle = await bundleWorkflows(path.join(work, 'workflows.js'));
    say(
      `server up and workflows bundled in ${((Date.now() - started) / 1000).toFixed(1)} s; ${files.length} test files`,
    );
    code = await runTests({
      ...baseEnv,
      TEMPORAL_ADDRESS: server.address,
      TEMPORAL_NAMESPACE: 'default',
      DAGENT_WORKFLOW_BUNDLE: bundle,
      DAGENT_TEST_SERVER_LOG: server.logFile,
    });
  } finally {
    await server.stop();
    if (code === 0) rmSync(work, { recursive: true, force: true });
    else say(`kept ${work} (server log, bundle) for inspection`);
  }
}
say(`finished in ${((Date.now() - started) / 1000).toFixed(1)} s, exit code ${code}`);
process.exit(code);
