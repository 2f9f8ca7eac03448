import { execFile, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';
import { cacheDir } from '../config.js';
import { waitForServer } from './dev-server.js';

// A production-shaped Temporal on one machine, without Docker: PostgreSQL (Debian's) holding the
// temporal and visibility schemas (created and migrated by Temporal's own SQL tool), and the
// temporal-server binary, both built from go.temporal.io/server with Go like the CLI is. The same
// server version as docker-compose.yml.

export const SERVER_VERSION = '1.29.1';
const MODULE = `go.temporal.io/server@v${SERVER_VERSION}`;
const run = promisify(execFile);

export interface ClusterOptions {
  /** Where its data lives: PostgreSQL's folder, the server config, logs, pids. */
  dir: string;
  pgPort: number;
  /** The frontend's gRPC port (the other services use the next ones). */
  port: number;
  /**
   * One more address of this machine that other hosts reach it at (e.g. a bridge to network
   * namespaces): PostgreSQL and the server listen there too, and PostgreSQL trusts that /24.
   */
  listen?: string;
  log: (line: string) => void;
}

/** The database of the content store (DAGENT_CONTENT_URL) in the cluster's PostgreSQL. */
export const CONTENT_DB = 'dagent_content';

export interface ClusterBinaries {
  server: string;
  sqlTool: string;
  /** schema/postgresql/v12 of the server module. */
  schemaDir: string;
}

/** temporal-server and temporal-sql-tool, built once into the user's cache (a few minutes the first time). */
export async function clusterBinaries(log: (l: string) => void): Promise<ClusterBinaries> {
  const dir = path.join(cacheDir(), 'temporal-server', SERVER_VERSION);
  const server = path.join(dir, 'server');
  const sqlTool = path.join(dir, 'sql');
  const env = { ...process.env, GOBIN: dir, GOFLAGS: '-mod=mod' };
  if (!existsSync(server) || !existsSync(sqlTool)) {
    log(`Building temporal-server and temporal-sql-tool ${SERVER_VERSION} with Go into ${dir} (the first time only)…`);
    mkdirSync(dir, { recursive: true });
    await run(
      'go',
      [
        'install',
        `go.temporal.io/server/cmd/server@v${SERVER_VERSION}`,
        `go.temporal.io/server/cmd/tools/sql@v${SERVER_VERSION}`,
      ],
      {
        env,
        maxBuffer: 64 * 1024 * 1024,
      },
    ).catch((err: Error & { stderr?: string }) => {
      throw new Error(`Building temporal-server failed: ${err.stderr?.slice(-2000) ?? err.message}`);
    });
  }
  const { stdout } = await run('go', ['mod', 'download', '-json', MODULE], { env });
  const schemaDir = path.join((JSON.parse(stdout) as { Dir: string }).Dir, 'schema', 'postgresql', 'v12');
  return { server, sqlTool, schemaDir };
}

/** Debian's PostgreSQL programs (not on PATH). */
function pgBin(name: string): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  for (const v of versions) {
    const p = path.join(root, v, 'bin', name);
    if (existsSync(p)) return p;
  }
  throw new Error(`PostgreSQL's ${name} was not found under ${root}: install Debian's postgresql package.`);
}

/** PostgreSQL refuses to run as root: as root, its programs run as the postgres user. */
async function asPostgres(cmd: string, args: string[]): Promise<string> {
  const root = process.getuid?.() === 0;
  const { stdout } = await run(root ? 'runuser' : cmd, root ? ['-u', 'postgres', '--', cmd, ...args] : args, {
    cwd: '/',
  });
  return stdout;
}

const paths = (dir: string) => ({
  pgData: path.join(dir, 'pg'),
  pgLog: path.join(dir, 'pg.log'),
  config: path.join(dir, 'config'),
  serverLog: path.join(dir, 'server.log'),
  serverPid: path.join(dir, 'server.pid'),
});

async function pgRunning(pgData: string): Promise<boolean> {
  return asPostgres(pgBin('pg_ctl'), ['-D', pgData, 'status']).then(
    () => true,
    () => false,
  );
}

