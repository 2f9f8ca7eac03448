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
