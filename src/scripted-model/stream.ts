interface StreamInput {
  id: string;
  model: string;
  content: string | null;
  calls: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
  finish: string;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number } | undefined;
}

const pieces = (s: string, n: number) => {
  const out: string[] = [];
  for (let i = 0; i < s.length; i += n) out.push(s.slice(i, i + n));
  return out;
};

/** The chat.completion.chunk objects of a streamed reply: content and tool-call arguments in pieces. */
export function streamChunks(r: StreamInput): object[] {
  const created = Math.floor(Date.now() / 1000);
  const chunk = (delta: object, finish_reason: string | null = null) => ({
    id: r.id,
    object: 'chat.completion.chunk',
    created,
    model: r.model,
    choices: [{ index: 0, delta, finish_reason, logprobs: null }],
  });
  const out: object[] = [chunk({ role: 'assistant', content: '' })];
  for (const p of pieces(r.content ?? '', 16)) out.push(chunk({ content: p }));
  r.calls.forEach((c, index) => {
    out.push(
      chunk({
        tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.function.name, arguments: '' } }],
      }),
    );
    for (const p of pieces(c.function.arguments, 12))
      out.push(chunk({ tool_calls: [{ index, function: { arguments: p } }] }));
  });
  out.push(chunk({}, r.finish));
  if (r.usage)
    out.push({ id: r.id, object: 'chat.completion.chunk', created, model: r.model, choices: [], usage: r.usage });
  return out;
}
