// Human-facing notes go to stderr so stdout stays clean for --json and answers. Everything printed
// passes `printable`: text from a model, a tool or a workspace must not drive the terminal.

/** C0/C1 controls (but newline and tab) and bidirectional overrides, which could hide or rewrite what is shown. */
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** Text with every unsafe character shown as a `\uXXXX` escape (also a valid escape inside JSON strings). */
export const printable = (text: string) =>
  text.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

export const note = (line: string) => process.stderr.write(`${printable(line)}\n`);
export const out = (line: string) => process.stdout.write(`${printable(line)}\n`);
export const printJson = (value: unknown) => out(JSON.stringify(value, null, 2));
