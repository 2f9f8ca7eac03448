import { z } from 'zod';
import { defineTool } from '../define-tool.js';
import { evaluate } from './arithmetic.js';

export const calculator = defineTool({
  name: 'calculator',
  description:
    'Evaluate an arithmetic expression: + - * / % ^, parentheses, sqrt, abs, round, floor, ceil, sin, cos, tan, ln, log10, log2, exp, min, max, pow, pi, e.',
  input: z.object({ expression: z.string().min(1).describe('e.g. "(2 + 3) * sqrt(16)"') }),
  effect: 'read',
  execute: ({ expression }) => String(evaluate(expression)),
});
