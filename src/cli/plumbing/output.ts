/** Human-facing notes go to stderr so stdout stays clean for --json and answers. */
export const note = (line: string) => process.stderr.write(`${line}\n`);
export const out = (line: string) => process.stdout.write(`${line}\n`);
export const printJson = (value: unknown) => out(JSON.stringify(value, null, 2));
