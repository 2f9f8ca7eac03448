// `npm run bench -- routing`: request bytes of the tool schemas per step with 200 tools, all vs
// routed (the relevant subset and find_tools). No server.
import { builtinTools } from '../src/tools/builtins/index.js';
import { ToolRegistry } from '../src/tools/registry.js';
import type { ChatMessage } from '../src/workflow-safe/types.js';
import { manyTools } from '../tests/helpers/many-tools.js';
import { table } from './stats.js';

export function benchRouting(): string {
  const registry = new ToolRegistry([...builtinTools, ...manyTools()]);
  const tasks = [
    'Summarize the payroll for March.',
    'Refund the customer whose shipment was lost, and update the ticket.',
    'Export the inventory of the main warehouse.',
  ];
  const rows = tasks.map((task) => {
    const conversation: ChatMessage[] = [
      { role: 'system', content: 'You are an agent.' },
      { role: 'user', content: task },
    ];
    const all = JSON.stringify(registry.openAITools()).length;
    const offer = registry.offer(undefined, conversation);
    const routed = JSON.stringify(registry.openAITools(offer.only)).length;
    return [
      task.slice(0, 40),
      registry.names().length,
      offer.only?.length ?? 0,
      all,
      routed,
      (all / routed).toFixed(1),
    ];
  });
  return `Tool schemas per request with ${registry.names().length} tools (JSON bytes)\n${table(
    ['task', 'tools', 'offered', 'all bytes', 'routed bytes', 'ratio'],
    rows,
  )}`;
}
