// Prometheus metrics at /-/metrics (text exposition format 0.0.4), kept in a tiny registry of our own.
// Per route *pattern* (never the raw URL, which would explode label cardinality): a request counter by
// status and a latency histogram. Recording a request is a few map lookups and number bumps; all
// formatting happens when /-/metrics is scraped.
import type { FastifyInstance } from 'fastify';
import { ANVIL_REVISION } from '../version.js';
import { routeTemplateOf } from './route.js';

export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** Upper bounds in seconds; an API call normally lands in the first few. */
export const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The route label of requests that matched no route (404s for arbitrary paths). */
export const UNMATCHED = '(unmatched)';

class Series {
  readonly byStatus = new Map<number, number>();
  /** Per-bucket (not cumulative) counts; cumulated when rendered. */
  readonly buckets = new Float64Array(LATENCY_BUCKETS.length);
  count = 0;
  sum = 0;
}

const escapeLabel = (v: string): string => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');

export class HttpMetrics {
  /** route pattern → method → series */
  private readonly routes = new Map<string, Map<string, Series>>();

  observe(method: string, route: string, status: number, seconds: number): void {
    let byMethod = this.routes.get(route);
    if (!byMethod) this.routes.set(route, (byMethod = new Map()));
    let s = byMethod.get(method);
    if (!s) byMethod.set(method, (s = new Series()));
    s.byStatus.set(status, (s.byStatus.get(status) ?? 0) + 1);
    s.count += 1;
    s.sum += seconds;
    for (let i = 0; i < LATENCY_BUCKETS.length; i++) {
      if (seconds <= LATENCY_BUCKETS[i]) {
        s.buckets[i] += 1;
        break;
      }
    }
  }

  render(): string {
    const counts: string[] = [];
    const hist: string[] = [];
    for (const [route, byMethod] of this.routes) {
      for (const [method, s] of byMethod) {
        const labels = `method="${escapeLabel(method.toLowerCase())}",route="${escapeLabel(route)}"`;
        for (const [status, n] of s.byStatus) counts.push(`http_requests_total{${labels},status="${status}"} ${n}`);
        let cumulative = 0;
        LATENCY_BUCKETS.forEach((le, i) => {
          cumulative += s.buckets[i];
          hist.push(`http_request_duration_seconds_bucket{${labels},le="${le}"} ${cumulative}`);
        });
        hist.push(`http_request_duration_seconds_bucket{${labels},le="+Inf"} ${s.count}`);
        hist.push(`http_request_duration_seconds_sum{${labels}} ${s.sum}`);
        hist.push(`http_request_duration_seconds_count{${labels}} ${s.count}`);
      }
    }
    const mem = process.memoryUsage();
    const cpu = process.cpuUsage();
    return [
      ...family('http_requests_total', 'counter', 'Requests answered, by method, route pattern and status.', counts),
      ...family('http_request_duration_seconds', 'histogram', 'Time from receiving a request to the end of its response.', hist),
      ...gauge('process_resident_memory_bytes', 'Resident memory size in bytes.', mem.rss),
      ...gauge('nodejs_heap_used_bytes', 'V8 heap in use, in bytes.', mem.heapUsed),
      ...gauge('nodejs_heap_size_total_bytes', 'V8 heap reserved, in bytes.', mem.heapTotal),
      ...gauge('nodejs_external_memory_bytes', 'Memory of C++ objects bound to JavaScript (buffers among them), in bytes.', mem.external),
      ...family('process_cpu_seconds_total', 'counter', 'User and system CPU time spent, in seconds.', [`process_cpu_seconds_total ${(cpu.user + cpu.system) / 1e6}`]),
      ...gauge('process_start_time_seconds', 'Start time of the process since the Unix epoch, in seconds.', Math.round(Date.now() / 1000 - process.uptime())),
      ...gauge('process_uptime_seconds', 'Seconds since the process started.', process.uptime()),
      ...family('anvil_build_info', 'gauge', 'Always 1; the labels say which Anvil is running.', [`anvil_build_info{revision="${escapeLabel(ANVIL_REVISION)}"} 1`]),
      '',
    ].join('\n');
  }
}

/** One metric family in the text format: its help and type lines, then its samples. */
function family(name: string, type: 'counter' | 'gauge' | 'histogram', help: string, samples: string[]): string[] {
  return [`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`, ...samples];
}

const gauge = (name: string, help: string, value: number): string[] => family(name, 'gauge', help, [`${name} ${value}`]);

/** Records every response and serves /-/metrics. Returns the registry (tests read it directly too). */
export function registerMetrics(app: FastifyInstance): HttpMetrics {
  const metrics = new HttpMetrics();
  // Callback-style hook: no promise per request.
  app.addHook('onResponse', (req, reply, done) => {
    metrics.observe(req.method, routeTemplateOf(req) ?? UNMATCHED, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
  app.get('/-/metrics', async (_req, reply) => reply.code(200).header('content-type', METRICS_CONTENT_TYPE).send(metrics.render()));
  return metrics;
}
