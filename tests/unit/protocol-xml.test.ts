import { describe } from 'node:test';
import { xmlProtocol } from '../../src/protocols/xml.js';
import { corpus, roundTrip } from '../helpers/protocol-corpus.js';

const fc = (inner: string) => `<function_calls>\n${inner}\n</function_calls>`;

describe('xml protocol parser', () => {
  corpus(xmlProtocol, [
    {
      name: 'an invoke with parameters',
      text: fc('<invoke name="read_file">\n<parameter name="path">a.txt</parameter>\n</invoke>'),
      calls: [['read_file', { path: 'a.txt' }]],
    },
    {
      name: 'several invokes in order',
      text: fc(
        '<invoke name="read_file"><parameter name="path">b</parameter></invoke>\n<invoke name="read_file"><parameter name="path">a</parameter></invoke>',
      ),
      calls: [
        ['read_file', { path: 'b' }],
        ['read_file', { path: 'a' }],
      ],
    },
    {
      name: 'non-string fields are read as literals',
      text: fc(
        '<invoke name="list_files"><parameter name="path">.</parameter><parameter name="depth">2</parameter></invoke>',
      ),
      calls: [['list_files', { path: '.', depth: 2 }]],
    },
    {
      name: 'entities are unescaped',
      text: fc(
        '<invoke name="write_file"><parameter name="path">x.html</parameter><parameter name="content">&lt;b&gt; &amp; &quot;q&quot;</parameter></invoke>',
      ),
      calls: [['write_file', { path: 'x.html', content: '<b> & "q"' }]],
    },
    {
      name: 'one newline after the opening and before the closing tag is layout',
      text: fc(
        '<invoke name="write_file"><parameter name="path">a</parameter><parameter name="content">\nline 1\nline 2\n</parameter></invoke>',
      ),
      calls: [['write_file', { path: 'a', content: 'line 1\nline 2' }]],
    },
    {
      name: 'tool-use with child elements',
      text: '<tool-use><write_file><path>a.md</path><content>hi</content></write_file></tool-use>',
      calls: [['write_file', { path: 'a.md', content: 'hi' }]],
    },
    {
      name: "tool-use with gptme's args attribute and a body",
      text: `<tool-use>\n<write_file args='["a.md"]'>\nhello\n</write_file>\n</tool-use>`,
      calls: [['write_file', { path: 'a.md', content: 'hello' }]],
    },
    {
      name: 'tool-use self-closing with attributes',
      text: '<tool-use><read_file path="a.txt"/></tool-use>',
      calls: [['read_file', { path: 'a.txt' }]],
    },
    {
      name: 'tool-use with a JSON body',
      text: '<tool-use><calculator>{"expression": "1+2"}</calculator></tool-use>',
      calls: [['calculator', { expression: '1+2' }]],
    },
    {
      name: 'tool-use with a text body',
      text: '<tool-use>\n<shell>ls -la</shell>\n</tool-use>',
      calls: [['shell', { command: 'ls -la' }]],
    },
    {
      name: 'tool-use with an attribute and a body',
      text: '<tool-use><write_file path="n.txt">body text</write_file></tool-use>',
      calls: [['write_file', { path: 'n.txt', content: 'body text' }]],
    },
    {
      name: 'calls inside a code block are examples, not calls',
      text: '```xml\n' + fc('<invoke name="shell"><parameter name="command">rm -rf /</parameter></invoke>') + '\n```',
      calls: [],
    },
    {
      name: 'both forms in one reply, in order',
      text:
        '<tool-use><read_file path="1"/></tool-use>\n' +
        fc('<invoke name="read_file"><parameter name="path">2</parameter></invoke>'),
      calls: [
        ['read_file', { path: '1' }],
        ['read_file', { path: '2' }],
      ],
    },
    {
      name: 'an unclosed function_calls block',
      text: '<function_calls>\n<invoke name="read_file"><parameter name="path">a</parameter></invoke>',
      problems: [/A <function_calls> block is not closed/],
    },
    {
      name: 'an unclosed invoke',
      text: fc('<invoke name="read_file"><parameter name="path">a</parameter>'),
      problems: [/The <invoke name="read_file"> element is not closed/],
    },
    {
      name: 'an unclosed parameter',
      text: fc('<invoke name="read_file"><parameter name="path">a</invoke>'),
      problems: [/a <parameter> of 'read_file' is not closed/],
    },
    { name: 'an empty function_calls block', text: fc('nothing'), problems: [/holds no <invoke/] },
    {
      name: 'an unknown tool is still a call (rejected later with the real list)',
      text: fc('<invoke name="rm_everything"></invoke>'),
      calls: [['rm_everything', {}]],
    },
    {
      name: 'calls inside <thinking> are ignored',
      text: '<thinking><tool-use><shell>x</shell></tool-use></thinking>answer',
      calls: [],
    },
    {
      name: 'an unclosed tool-use',
      text: '<tool-use><shell>ls</shell>',
      problems: [/A <tool-use> block is not closed/],
    },
    {
      name: 'tool-use holding no element',
      text: '<tool-use>just words</tool-use>',
      problems: [/inside <tool-use> write exactly one element/],
    },
    { name: 'plain prose is no call', text: 'I read the file; it says <b>hi</b>.', calls: [] },
  ]);
  roundTrip(xmlProtocol);
});
