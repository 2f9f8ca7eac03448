import type { ToolFormat } from '../workflow-safe/types.js';
import { lineProtocol } from './line.js';
import { markdownProtocol } from './markdown.js';
import { reactProtocol } from './react.js';
import type { Protocol } from './types.js';
import { xmlProtocol } from './xml.js';

export const PROTOCOLS: Record<Exclude<ToolFormat, 'native'>, Protocol> = {
  markdown: markdownProtocol,
  xml: xmlProtocol,
  react: reactProtocol,
  line: lineProtocol,
};

export type { Protocol, ToolSpec, TextCall, ParseResult } from './types.js';
