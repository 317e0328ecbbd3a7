// Hook tests: a real HTTP receiver on loopback, and queue workers that deliver while a test runs.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { registerBackgroundJobs } from '../../src/domain/background.js';
import { HOOK_DELIVERY_JOB } from '../../src/domain/hooks/delivery.js';
import { REPOSITORY_PUSH_JOB } from '../../src/domain/repository/ref_changes.js';
import type { Queue } from '../../src/queue/queue.js';
import type { TestApp } from './build.js';
import { testQueue, waitFor } from './queue.js';

export interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: any;
  at: number;
}

export interface Receiver {
  /** http://127.0.0.1:<port> */
  url: string;
  received: Received[];
  /** How to answer the next requests (default 200 `{"ok":true}` at once). */
  respond(status: number, delayMs?: number): void;
  /** Waits until `n` requests matched (all by default) and returns them. */
  waitFor(n: number, match?: (r: Received) => boolean, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  let status = 200;
  let delay = 0;
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (d) => { raw += d; });
    req.on('end', () => {
      let body: any = raw;
      try {
        body = JSON.parse(raw);
      } catch {
        // not JSON: keep the text
      }
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, at: Date.now() });
      const answer = () => res.writeHead(status, { 'content-type': 'application/json', 'x-receiver': 'test' }).end(JSON.stringify({ ok: status < 300 }));
      if (delay > 0) setTimeout(answer, delay);
      else answer();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    received,
    respond(s, d = 0) {
      status = s;
      delay = d;
    },
    async waitFor(n, match = () => true, timeoutMs = 20_000) {
      return waitFor(`${n} deliveries at the receiver`, () => {
        const got = received.filter(match);
        return got.length >= n ? got : null;
      }, timeoutMs);
    },
    close: () => new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    }),
  };
}

/** Queue workers that deliver hooks (and turn ref changes into deliveries) until stopped. */
export function startHookWorkers(t: TestApp, workers = 2): Queue {
  const queue = testQueue(t.c.db, { workers });
  registerBackgroundJobs({ ...t.c, queue }, [REPOSITORY_PUSH_JOB, HOOK_DELIVERY_JOB]);
  queue.start();
  return queue;
}

/** Lets hooks reach loopback (the receiver), as the settings allow. */
export async function allowLocalHooks(t: TestApp): Promise<void> {
  const r = await t.request('PUT', '/api/v4/application/settings', {
    body: { allow_local_requests_from_web_hooks_and_services: true, allow_local_requests_from_system_hooks: true },
  });
  if (r.status !== 200) throw new Error(`settings: ${r.status} ${r.text}`);
}

export const deliveryCount = async (t: TestApp, state: 'pending' | 'delivered' | 'failed') =>
  Number((await t.c.db.selectFrom('hook_deliveries').select((eb) => eb.fn.countAll().as('n')).where('state', '=', state).executeTakeFirstOrThrow()).n);
