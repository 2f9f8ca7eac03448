/**
 * Where the bracketed value starting at `start` (`{` or `[`) ends: the index after its closing
 * bracket, counting brackets outside strings ("…" or '…', with escapes); -1 if it never closes.
 */
export function findBracketEnd(text: string, start: number): number {
  const open = text[start];
  if (open !== '{' && open !== '[' && open !== '(') return -1;
  let end = -1;
  scanBrackets(text, start, (depth, i) => {
    if (depth === 0) {
      end = i + 1;
      return true;
    }
    return false;
  });
  return end;
}

/**
 * Walks `text` from `from`, skipping strings ("…" or '…', with escapes), and calls `at` after
 * each bracket with the depth it leaves (`({[` count up, `)}]` down); stops when `at` says so.
 */
function scanBrackets(text: string, from: number, at: (depth: number, i: number, opened: boolean) => boolean): void {
  let depth = 0;
  let quote: string | null = null;
  for (let i = from; i < text.length; i++) {
    const ch = text[i]!;
    if (quote) {
      if (ch === '\\') i++;
      else if (ch === quote) quote = null;
      continue;
    }
    if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '{' || ch === '[' || ch === '(') {
      if (at(++depth, i, true)) return;
    } else if (ch === '}' || ch === ']' || ch === ')') {
      if (at(--depth, i, false)) return;
    }
  }
}

/** How deep arguments may nest: deeper values cannot be stored (JSON.stringify overflows the stack). */
export const MAX_NESTING = 64;

/** The deepest nesting of brackets outside strings in a JSON-like text, counted up to `stopAt`. */
export function nestingDepth(text: string, stopAt = Infinity): number {
  let max = 0;
  scanBrackets(text, 0, (depth, _i, opened) => {
    if (opened && depth > max) max = depth;
    return max >= stopAt;
  });
  return max;
}
