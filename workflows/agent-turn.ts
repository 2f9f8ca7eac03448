import { allHandlersFinished, condition, continueAsNew, isCancellation, workflowInfo } from '@temporalio/workflow';
import {
  applyReply,
  applyResults,
  beginStep,
  continuedInput,
  nextMove,
  noteToolsUsed,
  startState,
} from '../src/workflow-safe/turn/transitions.js';
import { isRunnable, type TurnInput, type TurnResult } from '../src/workflow-safe/types.js';
import { runCalls } from './run-calls.js';
import { refuseBadInput, TurnIO } from './turn-io.js';

/** How much of a reply's text its progress event keeps. */
const MODEL_END_TEXT_CHARS = 2_000;

/** One agent turn: model → tool calls → results → model, until a final answer or a stop condition. */
export async function agentTurn(input: TurnInput): Promise<TurnResult> {
  refuseBadInput(input);
  let s = startState(input, Date.now());
  const io = new TurnIO(input, s);
  let stepsThisRun = 0;
  try {
    for (;;) {
      const move = nextMove(s, io.input, {
        now: Date.now(),
        stepsThisRun,
        continueAsNewSuggested: workflowInfo().continueAsNewSuggested,
      });
      if (move.kind === 'stop') {
        const st = move.stop.status;
        const budget = st === 'token_budget' || st === 'time_budget' || st === 'cost_budget';
        if (!budget || io.input.onBudget === 'stop') return await io.stopEarly(s, move.stop);
        // A budget asks a person for more instead of ending the job.
        await io.pause(s, st, move.stop.reason);
        continue;
      }
      if (move.kind === 'continue_as_new') {
        // A long job: a fresh history, carrying the state (references keep it small).
        await condition(allHandlersFinished);
        await continueAsNew<typeof agentTurn>(continuedInput(io.input, { ...s, events: io.eventsShown }));
      }
      s = beginStep(s);
      stepsThisRun++;
      io.event({ kind: 'model_start', at: Date.now(), step: s.step });
      const reply = await io.ask(s, { append: s.pending, tools: io.input.tools });
      const replied = applyReply(s, reply);
      if (replied.state.agents?.length !== s.agents?.length) io.upsertAgents(replied.state);
      s = replied.state;
      const said = reply.assistantMessage.content;
      io.event({
        kind: 'model_end',
        at: Date.now(),
        step: s.step,
        ms: reply.latencyMs,
        calls: reply.calls.length,
        tokens: reply.usage.totalTokens,
        ...(typeof said === 'string' && said ? { text: said.slice(0, MODEL_END_TEXT_CHARS) } : {}),
      });
      if (replied.next.kind === 'final') return io.finish(s, { status: 'completed', answer: replied.next.answer });
      const calls = replied.next.calls;
      io.rejected(s.step, calls);
      const used = noteToolsUsed(s, calls);
      s = used.state;
      if (used.changed) io.upsertToolsUsed(s);
      const done = applyResults(s, io.input, calls, await runCalls(io.stepContext(s.step), calls.filter(isRunnable)));
      s = done.state;
      if (done.wroteChanged) io.upsertWritten(s);
      if (done.stop) return await io.stopEarly(s, done.stop);
    }
  } catch (err) {
    if (isCancellation(err)) io.cancelled(s.step);
    throw err;
  }
}
