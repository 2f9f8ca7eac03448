import {
  allHandlersFinished,
  condition,
  continueAsNew,
  executeChild,
  patched,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { turnJobId } from '../src/workflow-safe/session-ids.js';
import type { ChatMessage, ConversationRef, SessionInput, SessionReply } from '../src/workflow-safe/types.js';
import { agentTurn } from './agent-turn.js';
import { sendUpdate, sessionQuery } from '../src/workflow-safe/messages.js';

/**
 * A conversation that outlives turns: each `send` Update runs one turn (a child agentTurn) with
 * the conversation so far, one at a time, and keeps what it added. It waits for the next message
 * as long as it takes, and continues-as-new before Temporal's history limits.
 */
export async function agentSession(input: SessionInput): Promise<void> {
  const sessionId = workflowInfo().workflowId;
  // Sessions from before conversations were kept by reference carry the whole history inline;
  // from their next turn on, the stored conversation (a reference) replaces it.
  let history: ChatMessage[] = [...(input.history ?? [])];
  let conversation: ConversationRef | null = input.conversation ?? null;
  let unstored: ChatMessage[] = [...(input.unstored ?? [])];
  let count = (conversation?.count ?? 0) + unstored.length;
  let turns = input.turns ?? 0;
  const runs = (input.runs ?? 0) + 1;
  let turnsThisRun = 0;
  let busy = false;

  setHandler(sessionQuery, () => ({ turns, runs, messages: history.length + count, busy }));
  setHandler(
    sendUpdate,
    async (message): Promise<SessionReply> => {
      await condition(() => !busy);
      busy = true;
      try {
        const turn = ++turns;
        const jobId = turnJobId(sessionId, turn);
        const byReference = patched('session-conversation-by-reference');
        const result = await executeChild(agentTurn, {
          workflowId: jobId,
          args: [
            {
              task: message,
              workspace: input.workspace,
              ...(input.workspaceId ? { workspaceId: input.workspaceId } : {}),
              ...(byReference
                ? {
                    ...(conversation ? { conversation } : {}),
                    history: [...history, ...unstored],
                    returnConversation: true,
                  }
                : { history, returnMessages: true }),
              ...(input.model ? { model: input.model } : {}),
              ...(input.toolFormat ? { toolFormat: input.toolFormat } : {}),
              ...(input.systemPrompt ? { systemPrompt: input.systemPrompt } : {}),
              ...(input.maxSteps ? { maxSteps: input.maxSteps } : {}),
            },
          ],
        });
        if (byReference) {
          conversation = result.conversation ?? null;
          unstored = result.unstored ?? [];
          history = [];
          count = (conversation?.count ?? 0) + unstored.length;
        } else history.push(...(result.messages ?? []));
        turnsThisRun++;
        const { messages: _kept, conversation: _c, unstored: _u, ...reply } = result;
        return { ...reply, turn, jobId };
      } finally {
        busy = false;
      }
    },
    {
      validator: (message) => {
        if (typeof message !== 'string' || !message.trim()) throw new Error('Send a non-empty message.');
      },
    },
  );

  const wantsNewRun = () =>
    workflowInfo().continueAsNewSuggested ||
    (input.continueAsNewAfterTurns !== undefined && turnsThisRun >= input.continueAsNewAfterTurns);
  await condition(() => wantsNewRun() && !busy);
  await condition(allHandlersFinished);
  await continueAsNew<typeof agentSession>({
    ...input,
    history,
    ...(conversation ? { conversation } : {}),
    unstored,
    turns,
    runs,
  });
}
