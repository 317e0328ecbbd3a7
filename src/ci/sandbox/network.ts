// A job's private network (ANVIL_RUNNER_NETWORK=private), as rootless container engines make it:
// a network namespace of its own (its own loopback, its own abstract unix sockets), bound to a
// file so that the job's scripts and after_script share it, with slirp4netns as its user-mode
// network stack. slirp4netns runs with --disable-host-loopback: what the job sends out leaves
// as the host's own connections, except to the host's loopback, which it cannot reach.
//
// The one way back to the host's loopback is the server's API: when the job's CI_SERVER_URL names
// a loopback address (the default `http://127.0.0.1:8080`, or `localhost`), the server listens at
// that address and port inside the job's namespace and forwards each connection to where the URL
// leads on the host (ANVIL_EXTERNAL_URL: Anvil's own listener, or a proxy in front of it), and
// nowhere else. A URL with any other host is reached through slirp4netns as any outbound address.
import { spawn, type ChildProcess } from 'node:child_process';
import dns from 'node:dns/promises';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import net from 'node:net';
import { releaseMounts } from './bounds.js';

/** slirp4netns's fixed addresses (its defaults): the job's, its gateway's and its DNS forwarder's. */
export const SLIRP_DNS = '10.0.2.3';

/** Where the job reaches the server: the API URL's host and port. */
export interface ApiEndpoint {
  hostname: string;
  port: number;
}

export interface JobNetwork {
  /** The network namespace (a bind-mounted file) the job's processes enter. */
  nsPath: string;
  stop(): Promise<void>;
}

/** The API URL's host and port. */
export function apiEndpoint(url: string): ApiEndpoint {
  const u = new URL(url);
  return { hostname: u.hostname.replace(/^\[|\]$/g, ''), port: Number(u.port || (u.protocol === 'https:' ? 443 : 80)) };
}

const isLoopback = (address: string): boolean => net.isIPv4(address) ? address.startsWith('127.') || address === '0.0.0.0' : address === '::1' || address === '::';

/**
 * The addresses inside the job's namespace where the forward to the API listens: the loopback
 * addresses the URL's host stands for on this host (the job reads the same /etc/hosts); none
 * when it names another host.
 */
export async function forwardAddresses(api: ApiEndpoint): Promise<string[]> {
  let addresses: string[];
  if (net.isIP(api.hostname)) addresses = [api.hostname];
  else {
    try {
      addresses = (await dns.lookup(api.hostname, { all: true })).map((a) => a.address);
    } catch {
      return [];
    }
  }
  if (!addresses.length || !addresses.every(isLoopback)) return [];
  // 0.0.0.0 and :: lead to the loopback (of the namespace, inside).
  return [...new Set(addresses.map((a) => (a === '0.0.0.0' ? '127.0.0.1' : a === '::' ? '::1' : a)))];
}

function run(file: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`${file} failed: ${err.trim()}`))));
  });
}

/** Starts slirp4netns for the namespace; resolves once the namespace's interfaces are up. */
function startSlirp(slirp4netns: string, nsPath: string): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    // fd 3: slirp4netns writes "1" when the network is configured; fd 4: it exits when this end closes
    // (with the server, too: the pipe closes with it).
    const child = spawn(
      slirp4netns,
      ['--configure', '--mtu=65520', '--disable-host-loopback', '--enable-sandbox', '--enable-seccomp', '--netns-type=path', '--ready-fd=3', '--exit-fd=4', nsPath, 'tap0'],
      { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] },
    );
    let err = '';
    child.stderr!.on('data', (b: Buffer) => (err += b.toString()).length > 4096 && (err = err.slice(-4096)));
    const ready = child.stdio[3] as NodeJS.ReadableStream;
    const done = (e?: Error) => {
      clearTimeout(timer);
      ready.removeAllListeners('data');
      if (e) {
        child.kill('SIGKILL');
        reject(e);
      } else resolve(child);
    };
    const timer = setTimeout(() => done(new Error('slirp4netns did not get ready within 10 s')), 10_000);
    ready.once('data', () => done());
    child.once('error', done);
    child.once('exit', (code) => done(new Error(`slirp4netns exited (${code}): ${err.trim().split('\n').pop() ?? ''}`)));
  });
}

