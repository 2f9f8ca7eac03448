import type { WorkflowHandle } from '@temporalio/client';
import type { ProgressEvent } from '../../workflow-safe/types.js';
import { progressQuery } from '../../workflow-safe/messages.js';
import { liveReply, StreamPrinter } from './live-reply.js';

const fmtMs = (ms: number) => (ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`);

export function formatEvent(e: ProgressEvent): string {
  switch (e.kind) {
    case 'model_start':
      return `step ${e.step}  model…`;
    case 'model_end':
      return `step ${e.step}  model replied in ${fmtMs(e.ms)}: ${e.calls ? `${e.calls} tool call${e.calls > 1 ? 's' : ''}` : 'final answer'} (${e.tokens} tokens)`;
    case 'tool_start':
      return `  → ${e.name} ${e.args}`;
    case 'tool_end':
      return `  ${e.isError ? '✗' : '←'} ${e.name} ${fmtMs(e.ms)}: ${e.preview}`;
    case 'lock_wait':
      return `  ⧗ lock ${e.keys.join(', ')}…`;
    case 'lock_granted':
      return `  ⚿ lock ${e.key} token ${e.token} after ${fmtMs(e.waitedMs)}${e.previousHolder ? ` (held before by ${e.previousHolder})` : ''}`;
    case 'rejected':
      return `  ✗ ${e.name} rejected: ${e.reason}`;
    case 'approval_wait':
      return `  ⏸ ${e.name} waits for approval: dagent approve|deny <job> ${e.callId} --by NAME`;
    case 'approval':
      return `  ${e.approve ? '✓' : '✗'} ${e.name} ${e.approve ? 'approved' : 'denied'} by ${e.by}${e.reason ? `: ${e.reason}` : ''}`;
    case 'paused':
      return `⏸ paused at step ${e.step} (${e.pause}): ${e.reason}`;
    case 'resumed':
      return `▶ resumed by ${e.by}${e.changes ? ` (${e.changes})` : ''}`;
    case 'compacted':
      return `  ⇊ ${e.summarised} older messages summarised into one (compaction)`;
    case 'cancelled':
      return `cancelled at step ${e.step}`;
    case 'final':
      return e.status === 'completed'
        ? `done after ${e.step} step${e.step > 1 ? 's' : ''}`
        : `stopped: ${e.status} after ${e.step} steps${e.reason ? ` (${e.reason})` : ''}`;
  }
}

/**
 * Prints the job's progress as it happens (polling its progress query, and the streamed reply of a
 * model call under way) until `until` settles.
 * Query failures (no worker yet, job closed) are retried quietly.
 */
export async function followProgress(
  handle: WorkflowHandle,
  until: Promise<unknown>,
  print: (line: string) => void,
): Promise<void> {
  let seen = 0;
  let finished = false;
  // A model call under way streams its reply (heartbeat details); it is shown as it grows.
  const stream = new StreamPrinter(print);
  let modelCall = false;
  void until
    .finally(() => {
      finished = true;
    })
    .catch(() => {});
  const poll = async () => {
    try {
      const { events, next } = await handle.query(progressQuery, seen);
      seen = next;
      for (const e of events) {
        if (e.kind === 'model_start') stream.begin();
        if (e.kind === 'model_end') stream.end(e.text);
        if (e.kind === 'model_start' || e.kind === 'model_end') modelCall = e.kind === 'model_start';
        print(formatEvent(e));
      }
      if (modelCall) {
        const live = await liveReply(handle);
        if (live) stream.update(live);
      }
    } catch {
      // the job may not have a worker yet, or may have closed; keep waiting for `until`
    }
  };
  while (!finished) {
    await poll();
    await Promise.race([until.catch(() => {}), new Promise((r) => setTimeout(r, 300))]);
  }
  await poll();
}
