// The mixed load: a fixed rate of requests (open loop: request i is due at start + i / rate,
// whether or not earlier ones have answered), cycling through a list of endpoints in equal shares,
// as the reference's performance tool runs each of its API tests at the same rate. Latency is
// counted from when a request was due, so a server that falls behind shows it (no coordinated
// omission). Requests still unanswered 10 s after the last one was sent count as failed, so a
// server that cannot keep up ends the run instead of draining a queue for minutes.
import http from 'node:http';

const GRACE_MS = 10_000;

export interface MixedRequest {
  name: string;
  path: string;
}

export interface MixedResult {
  sent: number;
  /** Not 200, or not answered in time. */
  failed: number;
  /** Requests/s actually completed. */
  rps: number;
  p50: number;
  p99: number;
  /** Per endpoint: p99 and failures, to find the one that holds the mix back. */
  byName: Map<string, { p99: number; failed: number }>;
}

const percentile = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]! : 0);

export async function fixedRate(baseUrl: string, token: string, requests: MixedRequest[], rate: number, seconds: number): Promise<MixedResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const latencies = new Map<string, number[]>(requests.map((r) => [r.name, []]));
  const failures = new Map<string, number>(requests.map((r) => [r.name, 0]));
  const total = Math.round(rate * seconds);
  const start = performance.now();
  let sent = 0;
  let answered = 0;
  let allAnswered!: () => void;
  const done = new Promise<void>((r) => (allAnswered = r));
  const pending = new Set<http.ClientRequest>();

  const send = (i: number) => {
    const r = requests[i % requests.length]!;
    const due = start + (i * 1000) / rate;
    let finished = false;
    const finish = (ok: boolean) => {
      if (finished) return;
      finished = true;
      pending.delete(req);
      if (ok) latencies.get(r.name)!.push(performance.now() - due);
      else failures.set(r.name, failures.get(r.name)! + 1);
      if (++answered === total) allAnswered();
    };
    const req = http.get(baseUrl + r.path, { agent, headers: { 'private-token': token } }, (res) => {
      res.resume();
      res.on('close', () => finish(res.complete && res.statusCode === 200));
    });
    req.on('error', () => finish(false));
    pending.add(req);
  };
  // Every millisecond, send what has come due (timers are not precise enough for one timer per request).
  const timer = setInterval(() => {
    const due = Math.min(total, Math.floor(((performance.now() - start) * rate) / 1000) + 1);
    while (sent < due) send(sent++);
    if (sent === total) {
      clearInterval(timer);
      setTimeout(() => [...pending].forEach((req) => req.destroy()), GRACE_MS).unref();
    }
  }, 1);
  await done;
  const elapsed = (performance.now() - start) / 1000;
  agent.destroy();

  const all = [...latencies.values()].flat().sort((a, b) => a - b);
  const byName = new Map<string, { p99: number; failed: number }>();
  for (const [name, l] of latencies) byName.set(name, { p99: percentile(l.sort((a, b) => a - b), 99), failed: failures.get(name)! });
  const failed = [...failures.values()].reduce((a, b) => a + b, 0);
  return { sent: total, failed, rps: (total - failed) / elapsed, p50: percentile(all, 50), p99: percentile(all, 99), byName };
}
