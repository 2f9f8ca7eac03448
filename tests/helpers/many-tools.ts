import { z } from 'zod';
import { defineTool } from '../../src/tools/define-tool.js';

const TOPICS = [
  'invoice',
  'customer',
  'shipment',
  'warehouse',
  'payroll',
  'ticket',
  'calendar',
  'weather',
  'currency',
  'inventory',
  'contract',
  'supplier',
  'refund',
  'coupon',
  'review',
  'translation',
  'forecast',
  'audit',
  'backup',
  'deployment',
];
const VERBS = ['get', 'list', 'create', 'update', 'delete', 'search', 'export', 'archive', 'approve', 'summarize'];

/** 200 plausible business tools (20 topics × 10 verbs), each answering with its own name. */
export function manyTools() {
  return TOPICS.flatMap((topic) =>
    VERBS.map((verb) =>
      defineTool({
        name: `${verb}_${topic}`,
        description: `${verb[0]!.toUpperCase()}${verb.slice(1)} ${topic} records in the ${topic} system.`,
        input: z.object({ id: z.string().optional() }),
        effect: verb === 'get' || verb === 'list' || verb === 'search' || verb === 'export' ? 'read' : 'write',
        execute: ({ id }) => `${verb}_${topic}(${id ?? ''}) ok`,
      }),
    ),
  );
}
