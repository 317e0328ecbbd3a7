// Browser tests: the real server as a child process (SQLite, or a fresh PostgreSQL database), and
// Debian's Chromium driven by Playwright. Screenshots go to test-results/screenshots/.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { ROOT, startServer, type RunningServer } from '../../bench/server.js';
import { scratchDatabase, type ScratchDatabase } from './postgres.js';
import type { TestDialect } from './build.js';

export const CHROMIUM = '/usr/bin/chromium';
export const WEB_ROOT_TOKEN = 'web-root-token-0123456789abcdef';
export const WEB_ROOT_PASSWORD = 'root-password-123';
const SHOTS = path.join(ROOT, 'test-results', 'screenshots');

/** Builds dist/web when its sources are newer (tests run from src/ through tsx, the assets from dist/). */
export function ensureWebAssets(): void {
  const newest = (dir: string): number =>
    fs.readdirSync(dir, { withFileTypes: true }).reduce((t, e) => {
      const p = path.join(dir, e.name);
      return Math.max(t, e.isDirectory() ? newest(p) : fs.statSync(p).mtimeMs);
    }, 0);
  const built = path.join(ROOT, 'dist/web/app.js');
  if (fs.existsSync(built) && fs.statSync(built).mtimeMs >= newest(path.join(ROOT, 'src/web'))) return;
  const r = spawnSync(process.execPath, [path.join(ROOT, 'scripts/web-assets.mjs')], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error('building the web assets failed');
}

export interface WebServer {
  url: string;
  server: RunningServer;
  /** A call to the REST API (root's token unless another is given); the parsed JSON body. */
  api(method: string, apiPath: string, body?: unknown, token?: string): Promise<{ status: number; body: any }>;
  /** A user with a password and a personal access token (api scope). */
  createUser(username: string): Promise<{ id: number; username: string; password: string; token: string }>;
  stop(): Promise<void>;
}

export async function startWebServer(dialect: TestDialect, env: Record<string, string> = {}): Promise<WebServer> {
  ensureWebAssets();
  const db: ScratchDatabase | null = dialect === 'postgres' ? await scratchDatabase(process.env.ANVIL_TEST_DATABASE_URL!, 'anvil_w') : null;
  const server = await startServer({
    env: {
      ANVIL_ROOT_TOKEN: WEB_ROOT_TOKEN,
      ANVIL_ROOT_PASSWORD: WEB_ROOT_PASSWORD,
      ANVIL_HOOK_RETRY_BASE_MS: '200',
      ...(db ? { ANVIL_DATABASE_URL: db.url } : {}),
      ...env,
    },
  });
  const api: WebServer['api'] = async (method, apiPath, body, token = WEB_ROOT_TOKEN) => {
    const r = await fetch(`${server.url}/api/v4${apiPath}`, {
      method,
      headers: { 'private-token': token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await r.text();
    return { status: r.status, body: text && r.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : text };
  };
  return {
    url: server.url,
    server,
    api,
    async createUser(username) {
      const password = `${username}-password-1`;
      const u = await api('POST', '/users', { username, name: `User ${username}`, email: `${username}@example.com`, password, skip_confirmation: true });
      if (u.status !== 201) throw new Error(`user: ${u.status} ${JSON.stringify(u.body)}`);
      const t = await api('POST', `/users/${u.body.id}/personal_access_tokens`, { name: 'web test', scopes: ['api'] });
      if (t.status !== 201) throw new Error(`token: ${t.status} ${JSON.stringify(t.body)}`);
      return { id: u.body.id, username, password, token: t.body.token };
    },
    async stop() {
      await server.stop();
      await db?.drop();
    },
  };
}

/** Headless Debian Chromium, with the flags this closed network needs. */
export function launchBrowser(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install chromium (.ci/run does)`);
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** Signs in through the form; the page then shows where it was sent. */
export async function signIn(page: Page, base: string, login: string, password: string): Promise<void> {
  await page.goto(`${base}/users/sign_in`);
  await page.getByLabel('Username or primary email').fill(login);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((u) => !u.pathname.startsWith('/users/sign_in'));
}

export async function screenshot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}

const AXE_SOURCE = () => fs.readFileSync(path.join(ROOT, 'node_modules/axe-core/axe.min.js'), 'utf8');

/** axe-core's serious and critical violations on the page as it stands: `rule: target …` lines. */
export async function seriousA11yViolations(page: Page): Promise<string[]> {
  // evaluated by the browser's debugger, not as a page script: the pages' CSP forbids inline scripts
  await page.evaluate(AXE_SOURCE());
  const violations: { id: string; impact: string; nodes: { target: string[] }[] }[] = await page.evaluate(async () => {
    const r = await (window as any).axe.run(document, { resultTypes: ['violations'] });
    return r.violations;
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}
