import type { ToolSpec } from '../types.js';
import { parseObject } from './literal.js';
import { parseLiteral } from './literal.js';

type Args = { ok: true; args: Record<string, unknown> } | { ok: false; error: string };

const stringFields = (tool: ToolSpec) => tool.fields.filter((f) => f.type === 'string').map((f) => f.name);

/**
 * Arguments from a block with a tag and a body (markdown, xml `<tool-use>`): a JSON object body is
 * the arguments; otherwise the text after the tool name fills the first string field and the body
 * the next one (or the first, when nothing follows the name).
 */
export function argsFromTagAndBody(tool: ToolSpec, rest: string, body: string): Args {
  const trimmed = body.trim();
  if (!rest && trimmed.startsWith('{') && trimmed.endsWith('}')) {
    const o = parseObject(trimmed);
    return o.ok
      ? { ok: true, args: o.value }
      : { ok: false, error: `the JSON arguments of '${tool.name}' are not valid (${o.error})` };
  }
  const [first, second] = stringFields(tool);
  const args: Record<string, unknown> = {};
  if (rest) {
    if (!first)
      return {
        ok: false,
        error: `'${tool.name}' takes no text argument after its name; put a JSON object in the body`,
      };
    args[first] = rest;
    if (body !== '') {
      if (!second) {
        if (trimmed)
          return {
            ok: false,
            error: `'${tool.name}' takes only '${first}'; leave the body empty or send a JSON object`,
          };
      } else args[second] = body;
    }
  } else if (body !== '') {
    if (!first) return { ok: false, error: `'${tool.name}' takes no text; send a JSON object` };
    args[first] = body;
  }
  return { ok: true, args };
}

/** Can `args` be written as tag + body (the inverse of argsFromTagAndBody)? */
export function tagAndBodyOf(
  tool: ToolSpec | undefined,
  args: Record<string, unknown>,
): { rest: string; body: string } | null {
  if (!tool) return null;
  const [first, second] = stringFields(tool);
  const keys = Object.keys(args);
  const str = (k: string | undefined) =>
    k !== undefined && typeof args[k] === 'string' ? (args[k] as string) : undefined;
  const looksJson = (s: string) => s.trim().startsWith('{') && s.trim().endsWith('}');
  if (
    keys.length === 1 &&
    keys[0] === first &&
    str(first) !== undefined &&
    !looksJson(str(first)!) &&
    str(first) !== ''
  ) {
    return { rest: '', body: str(first)! };
  }
  if (keys.length === 2 && first && second && keys.includes(first) && keys.includes(second)) {
    const r = str(first);
    const b = str(second);
    if (r !== undefined && b !== undefined && /^\S+$/.test(r) && b !== '') return { rest: r, body: b };
  }
  if (keys.length === 1 && keys[0] === first && str(first) !== undefined && /^\S+$/.test(str(first)!) && !second) {
    return { rest: str(first)!, body: '' };
  }
  return null;
}

/** Positional values mapped onto the tool's fields in schema order. */
export function positional(tool: ToolSpec, values: unknown[]): Args {
  if (values.length > tool.fields.length) {
    return {
      ok: false,
      error: `'${tool.name}' takes at most ${tool.fields.length} arguments (${tool.fields.map((f) => f.name).join(', ')}), got ${values.length}`,
    };
  }
  return { ok: true, args: Object.fromEntries(values.map((v, i) => [tool.fields[i]!.name, v])) };
}

/** A field value written as text: kept as text for string fields, read as a literal otherwise. */
export function coerceField(tool: ToolSpec | undefined, field: string, text: string): unknown {
  const type = tool?.fields.find((f) => f.name === field)?.type ?? 'string';
  if (type === 'string') return text;
  try {
    return parseLiteral(text.trim());
  } catch {
    return text;
  }
}
