import type { ToolFormat } from '../workflow-safe/types.js';

/** What a protocol needs to know of a tool: its name, description and fields in schema order. */
export interface ToolSpec {
  name: string;
  description: string;
  fields: Array<{ name: string; type: string; required: boolean; description?: string }>;
}

export interface TextCall {
  name: string;
  args: Record<string, unknown>;
  /** The exact text of the call in the reply. */
  raw: string;
}

export interface ParseResult {
  calls: TextCall[];
  /** Attempts at a call that could not be read: what was wrong, in words the model can act on. */
  problems: string[];
  /** An explicit final answer (ReAct's `Final Answer:`); otherwise the reply's text is the answer. */
  final?: string;
}

export interface Protocol {
  format: Exclude<ToolFormat, 'native'>;
  parse(text: string, tools: ToolSpec[]): ParseResult;
  /** A call back into text: the form the parser reads. */
  render(call: { name: string; args: Record<string, unknown> }, tools: ToolSpec[]): string;
  /** Tool results as the message the model reads next. */
  renderResults(results: Array<{ name: string; output: string }>): string;
  /** What goes into the system prompt: the form, the tools, examples. */
  instructions(tools: ToolSpec[]): string;
}
