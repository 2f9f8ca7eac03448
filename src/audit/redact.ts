/** Replaces secret-looking values in text before it reaches a workflow's history. */
export type Redactor = (text: string) => string;

const SECRET_NAME = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL)/i;

const PATTERNS: RegExp[] = [
  /\bsk-[A-Za-z0-9_-]{20,}/g, // OpenAI-style keys
  /\bAKIA[0-9A-Z]{16}\b/g, // AWS access key ids
  /\bgh[pousr]_[A-Za-z0-9]{30,}/g, // GitHub tokens
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/g, // Slack tokens
  // A private key block, with or without its END line (a key cut short still leaks its body).
  /-----BEGIN [A-Z ]{0,40}PRIVATE KEY-----(?:[\s\S]{0,16384}?-----END [A-Z ]{0,40}PRIVATE KEY-----|[A-Za-z0-9+/=\s]{0,16384})/g,
];
// `password = "…"`-style assignments whose value looks like a credential (12+ key characters with a
// digit), so that code such as `token = getToken()` is left alone. Every quantifier is bounded and
// the name test happens outside the pattern: no input makes it backtrack more than linearly.
const ASSIGNMENT = /\b([\w-]{1,64})(\s{0,8}[:=]\s{0,8})(["']?)([A-Za-z0-9_\-+/=]{12,512})\3/g;
const SECRET_KEY_NAME = /api[_-]?key|secret|token|password|passwd/i;

/**
 * A redactor for this process: the values of environment variables named like secrets (8+
 * characters), well-known key formats, `password=…`-style assignments, and any extra regular
 * expressions given as a JSON array of strings in DAGENT_REDACT_PATTERNS.
 */
export function makeRedactor(env: Record<string, string | undefined> = process.env): Redactor {
  const values = Object.entries(env)
    .filter(([k, v]) => SECRET_NAME.test(k) && v && v.length >= 8)
    .map(([k, v]) => ({ name: k, value: v! }))
    .sort((a, b) => b.value.length - a.value.length);
  let extra: RegExp[] = [];
  if (env.DAGENT_REDACT_PATTERNS) {
    let list: unknown;
    try {
      list = JSON.parse(env.DAGENT_REDACT_PATTERNS);
    } catch {
      list = null;
    }
    if (!Array.isArray(list) || !list.every((x) => typeof x === 'string')) {
      throw new Error('DAGENT_REDACT_PATTERNS must be a JSON array of regular expressions, e.g. ["acct-[0-9]{6}"].');
    }
    extra = list.map((src) => new RegExp(src, 'g'));
  }
  return (text) => {
    let out = text;
    for (const { name, value } of values) out = out.split(value).join(`[REDACTED:${name}]`);
    for (const re of [...PATTERNS, ...extra]) out = out.replace(re, '[REDACTED]');
    return out.replace(ASSIGNMENT, (m, k: string, sep: string, q: string, value: string) =>
      SECRET_KEY_NAME.test(k) && /\d/.test(value) ? `${k}${sep}${q}[REDACTED]${q}` : m,
    );
  };
}

/** Redacts every string inside a JSON-like value. */
export function redactValue<T>(value: T, redact: Redactor): T {
  if (typeof value === 'string') return redact(value) as T;
  if (Array.isArray(value)) return value.map((v) => redactValue(v, redact)) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactValue(v, redact)])) as T;
  }
  return value;
}
