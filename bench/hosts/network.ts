import { execFileSync, spawn, type ChildProcess } from 'node:child_process';

// Hosts simulated on one machine: each a Linux network namespace with its own loopback and one
// veth link to a bridge in the root namespace, where the cluster listens. A host's processes see
// only its own interfaces: they reach the server and PostgreSQL over the bridge, like another
// machine would. Needs root and `ip`; without them, hosts are plain processes (said in the output).

export interface Host {
  name: string;
  /** The network namespace, or null when hosts are plain processes. */
  netns: string | null;
  /** The address the cluster is reached at from this host. */
  clusterIp: string;
}

export interface Network {
  hosts: Host[];
  /** The root namespace's address on the bridge (null: loopback). */
  bridgeIp: string | null;
  how: string;
  teardown(): void;
}

const ip = (...args: string[]) => execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });

/** Whether this machine lets us make network namespaces and give a process a host name of its own. */
export function canUseNetns(): boolean {
  if (process.getuid?.() !== 0) return false;
  const probe = `dagent-probe-${process.pid}`;
  try {
    ip('netns', 'add', probe);
    execFileSync('ip', ['netns', 'exec', probe, 'unshare', '--uts', '--', 'true'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  } finally {
    try {
      ip('netns', 'del', probe);
    } catch {
      /* never made */
    }
  }
}

/** `n` hosts on subnet 10.<octet>.0.0/24 (bridge .1, hosts .11, .12, …). */
export function setupNetwork(n: number, tag: string, octet = 77): Network {
  const names = Array.from({ length: n }, (_, i) => `h${i + 1}`);
  if (!canUseNetns()) {
    return {
      hosts: names.map((name) => ({ name, netns: null, clusterIp: '127.0.0.1' })),
      bridgeIp: null,
      how: 'separate processes with separate data folders (network namespaces need root and `ip`)',
      teardown: () => {},
    };
  }
  const bridge = `br-${tag}`.slice(0, 15);
  const bridgeIp = `10.${octet}.0.1`;
  const teardown = () => {
    for (const h of names) {
      try {
        ip('netns', 'del', `${tag}-${h}`);
      } catch {
        /* gone */
      }
    }
    try {
      ip('link', 'del', bridge);
    } catch {
      /* gone */
    }
  };
  teardown();
  ip('link', 'add', bridge, 'type', 'bridge');
  ip('addr', 'add', `${bridgeIp}/24`, 'dev', bridge);
  ip('link', 'set', bridge, 'up');
  const hosts = names.map((name, i) => {
    const ns = `${tag}-${name}`;
    const veth = `v${tag}${i + 1}`.slice(0, 15);
    ip('netns', 'add', ns);
    ip('link', 'add', veth, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', ns);
    ip('link', 'set', veth, 'master', bridge);
    ip('link', 'set', veth, 'up');
    ip('-n', ns, 'addr', 'add', `10.${octet}.0.${11 + i}/24`, 'dev', 'eth0');
    ip('-n', ns, 'link', 'set', 'eth0', 'up');
    ip('-n', ns, 'link', 'set', 'lo', 'up');
    return { name, netns: ns, clusterIp: bridgeIp };
  });
  return {
    hosts,
    bridgeIp,
    how: `network namespaces ${hosts.map((h) => h.netns).join(', ')}, each with its own loopback and a veth to bridge ${bridge} (${bridgeIp}), where the cluster listens`,
    teardown,
  };
}

/**
 * Starts a command on a host: inside its network namespace, under a host name of its own (a UTS
 * namespace), so a worker's identity (`pid@host`) says which host it is.
 */
export function spawnOnHost(host: Host, cmd: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  const named = ['unshare', '--uts', '--', 'sh', '-c', 'hostname "$0" && exec "$@"', host.name, cmd, ...args];
  const [c, ...a] = host.netns ? ['ip', 'netns', 'exec', host.netns, ...named] : [cmd, ...args];
  return spawn(c!, a, { env, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Kills every process of a host at once, as a power cut would. */
export function killHost(host: Host, pids: number[]): void {
  const all = new Set(pids);
  if (host.netns) {
    try {
      const out = execFileSync('ip', ['netns', 'pids', host.netns], { encoding: 'utf8' });
      for (const p of out.split(/\s+/).filter(Boolean)) all.add(Number(p));
    } catch {
      /* no such namespace */
    }
  }
  for (const p of all) {
    try {
      process.kill(p, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
}
