import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import Ajv2020 from 'ajv/dist/2020.js';
import { parse } from 'yaml';
import { checkEnv } from '../../src/config.js';

// No Docker engine here: docker-compose.yml is checked against the Compose specification's JSON
// schema (from compose-go, fetched through the Go module proxy, a pinned version) and against
// the settings the code reads.
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const COMPOSE_GO = 'github.com/compose-spec/compose-go/v2@v2.16.2';

async function composeSchema(): Promise<object> {
  const { stdout } = await promisify(execFile)('go', ['mod', 'download', '-json', COMPOSE_GO], {
    env: { ...process.env, GOFLAGS: '-mod=mod' },
    cwd: ROOT,
  });
  const dir = (JSON.parse(stdout) as { Dir: string }).Dir;
  return JSON.parse(readFileSync(path.join(dir, 'schema', 'compose-spec.json'), 'utf8')) as object;
}

/** Every setting name the code mentions (DAGENT_…, TEMPORAL_…, OPENAI_…). */
function settingsTheCodeReads(): Set<string> {
  const names = new Set<string>();
  for (const f of readdirSync(path.join(ROOT, 'src'), { recursive: true, encoding: 'utf8' })) {
    if (!f.endsWith('.ts')) continue;
    for (const m of readFileSync(path.join(ROOT, 'src', f), 'utf8').matchAll(
      /\b((?:DAGENT|TEMPORAL|OPENAI)_[A-Z0-9_]+)\b/g,
    ))
      names.add(m[1]!);
  }
  return names;
}

type Service = {
  image?: string;
  build?: unknown;
  command?: string | string[];
  entrypoint?: string | string[];
  environment?: Record<string, string>;
};

describe('docker-compose.yml', () => {
  const compose = parse(readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
    services: Record<string, Service>;
  };

  it("is valid under the Compose specification's JSON schema (and the check can fail)", async () => {
    const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
    const validate = ajv.compile(await composeSchema());
    assert.ok(validate(compose), JSON.stringify(validate.errors, null, 2));
    const broken = structuredClone(compose) as { services: Record<string, Record<string, unknown>> };
    broken.services.worker!.deploy = { replicas: 'three' };
    broken.services.worker!.restart_policy_typo = true;
    assert.equal(validate(broken), false);
  });

  it('gives the workers only settings the code reads, with values it accepts', () => {
    const known = settingsTheCodeReads();
    const worker = compose.services.worker!;
    const env = worker.environment ?? {};
    for (const name of Object.keys(env))
      assert.ok(known.has(name), `${name} is set for the worker but read nowhere in src/`);
    // ${VAR:-} means empty when unset: check the values as the worker would see them.
    const seen = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, String(v).replace(/\$\{[^}]*\}/g, '')]));
    assert.doesNotThrow(() => checkEnv(seen));
  });

  it('builds the workers from the Dockerfile, installs nothing at container start, and runs the CLI', () => {
    const worker = compose.services.worker!;
    assert.ok(worker.build, 'the worker is built from the Dockerfile');
    for (const [name, s] of Object.entries(compose.services)) {
      const run = [s.command, s.entrypoint].flat().filter(Boolean).join(' ');
      assert.doesNotMatch(run, /npm (ci|install)/, `${name} installs packages at start`);
    }
    const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
    assert.match(dockerfile, /RUN npm run build/);
    assert.match(dockerfile, /npm ci --omit=dev/);
    assert.match(dockerfile, /ENTRYPOINT \["node", "bin\/dagent\.mjs"\]/);
    assert.match(dockerfile, /^USER node$/m);
  });
});
