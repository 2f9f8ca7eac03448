/** Removes `<thinking>…</thinking>` and `<think>…</think>` sections; an unclosed one runs to the end. */
export function stripThinking(text: string): string {
  return text.replace(/<(thinking|think)>[\s\S]*?(<\/\1>|$)/gi, '');
}
