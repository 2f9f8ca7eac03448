/**
 * Where the bracketed value starting at `start` (`{` or `[`) ends: the index after its closing
 * bracket, counting brackets outside strings ("…" or '…', with escapes); -1 if it never closes.
 */
export function findBracketEnd(text: string, start: number): number {
  const open = text[start];
  if (open !== '{' && open !== '[' && open !== '(') return -1;
  let depth = 0;
  let quote: string | null = null;
  for (let i = start; i < text.length; i++) {
    const ch = text[i]!;
    if (quote) {
      if (ch === '\\') i++;
      else if (ch === quote) quote = null;
      continue;
    }
    if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '{' || ch === '[' || ch === '(') depth++;
    else if (ch === '}' || ch === ']' || ch === ')') {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

/** How deep arguments may nest: deeper values cannot be stored (JSON.stringify overflows the stack). */
export const MAX_NESTING = 64;

/** The deepest nesting of `{` / `[` outside strings in a JSON-like text, counted up to `stopAt`. */
export function nestingDepth(text: string, stopAt = Infinity): number {
  let depth = 0;
  let max = 0;
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quote) {
      if (ch === '\\') i++;
      else if (ch === quote) quote = null;
      continue;
    }
    if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '{' || ch === '[') {
      if (++depth > max) max = depth;
      if (max >= stopAt) return max;
    } else if (ch === '}' || ch === ']') depth--;
  }
  return max;
}
