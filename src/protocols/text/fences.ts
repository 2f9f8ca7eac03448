/** A fenced code block of a markdown reply. Nested blocks are part of their parent's body. */
export interface Fence {
  /** The info string after the opening fence (`save notes.md`). */
  info: string;
  body: string;
  /** The fence itself (` ``` `, ` ```` `, `~~~`), for messages. */
  marker: string;
  closed: boolean;
  start: number;
  end: number;
  raw: string;
}

const OPEN = /^ {0,3}(`{3,}|~{3,})(.*)$/;

// The last text split into lines, so that repeated scans of one reply (from later and later
// offsets) do not split it again.
let lastText: string | undefined;
let lastLines: { lines: string[]; offsets: number[] } = { lines: [], offsets: [] };
function linesOf(text: string): { lines: string[]; offsets: number[] } {
  if (text !== lastText) {
    const lines = text.split('\n');
    const offsets: number[] = [];
    let at = 0;
    for (const l of lines) {
      offsets.push(at);
      at += l.length + 1;
    }
    lastText = text;
    lastLines = { lines, offsets };
  }
  return lastLines;
}

/** The index of the first line starting at or after `from` (binary search). */
function firstLineAtOrAfter(offsets: number[], from: number): number {
  let lo = 0;
  let hi = offsets.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (offsets[mid]! < from) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Finds the top-level fenced blocks. A block closes only on a bare fence of its own length;
 * inside it, a fence of that length with a tag opens a nested block and shorter or longer fences
 * are content; a close glued to a new opening (` `````` `` python`) is split in two. An
 * unterminated block is reported with `closed: false` and never taken as complete.
 */
export function scanFences(text: string, from = 0, limit = Infinity): Fence[] {
  const { lines, offsets } = linesOf(text);
  let i = firstLineAtOrAfter(offsets, from);
  const fences: Fence[] = [];
  let carried: string | undefined; // the opening half of a glued close+open line
  while (i < lines.length) {
    const line = carried ?? lines[i]!;
    const lineStart = carried !== undefined ? offsets[i]! + (lines[i]!.length - carried.length) : offsets[i]!;
    carried = undefined;
    const m = OPEN.exec(line);
    if (!m || (m[1]![0] === '`' && m[2]!.includes('`'))) {
      i++;
      continue;
    }
    const marker = m[1]!;
    const ch = marker[0]!;
    const n = marker.length;
    const bare = new RegExp(`^ {0,3}\\${ch}{${n}}\\s*$`);
    const tagged = new RegExp(`^ {0,3}\\${ch}{${n}}[^\\${ch}\\s]`);
    const glued = new RegExp(`^( {0,3}\\${ch}{${n}})(\\${ch}{${n}}[^\\${ch}\\s].*)$`);
    const body: string[] = [];
    let depth = 1;
    let j = i + 1;
    let closedAt = -1;
    for (; j < lines.length; j++) {
      const l = lines[j]!;
      if (bare.test(l)) {
        if (--depth === 0) {
          closedAt = j;
          break;
        }
        body.push(l);
      } else if (depth === 1 && glued.test(l)) {
        closedAt = j;
        carried = glued.exec(l)![2]!;
        break;
      } else {
        if (tagged.test(l)) depth++;
        body.push(l);
      }
    }
    const closed = closedAt >= 0;
    const endLine = closed ? closedAt : lines.length - 1;
    const end =
      closed && carried !== undefined
        ? offsets[endLine]! + (lines[endLine]!.length - carried.length)
        : offsets[endLine]! + lines[endLine]!.length;
    fences.push({
      info: m[2]!.trim(),
      body: body.join('\n'),
      marker,
      closed,
      start: lineStart,
      end,
      raw: text.slice(lineStart, end),
    });
    if (!closed || fences.length >= limit) break;
    i = carried !== undefined ? closedAt : closedAt + 1;
  }
  return fences;
}

/** The first fenced block on a line that starts at or after `from`. */
export function firstFence(text: string, from: number): Fence | undefined {
  return scanFences(text, from, 1)[0];
}

/** The text with every fenced block blanked out (same length), so call syntax inside examples is ignored. */
export function maskFences(text: string): string {
  let out = text;
  for (const f of scanFences(text))
    out = out.slice(0, f.start) + out.slice(f.start, f.end).replace(/[^\n]/g, ' ') + out.slice(f.end);
  return out;
}

/** A fence longer than any backtick run in `body`. */
export function fenceFor(body: string): string {
  const longest = Math.max(0, ...(body.match(/`+/g) ?? []).map((r) => r.length));
  return '`'.repeat(Math.max(3, longest + 1));
}
