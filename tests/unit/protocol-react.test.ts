import { describe } from 'node:test';
import { reactProtocol } from '../../src/protocols/react.js';
import { corpus, roundTrip } from '../helpers/protocol-corpus.js';

describe('react protocol parser', () => {
  corpus(reactProtocol, [
    {
      name: 'thought, action, JSON input',
      text: 'Thought: I need the file.\nAction: read_file\nAction Input: {"path": "a.txt"}',
      calls: [['read_file', { path: 'a.txt' }]],
    },
    { name: 'a final answer', text: 'Thought: done.\nFinal Answer: It is 42.\nReally.', final: 'It is 42.\nReally.' },
    {
      name: 'a multi-line JSON input',
      text: 'Action: write_file\nAction Input: {\n  "path": "a",\n  "content": "x\\ny"\n}',
      calls: [['write_file', { path: 'a', content: 'x\ny' }]],
    },
    {
      name: 'single quotes and a trailing comma',
      text: "Action: read_file\nAction Input: {'path': 'a',}",
      calls: [['read_file', { path: 'a' }]],
    },
    {
      name: 'a bare string input for a one-argument tool',
      text: 'Action: calculator\nAction Input: 2 + 2',
      calls: [['calculator', { expression: '2 + 2' }]],
    },
    {
      name: 'a quoted string input',
      text: 'Action: shell\nAction Input: "ls -la"',
      calls: [['shell', { command: 'ls -la' }]],
    },
    {
      name: 'an observation the model wrote itself ends the reply',
      text: 'Action: read_file\nAction Input: {"path": "a"}\nObservation: made up\nAction: shell\nAction Input: {"command": "rm -rf /"}',
      calls: [['read_file', { path: 'a' }]],
    },
    {
      name: 'an action and a final answer together',
      text: 'Action: read_file\nAction Input: {"path": "a"}\nFinal Answer: done',
      calls: [['read_file', { path: 'a' }]],
      problems: [/either an Action or a Final Answer in one reply, not both: the Final Answer was ignored/],
    },
    {
      name: 'an action with no input',
      text: 'Action: read_file',
      problems: [/Action 'read_file' has no Action Input line/],
    },
    { name: 'no input needed when nothing is required', text: 'Action: list_files', calls: [['list_files', {}]] },
    {
      name: 'JSON that never closes',
      text: 'Action: write_file\nAction Input: {"path": "a", "content": "x"',
      problems: [/opens a JSON object that never closes/],
    },
    {
      name: 'an action inside a code block is an example',
      text: 'Like this:\n```\nAction: shell\nAction Input: {"command": "x"}\n```\nFinal Answer: shown',
      final: 'shown',
    },
    {
      name: 'two actions, in order',
      text: 'Action: read_file\nAction Input: {"path": "1"}\nThought: also\nAction: read_file\nAction Input: {"path": "2"}',
      calls: [
        ['read_file', { path: '1' }],
        ['read_file', { path: '2' }],
      ],
    },
    {
      name: 'braces inside strings do not end the JSON',
      text: 'Action: write_file\nAction Input: {"path": "a", "content": "} { }"}',
      calls: [['write_file', { path: 'a', content: '} { }' }]],
    },
    { name: 'neither action nor final answer: plain text', text: 'Thought: hmm, nothing to do.', calls: [] },
    {
      name: 'an invalid object',
      text: 'Action: read_file\nAction Input: {path: }',
      problems: [/the Action Input of 'read_file' is not a valid JSON object/],
    },
    {
      name: 'a non-object input for a tool with several required fields',
      text: 'Action: write_file\nAction Input: a.txt',
      problems: [/must be a JSON object like \{"path": …\}/],
    },
    { name: 'an empty action name', text: 'Action: \nAction Input: {}', problems: [/names no tool/] },
    {
      name: 'actions in <think> are ignored',
      text: '<think>Action: shell\nAction Input: {"command": "x"}</think>Final Answer: no',
      final: 'no',
    },
  ]);
  roundTrip(reactProtocol);
});