// Runs in the job's namespace (nsenter): listens at each address and hands the listening sockets
// to the server, then ends. The sockets stay in the namespace they were made in.
const LISTENER = `
const net = require('net');
const { addresses, port } = JSON.parse(process.argv[1]);
let left = addresses.length;
const next = () => { if (--left === 0) process.disconnect(); };
for (const host of addresses) {
  const server = net.createServer();
  server.once('error', (e) => { process.send({ host, error: e.code || String(e) }); next(); });
  server.listen({ host, port, exclusive: true }, () => process.send({ host }, server, () => { server.close(); next(); }));
}
`;

/** Listening sockets made inside the namespace, owned by this process. */
function listenInside(nsenter: string, nsPath: string, addresses: string[], port: number): Promise<net.Server[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(nsenter, [`--net=${nsPath}`, '--', process.execPath, '-e', LISTENER, JSON.stringify({ addresses, port })], {
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      env: { PATH: '/usr/bin:/bin' },
    });
    const servers: net.Server[] = [];
    const errors: string[] = [];
    let err = '';
    child.stderr!.on('data', (b: Buffer) => (err += b.toString()));
    child.on('message', (m: { host: string; error?: string }, handle?: net.Server) => {
      if (handle) servers.push(handle);
      else errors.push(`${m.host}: ${m.error}`);
    });
    child.once('error', reject);
    child.once('close', (code) => {
      // An address family the namespace lacks (no IPv6) is no failure while another listens.
      if (servers.length) resolve(servers);
      else reject(new Error(`the API forward could not listen in the job's network (${code}): ${errors.join(', ') || err.trim()}`));
    });
  });
}

/** Forwards each connection to the API URL's host and port as this host reaches them. */
function forwardTo(server: net.Server, api: ApiEndpoint): void {
  server.on('connection', (inside: net.Socket) => {
    const outside = net.connect({ host: api.hostname, port: api.port, autoSelectFamily: true });
    const end = () => (inside.destroy(), outside.destroy());
    inside.on('error', end);
    outside.on('error', end);
    inside.on('close', end);
    outside.on('close', end);
    inside.pipe(outside);
    outside.pipe(inside);
    inside.resume();
  });
}

/**
 * Makes the job's network: a namespace bound to `nsPath` (a file that must not exist yet, in a
 * folder of the server's), slirp4netns on it, and the forward to the API at `addresses`
 * (forwardAddresses). On failure nothing of it is left.
 */
export async function startJobNetwork(
  tools: { unshare: string; nsenter: string; slirp4netns: string },
  nsPath: string,
  api: ApiEndpoint,
  addresses: string[],
): Promise<JobNetwork> {
  let slirp: ChildProcess | null = null;
  const servers: net.Server[] = [];
  const stop = async () => {
    for (const s of servers.splice(0)) s.close();
    if (slirp && slirp.exitCode === null && slirp.signalCode === null) {
      const exited = new Promise<void>((r) => slirp!.once('exit', () => r()));
      (slirp.stdio[4] as NodeJS.WritableStream | null)?.end();
      const timer = setTimeout(() => slirp?.kill('SIGKILL'), 2000);
      await exited;
      clearTimeout(timer);
    }
    await releaseMounts(nsPath);
    await fsp.rm(nsPath, { force: true });
  };
  try {
    await fsp.writeFile(nsPath, '', { flag: 'wx', mode: 0o600 });
    await run(tools.unshare, [`--net=${nsPath}`, '--', '/bin/true']);
    slirp = await startSlirp(tools.slirp4netns, nsPath);
    if (addresses.length) {
      for (const s of await listenInside(tools.nsenter, nsPath, addresses, api.port)) {
        servers.push(s);
        forwardTo(s, api);
      }
    }
    return { nsPath, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** The resolv.conf of a job on the private network: slirp4netns's DNS forwarder, the host's search domains and options. */
export function privateResolvConf(): string {
  let host = '';
  try {
    host = fs.readFileSync('/etc/resolv.conf', 'utf8');
  } catch {
    /* none */
  }
  const kept = host.split('\n').filter((l) => /^\s*(search|domain|options)\s/.test(l));
  return [`nameserver ${SLIRP_DNS}`, ...kept, ''].join('\n');
}
