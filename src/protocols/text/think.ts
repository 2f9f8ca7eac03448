/** Where one piece of a reply lies: `[start, end)`. */
export interface Span {
  start: number;
  end: number;
}

/** Finds the first span (a call, a thinking section, an example block) at or after `from`, or null. */
export type NextSpan = (text: string, from: number) => Span | null;
/** A call's whole text, arguments included. */
export type NextCall = NextSpan;

/** A thinking section: `<thinking>…</thinking>` or `<think>…</think>`; an unclosed one runs to the end. */
export const nextThinking: NextSpan = (text, from) => {
  const open = /<(thinking|think)>/gi;
  open.lastIndex = from;
  const t = open.exec(text);
  if (!t) return null;
  const close = new RegExp(`</${t[1]}>`, 'gi');
  close.lastIndex = t.index + t[0].length;
  const c = close.exec(text);
  return { start: t.index, end: c ? c.index + c[0].length : text.length };
};

/** A finder that remembers its last answer while the scan has not passed it. */
function remembering(find: NextSpan): NextSpan {
  let last: Span | null | undefined;
  let lastFrom = -1;
  let lastText: string | undefined;
  return (text, from) => {
    if (text !== lastText || last === undefined || from < lastFrom || (last !== null && last.start < from)) {
      last = find(text, from);
      lastFrom = from;
      lastText = text;
    }
    return last;
  };
}

/** The earlier of two kinds of span. */
export function earliest(a: NextSpan, b: NextSpan): NextSpan {
  const fa = remembering(a);
  const fb = remembering(b);
  return (text, from) => {
    const x = fa(text, from);
    const y = fb(text, from);
    return !x ? y : !y ? x : y.start < x.start ? y : x;
  };
}

/**
 * The reply with the spans `nextBlank` finds blanked out (same length, newlines kept) — but only
 * those that start outside a call: a `<thinking>` or a fence inside an argument (a file being
 * written) is the argument's text. One left-to-right pass.
 */
export function blankOutsideCalls(text: string, nextCall: NextCall, nextBlank: NextSpan): string {
  const findCall = remembering(nextCall);
  const findBlank = remembering(nextBlank);
  const blanks: Span[] = [];
  let pos = 0;
  for (;;) {
    const b = findBlank(text, pos);
    if (!b) break;
    const call = findCall(text, pos);
    if (call && call.start <= b.start) {
      pos = Math.max(call.end, pos + 1);
      continue;
    }
    blanks.push(b);
    pos = Math.max(b.end, pos + 1);
  }
  return blankSpans(text, blanks);
}

/** The text with the given spans (in order, not overlapping) blanked out: same length, newlines kept. */
export function blankSpans(text: string, spans: Span[]): string {
  if (!spans.length) return text;
  let out = '';
  let at = 0;
  for (const b of spans) {
    out += text.slice(at, b.start) + text.slice(b.start, b.end).replace(/[^\n]/g, ' ');
    at = b.end;
  }
  return out + text.slice(at);
}

/** Thinking sections outside calls, blanked. */
export const blankThinking = (text: string, nextCall: NextCall): string =>
  blankOutsideCalls(text, nextCall, nextThinking);

/** A reply with no calls, as its answer: thinking sections removed (an unclosed one runs to the end). */
export function stripThinking(text: string): string {
  return text.replace(/<(thinking|think)>[\s\S]*?(<\/\1>|$)/gi, '');
}
