import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { turnInputProblems } from '../../src/workflow-safe/turn/input.js';
import {
  applyReply,
  applyResults,
  beginStep,
  continuedInput,
  initialState,
  nextMove,
  noteToolsUsed,
  startState,
  turnResult,
} from '../../src/workflow-safe/turn/transitions.js';
import type { ModelReply, PlannedCall, RunnableCall, ToolResult, TurnInput } from '../../src/workflow-safe/types.js';

const input: TurnInput = { task: 'do it', workspace: '/ws' };
const run = { now: 1_000, stepsThisRun: 0, continueAsNewSuggested: false };
const usage = (t: number) => ({ promptTokens: t, completionTokens: 0, totalTokens: t });
const reply = (calls: PlannedCall[], final?: string): ModelReply => ({
  assistantMessage: {
    role: 'assistant',
    content: final ?? null,
    ...(calls.length
      ? {
          tool_calls: calls.map((c) => ({
            id: c.id,
            type: 'function' as const,
            function: { name: c.name, arguments: c.rawArguments },
          })),
        }
      : {}),
  },
  calls,
  ...(final !== undefined ? { final } : {}),
  finishReason: 'stop',
  model: 'm',
  usage: usage(10),
  latencyMs: 5,
});
const call = (id: string, name: string, o: Partial<RunnableCall> = {}): RunnableCall => ({
  id,
  name,
  rawArguments: '{}',
  format: 'native',
  args: {},
  effect: 'read',
  resources: [],
  idempotent: true,
  timeoutMs: 1000,
  needsApproval: false,
  argsHash: 'h',
  ...o,
});
const result = (callId: string, output: string, isError = false): ToolResult => ({
  callId,
  output,
  isError,
  startedAt: 0,
  endedAt: 1,
});

