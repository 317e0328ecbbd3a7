// git's transports on the server side: the stateless-RPC form of upload-pack and receive-pack
// that smart HTTP speaks, and the full-duplex form that SSH speaks. The transport pipes the
// client's bytes into these processes and their output back; nothing here holds a pack in memory.
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { gitStream, gitText } from './git.js';

export type GitService = 'git-upload-pack' | 'git-receive-pack';

export const isGitService = (s: unknown): s is GitService => s === 'git-upload-pack' || s === 'git-receive-pack';

/** What a client may run: the two services, and over SSH `git archive --remote` too. */
export type GitCommand = GitService | 'git-upload-archive';

/** One pkt-line: 4 hex digits of length (including themselves), then the payload. */
export function pktLine(payload: string): string {
  return (payload.length + 4).toString(16).padStart(4, '0') + payload;
}

/** What `GET info/refs?service=…` starts with, before the advertisement git writes. */
export const serviceHeader = (service: GitService): string => `${pktLine(`# service=${service}\n`)}0000`;

export const advertisementType = (service: GitService) => `application/x-${service}-advertisement`;
export const resultType = (service: GitService) => `application/x-${service}-result`;

export interface RpcOptions {
  /** Extra environment for git (hook socket, protocol version). */
  env?: Record<string, string>;
  /** `-c key=value` settings for this run only (hooks path). */
  config?: Record<string, string>;
}

const configArgs = (o: RpcOptions): string[] => Object.entries(o.config ?? {}).flatMap(([k, v]) => ['-c', `${k}=${v}`]);

function args(service: GitService, dir: string, o: RpcOptions, advertise: boolean): string[] {
  return [...configArgs(o), service.slice('git-'.length), '--stateless-rpc', ...(advertise ? ['--advertise-refs'] : []), dir];
}

/** `git <service> --stateless-rpc --advertise-refs <dir>`: the ref advertisement on stdout. */
export const advertiseRefs = (service: GitService, dir: string, o: RpcOptions = {}): ChildProcessWithoutNullStreams =>
  gitStream(args(service, dir, o, true), { env: o.env });

/** `git <service> --stateless-rpc <dir>`: request on stdin, result on stdout. */
export const serviceRpc = (service: GitService, dir: string, o: RpcOptions = {}): ChildProcessWithoutNullStreams =>
  gitStream(args(service, dir, o, false), { env: o.env });

/** `git <command> <dir>` as SSH runs it: the advertisement, then the whole exchange, on one stdin and stdout. */
export const serviceStream = (command: GitCommand, dir: string, o: RpcOptions = {}): ChildProcessWithoutNullStreams =>
  gitStream([...configArgs(o), command.slice('git-'.length), dir], { env: o.env });

// What a push changed: the reads Anvil makes about ref updates, before (inside the quarantine,
// through `env`) and after receive-pack.

/** Where every ref points now, in one read. */
export async function refTargets(dir: string): Promise<Map<string, string>> {
  const out = await gitText(['for-each-ref', '--format=%(refname) %(objectname)'], { gitDir: dir });
  return new Map(out.split('\n').filter(Boolean).map((line) => line.split(' ') as [string, string]));
}

