// The default network of a job (ANVIL_RUNNER_NETWORK=private): real jobs of a plain user, two at
// once, each in a network namespace of its own behind slirp4netns. A job reaches neither a service
// on the host's loopback (a listener of this test, PostgreSQL) nor the other job's loopback port
// or abstract unix socket, which that job itself reaches; it still calls the API with its job token
// and clones its repository at the URLs it is given.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { CiRunner } from '../../src/domain/ci/runner.js';
import { DIALECTS, type TestApp } from '../helpers/build.js';
import { createPipelineOk, makeCiProject } from '../helpers/ci.js';
import { listeningTestApp } from '../helpers/git.js';
import { waitFor } from '../helpers/queue.js';
import { jobDir, jobPids, jobsOf, testRunner, traceText, waitForJob } from './runner_fixtures.js';

/** One line per attempt: `ok <what>` when it worked, `no <what>` when it did not. */
const attempt = (what: string, command: string): string => `if ${command} >/dev/null 2>&1; then echo "ok ${what}"; else echo "no ${what}"; fi`;

// Listens on the job's 127.0.0.1:PORT and on the abstract unix socket NAME, checks it reaches both
// itself, then waits for `go`.
const LISTEN_PY = `import os, socket, sys, threading, time
port, name = int(sys.argv[1]), b'\\0' + sys.argv[2].encode()
tcp = socket.socket(); tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); tcp.bind(('127.0.0.1', port)); tcp.listen(16)
unix = socket.socket(socket.AF_UNIX); unix.bind(name); unix.listen(16)
def serve(s):
    while True:
        c, _ = s.accept(); c.sendall(b'hi'); c.close()
for s in (tcp, unix): threading.Thread(target=serve, args=(s,), daemon=True).start()
print('own-listener', socket.create_connection(('127.0.0.1', port)).recv(2).decode())
u = socket.socket(socket.AF_UNIX); u.connect(name); print('own-abstract', u.recv(2).decode())
sys.stdout.flush()
open('started', 'w').close()
while not os.path.exists('go'): time.sleep(0.05)
`;

for (const dialect of DIALECTS) {
  describe(`a job's private network (${dialect})`, () => {
    let t: TestApp;
    let url: string;
    let runner: CiRunner;
    let service: net.Server;
    let servicePort: number;
    before(async () => {
      // The default setting: nothing about the network is set.
      ({ t, url } = await listeningTestApp(dialect));
      assert.equal(t.c.config.runnerSandbox.network, 'private');
      service = net.createServer((s) => s.on('error', () => undefined).end('secret\n'));
      await new Promise<void>((r) => service.listen(0, '127.0.0.1', r));
      servicePort = (service.address() as net.AddressInfo).port;
      runner = testRunner(t, { concurrency: 2 });
      runner.start();
    });
    after(async () => {
      await runner.stop();
      await t.close();
      service.close();
    });

    it('two jobs of a plain user at once: no host loopback, no other job; the API and git with the job token', async () => {
      const user = await t.createUser();
      const port = 20000 + Math.floor(Math.random() * 20000);
      const name = `anvil-test-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
      const ci = {
        stages: ['test'],
        listener: { stage: 'test', script: [`python3 listen.py ${port} ${name}`] },
        prober: {
          stage: 'test',
          script: [
            'while [ ! -f go ]; do sleep 0.05; done',
            attempt('host-service', `bash -c 'exec 3<>/dev/tcp/127.0.0.1/${servicePort}'`),
            attempt('host-postgres', "bash -c 'exec 3<>/dev/tcp/127.0.0.1/5432'"),
            attempt('host-gateway', `bash -c 'exec 3<>/dev/tcp/10.0.2.2/${servicePort}'`),
            attempt('job-listener', `bash -c 'exec 3<>/dev/tcp/127.0.0.1/${port}'`),
            attempt('job-abstract', `python3 -c "import socket; s = socket.socket(socket.AF_UNIX); s.connect(b'\\x00${name}')"`),
            'echo "api=$(curl -sS -o /dev/null -w "%{http_code}" -H "JOB-TOKEN: $CI_JOB_TOKEN" "$CI_API_V4_URL/job")"',
            'echo "server=$CI_SERVER_URL"',
            'git clone -q "$CI_REPOSITORY_URL" /tmp/clone && git -C /tmp/clone log -1 --format=clone=%H',
          ],
        },
      };
      const cp = await makeCiProject(t, { '.service-ci.yml': JSON.stringify(ci), 'listen.py': LISTEN_PY }, { token: user.token, body: { visibility: 'private' } });
      const pipeline = await createPipelineOk(t, cp.id, 'main', { token: user.token });
      const { listener, prober } = await jobsOf(t, pipeline.id);
      await waitFor('the listener job to listen', () => fs.existsSync(path.join(jobDir(t, listener!.id), 'started')), 60_000);
      // Both run now: the prober tries the listener's port and socket while they are open.
      await waitFor('the prober job to start', () => fs.existsSync(jobDir(t, prober!.id)), 60_000);
      fs.writeFileSync(path.join(jobDir(t, prober!.id), 'go'), '');
      const p = await waitForJob(t, prober!.id, ['success', 'failed']);
      const log = (await traceText(t, p.id))!;
      fs.writeFileSync(path.join(jobDir(t, listener!.id), 'go'), '');
      const l = await waitForJob(t, listener!.id, ['success', 'failed']);
      const listenerLog = (await traceText(t, l.id))!;

      assert.equal(p.status, 'success', log);
      for (const denied of ['host-service', 'host-postgres', 'host-gateway', 'job-listener', 'job-abstract']) {
        assert.match(log, new RegExp(`^no ${denied}$`, 'm'), `${denied} must fail:\n${log}`);
      }
      assert.match(log, /^api=200$/m);
      assert.match(log, new RegExp(`^server=${url}$`, 'm'));
      assert.match(log, new RegExp(`^clone=${cp.sha}$`, 'm'));
      // What the other job could not reach, the listener itself reached.
      assert.equal(l.status, 'success', listenerLog);
      assert.match(listenerLog, /^own-listener hi$/m);
      assert.match(listenerLog, /^own-abstract hi$/m);
      await waitFor('the jobs\' processes to end', () => jobPids().length === 0, 15_000);
    });
  });
}
