/** Replaces secret-looking values in text before it reaches a workflow's history. */
export type Redactor = (text: string) => string;

const SECRET_NAME = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL)/i;

const PATTERNS: RegExp[] = [
  /\bsk-[A-Za-z0-9_-]{20,}/g, // OpenAI-style keys
  /\b[sr]k_(?:live|test)_[A-Za-z0-9]{10,}/g, // Stripe secret and restricted keys
  /\bwhsec_[A-Za-z0-9]{20,}/g, // Stripe webhook secrets
  /\bAKIA[0-9A-Z]{16}\b/g, // AWS access key ids
  /\bAIza[0-9A-Za-z_-]{35}/g, // Google (GCP) API keys
  /\bya29\.[0-9A-Za-z_-]{20,}/g, // Google OAuth access tokens
  /\bgh[pousr]_[A-Za-z0-9]{30,}/g, // GitHub tokens
  /\bgithub_pat_[A-Za-z0-9_]{40,}/g, // GitHub fine-grained tokens
  /\bglpat-[A-Za-z0-9_-]{20,}/g, // GitLab tokens
  /\bnpm_[A-Za-z0-9]{36}\b/g, // npm tokens
  /\bxox[abeprs]-[A-Za-z0-9-]{10,}/g, // Slack tokens
  /\bxapp-[0-9]-[A-Za-z0-9-]{10,}/g, // Slack app tokens
  /https:\/\/hooks\.slack\.com\/services\/[A-Za-z0-9/]{20,}/g, // Slack webhooks
  /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, // JWTs
];
const KEY_BEGIN = /-----BEGIN [A-Z ]{0,40}PRIVATE KEY-----/g;
const KEY_END = /-----END [A-Z ]{0,40}PRIVATE KEY-----/;
const KEY_BODY = /^[A-Za-z0-9+/=\s\\]{0,16384}/;

/**
 * Private key blocks, with or without their END line (a key cut short still leaks its body), and
 * inside JSON (a GCP service-account file), where line breaks are `\n` escapes. The END line is
 * looked for within 16 KB of the BEGIN line only, so the work stays linear.
 */
function redactPrivateKeys(text: string): string {
  if (!text.includes('PRIVATE KEY-----')) return text;
  let out = '';
  let at = 0;
  KEY_BEGIN.lastIndex = 0;
  for (let m = KEY_BEGIN.exec(text); m; m = KEY_BEGIN.exec(text)) {
    if (m.index < at) continue;
    const after = m.index + m[0].length;
    const window = text.slice(after, after + 16_384);
    const end = KEY_END.exec(window);
    const len = end ? end.index + end[0].length : KEY_BODY.exec(window)![0].length;
    out += `${text.slice(at, m.index)}[REDACTED]`;
    at = after + len;
    KEY_BEGIN.lastIndex = at;
  }
  return out + text.slice(at);
}
// `Authorization: Bearer …` and `Basic …` credentials, and the password of a URL (`postgres://u:pw@h`).
const BEARER = /\b(Bearer|Basic|Token)(\s{1,4})[A-Za-z0-9._~+/=-]{16,}/g;
const URL_PASSWORD = /\b([a-z][a-z0-9+.-]{1,20}:\/\/[^\s:/@]{1,256}:)[^\s@/]{1,256}@/gi;
// `password = "…"`-style assignments (also JSON's `"password": "…"`) whose value looks like a
// credential (12+ key characters with a digit), so that code such as `token = getToken()` is left
// alone. Every quantifier is bounded and the name test happens outside the pattern: no input makes
// it backtrack more than linearly.
const ASSIGNMENT = /\b([\w-]{1,64})(["']?\s{0,8}[:=]\s{0,8})(["']?)([A-Za-z0-9_\-+/=]{12,512})\3/g;
const SECRET_KEY_NAME = /api[_-]?key|secret|token|password|passwd/i;

/**
 * A value as it may appear split over lines or string pieces (`"sk-abc" +\n "def"`, `fold -w 20`):
 * its characters with up to 16 of whitespace, quotes, `+` and backslashes between them. The value's
 * own characters are never separators, so matching stays linear.
 */
function splitPattern(value: string): RegExp | null {
  if (value.length > 256 || !/^[A-Za-z0-9_\-./=:]{16,}$/.test(value)) return null;
  const esc = [...value].map((c) => c.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&'));
  return new RegExp(esc.join('[\\s"\'+\\\\]{0,16}'), 'g');
}

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
  const split = values.map(({ name, value }) => ({ name, re: splitPattern(value) }));
  return (text) => {
    let out = text;
    for (const { name, value } of values) out = out.split(value).join(`[REDACTED:${name}]`);
    for (const { name, re } of split) if (re) out = out.replace(re, `[REDACTED:${name}]`);
    out = redactPrivateKeys(out);
    for (const re of [...PATTERNS, ...extra]) out = out.replace(re, '[REDACTED]');
    out = out.replace(BEARER, '$1$2[REDACTED]').replace(URL_PASSWORD, '$1[REDACTED]@');
    return out.replace(ASSIGNMENT, (m, k: string, sep: string, q: string, value: string) =>
      SECRET_KEY_NAME.test(k) && /\d/.test(value) ? `${k}${sep}${q}[REDACTED]${q}` : m,
    );
  };
}

/** Deeper than this, a value is replaced by a marker (a reply nested 100 000 deep must not overflow the stack). */
const MAX_DEPTH = 100;

/** Redacts every string inside a JSON-like value. */
export function redactValue<T>(value: T, redact: Redactor, depth = 0): T {
  if (typeof value === 'string') return redact(value) as T;
  if (depth > MAX_DEPTH && value && typeof value === 'object') return '[nested too deeply]' as T;
  if (Array.isArray(value)) return value.map((v) => redactValue(v, redact, depth + 1)) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactValue(v, redact, depth + 1)])) as T;
  }
  return value;
}
