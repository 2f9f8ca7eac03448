import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FIND_TOOLS, rankTools, ROUTE_ABOVE, ROUTE_TOP, routeTools } from '../../src/tools/routing.js';
import { manyTools } from '../helpers/many-tools.js';

const docs = manyTools().map((t) => ({ name: t.name, description: t.description }));

describe('tool routing', () => {
  it('offers every tool up to the threshold', () => {
    assert.equal(routeTools(docs.slice(0, ROUTE_ABOVE), [{ role: 'user', content: 'x' }]), null);
  });

  it('ranks by the task and recent conversation; always offers tools the task names, tools used and find_tools', () => {
    const offered = routeTools(docs, [
      { role: 'system', content: 's' },
      { role: 'user', content: 'Refund the last invoice of the customer, then run approve_coupon.' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'sunny' },
    ])!;
    assert.ok(offered.length <= ROUTE_TOP + 3, `${offered.length} offered`);
    for (const n of [FIND_TOOLS, 'approve_coupon', 'get_weather']) assert.ok(offered.includes(n), n);
    const ranked = offered.slice(3);
    // The words of the task (and of the recent calls) decide: refund, invoice and customer tools rank.
    assert.ok(ranked.filter((n) => /refund|invoice|customer/.test(n)).length >= 5, ranked.join(','));
    assert.ok(!ranked.some((n) => /payroll|deployment|backup/.test(n)), ranked.join(','));
  });

  it('keeps offering what find_tools found', () => {
    const offered = routeTools(docs, [
      { role: 'user', content: 'do the thing' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'f', type: 'function', function: { name: FIND_TOOLS, arguments: '{"query":"payroll"}' } }],
      },
      { role: 'tool', tool_call_id: 'f', content: 'export_payroll: Export payroll records in the payroll system.' },
    ])!;
    assert.ok(offered.includes('export_payroll'));
  });

  it('BM25: a tool sharing no word with the query is not ranked', () => {
    assert.deepEqual(rankTools(docs, 'zzz qqq'), []);
    assert.equal(rankTools(docs, 'archive the old shipment')[0], 'archive_shipment');
  });
});
