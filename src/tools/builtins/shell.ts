import { spawn } from 'node:child_process';
import { realpath } from 'node:fs/promises';
import { z } from 'zod';
import { defineTool } from '../define-tool.js';

const OUTPUT_CAP = 64 * 1024;
const SECRET_NAME = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL)/i;

/** The environment a shell command sees: the worker's, less anything that looks like a secret. */
export function shellEnvironment(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([k]) => !SECRET_NAME.test(k) && !k.startsWith('OPENAI_')));
}

export const shellTool = defineTool({
  name: 'shell',
  description:
    'Run a bash command in the workspace folder. Output (stdout and stderr) is capped; the command is killed at its timeout.',
  input: z.object({
    command: z.string().min(1),
    timeout_seconds: z.number().int().min(1).max(600).default(60),
  }),
  effect: 'write',
  timeoutMs: 11 * 60_000,
  execute: async ({ command, timeout_seconds }, ctx) => {
    const cwd = await realpath(ctx.workspace);
    return new Promise<string>((resolve, reject) => {
      const child = spawn('bash', ['-c', command], {
        cwd,
        env: shellEnvironment(),
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let dropped = 0;
      const take = (b: Buffer) => {
        const room = OUTPUT_CAP - out.length;
        if (room > 0) out += b.toString('utf8').slice(0, room);
        dropped += Math.max(0, b.length - Math.max(room, 0));
      };
      child.stdout.on('data', take);
      child.stderr.on('data', take);
      const kill = () => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          /* already gone */
        }
      };
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        kill();
      }, timeout_seconds * 1000);
      const beat = setInterval(() => ctx.heartbeat(), 5_000);
      const onAbort = () => kill();
      ctx.signal.addEventListener('abort', onAbort, { once: true });
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
        const status = timedOut
          ? `killed after ${timeout_seconds}s timeout`
          : sig
            ? `killed by ${sig}`
            : `exit code ${code}`;
        const note = dropped ? `\n…[output capped at ${OUTPUT_CAP} bytes; ${dropped} more bytes dropped]` : '';
        resolve(`${status}\n${out}${note}`);
      });
    });
  },
});
