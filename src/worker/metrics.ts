import type { MetricMeter } from '@temporalio/common';

// durable-agent's own metrics, next to the SDK's on the worker's Prometheus endpoint
// (DAGENT_METRICS): tool calls by tool and outcome, their duration, calls refused before they ran,
// and model calls with their tokens. Lock waits are recorded by the turn (workflows/run-calls.ts).

export type ToolOutcome = 'ok' | 'error' | 'cached' | 'failed';

export interface AgentMetrics {
  toolCall(tool: string, outcome: ToolOutcome, ms: number): void;
  /** A call refused before it ran: by the policy, or for an unknown tool or invalid arguments. */
  refused(tool: string, reason: 'policy' | 'invalid'): void;
  modelCall(outcome: 'ok' | 'failed', tokens: number): void;
}

export function agentMetrics(meter: MetricMeter): AgentMetrics {
  const toolCalls = meter.createCounter('dagent_tool_calls', '1', 'Tool calls, by tool and outcome');
  const toolMs = meter.createHistogram('dagent_tool_duration', 'int', 'ms', 'How long tool calls ran');
  const refused = meter.createCounter('dagent_refused_calls', '1', 'Calls refused before they ran, by tool and reason');
  const modelCalls = meter.createCounter('dagent_model_calls', '1', 'Model calls, by outcome');
  const tokens = meter.createCounter('dagent_model_tokens', '1', 'Tokens used by model calls');
  return {
    toolCall: (tool, outcome, ms) => {
      toolCalls.add(1, { tool, outcome });
      if (outcome !== 'cached') toolMs.record(Math.max(0, Math.round(ms)), { tool });
    },
    refused: (tool, reason) => refused.add(1, { tool, reason }),
    modelCall: (outcome, n) => {
      modelCalls.add(1, { outcome });
      if (n > 0) tokens.add(n);
    },
  };
}

export const noMetrics: AgentMetrics = { toolCall: () => {}, refused: () => {}, modelCall: () => {} };
