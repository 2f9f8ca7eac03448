// `npm run bench -- load-fault`: many concurrent jobs over three worker hosts on the PostgreSQL
// cluster; one host is killed mid-load and PostgreSQL is restarted once. Then it checks, from the
// histories and the workspaces' ledgers, that every job completed, that no non-idempotent call ran
// twice, and that hosts sharing a workspace used the same lock keys; and prints the figures.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection, defaultPayloadConverter } from '@temporalio/client';
import type { ChildProcess } from 'node:child_process';
import { CLI_BIN } from '../src/paths.js';
import {
  clusterDown,
  clusterSql,
  clusterUp,
  CONTENT_DB,
  contentStoreUrl,
  freePortBlock,
  restartPostgres,
} from '../src/temporal/cluster.js';
import type { ToolRequest, ToolResult } from '../src/workflow-safe/types.js';
import { killHost, setupNetwork, spawnOnHost, type Host } from './hosts/network.js';
import { quantile, table } from './stats.js';

const LEDGER_TOOL = fileURLToPath(new URL('./hosts/ledger-tool.ts', import.meta.url));
const WORKSPACES = ['alpha', 'beta', 'gamma'];
/** Which workspaces each host has: every workspace on two hosts, so any one host may die. */
const DECLARED: Record<string, string[]> = { h1: ['alpha', 'beta'], h2: ['beta', 'gamma'], h3: ['gamma', 'alpha'] };
const STEPS_PER_JOB = 4;
const TASK_QUEUE = 'dagent-load';

