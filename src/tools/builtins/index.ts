import type { ToolDefinition } from '../define-tool.js';
import { calculator } from './calculator.js';
import { editFileTool } from './edit-file.js';
import { listFilesTool } from './list-files.js';
import { readFileTool } from './read-file.js';
import { searchFilesTool } from './search-files.js';
import { shellTool } from '../shell/tool.js';
import { writeFileTool } from './write-file.js';

export const builtinTools: ToolDefinition<any>[] = [
  readFileTool,
  listFilesTool,
  searchFilesTool,
  writeFileTool,
  editFileTool,
  shellTool,
  calculator,
];
