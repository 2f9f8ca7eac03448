import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, readlinkSync } from 'node:fs';
import type { ShellSettings } from '../../policy/types.js';

/** How a shell command is started, and what contains it. */
export interface ShellLaunch {
  file: string;
  args: string[];
  /** `bwrap` when the command runs in the sandbox, `none` otherwise. */
  containment: 'bwrap' | 'none';
  /** The environment to start it with (in the sandbox, HOME and TMPDIR are its private /tmp). */
  env: Record<string, string>;
  /** Said to the model and in the audit when the command is not contained. */
  warning?: string;
}

let probed: { ok: boolean; why: string } | undefined;

/** Whether bubblewrap is installed and can make a sandbox here (user namespaces allowed); probed once. */
export function bubblewrapStatus(): { ok: boolean; why: string } {
  if (!probed) {
    const r = spawnSync('bwrap', ['--ro-bind', '/', '/', '--unshare-pid', '--unshare-net', '--proc', '/proc', 'true'], {
      encoding: 'utf8',
      timeout: 10_000,
    });
    probed =
      r.error !== undefined
        ? { ok: false, why: 'bubblewrap (bwrap) is not installed' }
        : r.status === 0
          ? { ok: true, why: 'bubblewrap works' }
          : {
              ok: false,
              why: `bubblewrap cannot make a sandbox here: ${(r.stderr || '').trim() || `exit ${r.status}`}`,
            };
  }
  return probed;
}

const NOT_CONTAINED =
  'not contained: the command runs with the worker’s own view of the file system, processes and network';

/**
 * Why shell commands run under these settings are not contained, or null when bubblewrap
 * contains them. A policy that demands the sandbox where it cannot work is an error.
 */
export function uncontained(s: ShellSettings): string | null {
  if (s.sandbox === 'none') return `${NOT_CONTAINED} (the policy turns the sandbox off)`;
  const bw = bubblewrapStatus();
  if (bw.ok) return null;
  if (s.sandbox === 'bwrap') throw new Error(`The policy requires the shell sandbox, but ${bw.why}.`);
  return `${NOT_CONTAINED}; ${bw.why} (install bubblewrap for the sandbox)`;
}

/** Inside the sandbox: files of /etc a command has no business reading. */
const MASKED_ETC = ['/etc/shadow', '/etc/gshadow', '/etc/sudoers', '/etc/shadow-', '/etc/gshadow-'];
const MASKED_ETC_DIRS = ['/etc/ssh', '/etc/sudoers.d'];

/** The ulimit line that applies the limits to the command and everything it starts. */
export function limitsPrefix(s: ShellSettings): string {
  const l = s.limits;
  return `ulimit -t ${l.cpuSeconds} -v ${l.memoryMb * 1024} -u ${l.processes} -f ${l.fileSizeMb * 1024} 2>/dev/null; `;
}

/**
 * The bubblewrap command line: the system folders read-only, the workspace the only writable
 * place (less the orchestrator's folders inside it), a private /tmp, its own PID, IPC and UTS
 * namespaces and /proc, no network unless allowed, a clean environment, and the whole tree
 * killed when the worker's child dies.
 */
export function bwrapArgs(
  workspace: string,
  hidden: string[],
  s: ShellSettings,
  env: Record<string, string>,
): string[] {
  const a = [
    '--die-with-parent',
    '--new-session',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
  ];
  if (!s.network) a.push('--unshare-net');
  a.push('--ro-bind', '/usr', '/usr', '--ro-bind', '/etc', '/etc');
  for (const p of ['/bin', '/sbin', '/lib', '/lib64', '/lib32', '/libx32']) {
    if (!existsSync(p)) continue;
    const st = lstatSync(p);
    if (st.isSymbolicLink()) a.push('--symlink', readlinkSync(p), p);
    else a.push('--ro-bind', p, p);
  }
  for (const p of MASKED_ETC) if (existsSync(p)) a.push('--ro-bind', '/dev/null', p);
  for (const p of MASKED_ETC_DIRS) if (existsSync(p)) a.push('--tmpfs', p);
  for (const p of s.readOnlyPaths) a.push('--ro-bind-try', p, p);
  a.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp', '--tmpfs', '/run', '--tmpfs', '/var/tmp');
  a.push('--bind', workspace, workspace);
  // The orchestrator's folders inside the workspace are replaced by empty ones (outermost only).
  const outermost = hidden.filter((d) => !hidden.some((o) => o !== d && d.startsWith(o + '/')));
  for (const d of outermost) a.push('--tmpfs', d);
  a.push('--chdir', workspace, '--clearenv');
  for (const [k, v] of Object.entries(env)) a.push('--setenv', k, v);
  return a;
}

/**
 * How to start `command`: in bubblewrap when the settings allow it and it works here; otherwise
 * plain bash with the same limits and a warning (or a refusal, when the policy demands the sandbox).
 */
export function shellLaunch(
  command: string,
  workspace: string,
  hidden: string[],
  s: ShellSettings,
  env: Record<string, string>,
): ShellLaunch {
  const inner = ['bash', '-c', `${limitsPrefix(s)}exec bash -c "$1"`, 'dagent-shell', command];
  const warning = uncontained(s);
  if (warning === null) {
    const inside = { ...env, HOME: '/tmp', TMPDIR: '/tmp' };
    return {
      file: 'bwrap',
      args: [...bwrapArgs(workspace, hidden, s, inside), '--', ...inner],
      containment: 'bwrap',
      env: inside,
    };
  }
  return { file: inner[0]!, args: inner.slice(1), containment: 'none', env, warning };
}
