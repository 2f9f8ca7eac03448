import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { WithStartWorkflowOperation } from '@temporalio/client';
import type { ScriptHandler } from '../../src/scripted-model/server.js';
import type { agentSession } from '../../workflows/agent-session.js';
import { sendUpdate, sessionQuery } from '../../src/workflow-safe/messages.js';
import { dagent } from '../helpers/cli.js';
import { startHarness, uniqueId } from '../helpers/harness.js';

/** Writes a file when asked to; otherwise says how many user messages it has seen so far. */
const rememberer: ScriptHandler = ({ body }) => {
  const users = body.messages.filter((m) => m.role === 'user').map((m) => String(m.content));
  const last = body.messages.at(-1)!;
  if (last.role === 'user' && users.at(-1)!.startsWith('write ')) {
    return {
      reply: { toolCalls: [{ name: 'write_file', arguments: { path: 'notes.txt', content: users.at(-1)!.slice(6) } }] },
    };
  }
  return { reply: { content: `seen ${users.length} messages; first: ${users[0]}` } };
};

describe('sessions', () => {
  it('keep the conversation across turns (and a worker restart); each turn is its own job', async () => {
    const h = await startHarness({ handler: rememberer });
    // The harness's worker serves the queue: declared, so the CLI starts no worker of its own.
    const env = { DAGENT_TASK_QUEUE: h.taskQueue, DAGENT_EXTERNAL_WORKERS: '1' };
    const sessionId = uniqueId('session');
    try {
      const one = await dagent(['send', sessionId, 'write hello there', '--workspace', h.workspace, '--json'], env);
      assert.equal(one.code, 0, one.stderr);
      const r1 = JSON.parse(one.stdout);
      assert.deepEqual(
        [r1.sessionId, r1.turn, r1.jobId, r1.status, r1.answer],
        [sessionId, 1, `${sessionId}-turn-1`, 'completed', 'seen 1 messages; first: write hello there'],
      );
      assert.equal(readFileSync(path.join(h.workspace, 'notes.txt'), 'utf8'), 'hello there');

      await h.restartWorker();

      const two = await dagent(['send', sessionId, 'what was first?'], env);
      assert.equal(two.code, 0, two.stderr);
      assert.match(two.stdout, /step 1 {2}model replied in \d+ ms: final answer/);
      assert.match(two.stdout, /seen 2 messages; first: write hello there\n$/);
      const sent = h.model.requests.at(-1)!.body.messages;
      assert.deepEqual(
        sent.map((m) => m.role),
        ['system', 'user', 'assistant', 'tool', 'assistant', 'user'],
      );
      assert.equal(sent[3]!.tool_call_id, sent[2]!.tool_calls![0]!.id);

      const audit = await dagent(['audit', `${sessionId}-turn-1`, '--json'], env);
      assert.match(audit.stdout, /"name":"write_file"/);
      const empty = await dagent(['send', sessionId], env);
      assert.equal(empty.code, 2);
    } finally {
      await h.close();
    }
  });

  it('continue-as-new between turns, carrying the conversation by reference: no turn or run input grows with it', async () => {
    const h = await startHarness({ handler: rememberer });
    const sessionId = uniqueId('long-session');
    const send = (message: string) =>
      h.client.workflow.executeUpdateWithStart(sendUpdate, {
        args: [message],
        startWorkflowOperation: new WithStartWorkflowOperation<typeof agentSession>('agentSession', {
          workflowId: sessionId,
          taskQueue: h.taskQueue,
          args: [{ workspace: h.workspace, continueAsNewAfterTurns: 2 }],
          workflowIdConflictPolicy: 'USE_EXISTING',
        }),
      });
    try {
      for (const m of ['first', 'second', 'third']) await send(m);
      const r = await send('fourth');
      assert.equal(r.answer, 'seen 4 messages; first: first');
      assert.equal(r.turn, 4);
      const state = await h.client.workflow.getHandle(sessionId).query(sessionQuery);
      assert.deepEqual(
        [state.turns, state.runs, state.messages],
        [4, 3, 9],
        'two runs of two turns each, and a third waiting for the next message; the system prompt and 4 questions and answers',
      );
      // The 4th turn started from a reference to the stored conversation, with nothing inline.
      const history = await h.client.workflow.getHandle(`${sessionId}-turn-4`).fetchHistory();
      const started = history.events![0]!.workflowExecutionStartedEventAttributes!;
      const input = JSON.parse(Buffer.from(started.input!.payloads![0]!.data!).toString('utf8'));
      assert.equal(input.conversation.count, 7, 'system prompt and 3 questions and answers, by reference');
      assert.deepEqual(input.history, []);
      // The session's own run carries the reference, not the messages.
      const runInput = (await h.client.workflow.getHandle(sessionId).fetchHistory()).events![0]!
        .workflowExecutionStartedEventAttributes!.input!.payloads![0]!.data!;
      assert.ok(Buffer.from(runInput).length < 600, `${Buffer.from(runInput).length} bytes of session input`);
    } finally {
      await h.close();
    }
  });
});
