// The browser's two files, built by `npm run build` (scripts/web-assets.mjs) into dist/web/ and
// served by this process with a content hash in the URL, so they are cached for good.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ASSET_PREFIX = '/-/web';
const NAMES = ['app.js', 'app.css'] as const;
type AssetName = (typeof NAMES)[number];

interface Asset {
  body: Buffer;
  hash: string;
  type: string;
}

/** The checkout's dist/web, found from this module's place (src/web under tsx, dist/ when bundled). */
function distWebDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return path.join(dir, 'dist', 'web');
    dir = path.dirname(dir);
  }
  return path.join(process.cwd(), 'dist', 'web');
}

const loaded = new Map<AssetName, Asset | null>();

export function asset(name: string): Asset | null {
  if (!(NAMES as readonly string[]).includes(name)) return null;
  const n = name as AssetName;
  if (!loaded.has(n)) {
    const file = path.join(distWebDir(), n);
    const body = fs.existsSync(file) ? fs.readFileSync(file) : null;
    loaded.set(
      n,
      body && {
        body,
        hash: crypto.createHash('sha256').update(body).digest('hex').slice(0, 12),
        type: n.endsWith('.js') ? 'text/javascript; charset=utf-8' : 'text/css; charset=utf-8',
      },
    );
  }
  return loaded.get(n) ?? null;
}

export const assetUrl = (name: AssetName): string => `${ASSET_PREFIX}/${name}?v=${asset(name)?.hash ?? 'missing'}`;
