import { PROTOCOLS, type Protocol } from '../src/protocols/index.js';
import { exampleArgs } from '../src/protocols/instructions.js';
import { stripThinking } from '../src/protocols/text/think.js';
import type { ToolRegistry } from '../src/tools/registry.js';
import type {
  AssistantToolCall,
  ChatMessage,
  ModelRequest,
  ModelReply,
  PlannedCall,
  ToolFormat,
} from '../src/workflow-safe/types.js';

type TextFormat = Exclude<ToolFormat, 'native'>;

export const protocolFor = (format: TextFormat): Protocol => PROTOCOLS[format];

/**
 * The turn's messages as a text-only model sees them: the protocol's instructions in the system
 * prompt, assistant replies as their text, each run of tool results as one user message.
 */
export function toTextMessages(
  messages: ChatMessage[],
  protocol: Protocol,
  registry: ToolRegistry,
  only?: string[],
): Array<{ role: string; content: string }> {
  const names = new Map<string, string>();
  const out: Array<{ role: string; content: string }> = [];
  let results: Array<{ name: string; output: string }> = [];
  const flush = () => {
    if (results.length) out.push({ role: 'user', content: protocol.renderResults(results) });
    results = [];
  };
  for (const m of messages) {
    if (m.role === 'tool') {
      results.push({ name: names.get(m.tool_call_id) ?? 'tool', output: m.content });
      continue;
    }
    flush();
    if (m.role === 'assistant') {
      for (const c of m.tool_calls ?? []) names.set(c.id, c.function.name);
      out.push({ role: 'assistant', content: m.content ?? '' });
    } else if (m.role === 'system') {
      out.push({ role: 'system', content: `${m.content}\n\n${protocol.instructions(registry.toolSpecs(only))}` });
    } else out.push({ role: m.role, content: m.content });
  }
  flush();
  return out;
}

/** Parses a text reply into the same plain data a native reply gives, format and raw text kept. */
export async function textReplyToStep(
  text: string,
  format: TextFormat,
  req: ModelRequest,
  registry: ToolRegistry,
  /** The provider stopped the reply at its token limit (finish_reason `length`). */
  cutOff = false,
): Promise<Pick<ModelReply, 'assistantMessage' | 'calls' | 'final'>> {
  const protocol = protocolFor(format);
  const specs = registry.toolSpecs(req.tools);
  const parsed = protocol.parse(text, specs);
  const calls: PlannedCall[] = await Promise.all(
    parsed.calls.map(async (c, i) =>
      cutOff
        ? {
            id: `${format}_${req.step}_${i + 1}`,
            name: c.name,
            rawArguments: JSON.stringify(c.args),
            format,
            rawText: c.raw,
            // A text call in a cut-off reply may itself be cut short (a block that looked closed,
            // a file missing its end): never run it.
            rejected:
              'Your reply was cut off at the token limit, so this call may be incomplete: it did not run. Send it again in a shorter reply.',
          }
        : registry.prepareCall({
            id: `${format}_${req.step}_${i + 1}`,
            name: c.name,
            rawArguments: JSON.stringify(c.args),
            workspace: req.workspace,
            workspaceId: req.workspaceId,
            only: req.tools,
            format,
            rawText: c.raw,
          }),
    ),
  );
  const example = specs[0]
    ? `\n\nThe expected form, for example:\n${protocol.render({ name: specs[0].name, args: exampleArgs(specs[0]) }, specs)}`
    : '';
  parsed.problems.forEach((problem, k) => {
    calls.push({
      id: `${format}_${req.step}_unreadable_${k + 1}`,
      name: '(unreadable call)',
      rawArguments: '',
      format,
      rejected: `${problem}${example}`,
    });
  });
  const toolCalls: AssistantToolCall[] = calls.map((c) => ({
    id: c.id,
    type: 'function',
    function: { name: c.name, arguments: c.rawArguments },
  }));
  return {
    assistantMessage: { role: 'assistant', content: text, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) },
    calls,
    ...(calls.length === 0 ? { final: parsed.final ?? stripThinking(text).trim() } : {}),
  };
}
