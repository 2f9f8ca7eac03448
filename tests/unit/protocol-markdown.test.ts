import { describe } from 'node:test';
import { markdownProtocol } from '../../src/protocols/markdown.js';
import { corpus, roundTrip } from '../helpers/protocol-corpus.js';

const F = '```';

describe('markdown protocol parser', () => {
  corpus(markdownProtocol, [
    { name: 'a shell block', text: `${F}shell\nls -la\n${F}`, calls: [['shell', { command: 'ls -la' }]] },
    {
      name: 'the rest of the tag is the first argument, the body the next',
      text: `${F}write_file notes.md\nhello\nworld\n${F}`,
      calls: [['write_file', { path: 'notes.md', content: 'hello\nworld' }]],
    },
    {
      name: 'a tag argument and an empty body',
      text: `${F}read_file a.txt\n${F}`,
      calls: [['read_file', { path: 'a.txt' }]],
    },
    {
      name: 'a JSON object body gives all arguments',
      text: `${F}edit_file\n{"path": "a", "old_text": "x", "new_text": "y"}\n${F}`,
      calls: [['edit_file', { path: 'a', old_text: 'x', new_text: 'y' }]],
    },
    { name: 'a block whose tag names no tool is text', text: `${F}python\nprint(1)\n${F}`, calls: [] },
    {
      name: 'a longer fence around shorter ones keeps them as content',
      text: `\`\`\`\`write_file doc.md\n# Title\n${F}js\nx()\n${F}\n\`\`\`\``,
      calls: [['write_file', { path: 'doc.md', content: `# Title\n${F}js\nx()\n${F}` }]],
    },
    {
      name: 'only a bare fence of the same length closes',
      text: `${F}shell\necho \`\`\`\`\n${F}`,
      calls: [['shell', { command: 'echo ````' }]],
    },
    {
      name: 'a longer bare fence inside is content',
      text: `${F}shell\necho a\n\`\`\`\`\necho b\n${F}`,
      calls: [['shell', { command: 'echo a\n````\necho b' }]],
    },
    {
      name: 'an unterminated block is not taken as complete',
      text: `${F}write_file a.txt\npartial`,
      calls: [],
      problems: [/The code block for 'write_file' is not closed: end it with a line holding only ```/],
    },
    { name: 'an unterminated block of an unknown tag is just text', text: `${F}python\nx = 1`, calls: [] },
    {
      name: 'a close glued to an open (six backticks then a tag) is two blocks',
      text: `${F}shell\nls\n\`\`\`\`\`\`calculator\n1+1\n${F}`,
      calls: [
        ['shell', { command: 'ls' }],
        ['calculator', { expression: '1+1' }],
      ],
    },
    {
      name: 'blocks inside <thinking> are ignored',
      text: `<thinking>\n${F}shell\nrm -rf /\n${F}\n</thinking>\nDone.`,
      calls: [],
    },
    { name: 'an unclosed <think> hides the rest', text: `<think>maybe\n${F}shell\nx\n${F}`, calls: [] },
    {
      name: 'blocks after a closed <think> count',
      text: `<think>plan</think>\n${F}calculator\n2^8\n${F}`,
      calls: [['calculator', { expression: '2^8' }]],
    },
    {
      name: 'several blocks run in the order written',
      text: `First:\n${F}read_file b.txt\n${F}\nthen\n${F}read_file a.txt\n${F}`,
      calls: [
        ['read_file', { path: 'b.txt' }],
        ['read_file', { path: 'a.txt' }],
      ],
    },
    { name: 'tilde fences', text: '~~~calculator\n2*3\n~~~', calls: [['calculator', { expression: '2*3' }]] },
    { name: 'a block with no arguments', text: `Listing.\n${F}list_files\n${F}\nok`, calls: [['list_files', {}]] },
    {
      name: 'a same-length tagged fence inside opens a nested block',
      text: `${F}write_file README.md\nUse:\n${F}sh\nnpm test\n${F}\n${F}`,
      calls: [['write_file', { path: 'README.md', content: `Use:\n${F}sh\nnpm test\n${F}` }]],
    },
    {
      name: 'a JSON body that does not parse is reported',
      text: `${F}edit_file\n{path: 'a', old_text: 'x' new_text: 'y'}\n${F}`,
      problems: [
        /Cannot read the 'edit_file' block: the JSON arguments of 'edit_file' are not valid \(expected ',' or '\}'/,
      ],
    },
    {
      name: 'a body for a tool that takes only the tag argument is reported',
      text: `${F}read_file a.txt\nwhat is this\n${F}`,
      problems: [/'read_file' takes only 'path'/],
    },
    {
      name: 'fences indented up to three spaces',
      text: `   ${F}shell\n   ls\n   ${F}`,
      calls: [['shell', { command: '   ls' }]],
    },
    {
      name: 'tolerant JSON body: single quotes and a trailing comma',
      text: `${F}calculator\n{'expression': '1+1',}\n${F}`,
      calls: [['calculator', { expression: '1+1' }]],
    },
  ]);
  roundTrip(markdownProtocol);
});

// What gptme's parser reads (its codeblock.py rules), written as our own cases.
describe('markdown: parity with gptme’s fence rules', () => {
  const F = '```';
  corpus(markdownProtocol, [
    {
      name: 'a markdown document with bare (untagged) nested blocks, several in a row',
      text: `Writing the README.\n\n${F}write_file README.md\n# App\n\nInstall:\n\n${F}\nnpm install\n${F}\n\nRun:\n\n${F}\nnode app.js\n${F}\n\nDone!\n${F}\n\nThat is all.`,
      calls: [
        [
          'write_file',
          {
            path: 'README.md',
            content: `# App\n\nInstall:\n\n${F}\nnpm install\n${F}\n\nRun:\n\n${F}\nnode app.js\n${F}\n\nDone!`,
          },
        ],
      ],
    },
    {
      name: 'a bare nested block right after text, and text right after it',
      text: `${F}write_file entry.md\n# Entry\n**Format:**\n${F}\nkey: value\n${F}\n\nDone!\n${F}`,
      calls: [['write_file', { path: 'entry.md', content: `# Entry\n**Format:**\n${F}\nkey: value\n${F}\n\nDone!` }]],
    },
    {
      name: 'a nested block with the same tag as the outer one',
      text: `${F}write_file guide.md\nTo save a file, write:\n${F}write_file other.md\nhello\n${F}\nThat's it.\n${F}`,
      calls: [
        [
          'write_file',
          { path: 'guide.md', content: `To save a file, write:\n${F}write_file other.md\nhello\n${F}\nThat's it.` },
        ],
      ],
    },
    {
      name: 'CRLF line endings',
      text: `Here:\r\n${F}shell\r\nls -la\r\n${F}\r\n`,
      calls: [['shell', { command: 'ls -la\r' }]],
    },
    {
      name: 'lone-CR line endings',
      text: `Here:\r${F}shell\rls -la\r${F}\r`,
      calls: [['shell', { command: 'ls -la' }]],
    },
    {
      name: 'a ```thinking block (with a call in it) before the real call',
      text: `${F}thinking\nI could run:\n${F}shell\nrm -rf build\n${F}\nbut reading is enough.\n${F}\n\n${F}read_file a.txt\n${F}`,
      calls: [['read_file', { path: 'a.txt' }]],
    },
    {
      name: 'a <thinking> section with its closing tag (and an unclosed block in it) before the real call',
      text: `<thinking>\nmaybe ${F}shell\nrm -rf x\n</thinking>\n${F}read_file a.txt\n${F}`,
      calls: [['read_file', { path: 'a.txt' }]],
    },
    {
      name: 'two fences glued on one line: a close and the next opening',
      text: `${F}read_file a.txt\n${F}${F}read_file b.txt\n${F}`,
      calls: [
        ['read_file', { path: 'a.txt' }],
        ['read_file', { path: 'b.txt' }],
      ],
    },
    {
      name: 'an unterminated block does not run',
      text: `${F}write_file a.txt\nhalf of the file`,
      problems: [/not closed/],
    },
    {
      name: 'an unterminated document with a bare nested block does not run',
      text: `${F}write_file doc.md\n# Doc\n${F}\ncode\n${F}`,
      problems: [/not closed/],
    },
  ]);
});
