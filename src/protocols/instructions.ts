import type { Protocol, ToolSpec } from './types.js';

const EXAMPLE_VALUES: Record<string, unknown> = { number: 1, integer: 1, boolean: true, array: [], object: {} };

/** Example arguments for a tool: its required fields with placeholder values. */
export function exampleArgs(tool: ToolSpec): Record<string, unknown> {
  return Object.fromEntries(
    tool.fields
      .filter((f) => f.required)
      .map((f) => [f.name, f.type === 'string' ? `<${f.name}>` : (EXAMPLE_VALUES[f.type] ?? null)]),
  );
}

export function signature(tool: ToolSpec): string {
  return `${tool.name}(${tool.fields.map((f) => `${f.name}${f.required ? '' : '?'}: ${f.type}`).join(', ')})`;
}

/** The system-prompt section of a text protocol, generated from the tools' schemas. */
export function buildInstructions(p: Protocol, tools: ToolSpec[], how: string, finish: string): string {
  const example = tools[0];
  return [
    `## Calling tools (${p.format} format)`,
    how,
    '',
    'Tools:',
    ...tools.map((t) => `- ${signature(t)}: ${t.description}`),
    ...(example ? ['', 'Example:', p.render({ name: example.name, args: exampleArgs(example) }, tools)] : []),
    '',
    'Results come back in the next message, like this:',
    p.renderResults([{ name: example?.name ?? 'tool', output: '<result>' }]),
    '',
    'Several calls in one reply run in the order written. Call syntax inside other code blocks is ignored.',
    finish,
  ].join('\n');
}
