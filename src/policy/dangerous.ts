import path from 'node:path';

/**
 * The dangerous-command check over `shell` commands: a heuristic first line, not a sandbox (the
 * sandbox is `src/tools/shell/`). Every check reads a token list made in one linear pass; no
 * regular expression here can backtrack.
 */
export interface DangerFinding {
  check: string;
  reason: string;
}

// Operators split a command into segments; backticks and `$(` start one, and so does a quote
// after `-c` or `eval`, so a command inside `$(…)` or `bash -c "…"` is seen in command position.
const TOKEN = /\d?>>?\|?|&>>?|\|\||&&|<\(|\$\(|[;&|()<`"'{}\n]|[^\s;&|()<>`"'{}]+/g;
const SEPARATORS = new Set([';', '&', '|', '||', '&&', '(', ')', '<(', '$(', '`', '"', "'", '{', '}', '\n']);
const WRAPPERS = new Set([
  'env',
  'nohup',
  'exec',
  'nice',
  'time',
  'timeout',
  'xargs',
  'setsid',
  'stdbuf',
  'command',
  'builtin',
  'ionice',
  'unbuffer',
  'then',
  'do',
  'else',
  '!',
]);
const ESCALATION = new Set(['sudo', 'su', 'doas', 'pkexec', 'runuser', 'chroot', 'nsenter', 'setcap', 'unshare']);
const DOWNLOADERS = new Set(['curl', 'wget', 'fetch', 'nc', 'ncat', 'socat', 'aria2c']);
const INTERPRETERS = new Set([
  'sh',
  'bash',
  'zsh',
  'dash',
  'ksh',
  'fish',
  'python',
  'python3',
  'perl',
  'ruby',
  'node',
  'source',
  '.',
]);
const DEVICE_TOOLS = new Set(['mkfs', 'fdisk', 'sfdisk', 'parted', 'wipefs', 'mkswap', 'blkdiscard', 'losetup']);
const HARMLESS_DEVICES = /^\/dev\/(null|zero|stdout|stderr|stdin|tty|fd\/\d{1,3})$/;
const PROCESS_INTROSPECTION = /\/proc\/[^/\s]{1,32}\/(environ|mem|maps|smaps|pagemap|fd|root|cwd|cmdline|task)\b/;
const WRITERS_LAST_ARG = new Set(['cp', 'mv', 'install', 'ln', 'rsync', 'scp']);
const WRITERS_ALL_ARGS = new Set([
  'rm',
  'rmdir',
  'touch',
  'mkdir',
  'truncate',
  'chmod',
  'chown',
  'chgrp',
  'shred',
  'tee',
  'unlink',
]);

interface Token {
  text: string;
  /** First word of a segment (after wrappers and `NAME=value` assignments). */
  command: boolean;
}

function tokenize(cmd: string): Token[] {
  const out: Token[] = [];
  let start = true;
  let lastWord = '';
  for (const m of cmd.matchAll(TOKEN)) {
    const text = m[0];
    if (SEPARATORS.has(text)) {
      const quote = text === '"' || text === "'";
      out.push({ text, command: false });
      if (!quote || lastWord === '-c' || lastWord === 'eval') start = true;
      if (!quote) lastWord = text;
      continue;
    }
    lastWord = text;
    const base = text.includes('/') && !text.startsWith('/dev/') ? path.basename(text) : text;
    const isCommand = start && !/^\w{1,64}=/.test(text) && !text.startsWith('-');
    out.push({ text, command: isCommand && !WRAPPERS.has(base) });
    // A wrapper, an assignment or a wrapper's option keeps the next word in command position.
    if (start && !(WRAPPERS.has(base) || /^\w{1,64}=/.test(text) || (text.startsWith('-') && out.length > 1)))
      start = false;
    if (/^\d{1,6}$/.test(text) && out.at(-2)?.text === 'timeout') start = true;
  }
  return out;
}

const commandName = (t: Token) =>
  path
    .basename(t.text)
    .replace(/\.\w{1,8}$/, '')
    .replace(/\d{1,3}(\.\d{1,3})?$/, '');

/** Targets a command writes: redirections, `of=`, and the file arguments of writing commands. */
function writeTargets(tokens: Token[]): string[] {
  const targets: string[] = [];
  let writer: 'last' | 'all' | null = null;
  let args: string[] = [];
  const flush = () => {
    if (writer === 'last' && args.length > 1) targets.push(args.at(-1)!);
    if (writer === 'all') for (const a of args) targets.push(a);
    writer = null;
    args = [];
  };
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (/^\d?>>?\|?$|^&>>?$/.test(t.text)) {
      const next = tokens.slice(i + 1, i + 4).find((x) => x.text !== '"' && x.text !== "'");
      if (next && !next.text.startsWith('&')) targets.push(next.text);
      continue;
    }
    if (t.text.startsWith('of=')) targets.push(t.text.slice(3));
    if (t.text.startsWith('--output=')) targets.push(t.text.slice(9));
    if (SEPARATORS.has(t.text)) {
      flush();
      continue;
    }
    if (t.command) {
      flush();
      const name = path.basename(t.text);
      writer = WRITERS_LAST_ARG.has(name) ? 'last' : WRITERS_ALL_ARGS.has(name) ? 'all' : null;
    } else if (writer && !t.text.startsWith('-')) args.push(t.text);
  }
  flush();
  return targets;
}

function outside(target: string, workspace: string): boolean {
  if (target === '~' || target.startsWith('~/') || /^\$\{?HOME\b/.test(target)) return true;
  if (target.startsWith('/dev/') || target === '/tmp' || target.startsWith('/tmp/')) return false;
  const abs = path.resolve(workspace, target);
  return abs !== workspace && !abs.startsWith(workspace + path.sep);
}

function forkBomb(cmd: string): boolean {
  const flat = cmd.replace(/\s/g, '');
  let seen = 0;
  for (const m of flat.matchAll(/([\w:.-]{1,64})\(\)\{/g)) {
    if (++seen > 64) break; // a real command defines a few functions; the check stays linear
    const name = m[1]!;
    const body = flat.slice(m.index + m[0].length, m.index + m[0].length + 4096);
    if (body.includes(`${name}|${name}`) || body.includes(`${name}&${name}`)) return true;
  }
  return /\$0\|\$0|\$0&\$0/.test(flat);
}

/** The first dangerous shape in a shell command, or null. `workspace` is its real absolute path. */
export function dangerousCommand(command: string, workspace: string): DangerFinding | null {
  const tokens = tokenize(command);
  const commands = tokens.filter((t) => t.command).map(commandName);
  const has = (set: Set<string>) => commands.find((c) => set.has(c));

  const esc = has(ESCALATION);
  if (esc) return { check: 'privilege-escalation', reason: `'${esc}' changes who the command runs as` };
  const setuid = tokens.some(
    (t, i) => t.text === 'chmod' && /^[ug]?\+s$|^[2-7][0-7]{3}$/.test(tokens[i + 1]?.text ?? ''),
  );
  if (setuid) return { check: 'privilege-escalation', reason: 'chmod sets a set-user-id or set-group-id bit' };

  if (forkBomb(command)) return { check: 'fork-bomb', reason: 'a function that starts copies of itself without end' };

  const dl = has(DOWNLOADERS);
  const interp = has(INTERPRETERS);
  if (dl && interp && /[|`]|<\(|\$\(/.test(command))
    return { check: 'network-to-shell', reason: `output of '${dl}' is run by '${interp}': code from the network` };

  if (PROCESS_INTROSPECTION.test(command) || /\b(gdb|strace|ltrace)\b[^;&|]{0,200}\s-p\b/.test(command))
    return { check: 'process-introspection', reason: "it reads another process's memory, environment or files" };

  const targets = writeTargets(tokens).map((t) => t.replace(/^["']|["']$/g, ''));
  const device = has(DEVICE_TOOLS) ?? targets.find((t) => t.startsWith('/dev/') && !HARMLESS_DEVICES.test(t));
  if (device) return { check: 'device-write', reason: `it writes to a device or file system ('${device}')` };

  const recursiveRm = tokens.some(
    (t, i) =>
      t.command &&
      commandName(t) === 'rm' &&
      tokens.slice(i + 1, nextSeparator(tokens, i + 1)).some((x) => /^-[a-zA-Z]*[rR]|^--recursive$/.test(x.text)),
  );
  const escaping = targets.find((t) => outside(t, workspace));
  if (escaping) return { check: 'write-outside-workspace', reason: `it writes '${escaping}', outside the workspace` };
  if (recursiveRm && targets.some((t) => ['.', './', '*', './*', workspace, workspace + '/'].includes(t)))
    return { check: 'recursive-delete', reason: 'it deletes the whole workspace' };
  if (
    /(^|[\s;&|])find\b[^;&|]{0,400}\s(-delete|-exec\s+rm)\b/.test(command) &&
    /(^|\s)find\s+(\/|~|\.\.)/.test(command)
  )
    return { check: 'recursive-delete', reason: 'it deletes files outside the workspace' };
  return null;
}

function nextSeparator(tokens: Token[], from: number): number {
  for (let i = from; i < tokens.length; i++) if (SEPARATORS.has(tokens[i]!.text)) return i;
  return tokens.length;
}
