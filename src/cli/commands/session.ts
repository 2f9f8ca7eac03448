import path from 'node:path';
import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import { WithStartWorkflowOperation } from '@temporalio/client';
import { makeRedactor } from '../../audit/redact.js';
import { connectTemporal, type Temporal } from '../../temporal/connect.js';
import { turnJobId } from '../../workflow-safe/session-ids.js';
import { TOOL_FORMATS, type SessionInput, type SessionReply, type ToolFormat } from '../../workflow-safe/types.js';
import type { agentSession } from '../../../workflows/agent-session.js';
import { sendUpdate, sessionQuery } from '../../../workflows/definitions.js';
import { note, out, printJson } from '../output.js';
import { followProgress } from '../progress.js';
import { UsageError } from '../usage-error.js';
import { ensureWorker, newJobId } from './run.js';

const SESSION_OPTIONS = {
  workspace: { type: 'string', short: 'w' },
  model: { type: 'string', short: 'm' },
  format: { type: 'string', short: 'f' },
  json: { type: 'boolean', default: false },
} as const;

function sessionInput(values: { workspace?: string | undefined; model?: string | undefined; format?: string | undefined }): SessionInput {
  const format = values.format as ToolFormat | undefined;
  if (format !== undefined && !TOOL_FORMATS.includes(format)) throw new UsageError(`--format must be one of ${TOOL_FORMATS.join(', ')}; got '${format}'.`);
  return {
    workspace: path.resolve(values.workspace ?? process.cwd()),
    ...(values.model ? { model: values.model } : {}),
    ...(format && format !== 'native' ? { toolFormat: format } : {}),
  };
}

/** Sends one message to a session (starting it if new); shows the turn's progress unless `quiet`. */
async function sendMessage(t: Temporal, sessionId: string, message: string, input: SessionInput, quiet: boolean): Promise<SessionReply> {
  const handle = t.client.workflow.getHandle(sessionId);
  const next = await handle.query(sessionQuery).then((s) => s.turns + 1, () => 1);
  const reply = t.client.workflow.executeUpdateWithStart(sendUpdate, {
    args: [makeRedactor()(message)],
    startWorkflowOperation: new WithStartWorkflowOperation<typeof agentSession>('agentSession', {
      workflowId: sessionId, taskQueue: t.config.taskQueue, args: [input], workflowIdConflictPolicy: 'USE_EXISTING',
    }),
  });
  if (!quiet) await followProgress(t.client.workflow.getHandle(turnJobId(sessionId, next)), reply, out);
  return reply;
}

/** `dagent send SESSION_ID "message"`: one turn of a session (the session is created if new). */
export async function sendCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: SESSION_OPTIONS });
  const [sessionId, ...words] = positionals;
  const message = words.join(' ').trim();
  if (!sessionId || !message) throw new UsageError('usage: dagent send SESSION_ID "message" [--workspace DIR] [--model NAME] [--format F] [--json]');
  const input = sessionInput(values);
  const t = await connectTemporal({ start: true, log: note });
  const local = await ensureWorker(t, { detach: false });
  try {
    const r = await sendMessage(t, sessionId, message, input, values.json);
    if (values.json) printJson({ sessionId, ...r });
    else out(`\n${r.answer ?? `(turn ${r.turn} ended: ${r.status}${r.reason ? `, ${r.reason}` : ''})`}`);
    return r.status === 'completed' ? 0 : 1;
  } finally {
    await local?.stop();
    await t.close();
  }
}

function causeMessage(err: unknown): string {
  let e = err as { message?: string; cause?: unknown } | undefined;
  while (e?.cause) e = e.cause as typeof e;
  return e?.message ?? String(err);
}

/** `dagent chat [SESSION_ID]`: an interactive session; resume it any time with the same id. */
export async function chatCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: SESSION_OPTIONS });
  if (positionals.length > 1) throw new UsageError('usage: dagent chat [SESSION_ID] [--workspace DIR] [--model NAME] [--format F]');
  const sessionId = positionals[0] ?? newJobId('chat');
  const input = sessionInput(values);
  const t = await connectTemporal({ start: true, log: note });
  const local = await ensureWorker(t, { detach: false });
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
    await local?.stop();
    await t.close();
  }
}
