// `npm run build`: writes the `dagent ui` page script to dist/ui/app.js for the installed package.
import { mkdir, writeFile } from 'node:fs/promises';
import { bundlePage } from './page-script.js';

const out = new URL('../../dist/ui/app.js', import.meta.url);
await mkdir(new URL('.', out), { recursive: true });
await writeFile(out, await bundlePage());