const scenario = {
  name: 'load-and-fault',
  steps: [
    {
      delayMs: 100,
      reply: {
        toolCalls: [
          { name: 'read_file', arguments: { path: 'README.md' } },
          { name: 'list_files', arguments: { path: '.' } },
        ],
      },
    },
    { delayMs: 100, reply: { toolCalls: [{ name: 'append_ledger', arguments: { path: 'ledger.txt' } }] } },
    { delayMs: 100, reply: { toolCalls: [{ name: 'read_file', arguments: { path: 'README.md' } }] } },
    { delayMs: 100, reply: { content: 'done' } },
  ],
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Worker {
  host: Host;
  proc: ChildProcess;
  log: string;
  peakRssKb: number;
}

export async function benchLoadFault(
  o: { jobs?: number; log?: (l: string) => void } = {},
): Promise<{ text: string; ok: boolean }> {
  const jobs = o.jobs ?? 200;
  const log = o.log ?? ((l: string) => console.error(l));
  // PostgreSQL runs as its own user when we are root: its folder must be reachable by it.
  mkdirSync('/var/tmp', { recursive: true });
  const dir = mkdtempSync('/var/tmp/dagent-load-');
  chmodSync(dir, 0o755);
  const net = setupNetwork(3, 'dload');
  log(`hosts: ${net.how}`);
  const port = await freePortBlock();
  let pgPort = await freePortBlock();
  while (Math.abs(pgPort - port) < 200) pgPort = await freePortBlock();
  const cluster = { dir: path.join(dir, 'cluster'), port, pgPort, log };
  const workers: Worker[] = [];
  let connection: Connection | undefined;
  try {
    await clusterUp({ ...cluster, ...(net.bridgeIp ? { listen: net.bridgeIp } : {}) });
    const address = `127.0.0.1:${port}`;
    const psql = (sql: string, db = 'temporal') => clusterSql(pgPort, db, sql);
    const dbBytes = async () =>
      Number(
        await psql(
          `select sum(pg_database_size(d)) from unnest(array['temporal','temporal_visibility','${CONTENT_DB}']) d`,
        ),
      );

    // The workspaces: one folder each, which every host that has it sees at a path of its own.
    for (const ws of WORKSPACES) {
      mkdirSync(path.join(dir, 'shared', ws), { recursive: true });
      writeFileSync(path.join(dir, 'shared', ws, 'README.md'), `# ${ws}\n\n${'A line of the readme.\n'.repeat(40)}`);
    }
    const scenarioFile = path.join(dir, 'scenario.json');
    writeFileSync(scenarioFile, JSON.stringify(scenario));
    const ledgers = new Map<string, string>();
    for (const host of net.hosts) {
      const args = ['worker'];
      for (const ws of DECLARED[host.name]!) {
        const seen = path.join(dir, host.name, 'srv', ws);
        mkdirSync(path.dirname(seen), { recursive: true });
        symlinkSync(path.join(dir, 'shared', ws), seen);
        args.push('--workspace', `${ws}=${seen}`);
      }
      ledgers.set(host.name, path.join(dir, host.name, 'model-requests.jsonl'));
      const proc = spawnOnHost(host, process.execPath, [CLI_BIN, ...args], {
        ...process.env,
        TEMPORAL_ADDRESS: `${host.clusterIp}:${port}`,
        DAGENT_CONTENT_URL: contentStoreUrl(host.clusterIp, pgPort),
        DAGENT_HOME: path.join(dir, host.name, 'home'),
        DAGENT_TASK_QUEUE: TASK_QUEUE,
        DAGENT_SCENARIO: scenarioFile,
        DAGENT_SCRIPTED_LEDGER: ledgers.get(host.name)!,
        DAGENT_PLUGINS: LEDGER_TOOL,
        DAGENT_HOST_NAME: host.name,
        OPENAI_BASE_URL: '',
        OPENAI_API_KEY: '',
      });
      const w: Worker = { host, proc, log: '', peakRssKb: 0 };
      proc.stdout!.on('data', (b) => (w.log += String(b)));
      proc.stderr!.on('data', (b) => (w.log += String(b)));
      workers.push(w);
    }
    for (const w of workers) {
      for (let i = 0; !w.log.includes('Worker polling'); i++) {
        if (i > 600 || w.proc.exitCode !== null) throw new Error(`worker ${w.host.name} did not start:\n${w.log}`);
        await sleep(200);
      }
    }
    log(`3 workers polling; starting ${jobs} jobs`);
    const sampler = setInterval(() => {
      for (const w of workers) {
        try {
          const hwm = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${w.proc.pid}/status`, 'utf8'));
          if (hwm) w.peakRssKb = Math.max(w.peakRssKb, Number(hwm[1]));
        } catch {
          /* exited */
        }
      }
    }, 250);

    connection = await Connection.connect({ address });
    const client = new Client({ connection });
    const bytesBefore = await dbBytes();
    const started = Date.now();
    const ids = Array.from({ length: jobs }, (_, i) => `load-${started}-${i}`);
    await Promise.all(
      ids.map((id, i) => {
        const ws = WORKSPACES[i % WORKSPACES.length]!;
        return client.workflow.start('agentTurn', {
          taskQueue: TASK_QUEUE,
          workflowId: id,
          args: [{ task: `job ${i}`, workspace: `/srv/${ws}`, workspaceId: ws }],
        });
      }),
    );
    const results = ids.map((id) =>
      client.workflow
        .getHandle(id)
        .result()
        .then((r: { status: string }) => r.status)
        .catch((e: Error) => `failed: ${e.message}`),
    );
    const modelRequests = () =>
      [...ledgers.values()].reduce(
        (n, f) => n + (existsSync(f) ? readFileSync(f, 'utf8').split('\n').filter(Boolean).length : 0),
        0,
      );
    const total = jobs * STEPS_PER_JOB;
    const faults: string[] = [];
    const killed = net.hosts[1]!;
    const faultsDone = (async () => {
      while (modelRequests() < total * 0.3) await sleep(100);
      const w = workers.find((x) => x.host === killed)!;
      killHost(killed, [w.proc.pid!]);
      faults.push(`+${((Date.now() - started) / 1000).toFixed(1)} s: host ${killed.name} killed (SIGKILL)`);
      log(faults.at(-1)!);
      while (modelRequests() < total * 0.6) await sleep(100);
      const t = Date.now();
      await restartPostgres(cluster.dir);
      faults.push(
        `+${((t - started) / 1000).toFixed(1)} s: PostgreSQL restarted (fast: connections cut; ${Date.now() - t} ms)`,
      );
      log(faults.at(-1)!);
    })();
    const statuses = await Promise.all(results);
    const wall = (Date.now() - started) / 1000;
    await faultsDone;
    clearInterval(sampler);
    const bytesAfter = await dbBytes();

    // What history says each job did.
    // A worker's identity is pid@host: the pid of the exec'd process, the host name of its namespace.
    const pidHost = new Map(workers.map((w) => [String(w.proc.pid), w.host.name]));
    const hostOf = (identity: string) => pidHost.get(identity.split('@')[0]!) ?? (identity.split('@')[1] || '?');
    const stepLatencies: number[] = [];
    let steps = 0;
    const appends: Array<{
      jobId: string;
      callId: string;
      host: string;
      outcome: 'ok' | 'error' | 'unknown';
    }> = [];
    const keysOf = new Map<string, { keys: Set<string>; hosts: Set<string> }>();
    const startedByAll = new Map<string, string>();
    for (const id of ids) {
      const events = (await client.workflow.getHandle(id).fetchHistory()).events ?? [];
      const when = (e: (typeof events)[number]) =>
        Number(e.eventTime?.seconds ?? 0) * 1000 + (e.eventTime?.nanos ?? 0) / 1e6;
      const modelAt: number[] = [];
      const scheduled = new Map<string, ToolRequest>();
      const startedBy = new Map<string, string>();
      for (const e of events) {
        const s = e.activityTaskScheduledEventAttributes;
        if (s?.activityType?.name === 'callModel') modelAt.push(when(e));
        if (s?.activityType?.name === 'runTool') {
          const req = defaultPayloadConverter.fromPayload<ToolRequest>(s.input!.payloads![0]!);
          scheduled.set(String(e.eventId), req);
        }
        const st = e.activityTaskStartedEventAttributes;
        const started = st && scheduled.get(String(st.scheduledEventId));
        if (started) {
          const host = hostOf(st.identity ?? '');
          startedBy.set(String(st.scheduledEventId), host);
          // The key each host gave each file it touched.
          for (const key of started.call.resources ?? []) {
            const file = `${started.workspaceId}:${key.replace(/^file:[^/]+\//, '')}`;
            const seen = keysOf.get(file) ?? { keys: new Set<string>(), hosts: new Set<string>() };
            seen.keys.add(key);
            seen.hosts.add(host);
            keysOf.set(file, seen);
          }
        }
        const done =
          e.activityTaskCompletedEventAttributes ??
          e.activityTaskFailedEventAttributes ??
          e.activityTaskTimedOutEventAttributes;
        const sid = done ? String(done.scheduledEventId) : '';
        const req = scheduled.get(sid);
        if (req?.call.name === 'append_ledger') {
          const result = e.activityTaskCompletedEventAttributes
            ? defaultPayloadConverter.fromPayload<ToolResult>(
                e.activityTaskCompletedEventAttributes.result!.payloads![0]!,
              )
            : null;
          appends.push({
            jobId: id,
            callId: req.call.id,
            host: startedBy.get(sid) ?? '?',
            outcome: result ? (result.isError ? 'error' : 'ok') : 'unknown',
          });
        }
      }
      for (const [k, h] of startedBy) startedByAll.set(`${id}/${k}`, h);
      const end = when(events.at(-1)!);
      steps += modelAt.length;
      modelAt.forEach((t, i) => stepLatencies.push((modelAt[i + 1] ?? end) - t));
    }

    // What the ledgers say ran.
    const lines = new Map<string, number>();
    for (const ws of WORKSPACES) {
      const f = path.join(dir, 'shared', ws, 'ledger.txt');
      for (const l of existsSync(f) ? readFileSync(f, 'utf8').split('\n').filter(Boolean) : []) {
        const [job, call] = l.split(' ');
        lines.set(`${job} ${call}`, (lines.get(`${job} ${call}`) ?? 0) + 1);
      }
    }
    const twice = [...lines.values()].filter((n) => n > 1).length;
    const okRecorded = appends.filter((a) => a.outcome === 'ok');
    const okMissing = okRecorded.filter((a) => lines.get(`${a.jobId} ${a.callId}`) !== 1).length;
    const unknown = appends.filter((a) => a.outcome !== 'ok');
    const recordedIds = new Set(appends.map((a) => `${a.jobId} ${a.callId}`));
    const unrecorded = [...lines.keys()].filter((k) => !recordedIds.has(k)).length;
    const completed = statuses.filter((s) => s === 'completed').length;
    const checks: Array<[string, boolean, string]> = [
      ['every job completed', completed === jobs, `${completed} of ${jobs}`],
      ['no non-idempotent call ran twice (ledger lines per call)', twice === 0, `${twice} ran twice`],
      [
        'every append history records as done is in the ledger once',
        okMissing === 0,
        `${okRecorded.length} done, ${okMissing} missing`,
      ],
      ['nothing in a ledger that history does not record', unrecorded === 0, `${unrecorded} unrecorded`],
      [
        'one resource key per file, whichever host ran the call',
        [...keysOf.values()].every((k) => k.keys.size === 1),
        [...keysOf.entries()]
          .sort()
          .map(([, k]) => `${[...k.keys].join(',')} (${[...k.hosts].sort().join('+')})`)
          .join('; '),
      ],
    ];
    const unknownText = unknown.length
      ? `${unknown.length} append(s) ended without a known outcome (their host died mid-call; history and the job's tool result say so); ${unknown.filter((a) => lines.has(`${a.jobId} ${a.callId}`)).length} of them had written their line before the host died`
      : 'no append was cut off by the host kill';
    const text = [
      `load and faults: ${jobs} jobs of ${STEPS_PER_JOB} model steps on temporal-server + PostgreSQL; 3 worker hosts`,
      `hosts: ${net.how}`,
      ...faults,
      '',
      table(
        ['steps', 'wall s', 'steps/s', 'step p50 ms', 'step p99 ms', 'DB bytes/step'],
        [
          [
            steps,
            wall.toFixed(1),
            (steps / wall).toFixed(1),
            quantile(stepLatencies, 0.5).toFixed(0),
            quantile(stepLatencies, 0.99).toFixed(0),
            Math.round((bytesAfter - bytesBefore) / steps),
          ],
        ],
      ),
      '',
      table(
        ['worker host', 'workspaces', 'peak RSS MB', 'tool calls run', 'appends run'],
        workers.map((w) => [
          `${w.host.name}${w.host === killed ? ' (killed)' : ''}`,
          DECLARED[w.host.name]!.join(','),
          (w.peakRssKb / 1024).toFixed(0),
          [...startedByAll.values()].filter((h) => h === w.host.name).length,
          appends.filter((a) => a.host === w.host.name).length,
        ]),
      ),
      '',
      ...checks.map(([what, ok, detail]) => `${ok ? 'PASS' : 'FAIL'}  ${what}: ${detail}`),
      unknownText,
    ].join('\n');
    return { text, ok: checks.every(([, ok]) => ok) };
  } finally {
    for (const w of workers) killHost(w.host, [w.proc.pid!]);
    await connection?.close();
    await clusterDown(cluster).catch((e: Error) => log(`cluster down: ${e.message}`));
    net.teardown();
  }
}