async function startPostgres(o: ClusterOptions): Promise<void> {
  const p = paths(o.dir);
  if (!existsSync(path.join(p.pgData, 'PG_VERSION'))) {
    o.log(`Initialising PostgreSQL in ${p.pgData}…`);
    mkdirSync(p.pgData, { recursive: true });
    if (process.getuid?.() === 0) {
      const reachable = await run('runuser', ['-u', 'postgres', '--', 'test', '-x', path.dirname(o.dir)]).then(
        () => true,
        () => false,
      );
      if (!reachable)
        throw new Error(
          `PostgreSQL runs as the postgres user, who cannot reach ${path.dirname(o.dir)}: choose a --dir under a folder it can enter (for example /var/tmp/dagent-cluster).`,
        );
      const { stdout } = await run('id', ['-u', 'postgres']);
      const uid = Number(stdout.trim());
      for (const d of [o.dir, p.pgData]) chownSync(d, uid, uid);
    }
    await asPostgres(pgBin('initdb'), ['-D', p.pgData, '-U', 'temporal', '--auth=trust', '-E', 'UTF8']);
  }
  const trusted = trustNetwork(p.pgData, o.listen);
  if (await pgRunning(p.pgData)) {
    if (trusted) await asPostgres(pgBin('pg_ctl'), ['-D', p.pgData, 'reload']);
    return;
  }
  o.log(`Starting PostgreSQL on ${['127.0.0.1', ...(o.listen ? [o.listen] : [])].join(' and ')}:${o.pgPort}…`);
  await asPostgres(pgBin('pg_ctl'), [
    '-D',
    p.pgData,
    '-l',
    p.pgLog,
    '-w',
    '-o',
    `-p ${o.pgPort} -k ${p.pgData} -c listen_addresses=127.0.0.1${o.listen ? `,${o.listen}` : ''} -c max_connections=200`,
    'start',
  ]);
}

/** Lets hosts on the `listen` address's /24 connect (as on a private network of containers). */
function trustNetwork(pgData: string, listen: string | undefined): boolean {
  if (!listen) return false;
  if (!/^\d{1,3}(\.\d{1,3}){3}$/.test(listen)) throw new Error(`--listen ${listen} is not an IPv4 address.`);
  const hba = path.join(pgData, 'pg_hba.conf');
  const line = `host all all ${listen.replace(/\.\d+$/, '.0')}/24 trust`;
  const text = readFileSync(hba, 'utf8');
  if (text.includes(line)) return false;
  writeFileSync(hba, `${text.trimEnd()}\n${line}\n`);
  return true;
}

/** One SQL statement on the cluster's PostgreSQL, as its `temporal` user; its rows as text. */
export async function clusterSql(pgPort: number, db: string, sql: string): Promise<string> {
  const args = ['-h', '127.0.0.1', '-p', String(pgPort), '-U', 'temporal', '-d', db, '-tAc', sql];
  return (await run('psql', args)).stdout.trim();
}

/** Creates and migrates both schemas; a second run finds them current and changes nothing. */
async function setupSchemas(o: ClusterOptions, b: ClusterBinaries): Promise<void> {
  const common = ['--plugin', 'postgres12', '--ep', '127.0.0.1', '-p', String(o.pgPort), '-u', 'temporal'];
  for (const [db, schema] of [
    ['temporal', 'temporal'],
    ['temporal_visibility', 'visibility'],
  ] as const) {
    await run(b.sqlTool, [...common, '--db', db, 'create-database']).catch(() => {}); // exists already
    const versions = await clusterSql(o.pgPort, db, "select to_regclass('schema_version')");
    if (!versions) await run(b.sqlTool, [...common, '--db', db, 'setup-schema', '-v', '0.0']);
    await run(b.sqlTool, [...common, '--db', db, 'update-schema', '-d', path.join(b.schemaDir, schema, 'versioned')]);
  }
  // The content store's database (its table is created by the first worker that writes).
  await run(b.sqlTool, [...common, '--db', CONTENT_DB, 'create-database']).catch(() => {}); // exists already
}

function serverConfig(o: ClusterOptions): string {
  const db = (name: string, conns: number) => `      sql:
        pluginName: postgres12
        databaseName: ${name}
        connectAddr: 127.0.0.1:${o.pgPort}
        connectProtocol: tcp
        user: temporal
        password: ''
        maxConns: ${conns}
        maxIdleConns: ${conns}
        maxConnLifetime: 1h`;
  const svc = (name: string, offset: number) => `  ${name}:
    rpc:
      grpcPort: ${o.port + offset}
      membershipPort: ${o.port + 100 + offset}
      ${o.listen ? 'bindOnIP: 0.0.0.0' : 'bindOnLocalHost: true'}`;
  return `log:
  stdout: true
  level: warn
persistence:
  defaultStore: default
  visibilityStore: visibility
  numHistoryShards: 4
  datastores:
    default:
${db('temporal', 20)}
    visibility:
${db('temporal_visibility', 4)}
global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: 127.0.0.1
services:
${svc('frontend', 0)}
${svc('history', 1)}
${svc('matching', 2)}
${svc('worker', 3)}
clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: active
  currentClusterName: active
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: frontend
      rpcAddress: 127.0.0.1:${o.port}
dcRedirectionPolicy:
  policy: noop
`;
}

