// `npm run bench -- parsers`: every parser of model output (and the redactor and the policy's
// command check) over adversarial 1 MB inputs; prints the worst case per parser. No server.
import { dangerousCommand } from '../src/policy/index.js';
import { PROTOCOLS } from '../src/protocols/index.js';
import { makeRedactor } from '../src/audit/redact.js';
import { adversarialInputs } from '../tests/helpers/adversarial.js';
import { specs } from '../tests/helpers/protocol-corpus.js';
import { table } from './stats.js';

export function parserTargets(): Record<string, (text: string) => unknown> {
  const redact = makeRedactor({ OPENAI_API_KEY: 'sk-bench-0123456789abcdefghijklmn' });
  return {
    ...Object.fromEntries(
      Object.entries(PROTOCOLS).map(([f, p]) => [`${f} protocol`, (t: string) => p.parse(t, specs)]),
    ),
    redactor: redact,
    'shell command check': (t: string) => dangerousCommand(t, '/work/ws'),
  };
}

export function benchParsers(bytes = 1 << 20): string {
  const inputs = adversarialInputs(bytes);
  const rows: Array<Array<string | number>> = [];
  for (const [name, parse] of Object.entries(parserTargets())) {
    let worst = { ms: 0, input: '' };
    let total = 0;
    for (const input of inputs) {
      const t0 = performance.now();
      parse(input.text);
      const ms = performance.now() - t0;
      total += ms;
      if (ms > worst.ms) worst = { ms, input: input.name };
    }
    rows.push([name, inputs.length, (total / inputs.length).toFixed(1), worst.ms.toFixed(0), worst.input.slice(0, 40)]);
  }
  return `Parsers on adversarial inputs of ${(bytes / 1048576).toFixed(0)} MB (one run, this machine)\n${table(
    ['parser', 'inputs', 'mean ms', 'worst ms', 'worst input'],
    rows,
  )}`;
}
