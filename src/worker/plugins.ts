import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ToolDefinition } from '../tools/define-tool.js';

const isTool = (x: unknown): x is ToolDefinition =>
  !!x &&
  typeof x === 'object' &&
  typeof (x as ToolDefinition).name === 'string' &&
  typeof (x as ToolDefinition).execute === 'function' &&
  !!(x as ToolDefinition).input;

/**
 * Tools from plugin modules (paths): every exported tool definition, and every tool in an
 * exported array.
 */
export async function loadPluginTools(files: string[]): Promise<ToolDefinition[]> {
  const tools: ToolDefinition[] = [];
  for (const file of files) {
    let mod: Record<string, unknown>;
    try {
      mod = (await import(pathToFileURL(path.resolve(file)).href)) as Record<string, unknown>;
    } catch (err) {
      throw new Error(`Cannot load the plugin ${file}: ${(err as Error).message}`, { cause: err });
    }
    const found = Object.values(mod).flatMap((v) => (Array.isArray(v) ? v.filter(isTool) : isTool(v) ? [v] : []));
    if (!found.length)
      throw new Error(`The plugin ${file} exports no tool (define them with defineTool and export them).`);
    tools.push(...found);
  }
  return tools;
}