describe('the turn as a state machine (no server)', () => {
  it('starts with the system prompt, the history and the task, all pending (nothing stored yet)', () => {
    const s = initialState({ ...input, systemPrompt: 'sys', history: [{ role: 'user', content: 'earlier' }] }, 42);
    assert.deepEqual(
      s.pending.map((m) => m.content),
      ['sys', 'earlier', 'do it'],
    );
    assert.deepEqual([s.conversation, s.kept, s.step, s.startedAt, s.usage.totalTokens], [null, undefined, 0, 42, 0]);
    assert.deepEqual(initialState({ ...input, returnMessages: true }, 0).kept, [{ role: 'user', content: 'do it' }]);
  });

  it('a run continued by code from before the hash chain starts with its whole conversation pending', () => {
    const messages = [
      { role: 'system' as const, content: 's' },
      { role: 'user' as const, content: 'old' },
      { role: 'user' as const, content: 'task' },
    ];
    const legacy = {
      messages,
      firstNew: 2,
      step: 4,
      usage: usage(9),
      startedAt: 1,
      toolsUsed: [],
      written: [],
      streaks: [],
      events: 7,
    };
    const s = startState({ ...input, returnMessages: true, resume: legacy }, 99);
    assert.deepEqual([s.conversation, s.pending, s.kept, s.step, s.events], [null, messages, [messages[2]], 4, 7]);
    const fresh = initialState(input, 5);
    assert.equal(startState({ ...input, resume: fresh }, 99), fresh);
  });

  it('a stored reply empties what was pending; a reply recorded before the hash chain keeps it pending', () => {
    const s = beginStep(initialState(input, 0));
    const head = { head: 'sha256:' + 'a'.repeat(64), count: 3 };
    const stored = applyReply(s, { ...reply([], 'ok'), conversation: head });
    assert.deepEqual([stored.state.conversation, stored.state.pending], [head, []]);
    const legacy = applyReply(s, reply([], 'ok'));
    assert.deepEqual([legacy.state.conversation, legacy.state.pending.length], [null, s.pending.length + 1]);
  });

  it('next move: the step limit first, then budgets, then continue-as-new (never before a step of this run), else a model call', () => {
    const s = initialState(input, 0);
    assert.equal(nextMove(s, input, run).kind, 'call_model');
    const atLimit = { ...s, step: 3 };
    const stop = nextMove(atLimit, { ...input, maxSteps: 3, maxTokens: 1 }, run);
    assert.deepEqual(stop, {
      kind: 'stop',
      stop: { status: 'max_steps', reason: 'reached the limit of 3 steps', summarize: false },
    });
    const spent = { ...s, usage: usage(50) };
    const budget = nextMove(spent, { ...input, maxTokens: 50 }, run);
    assert.equal(budget.kind === 'stop' && budget.stop.status, 'token_budget');
    assert.equal(budget.kind === 'stop' && budget.stop.summarize, true);
    const late = nextMove(s, { ...input, deadlineMs: 500, summarizeOnBudget: false }, run);
    assert.deepEqual(late.kind === 'stop' && [late.stop.status, late.stop.summarize], ['time_budget', false]);
    assert.equal(
      nextMove(s, input, { ...run, continueAsNewSuggested: true }).kind,
      'call_model',
      'not before one step in this run',
    );
    assert.equal(nextMove(s, input, { ...run, stepsThisRun: 1, continueAsNewSuggested: true }).kind, 'continue_as_new');
    assert.equal(
      nextMove(s, { ...input, continueAsNewAfterSteps: 2 }, { ...run, stepsThisRun: 2 }).kind,
      'continue_as_new',
    );
    assert.equal(nextMove(s, { ...input, continueAsNewAfterSteps: 2 }, { ...run, stepsThisRun: 1 }).kind, 'call_model');
  });

  it('a reply joins the conversation with its calls and its tokens; no calls means the answer', () => {
    const s = beginStep(initialState(input, 0));
    const done = applyReply(s, reply([], 'all done'));
    assert.deepEqual(done.next, { kind: 'final', answer: 'all done' });
    assert.equal(done.state.usage.totalTokens, 10);
    const more = applyReply(s, reply([call('a', 'read_file')]));
    assert.equal(more.next.kind, 'run_calls');
    assert.deepEqual(more.state.pending.at(-1), reply([call('a', 'read_file')]).assistantMessage);
    assert.equal(s.pending.length + 1, more.state.pending.length);
    assert.equal(s.pending.length, initialState(input, 0).pending.length, 'the old state is untouched');
  });

  it("tools used grow only by calls that will run; results come back in the model's order, rejections as errors", () => {
    const s = initialState(input, 0);
    const calls: PlannedCall[] = [
      call('w', 'write_file', { effect: 'write', resources: ['file:/ws/a'] }),
      { id: 'x', name: 'nope', rawArguments: '{}', format: 'native', rejected: "Unknown tool 'nope'." },
      call('r', 'read_file', { resources: ['file:/ws/b'] }),
      call('f', 'write_file', { effect: 'write', resources: ['file:/ws/c'] }),
    ];
    const used = noteToolsUsed(s, calls);
    assert.deepEqual([used.state.toolsUsed, used.changed], [['write_file', 'read_file'], true]);
    assert.equal(noteToolsUsed(used.state, calls).changed, false);
    // Results arrive in any order; the messages follow the model's.
    const results = new Map([
      ['f', result('f', 'disk full', true)],
      ['r', result('r', 'B')],
      ['w', result('w', 'ok')],
    ]);
    const after = applyResults(used.state, input, calls, results);
    assert.deepEqual(after.state.pending.slice(-4), [
      { role: 'tool', tool_call_id: 'w', content: 'ok' },
      { role: 'tool', tool_call_id: 'x', content: "Error: Unknown tool 'nope'." },
      { role: 'tool', tool_call_id: 'r', content: 'B' },
      { role: 'tool', tool_call_id: 'f', content: 'disk full' },
    ]);
    assert.deepEqual(
      [after.state.written, after.wroteChanged],
      [['file:/ws/a'], true],
      'only the write that succeeded',
    );
    assert.throws(() => applyResults(s, input, [call('z', 'read_file')], new Map()), /No result for call 'z'/);
  });

  it('the same call in N consecutive steps stops the turn as no progress; a different call resets it', () => {
    let s = initialState(input, 0);
    const same = [call('a', 'read_file', { rawArguments: '{"path":"x"}' })];
    const res = new Map([['a', result('a', 'x')]]);
    const stops = [];
    for (let i = 0; i < 3; i++) {
      const r = applyResults(s, { ...input, noProgressRepeats: 3 }, same, res);
      s = r.state;
      stops.push(r.stop?.status ?? null);
    }
    assert.deepEqual(stops, [null, null, 'no_progress']);
    const other = applyResults(s, input, [call('b', 'list_files')], new Map([['b', result('b', '')]]));
    assert.deepEqual(other.state.streaks, [['list_files {}', 1]]);
  });

  it('the result carries the added messages when asked, well-formed even when stopped', () => {
    const asked = { ...input, history: [{ role: 'user' as const, content: 'old' }], returnMessages: true };
    const s = applyReply(beginStep(initialState(asked, 0)), reply([], 'fine')).state;
    assert.equal(turnResult(s, input, { status: 'completed', answer: 'fine' }).messages, undefined);
    const kept = turnResult(s, asked, { status: 'completed', answer: 'fine' });
    assert.deepEqual(
      kept.messages?.map((m) => m.role),
      ['user', 'assistant'],
    );
    const stopped = turnResult(
      s,
      { ...input, returnMessages: true },
      { status: 'max_steps', answer: null, reason: 'limit' },
    );
    assert.deepEqual(stopped.messages?.at(-1), { role: 'assistant', content: '(stopped: limit)' });
    assert.deepEqual([stopped.steps, stopped.reason], [1, 'limit']);
  });

  it("continue-as-new carries the state, not the first run's history", () => {
    const s = initialState({ ...input, history: [{ role: 'user', content: 'old' }] }, 0);
    const next = continuedInput({ ...input, history: [{ role: 'user', content: 'old' }] }, s);
    assert.equal(next.history, undefined);
    assert.equal(next.resume, s);
    assert.equal(continuedInput(next, { ...s, step: 9 }).resume?.step, 9);
  });
});

describe('turn input, checked at start', () => {
  it('accepts a good input and names every wrong field of a bad one', () => {
    assert.equal(turnInputProblems({ task: 't', workspace: '/w', maxSteps: 3, toolFormat: 'xml' }), null);
    assert.equal(
      turnInputProblems({ task: ' ', workspace: '/w', maxSteps: 0, toolFormat: 'yaml', maxStep: 3 }),
      'task: give the task to do; maxSteps: Too small: expected number to be >=1; toolFormat: Invalid option: expected one of "native"|"markdown"|"xml"|"react"|"line"; (input): Unrecognized key: "maxStep"',
    );
    assert.match(turnInputProblems({ workspace: '/w' })!, /^task: /);
  });
});
