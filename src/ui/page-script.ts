import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

// The page's script: bundled from its TypeScript by esbuild in a checkout, or read from dist/ui/app.js
// (written by `npm run build`) in an installed package.

const SOURCE = fileURLToPath(new URL('./page/app.ts', import.meta.url));
const BUILT = fileURLToPath(new URL('../../ui/app.js', import.meta.url));

/** The page script bundled from source (esbuild is a build-time dependency). */
export async function bundlePage(): Promise<string> {
  const esbuild = await import('esbuild');
  const r = await esbuild.build({
    entryPoints: [SOURCE],
    bundle: true,
    format: 'esm',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  return r.outputFiles[0]!.text;
}

let script: Promise<string> | undefined;

export function pageScript(): Promise<string> {
  script ??= existsSync(SOURCE) ? bundlePage() : readFile(BUILT, 'utf8');
  return script;
}
