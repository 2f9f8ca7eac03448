import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { realpath } from 'node:fs/promises';
import { z } from 'zod';
import { defineTool } from '../define-tool.js';
import { protectedDirs } from '../workspace.js';
import { HeadTailBuffer } from './output.js';
import { shellLaunch } from './sandbox.js';
import { CALL_MARK, killGroup, killMarked } from './survivors.js';

const OUTPUT_CAP = 64 * 1024;
const BASE_ENV = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TERM', 'TZ', 'USER', 'LOGNAME', 'SHELL'];

/**
 * The environment a shell command sees: a few basics (PATH, HOME, locale) and the variables the
 * policy passes through (`shell.pass_env`) — never the worker's whole environment.
 */
export function shellEnvironment(
  passEnv: readonly string[] = [],
  env: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of BASE_ENV) if (env[k] !== undefined) out[k] = env[k]!;
  for (const k of passEnv) if (env[k] !== undefined) out[k] = env[k]!;
  return out;
}

export const shellTool = defineTool({
  name: 'shell',
  description:
    'Run a bash command in the workspace folder. Output (stdout and stderr) is capped, keeping its beginning and end; the command and everything it started are killed when it ends or at its timeout.',
  input: z.object({
    command: z.string().min(1).max(100_000),
    timeout_seconds: z.number().int().min(1).max(600).default(60),
  }),
  effect: 'write',
  timeoutMs: 11 * 60_000,
  execute: async ({ command, timeout_seconds }, ctx) => {
    const cwd = await realpath(ctx.workspace);
    const mark = randomUUID();
    const settings = ctx.policy.shell;
    const env = { ...shellEnvironment(settings.passEnv), [CALL_MARK]: mark };
    const launch = shellLaunch(command, cwd, await protectedDirs(cwd), settings, env);
    return new Promise<string>((resolve, reject) => {
      const child = spawn(launch.file, launch.args, {
        cwd,
        env: launch.env,
        detached: true, // its own process group: one kill reaches everything it started
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const out = new HeadTailBuffer(OUTPUT_CAP);
      child.stdout.on('data', (b: Buffer) => out.push(b));
      child.stderr.on('data', (b: Buffer) => out.push(b));
      let survivors = 0;
      const killAll = async () => {
        killGroup(child.pid);
        if (launch.containment === 'none') survivors += await killMarked(mark);
      };
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        void killAll();
      }, timeout_seconds * 1000);
      const beat = setInterval(() => ctx.heartbeat(), 5_000);
      const onAbort = () => void killAll();
      ctx.signal.addEventListener('abort', onAbort, { once: true });
      let exit: { code: number | null; sig: NodeJS.Signals | null } | undefined;
      // When bash exits, whatever it left behind (`sleep 1000 &`) dies too: then the pipes close.
      child.on('exit', (code, sig) => {
        exit = { code, sig };
        void killAll();
      });
      child.on('error', (err) => {
        clearTimeout(timer);
        clearInterval(beat);
        reject(err);
      });
      child.on('close', (code, sig) => {
        clearTimeout(timer);
        clearInterval(beat);
        ctx.signal.removeEventListener('abort', onAbort);
        if (ctx.signal.aborted) return reject(new Error('cancelled'));
        const e = exit ?? { code, sig };
        const status = timedOut
          ? `killed after ${timeout_seconds}s timeout`
          : e.sig
            ? `killed by ${e.sig}`
            : `exit code ${e.code}`;
        const notes = [
          launch.warning ? `[warning: ${launch.warning}]` : '',
          survivors ? `[${survivors} background process(es) it left running were killed]` : '',
        ].filter(Boolean);
        resolve(`${status}\n${out.text()}${notes.length ? `\n${notes.join('\n')}` : ''}`);
      });
    });
  },
});
