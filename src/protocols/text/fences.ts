import { blankSpans } from './think.js';

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

// `[^\n]*`, not `.*`: a CRLF line ends in a CR, which `.` does not match.
const OPEN = /^ {0,3}(`{3,}|~{3,})([^\n]*)$/;

// The last text split into lines, so that repeated scans of one reply (from later and later
// offsets) do not split it again.
interface Lines {
  lines: string[];
  offsets: number[];
  /** The index of the last line that starts with a fence, per fence character. */
  lastFence: { '`': number; '~': number };
}
let lastText: string | undefined;
let lastLines: Lines = { lines: [], offsets: [], lastFence: { '`': -1, '~': -1 } };
function linesOf(text: string): Lines {
  if (text !== lastText) {
    // A reply written with lone CR line endings (no LF anywhere) is split on CR; otherwise a CR is
    // text (a CRLF line keeps its CR, which fence tests ignore as trailing space).
    const lines = !text.includes('\n') && text.includes('\r') ? text.split('\r') : text.split('\n');
    const offsets: number[] = [];
    const lastFence = { '`': -1, '~': -1 };
    let at = 0;
    lines.forEach((l, i) => {
      offsets.push(at);
      at += l.length + 1;
      const f = /^ {0,3}(```|~~~)/.exec(l);
      if (f) lastFence[f[1]![0] as '`' | '~'] = i;
    });
    lastText = text;
    lastLines = { lines, offsets, lastFence };
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
 * inside it, a fence of that length with a tag opens a nested block, and so does a bare one
 * followed by a line of text (gptme's rule, unless that leaves the block unterminated: then it
 * closes, as after prose right after a block, if every block then closes); shorter or longer fences are
 * content; a close glued to a new opening (` `````` `` python`) is split in two. An unterminated
 * block is reported with `closed: false` and never taken as complete.
 */
export function scanFences(text: string, from = 0, limit = Infinity, gptme = true): Fence[] {
  if (!gptme) return scan(text, from, limit, false);
  // gptme's reading first; where it leaves a block unterminated, a bare fence followed by text
  // was a close after all (prose right after a block): read on from there with that rule.
  const fences = scan(text, from, limit, true);
  const last = fences.at(-1);
  if (!last || last.closed) return fences;
  // A strict reading that leaves a bare fence open at the end is the tail of a nested example (a
  // document cut short): ambiguous, so gptme's reading stands and nothing in it runs.
  const strict = scan(text, last.start, limit - fences.length + 1, false);
  const tail = strict.at(-1);
  return tail && !tail.closed && tail.info === '' ? fences : [...fences.slice(0, -1), ...strict];
}

function scan(text: string, from: number, limit: number, nestBare: boolean): Fence[] {
  const { lines, offsets, lastFence } = linesOf(text);
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
    const glued = new RegExp(`^( {0,3}\\${ch}{${n}})(\\${ch}{${n}}[^\\${ch}\\s][^\\n]*)$`);
    const body: string[] = [];
    let depth = 1;
    let j = i + 1;
    let closedAt = -1;
    for (; j < lines.length; j++) {
      const l = lines[j]!;
      if (bare.test(l)) {
        // As gptme reads it: a bare fence followed by a line of text opens a nested block (a
        // markdown document with untagged examples) — unless no fence line follows at all, when
        // it can only be a close (prose right after a block).
        const next = lines[j + 1];
        if (
          nestBare &&
          next !== undefined &&
          next.trim() !== '' &&
          !OPEN.test(next) &&
          lastFence[ch as '`' | '~'] > j
        ) {
          depth++;
          body.push(l);
          continue;
        }
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

/**
 * The first fenced block on a line that starts at or after `from`, read with the strict rule (a
 * bare fence of the block's length closes it): for skipping examples, in linear time overall.
 */
export function firstFence(text: string, from: number): Fence | undefined {
  return scanFences(text, from, 1, false)[0];
}

/** The text with every fenced block blanked out (same length), so call syntax inside examples is ignored. */
export function maskFences(text: string): string {
  return blankSpans(text, scanFences(text));
}

/** A fence longer than any backtick run in `body`. */
export function fenceFor(body: string): string {
  const longest = Math.max(0, ...(body.match(/`+/g) ?? []).map((r) => r.length));
  return '`'.repeat(Math.max(3, longest + 1));
}
