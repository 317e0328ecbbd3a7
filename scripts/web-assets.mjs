// The web interface's browser files: src/web/client/app.ts (and the views it shares with the
// server) bundled and minified into dist/web/app.js; app.css beside it. Called by bundle.mjs.
import { build } from 'esbuild';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export async function buildWebAssets() {
  await build({
    entryPoints: [path.join(root, 'src/web/client/app.ts'), path.join(root, 'src/web/client/app.css')],
    outdir: path.join(root, 'dist/web'),
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: ['es2020'],
    logLevel: 'warning',
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildWebAssets();
