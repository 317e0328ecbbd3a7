import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The reference API level the spec describes; clients gate features on it. */
export const REFERENCE_API_LEVEL = '15.1.0';

/** The folder of Anvil's package.json: the nearest one above this file (src/, dist/src/ or the bundle). */
function packageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return dir;
}

const root = packageRoot();
const pkg = createRequire(import.meta.url)(path.join(root, 'package.json')) as { version: string };

/** The commit the bundle was built from, set by scripts/bundle.mjs; undefined when running src/. */
declare const ANVIL_BUILD_COMMIT: string | undefined;

function commit(): string {
  // From the bundle: no `git` process at every start (it cost about 50 ms of start-up).
  if (typeof ANVIL_BUILD_COMMIT === 'string') return ANVIL_BUILD_COMMIT;
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
  } catch {
    return 'unknown';
  }
}

/** Anvil's own version (package.json). */
export const ANVIL_VERSION = pkg.version;

/** Anvil's own version and commit, e.g. `anvil-0.1.0-abc1234`. */
export const ANVIL_REVISION = `anvil-${pkg.version}-${commit()}`;
