import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parserTargets } from '../../bench/parsers.js';
import { adversarialInputs } from '../helpers/adversarial.js';

// A guard against catastrophic backtracking and quadratic scans in everything that reads model
// output: each adversarial 256 KB input must parse within a second of CPU time (a quadratic parser took 5 s
// here; `npm run bench -- parsers` prints the real figures at 1 MB). Shell commands are capped at
// 100 KB by the tool's schema, so the command check gets inputs of that size.
describe('parsers stay linear on adversarial input', () => {
  for (const [name, parse] of Object.entries(parserTargets())) {
    it(name, () => {
      const inputs = adversarialInputs(name === 'shell command check' ? 100_000 : 256 * 1024);
      const slow: string[] = [];
      for (const input of inputs) {
        // CPU time of this process, not wall time: other test processes on the machine do not count.
        const t0 = process.cpuUsage();
        parse(input.text);
        const { user, system } = process.cpuUsage(t0);
        const ms = (user + system) / 1000;
        if (ms > 1_000) slow.push(`${input.name}: ${ms.toFixed(0)} ms`);
      }
      assert.deepEqual(slow, []);
    });
  }
});
