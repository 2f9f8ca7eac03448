import path from 'node:path';
import { createInterface } from 'node:readline/promises';
import type { Command } from 'commander';
import { WithStartWorkflowOperation } from '@temporalio/client';
import { makeRedactor } from '../../audit/redact.js';
import { newJobId } from '../../client/start-job.js';
import { connectTemporal, type Temporal } from '../../temporal/connect.js';
import { sendUpdate, sessionQuery } from '../../workflow-safe/messages.js';
import { turnJobId } from '../../workflow-safe/session-ids.js';
import type { SessionInput, SessionReply, ToolFormat } from '../../workflow-safe/types.js';
import type { AgentSessionWorkflow } from '../../workflow-safe/workflow-types.js';
import { handler } from '../plumbing/command.js';
import { formatOption, jsonOption } from '../plumbing/options.js';
import { note, out, printJson } from '../plumbing/output.js';
import { followProgress } from '../plumbing/progress.js';
import { UsageError } from '../plumbing/usage-error.js';
import { ensureWorker } from '../plumbing/worker.js';

interface SessionOptions {
  workspace?: string;
  model?: string;
  format?: ToolFormat;
  json?: boolean;
}

function sessionInput(o: SessionOptions): SessionInput {
  return {
    workspace: path.resolve(o.workspace ?? process.cwd()),
    ...(o.model ? { model: o.model } : {}),
    ...(o.format && o.format !== 'native' ? { toolFormat: o.format } : {}),
  };
}

const sessionOptions = (c: Command) =>
  c
    .option('-w, --workspace <dir>', 'the folder the tools work in (default: the current folder)')
    .option('-m, --model <name>', 'model name')
    .addOption(formatOption());

/** Sends one message to a session (starting it if new); shows the turn's progress unless `quiet`. */
async function sendMessage(
  t: Temporal,
  sessionId: string,
  message: string,
  input: SessionInput,
  quiet: boolean,
): Promise<SessionReply> {
  const handle = t.client.workflow.getHandle(sessionId);
  const next = await handle.query(sessionQuery).then(
    (s) => s.turns + 1,
    () => 1,
  );
  const reply = t.client.workflow.executeUpdateWithStart(sendUpdate, {
    args: [makeRedactor()(message)],
    startWorkflowOperation: new WithStartWorkflowOperation<AgentSessionWorkflow>('agentSession', {
      workflowId: sessionId,
      taskQueue: t.config.taskQueue,
      args: [input],
      workflowIdConflictPolicy: 'USE_EXISTING',
    }),
  });
  if (!quiet) await followProgress(t.client.workflow.getHandle(turnJobId(sessionId, next)), reply, out);
  return reply;
}

function causeMessage(err: unknown): string {
  let e = err as { message?: string; cause?: unknown } | undefined;
  while (e?.cause) e = e.cause as typeof e;
  return e?.message ?? String(err);
}

/** A connection and, unless a long-lived worker serves the queue, a worker of this command's own. */
async function withSessionWorker(fn: (t: Temporal) => Promise<number>): Promise<number> {
  const t = await connectTemporal({ start: true, log: note });
  const local = await ensureWorker(t, { detach: false });
  try {
    return await fn(t);
  } finally {
    await local?.stop();
    await t.close();
  }
}

/** `dagent send` and `dagent chat`: sessions, conversations that outlive turns. */
export function registerSession(program: Command): void {
  sessionOptions(
    program
      .command('send')
      .summary('one turn of a long-lived session (created if new)')
      .argument('<sessionId>')
      .argument('<message...>'),
  )
    .addOption(jsonOption())
    .action(
      handler(async (sessionId: string, words: string[], o: SessionOptions) => {
        const message = words.join(' ').trim();
        if (!message) throw new UsageError('Give the message to send.');
        const input = sessionInput(o);
        return withSessionWorker(async (t) => {
          const r = await sendMessage(t, sessionId, message, input, Boolean(o.json));
          if (o.json) printJson({ sessionId, ...r });
          else out(`\n${r.answer ?? `(turn ${r.turn} ended: ${r.status}${r.reason ? `, ${r.reason}` : ''})`}`);
          return r.status === 'completed' ? 0 : 1;
        });
      }),
    );

  sessionOptions(
    program
      .command('chat')
      .summary('an interactive session; resume it later by its id')
      .argument('[sessionId]', 'a session to resume (default: a new one)'),
  ).action(
    handler(async (id: string | undefined, o: SessionOptions) => {
      const sessionId = id ?? newJobId('chat');
      const input = sessionInput(o);
      return withSessionWorker(async (t) => {
        const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: process.stdin.isTTY });
        note(`Session ${sessionId} — resume it later with: dagent chat ${sessionId}   (/exit to leave)`);
        try {
          for (;;) {
            let line: string;
            try {
              line = (await rl.question('you> ')).trim();
            } catch {
              break; // end of input
            }
            if (line === '/exit' || line === '/quit') break;
            if (!line) continue;
            try {
              const r = await sendMessage(t, sessionId, line, input, false);
              out(`agent> ${r.answer ?? `(turn ended: ${r.status}${r.reason ? `, ${r.reason}` : ''})`}`);
            } catch (err) {
              // A failed turn (e.g. the model refused) leaves the session as it was: say so and go on.
              out(`agent> (this turn failed: ${causeMessage(err)})`);
            }
          }
          return 0;
        } finally {
          rl.close();
        }
      });
    }),
  );
}
