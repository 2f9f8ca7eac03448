import type { ScenarioInput } from '../scripted-model/scenario.js';
import type { AuditRecord, ToolCallRecord } from './schema.js';

/**
 * A scenario the scripted model can play from a job's audit: each model call's reply, its tool
 * calls as the model wrote them, and — for calls that needed retries — that many faults first.
 */
export function recordsToScenario(records: AuditRecord[], name: string): ScenarioInput {
  const start = records.find((r) => r.type === 'job_start');
  const tools = new Map(records.filter((r): r is ToolCallRecord => r.type === 'tool_call').map((r) => [r.callId, r]));
  const steps = records.flatMap((r) => {
    if (r.type !== 'model_call' || r.status !== 'ok') return [];
    const status = Number(/HTTP (\d{3})/.exec(r.lastFailure ?? '')?.[1] ?? 500);
    const toolCalls =
      r.format === 'native'
        ? r.callIds.map((id) => ({
            id,
            name: tools.get(id)?.name ?? 'unknown',
            arguments: tools.get(id)?.rawArguments ?? '',
          }))
        : [];
    return [
      { faults: Array.from({ length: r.attempts - 1 }, () => ({ status })), reply: { content: r.content, toolCalls } },
    ];
  });
  const task = (start?.input as { task?: string } | undefined)?.task;
  return { name, description: `Recorded from job ${records[0]?.jobId ?? name}`, ...(task ? { task } : {}), steps };
}
