// The ceiling: a bare Fastify server answering each scenario's path with the exact bytes and
// headers Anvil answered (no auth, no database, no hooks). Run as its own process, like Anvil.
//   node --import tsx bench/bare.ts <fixtures.json> <port>
import fs from 'node:fs';
import Fastify from 'fastify';

interface Fixture {
  path: string;
  status: number;
  headers: Record<string, string>;
  body: string; // base64
}

const [file, port] = process.argv.slice(2);
const fixtures = JSON.parse(fs.readFileSync(file, 'utf8')) as Fixture[];
const app = Fastify({ logger: false });
for (const f of fixtures) {
  const body = Buffer.from(f.body, 'base64');
  app.get(f.path, (_req, reply) => {
    reply.code(f.status).headers(f.headers).send(body);
  });
}
await app.listen({ port: Number(port), host: '127.0.0.1' });
process.stdout.write(`bare listening on ${port}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
