import { RE2JS } from 're2js';

const escape = (s: string) => s.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');

/**
 * A glob as an RE2 expression (linear-time matching, whatever the input): `**` any characters,
 * `*` any characters but `/` (or any characters at all when `slashes` is true), `?` one character.
 */
export function globMatcher(glob: string, slashes: boolean): (s: string) => boolean {
  let src = '';
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i]!;
    if (ch === '*' && glob[i + 1] === '*') {
      // `**/` also matches no folder at all: `src/**/x` matches `src/x`.
      if (glob[i + 2] === '/') {
        src += '(?:.*/)?';
        i += 2;
      } else {
        src += '.*';
        i += 1;
      }
    } else if (ch === '*') src += slashes ? '.*' : '[^/]*';
    else if (ch === '?') src += slashes ? '.' : '[^/]';
    else src += escape(ch);
  }
  const re = RE2JS.compile(`^(?:${src})$`, RE2JS.DOTALL);
  return (s) => re.matches(s);
}
