import { describe } from 'node:test';
import { lineProtocol } from '../../src/protocols/line.js';
import { corpus, roundTrip } from '../helpers/protocol-corpus.js';

describe('line protocol parser', () => {
  corpus(lineProtocol, [
    { name: 'key=value', text: 'tool_call read_file(path="a.txt")', calls: [['read_file', { path: 'a.txt' }]] },
    {
      name: 'a JSON object',
      text: 'tool_call calculator({"expression": "1+2"})',
      calls: [['calculator', { expression: '1+2' }]],
    },
    { name: 'single quotes', text: "tool_call read_file(path='a.txt')", calls: [['read_file', { path: 'a.txt' }]] },
    {
      name: 'positional values map to fields in order',
      text: 'tool_call write_file("a.txt", "hi")',
      calls: [['write_file', { path: 'a.txt', content: 'hi' }]],
    },
    {
      name: 'numbers',
      text: 'tool_call list_files(path=".", depth=2)',
      calls: [['list_files', { path: '.', depth: 2 }]],
    },
    {
      name: 'several lines, in order',
      text: 'First:\ntool_call read_file(path="b")\ntool_call read_file(path="a")',
      calls: [
        ['read_file', { path: 'b' }],
        ['read_file', { path: 'a' }],
      ],
    },
    {
      name: 'a call inside a code block is an example',
      text: '```\ntool_call shell(command="rm -rf /")\n```',
      calls: [],
    },
    {
      name: 'arguments across lines',
      text: 'tool_call write_file(path="a",\n  content="x\\ny")',
      calls: [['write_file', { path: 'a', content: 'x\ny' }]],
    },
    {
      name: 'parentheses never closed',
      text: 'tool_call read_file(path="a"',
      problems: [/parentheses of tool_call read_file\( are never closed/],
    },
    { name: 'no parentheses', text: 'tool_call read_file path=a', problems: [/needs its arguments in parentheses/] },
    {
      name: 'an unterminated string',
      text: "tool_call read_file(path='a)\nmore",
      problems: [/parentheses of tool_call read_file\( are never closed/],
    },
    {
      name: 'a name is never evaluated',
      text: "tool_call calculator(expression=__import__('os'))",
      problems: [/Cannot read tool_call calculator: unexpected '__import__'/],
    },
    { name: 'a trailing comma', text: 'tool_call read_file(path="a",)', calls: [['read_file', { path: 'a' }]] },
    {
      name: "Python's True and None",
      text: 'tool_call search_files(pattern="x", ignore_case=True)',
      calls: [['search_files', { pattern: 'x', ignore_case: true }]],
    },
    { name: 'only at the start of a line', text: "You could use tool_call read_file(path='a') here.", calls: [] },
    {
      name: 'a positional value after key=value',
      text: 'tool_call write_file(path="a", "x")',
      problems: [/a positional value follows a key=value argument/],
    },
    {
      name: 'parentheses inside strings',
      text: 'tool_call shell(command="echo (hi))")',
      calls: [['shell', { command: 'echo (hi))' }]],
    },
    { name: 'no arguments', text: 'tool_call list_files()', calls: [['list_files', {}]] },
    {
      name: 'a missing comma between arguments',
      text: 'tool_call write_file(path="a" content="b")',
      problems: [/expected ',' between arguments/],
    },
    {
      name: 'lists and objects as values',
      text: 'tool_call write_file(path="a", content=\'{"k": [1, 2]}\')',
      calls: [['write_file', { path: 'a', content: '{"k": [1, 2]}' }]],
    },
  ]);
  roundTrip(lineProtocol);
});