/** Starts the server (detached, logging to server.log) on the migrated database; resolves when it serves. */
export async function startServer(o: ClusterOptions, b: ClusterBinaries): Promise<number> {
  const p = paths(o.dir);
  mkdirSync(p.config, { recursive: true });
  writeFileSync(path.join(p.config, 'dagent.yaml'), serverConfig(o));
  const out = openSync(p.serverLog, 'a');
  const child = spawn(
    b.server,
    ['--root', o.dir, '--config', 'config', '--env', 'dagent', '--allow-no-auth', 'start'],
    {
      detached: true,
      stdio: ['ignore', out, out],
    },
  );
  child.unref();
  writeFileSync(p.serverPid, String(child.pid));
  await waitForServer(`127.0.0.1:${o.port}`, 90_000, child, p.serverLog);
  return child.pid!;
}

async function ensureNamespace(address: string): Promise<void> {
  const connection = await Connection.connect({ address });
  try {
    await connection.workflowService
      .registerNamespace({ namespace: 'default', workflowExecutionRetentionPeriod: msToTs('7 days') })
      .catch((err: { code?: number }) => {
        if (err.code !== 6) throw err; // ALREADY_EXISTS
      });
    // A new namespace takes a moment to reach every service.
    for (let i = 0; i < 100; i++) {
      const ok = await connection.workflowService.describeNamespace({ namespace: 'default' }).then(
        () => true,
        () => false,
      );
      if (ok) return;
      await new Promise((r) => setTimeout(r, 200));
    }
  } finally {
    await connection.close();
  }
}

/** The content store's URL for hosts that reach the cluster at `host`. */
export const contentStoreUrl = (host: string, pgPort: number) => `postgres://temporal@${host}:${pgPort}/${CONTENT_DB}`;

/** `dagent cluster up`: PostgreSQL, schemas, server, namespace; returns TEMPORAL_ADDRESS. */
export async function clusterUp(o: ClusterOptions): Promise<string> {
  // The services' membership ports (port+100…port+103) are stored in a smallint column.
  if (o.port + 103 > 32_767)
    throw new Error(`--port ${o.port} is too high: Temporal keeps membership ports (port+100…+103) below 32768.`);
  const b = await clusterBinaries(o.log);
  mkdirSync(o.dir, { recursive: true });
  await startPostgres(o);
  o.log('Creating and migrating the temporal and temporal_visibility schemas…');
  await setupSchemas(o, b);
  const address = `127.0.0.1:${o.port}`;
  if (!serverPid(o.dir)) {
    o.log(`Starting temporal-server ${SERVER_VERSION} on ${address} (log: ${paths(o.dir).serverLog})…`);
    await startServer(o, b);
  }
  await ensureNamespace(address);
  return address;
}

/** Restarts PostgreSQL at once (`-m fast`: open connections are cut), as a database failover would. */
export async function restartPostgres(dir: string): Promise<void> {
  // With its log file again: else the new postmaster would hold our stdout pipe open.
  await asPostgres(pgBin('pg_ctl'), ['-D', paths(dir).pgData, '-l', paths(dir).pgLog, '-m', 'fast', '-w', 'restart']);
}

const portFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });

/** A base port whose block (frontend…worker, and their membership ports) is free. */
export async function freePortBlock(): Promise<number> {
  for (;;) {
    const base = 20_000 + Math.floor(Math.random() * 12_000); // membership ports must stay below 32768
    const ports = [0, 1, 2, 3, 100, 101, 102, 103].map((d) => base + d);
    if ((await Promise.all(ports.map(portFree))).every(Boolean)) return base;
  }
}

/** The running server's pid, if any. */
export function serverPid(dir: string): number | null {
  const file = paths(dir).serverPid;
  if (!existsSync(file)) return null;
  const pid = Number(readFileSync(file, 'utf8'));
  try {
    process.kill(pid, 0);
    // A pid file can be stale (the pid reused): ours runs with this folder on its command line.
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(dir) ? pid : null;
  } catch {
    return null;
  }
}

/** Stops the server, then PostgreSQL (its data stays). */
export async function clusterDown(o: Pick<ClusterOptions, 'dir' | 'log'>): Promise<void> {
  const p = paths(o.dir);
  const pid = serverPid(o.dir);
  if (pid) {
    process.kill(pid, 'SIGTERM');
    for (let i = 0; i < 100 && serverPid(o.dir); i++) await new Promise((r) => setTimeout(r, 100));
    if (serverPid(o.dir)) process.kill(pid, 'SIGKILL');
    o.log(`temporal-server: stopped (pid ${pid}).`);
  }
  rmSync(p.serverPid, { force: true });
  if (existsSync(p.pgData) && (await pgRunning(p.pgData))) {
    await asPostgres(pgBin('pg_ctl'), ['-D', p.pgData, '-m', 'fast', '-w', 'stop']);
    o.log('PostgreSQL: stopped.');
  }
}

export async function clusterStatus(dir: string): Promise<{ server: number | null; postgres: boolean }> {
  const p = paths(dir);
  return { server: serverPid(dir), postgres: existsSync(p.pgData) && (await pgRunning(p.pgData)) };
}
