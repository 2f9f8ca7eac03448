import type { AuditRecord } from '../../audit/schema.js';
import type { JobRow } from '../../workflow-safe/job-status.js';
import { jobView, type Bar, type JobView } from '../layout.js';

// The `dagent ui` page: recent jobs with search, and one job's timeline. Everything shown comes
// from the model, tools or workspace and is untrusted: it is set as text, never parsed as HTML.

const root = document.getElementById('app')!;
let timer: number | undefined;

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: Array<Node | string>
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  for (const c of children) e.append(c);
  return e;
}

async function getJson<T>(url: string): Promise<T> {
  const r = await fetch(url);
  const body = (await r.json()) as T & { error?: string };
  if (!r.ok) throw new Error(body.error ?? `HTTP ${r.status}`);
  return body;
}

function showError(where: HTMLElement, err: unknown): void {
  where.replaceChildren(el('p', { class: 'error' }, String((err as Error).message ?? err)));
}

// ---- the job list ----------------------------------------------------------------------------

async function listPage(params: URLSearchParams): Promise<void> {
  const form = el('form', { class: 'filters', id: 'filters' });
  const field = (name: string, label: string, input: HTMLInputElement | HTMLSelectElement) => {
    input.name = name;
    input.value = params.get(name) ?? '';
    form.append(el('label', {}, label, input));
  };
  const status = el('select');
  for (const s of ['', 'running', 'awaiting_approval', 'paused', 'completed', 'failed', 'cancelled', 'max_steps'])
    status.append(el('option', { value: s }, s || 'any'));
  field('status', 'status ', status);
  field('tool', 'tool ', el('input', { placeholder: 'write_file' }));
  field('wrote', 'wrote ', el('input', { placeholder: '/path/to/file' }));
  form.append(el('button', { type: 'submit' }, 'Search'));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const q = new URLSearchParams();
    for (const [k, v] of new FormData(form)) if (v) q.set(k, String(v));
    location.hash = `#/?${q}`;
  });
  const list = el('div', { id: 'jobs' }, el('p', {}, 'Loading…'));
  root.replaceChildren(el('h1', {}, 'Jobs'), form, list);
  try {
    const { jobs } = await getJson<{ jobs: JobRow[] }>(`/api/jobs?${params}`);
    if (!jobs.length) return void list.replaceChildren(el('p', {}, 'No jobs match.'));
    const table = el(
      'table',
      { class: 'jobs' },
      el('tr', {}, ...['job', 'status', 'started', 'tools', 'wrote'].map((h) => el('th', {}, h))),
    );
    for (const j of jobs)
      table.append(
        el(
          'tr',
          { 'data-job': j.jobId },
          el('td', {}, el('a', { href: `#/job/${encodeURIComponent(j.jobId)}` }, j.jobId)),
          el('td', { class: `status ${j.status}` }, j.status),
          el('td', {}, new Date(j.startedAt).toLocaleString()),
          el('td', {}, j.tools.join(', ')),
          el('td', {}, j.wrote.join(', ')),
        ),
      );
    list.replaceChildren(table);
  } catch (err) {
    showError(list, err);
  }
}

// ---- one job's timeline ----------------------------------------------------------------------

const fmt = (ms: number) => (ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`);
const pct = (x: number, span: number) => `${Math.max(0, Math.min(100, (x / span) * 100)).toFixed(3)}%`;

function barRow(b: Bar, span: number): HTMLElement {
  const track = el('div', { class: 'track' });
  if (b.waitMs && b.start !== null)
    track.append(
      el('div', {
        class: 'wait',
        style: `left:${pct(b.start - b.waitMs, span)};width:${pct(b.waitMs, span)}`,
        title: `waited ${fmt(b.waitMs)} for a lock`,
      }),
    );
  if (b.start !== null) {
    const width = b.end !== null ? Math.max(b.end - b.start, 0) : span - b.start;
    track.append(
      el('div', {
        class: `bar ${b.kind} s-${b.status.replace(/\W+/g, '-')}${b.end === null ? ' open' : ''}`,
        style: `left:${pct(b.start, span)};width:max(3px,${pct(width, span)})`,
        title: b.end !== null ? fmt(b.end - b.start) : b.status,
      }),
    );
  }
  const label = el(
    'div',
    { class: 'label' },
    el('span', { class: 'name' }, b.title),
    el('span', { class: `status s-${b.status.replace(/\W+/g, '-')}` }, b.status),
    ...(b.end !== null && b.start !== null ? [el('span', { class: 'dur' }, fmt(b.end - b.start))] : []),
  );
  const notes = el('ul', { class: 'notes' }, ...b.notes.map((n) => el('li', {}, n)));
  return el(
    'div',
    { class: `row ${b.kind}`, 'data-call': b.id, 'data-status': b.status, 'data-lane': String(b.lane) },
    el('div', { class: 'left' }, label, notes),
    track,
  );
}

function renderJob(v: JobView, into: HTMLElement): void {
  const head = el(
    'div',
    { class: 'jobhead' },
    el('h1', {}, v.jobId),
    el('p', { class: 'task' }, v.task),
    el(
      'p',
      {},
      el('span', { class: `status s-${v.status}`, id: 'job-status' }, v.status),
      ` · ${v.steps.length} step${v.steps.length === 1 ? '' : 's'} · ${fmt(v.spanMs)}${v.tokens !== null ? ` · ${v.tokens} tokens` : ''}`,
    ),
    ...(v.answer ? [el('p', { class: 'answer' }, 'answer: ', v.answer)] : []),
    ...(v.error ? [el('p', { class: 'error' }, 'error: ', v.error)] : []),
    ...v.resumes.map((r) => el('p', {}, `resumed by ${r.by} at +${fmt(r.at)}`)),
    ...v.compactions.map((c) =>
      el(
        'p',
        {},
        `conversation compacted at +${fmt(c.at)}: ${c.summarised ?? '?'} of ${c.messagesBefore} messages summarised into one`,
      ),
    ),
  );
  const axis = el('div', { class: 'axis' });
  for (let i = 0; i <= 4; i++) axis.append(el('span', { style: `left:${i * 25}%` }, `+${fmt((v.spanMs * i) / 4)}`));
  const steps = v.steps.map((s) =>
    el(
      'section',
      { class: 'step', 'data-step': String(s.step) },
      el('h2', {}, `step ${s.step}`),
      ...s.bars.map((b) => barRow(b, v.spanMs)),
    ),
  );
  into.replaceChildren(head, el('div', { class: 'timeline' }, el('div', { class: 'axisrow' }, axis), ...steps));
}

async function jobPage(jobId: string): Promise<void> {
  const body = el('div', { id: 'job' }, el('p', {}, 'Loading…'));
  root.replaceChildren(el('p', {}, el('a', { href: '#/' }, '← all jobs')), body);
  const refresh = async () => {
    try {
      const { records } = await getJson<{ records: AuditRecord[] }>(`/api/jobs/${encodeURIComponent(jobId)}/audit`);
      const v = jobView(records);
      renderJob(v, body);
      // A running job's page follows it.
      if (v.status === 'running') timer = window.setTimeout(() => void refresh(), 1000);
    } catch (err) {
      showError(body, err);
    }
  };
  await refresh();
}

function route(): void {
  window.clearTimeout(timer);
  const hash = location.hash.replace(/^#/, '') || '/';
  const job = /^\/job\/(.+)$/.exec(hash);
  if (job) void jobPage(decodeURIComponent(job[1]!));
  else void listPage(new URLSearchParams(hash.split('?')[1] ?? ''));
}

window.addEventListener('hashchange', route);
route();
