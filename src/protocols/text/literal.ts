import { MAX_NESTING, nestingDepth } from './json-scan.js';

/**
 * Literals as models write them, parsed — never evaluated: JSON, plus single-quoted strings,
 * bare object keys, trailing commas and Python's True / False / None.
 */
const BARE_KEY = /[A-Za-z_$][\w$-]*/y;

export class LiteralError extends Error {
  override name = 'LiteralError';
}

export function parseLiteralAt(src: string, start: number): { value: unknown; end: number } {
  let i = start;
  let depth = 0;
  const ws = () => {
    while (i < src.length && /\s/.test(src[i]!)) i++;
  };
  const fail = (what: string): never => {
    throw new LiteralError(`${what} at position ${i + 1}`);
  };

  const str = (): string => {
    const q = src[i++]!;
    let out = '';
    while (i < src.length && src[i] !== q) {
      if (src[i] === '\\') {
        const e = src[i + 1];
        i += 2;
        if (e === 'n') out += '\n';
        else if (e === 't') out += '\t';
        else if (e === 'r') out += '\r';
        else if (e === 'b') out += '\b';
        else if (e === 'f') out += '\f';
        else if (e === 'u') {
          out += String.fromCharCode(parseInt(src.slice(i, i + 4), 16));
          i += 4;
        } else if (e === undefined) fail('unfinished escape');
        else out += e;
      } else out += src[i++];
    }
    if (i >= src.length) fail(`unterminated string opened with ${q}`);
    i++;
    return out;
  };

  const value = (): unknown => {
    ws();
    const ch = src[i];
    if (ch === undefined) return fail('expected a value');
    if (ch === '"' || ch === "'") return str();
    if ((ch === '{' || ch === '[') && ++depth > MAX_NESTING)
      return fail(`values nest more than ${MAX_NESTING} levels deep`);
    if (ch === '{') {
      i++;
      const obj: Record<string, unknown> = {};
      for (;;) {
        ws();
        if (src[i] === '}') {
          i++;
          depth--;
          return obj;
        }
        let key: string;
        if (src[i] === '"' || src[i] === "'") key = str();
        else {
          BARE_KEY.lastIndex = i;
          const m = BARE_KEY.exec(src);
          if (!m) return fail('expected a key');
          key = m[0];
          i += key.length;
        }
        ws();
        if (src[i] !== ':') fail(`expected ':' after key '${key}'`);
        i++;
        obj[key] = value();
        ws();
        if (src[i] === ',') {
          i++;
          continue;
        }
        if (src[i] === '}') {
          i++;
          depth--;
          return obj;
        }
        fail("expected ',' or '}'");
      }
    }
    if (ch === '[') {
      i++;
      const arr: unknown[] = [];
      for (;;) {
        ws();
        if (src[i] === ']') {
          i++;
          depth--;
          return arr;
        }
        arr.push(value());
        ws();
        if (src[i] === ',') {
          i++;
          continue;
        }
        if (src[i] === ']') {
          i++;
          depth--;
          return arr;
        }
        fail("expected ',' or ']'");
      }
    }
    const num = /^-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?/.exec(src.slice(i));
    if (num) {
      i += num[0].length;
      return Number(num[0]);
    }
    const word = /^[A-Za-z_]+/.exec(src.slice(i))?.[0];
    const words: Record<string, unknown> = {
      true: true,
      false: false,
      null: null,
      True: true,
      False: false,
      None: null,
    };
    if (word !== undefined && Object.hasOwn(words, word)) {
      i += word.length;
      return words[word];
    }
    return fail(`unexpected ${word ? `'${word}'` : `'${ch}'`}`);
  };

  const v = value();
  return { value: v, end: i };
}

/** One whole literal: JSON first, then the tolerant form. */
export function parseLiteral(src: string): unknown {
  if (nestingDepth(src, MAX_NESTING + 1) > MAX_NESTING)
    throw new LiteralError(`values nest more than ${MAX_NESTING} levels deep`);
  try {
    return JSON.parse(src);
  } catch {
    const { value, end } = parseLiteralAt(src, 0);
    if (src.slice(end).trim()) throw new LiteralError(`unexpected text after the value at position ${end + 1}`);
    return value;
  }
}

/** An object literal, or an error saying why the text is not one. */
export function parseObject(src: string): { ok: true; value: Record<string, unknown> } | { ok: false; error: string } {
  try {
    const v = parseLiteral(src.trim());
    if (v && typeof v === 'object' && !Array.isArray(v)) return { ok: true, value: v as Record<string, unknown> };
    return { ok: false, error: 'expected a JSON object' };
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
}
