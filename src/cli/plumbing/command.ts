import type { Command } from 'commander';

// Commands register themselves on the program; their handlers return the exit code.

export type Register = (program: Command) => void;

let exitCode = 0;

/** Wraps a command handler so its exit code becomes the process's. */
export const handler =
  <A extends unknown[]>(fn: (...args: A) => Promise<number>) =>
  async (...args: A): Promise<void> => {
    exitCode = await fn(...args);
  };

export const lastExitCode = () => exitCode;
