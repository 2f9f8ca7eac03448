/** Cuts long text for the model, keeping head and tail and saying how much was cut. */
export function truncateForModel(text: string, max = 20_000): string {
  if (text.length <= max) return text;
  const head = Math.floor(max * 0.75);
  const tail = max - head;
  const cut = text.length - head - tail;
  return `${text.slice(0, head)}\n…[cut ${cut} of ${text.length} characters]…\n${text.slice(text.length - tail)}`;
}
