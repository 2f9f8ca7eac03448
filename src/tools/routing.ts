import type { ChatMessage } from '../workflow-safe/types.js';

// Which tools to offer the model when a worker has many: a relevant subset per step, ranked by
// BM25 over tool names and descriptions against the task and the recent conversation (no network
// model), plus the tools the task names, the tools already used and those `find_tools` found.

/** Offer every tool up to this many; above it, a subset. */
export const ROUTE_ABOVE = 20;
/** How many ranked tools a routed step offers (besides the ones always offered). */
export const ROUTE_TOP = 12;
export const FIND_TOOLS = 'find_tools';

const words = (text: string) =>
  text
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 1);

export interface ToolDoc {
  name: string;
  description: string;
}

/** Tool names by BM25 score against the query, best first; tools that share no word are left out. */
export function rankTools(docs: ToolDoc[], query: string): string[] {
  const k1 = 1.2;
  const b = 0.75;
  const terms = [...new Set(words(query))];
  const toks = docs.map((d) => words(`${d.name} ${d.name} ${d.description}`));
  const avg = toks.reduce((n, t) => n + t.length, 0) / Math.max(1, toks.length);
  const df = new Map<string, number>();
  for (const t of toks) for (const w of new Set(t)) df.set(w, (df.get(w) ?? 0) + 1);
  const scored = docs.map((d, i) => {
    const t = toks[i]!;
    const tf = new Map<string, number>();
    for (const w of t) tf.set(w, (tf.get(w) ?? 0) + 1);
    let score = 0;
    for (const q of terms) {
      const f = tf.get(q);
      if (!f) continue;
      const idf = Math.log(1 + (docs.length - (df.get(q) ?? 0) + 0.5) / ((df.get(q) ?? 0) + 0.5));
      score += (idf * f * (k1 + 1)) / (f + k1 * (1 - b + (b * t.length) / avg));
    }
    return { name: d.name, score };
  });
  return scored
    .filter((s) => s.score > 0)
    .sort((x, y) => y.score - x.score || x.name.localeCompare(y.name))
    .map((s) => s.name);
}

const text = (m: ChatMessage) =>
  m.role === 'assistant'
    ? `${m.content ?? ''} ${(m.tool_calls ?? []).map((c) => `${c.function.name} ${c.function.arguments}`).join(' ')}`
    : m.content;

/**
 * The tools to offer for the next call, or null for all of them (no more than {@link ROUTE_ABOVE}).
 * `conversation` is the whole conversation the model is about to get.
 */
export function routeTools(docs: ToolDoc[], conversation: ChatMessage[]): string[] | null {
  if (docs.length <= ROUTE_ABOVE) return null;
  const names = new Set(docs.map((d) => d.name));
  const task = conversation.find((m) => m.role === 'user')?.content ?? '';
  const always = new Set<string>([FIND_TOOLS]);
  for (const d of docs) if (task.includes(d.name)) always.add(d.name);
  const findCalls = new Set<string>();
  for (const m of conversation) {
    if (m.role !== 'assistant') continue;
    for (const c of m.tool_calls ?? []) {
      if (names.has(c.function.name)) always.add(c.function.name);
      if (c.function.name === FIND_TOOLS) findCalls.add(c.id);
    }
  }
  // What find_tools reported: every tool name in its results stays offered.
  for (const m of conversation)
    if (m.role === 'tool' && findCalls.has(m.tool_call_id))
      for (const n of m.content.match(/[A-Za-z][\w-]{0,63}/g) ?? []) if (names.has(n)) always.add(n);
  const recent = conversation
    .slice(-6)
    .filter((m) => m.role !== 'system')
    .map(text)
    .join(' ');
  const ranked = rankTools(
    docs.filter((d) => !always.has(d.name)),
    `${task} ${recent}`,
  ).slice(0, ROUTE_TOP);
  return [...always, ...ranked].filter((n) => n === FIND_TOOLS || names.has(n));
}
