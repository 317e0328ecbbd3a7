// The ceiling: a bare Fastify server answering each scenario's path with the exact bytes and
// headers Anvil answered (no auth, no database, no hooks). Run as its own process, like Anvil.
//   node --import tsx bench/bare.ts <fixtures.json> <port>
import fs from 'node:fs';
import Fastify from 'fastify';

interface Fixture {
  /** Path and query; scenarios on one path with different queries get their own answers. */
  url: string;
  status: number;
  headers: Record<string, string>;
  body: string; // base64
}

const [file, port] = process.argv.slice(2);
const fixtures = JSON.parse(fs.readFileSync(file, 'utf8')) as Fixture[];
const app = Fastify({ logger: false });
const byUrl = new Map(fixtures.map((f) => [f.url, { ...f, bytes: Buffer.from(f.body, 'base64') }]));
for (const path of new Set(fixtures.map((f) => f.url.split('?')[0]))) {
  app.get(path, (req, reply) => {
    const f = byUrl.get(req.url)!;
    reply.code(f.status).headers(f.headers).send(f.bytes);
  });
}
await app.listen({ port: Number(port), host: '127.0.0.1' });
process.stdout.write(`bare listening on ${port}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
