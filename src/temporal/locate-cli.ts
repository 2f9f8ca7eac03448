import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, mkdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { cacheDir } from '../config.js';

export const TEMPORAL_CLI_VERSION = '1.5.1';
const MODULE = 'github.com/temporalio/cli/cmd/temporal';

const isExecutable = (p: string) => {
  try {
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir && isExecutable(path.join(dir, name))) return path.join(dir, name);
  }
  return undefined;
}

export const cachedCliPath = () => path.join(cacheDir(), 'temporal-cli', TEMPORAL_CLI_VERSION, 'temporal');

/** Where the Temporal CLI is, without building anything: $TEMPORAL_CLI_PATH, PATH, then the cache. */
export function findTemporalCli(): string | undefined {
  const fromEnv = process.env.TEMPORAL_CLI_PATH;
  if (fromEnv) {
    if (!isExecutable(fromEnv)) throw new Error(`TEMPORAL_CLI_PATH=${fromEnv} is not an executable file.`);
    return fromEnv;
  }
  return onPath('temporal') ?? (isExecutable(cachedCliPath()) ? cachedCliPath() : undefined);
}

/**
 * Finds the Temporal CLI (it contains the dev server), building it from the Go module proxy into
 * the per-user cache the first time. Progress goes to `log`.
 */
export async function locateTemporalCli(
  log: (line: string) => void = (l) => process.stderr.write(`${l}\n`),
): Promise<string> {
  const found = findTemporalCli();
  if (found) return found;
  const go = onPath('go');
  if (!go) {
    throw new Error(
      'The Temporal CLI (which contains the dev server) was not found, and Go is not installed to build it.\n' +
        'Do one of these:\n' +
        '  - install Go 1.23 or newer (https://go.dev/dl/; older distribution packages are too old), then run this again;\n' +
        '  - install the Temporal CLI and put `temporal` on your PATH;\n' +
        '  - set TEMPORAL_CLI_PATH to an existing `temporal` binary;\n' +
        '  - or set TEMPORAL_ADDRESS to use a Temporal server you already run.',
    );
  }
  const target = cachedCliPath();
  const staging = `${path.dirname(target)}.build-${process.pid}`;
  mkdirSync(staging, { recursive: true });
  log(`Building the Temporal CLI v${TEMPORAL_CLI_VERSION} with ${go} (first time on this machine; a few minutes)…`);
  log(`  into ${target}`);
  const started = Date.now();
  const modules = new Set<string>();
  const code = await new Promise<number>((resolve, reject) => {
    const child = spawn(
      go,
      [
        'install',
        '-ldflags',
        `-X github.com/temporalio/cli/temporalcli.Version=${TEMPORAL_CLI_VERSION}`,
        `${MODULE}@v${TEMPORAL_CLI_VERSION}`,
      ],
      {
        env: { ...process.env, GOBIN: staging, GOFLAGS: '-mod=mod' },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let tail = '';
    child.stderr.on('data', (b: Buffer) => {
      const text = b.toString();
      tail = (tail + text).slice(-4000);
      for (const m of text.matchAll(/go: downloading (\S+)/g)) modules.add(m[1]!);
    });
    const ticker = setInterval(() => {
      log(
        `  … ${Math.round((Date.now() - started) / 1000)} s (${modules.size} modules downloaded so far; then compiling)`,
      );
    }, 15_000);
    child.on('error', (e) => {
      clearInterval(ticker);
      reject(e);
    });
    child.on('close', (c) => {
      clearInterval(ticker);
      if (c !== 0) log(tail);
      resolve(c ?? 1);
    });
  });
  if (code !== 0) {
    rmSync(staging, { recursive: true, force: true });
    throw new Error(
      `Building the Temporal CLI failed (go install exited ${code}); its output is above. Set TEMPORAL_CLI_PATH or TEMPORAL_ADDRESS to skip the build.`,
    );
  }
  mkdirSync(path.dirname(target), { recursive: true });
  renameSync(path.join(staging, 'temporal'), target);
  rmSync(staging, { recursive: true, force: true });
  const version = spawnSync(target, ['--version'], { encoding: 'utf8' }).stdout.trim();
  log(`Built ${version} in ${Math.round((Date.now() - started) / 1000)} s.`);
  return target;
}
