import { constants, open, type FileHandle } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { ToolInputError } from './define-tool.js';

// File access for tools, safe against a hostile workspace: a final symbolic link is never followed
// (a link swapped in after the path check cannot redirect the access), a FIFO or device never
// blocks the worker's thread pool (opened non-blocking, then refused), and reads are capped.

/** read_file and edit_file read at most this much of one file. */
export const MAX_READ_BYTES = 10 * 1024 * 1024;

const kindOf = (st: Stats) =>
  st.isDirectory()
    ? 'a folder'
    : st.isFIFO()
      ? 'a named pipe'
      : st.isSocket()
        ? 'a socket'
        : st.isCharacterDevice() || st.isBlockDevice()
          ? 'a device'
          : 'not a regular file';

async function openNoFollow(real: string, flags: number, shown: string): Promise<FileHandle> {
  try {
    return await open(real, flags | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o644);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw new ToolInputError(`${shown} is a symbolic link; tools do not follow links here.`);
    if (code === 'ENOENT') throw new ToolInputError(`${shown} does not exist.`);
    if (code === 'EISDIR') throw new ToolInputError(`${shown} is a folder, not a file.`);
    throw err;
  }
}

/** The text of a regular file; anything else, or a file over `maxBytes`, is refused with a reason the model can act on. */
export async function readRegularFile(real: string, shown: string, maxBytes = MAX_READ_BYTES): Promise<string> {
  const fh = await openNoFollow(real, constants.O_RDONLY, shown);
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw new ToolInputError(`${shown} is ${kindOf(st)}; only regular files can be read.`);
    if (st.size > maxBytes) {
      throw new ToolInputError(
        `${shown} has ${st.size} bytes, more than the ${maxBytes} a tool reads at once; search it with search_files instead.`,
      );
    }
    return await fh.readFile('utf8');
  } finally {
    await fh.close();
  }
}

/** Like readRegularFile, but null (skip it) for anything that is not a small regular file. */
export async function readIfRegular(real: string, maxBytes: number): Promise<string | null> {
  return readRegularFile(real, real, maxBytes).catch(() => null);
}

/** Creates or replaces a regular file's content, never through a symbolic link. */
export async function writeRegularFile(real: string, shown: string, content: string): Promise<void> {
  const fh = await openNoFollow(real, constants.O_WRONLY | constants.O_CREAT, shown);
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw new ToolInputError(`${shown} is ${kindOf(st)}; only regular files can be written.`);
    await fh.truncate(0);
    await fh.writeFile(content, 'utf8');
  } finally {
    await fh.close();
  }
}
