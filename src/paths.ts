import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// Where the package's files are, whether it runs from its TypeScript sources (a checkout, through
// tsx) or from its compiled JavaScript (an installed package: dist/).

const here = path.dirname(fileURLToPath(import.meta.url));

function findPackageRoot(dir: string): string {
  for (let d = dir; ; d = path.dirname(d)) {
    if (existsSync(path.join(d, 'package.json'))) return d;
    if (path.dirname(d) === d) throw new Error(`No package.json above ${dir}.`);
  }
}

/** The package's root folder (package.json, bin/, demo/). */
export const PACKAGE_ROOT = findPackageRoot(here);
/** The root of the running code: the package root from sources, dist/ when compiled. */
export const CODE_ROOT = path.resolve(here, '..');
/** '.ts' from sources, '.js' when compiled. */
export const CODE_EXT = path.extname(fileURLToPath(import.meta.url));

export const WORKFLOWS_PATH = path.join(CODE_ROOT, 'workflows', `index${CODE_EXT}`);
export const DEMO_DIR = path.join(PACKAGE_ROOT, 'demo');
export const CLI_BIN = path.join(PACKAGE_ROOT, 'bin', 'dagent.mjs');
