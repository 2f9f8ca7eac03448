/**
 * A small arithmetic parser and evaluator (recursive descent; never eval).
 * Grammar: expr = term (('+'|'-') term)*; term = power (('*'|'/'|'%') power)*;
 * power = unary ('^' power)?; unary = '-' unary | '+' unary | call;
 * call = NAME '(' expr (',' expr)* ')' | NAME | NUMBER | '(' expr ')'.
 */

// Lookups use Object.hasOwn: a plain `in`/index would find `constructor`, `toString`, ….
const FUNCTIONS: Record<string, (...xs: number[]) => number> = {
  sqrt: Math.sqrt,
  abs: Math.abs,
  round: Math.round,
  floor: Math.floor,
  ceil: Math.ceil,
  sin: Math.sin,
  cos: Math.cos,
  tan: Math.tan,
  ln: Math.log,
  log10: Math.log10,
  log2: Math.log2,
  exp: Math.exp,
  min: Math.min,
  max: Math.max,
  pow: Math.pow,
};
const CONSTANTS: Record<string, number> = { pi: Math.PI, e: Math.E };

export class ArithmeticError extends Error {
  override name = 'ArithmeticError';
}

type Token =
  | { kind: 'num'; value: number; pos: number }
  | { kind: 'name'; value: string; pos: number }
  | { kind: 'op'; value: string; pos: number };

function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const ch = src[i]!;
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    const num = /^(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?/.exec(src.slice(i));
    if (num) {
      tokens.push({ kind: 'num', value: Number(num[0]), pos: i });
      i += num[0].length;
      continue;
    }
    const name = /^[a-zA-Z_][a-zA-Z0-9_]*/.exec(src.slice(i));
    if (name) {
      tokens.push({ kind: 'name', value: name[0].toLowerCase(), pos: i });
      i += name[0].length;
      continue;
    }
    if (src.startsWith('**', i)) {
      tokens.push({ kind: 'op', value: '^', pos: i });
      i += 2;
      continue;
    }
    if ('+-*/%^(),'.includes(ch)) {
      tokens.push({ kind: 'op', value: ch, pos: i });
      i++;
      continue;
    }
    throw new ArithmeticError(`Unexpected character '${ch}' at position ${i + 1}.`);
  }
  return tokens;
}

export function evaluate(src: string): number {
  const tokens = tokenize(src);
  let k = 0;
  const peek = () => tokens[k];
  const isOp = (v: string) => {
    const t = peek();
    return t?.kind === 'op' && t.value === v;
  };
  const where = () => {
    const t = peek();
    return t ? `at position ${t.pos + 1}` : 'at the end';
  };
  const expect = (v: string) => {
    if (!isOp(v)) throw new ArithmeticError(`Expected '${v}' ${where()}.`);
    k++;
  };

  const expr = (): number => {
    let v = term();
    while (isOp('+') || isOp('-')) v = tokens[k++]!.value === '+' ? v + term() : v - term();
    return v;
  };
  const term = (): number => {
    let v = power();
    while (isOp('*') || isOp('/') || isOp('%')) {
      const op = tokens[k++]!.value;
      const r = power();
      if ((op === '/' || op === '%') && r === 0) throw new ArithmeticError('Division by zero.');
      v = op === '*' ? v * r : op === '/' ? v / r : v % r;
    }
    return v;
  };
  const power = (): number => {
    const base = unary();
    if (isOp('^')) {
      k++;
      return base ** power();
    }
    return base;
  };
  const unary = (): number => {
    if (isOp('-')) {
      k++;
      return -unary();
    }
    if (isOp('+')) {
      k++;
      return unary();
    }
    return atom();
  };
  const atom = (): number => {
    const t = peek();
    if (!t) throw new ArithmeticError('Unexpected end of expression.');
    if (t.kind === 'num') {
      k++;
      return t.value;
    }
    if (t.kind === 'name') {
      k++;
      if (isOp('(')) {
        const fn = Object.hasOwn(FUNCTIONS, t.value) ? FUNCTIONS[t.value] : undefined;
        if (!fn)
          throw new ArithmeticError(`Unknown function '${t.value}'. Known: ${Object.keys(FUNCTIONS).join(', ')}.`);
        k++;
        const args = [expr()];
        while (isOp(',')) {
          k++;
          args.push(expr());
        }
        expect(')');
        return fn(...args);
      }
      const c = Object.hasOwn(CONSTANTS, t.value) ? CONSTANTS[t.value] : undefined;
      if (c === undefined)
        throw new ArithmeticError(`Unknown name '${t.value}'. Known constants: ${Object.keys(CONSTANTS).join(', ')}.`);
      return c;
    }
    if (t.value === '(') {
      k++;
      const v = expr();
      expect(')');
      return v;
    }
    throw new ArithmeticError(`Unexpected '${t.value}' at position ${t.pos + 1}.`);
  };

  if (tokens.length === 0) throw new ArithmeticError('Empty expression.');
  const value = expr();
  if (k < tokens.length)
    throw new ArithmeticError(`Unexpected '${String(tokens[k]!.value)}' at position ${tokens[k]!.pos + 1}.`);
  if (!Number.isFinite(value)) throw new ArithmeticError(`The result is not a finite number (${value}).`);
  return value;
}
