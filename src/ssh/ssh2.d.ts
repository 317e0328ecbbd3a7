// The part of the ssh2 package that src/ssh/ uses (the package ships no types of its own).
declare module 'ssh2' {
  import type { EventEmitter } from 'node:events';
  import type { Duplex, Writable } from 'node:stream';

  export interface ParsedKey {
    type: string;
    verify(data: Buffer, signature: Buffer, hashAlgo?: string): boolean | Error;
    getPublicSSH(): Buffer;
  }
  export interface PublicKeyAuthContext {
    method: 'publickey';
    username: string;
    key: { algo: string; data: Buffer };
    signature?: Buffer;
    blob?: Buffer;
    hashAlgo?: string;
    accept(): void;
    reject(methods?: string[], isPartial?: boolean): void;
  }
  export interface OtherAuthContext {
    method: 'none' | 'password' | 'hostbased' | 'keyboard-interactive';
    username: string;
    accept(): void;
    reject(methods?: string[], isPartial?: boolean): void;
  }
  export type AuthContext = PublicKeyAuthContext | OtherAuthContext;
  export interface ServerChannel extends Duplex {
    stderr: Writable;
    exit(code: number): void;
    close(): void;
  }
  type Accept<T = void> = (() => T) | undefined;
  type Reject = (() => void) | undefined;
  export interface Session extends EventEmitter {
    on(event: 'env', listener: (accept: Accept, reject: Reject, info: { key: string; val: string }) => void): this;
    on(event: 'exec', listener: (accept: () => ServerChannel, reject: () => void, info: { command: string }) => void): this;
    on(event: 'shell', listener: (accept: () => ServerChannel, reject: () => void) => void): this;
    on(event: 'pty' | 'subsystem' | 'x11' | 'auth-agent' | 'signal' | 'window-change' | 'sftp', listener: (accept: Accept, reject: Reject, info?: unknown) => void): this;
    on(event: string, listener: (...args: any[]) => void): this;
  }
  export interface Connection extends EventEmitter {
    on(event: 'authentication', listener: (ctx: AuthContext) => void): this;
    on(event: 'ready' | 'close' | 'end', listener: () => void): this;
    on(event: 'error', listener: (err: Error) => void): this;
    on(event: 'session', listener: (accept: () => Session, reject: () => void) => void): this;
    on(event: 'tcpip' | 'openssh.streamlocal', listener: (accept: () => unknown, reject: () => void, info: unknown) => void): this;
    on(event: 'request', listener: (accept: Accept<unknown>, reject: Reject, name: string, info: unknown) => void): this;
    on(event: string, listener: (...args: any[]) => void): this;
    end(): void;
  }
  export interface ServerConfig {
    hostKeys: (Buffer | string)[];
    ident?: string;
    banner?: string;
  }
  export class Server extends EventEmitter {
    constructor(config: ServerConfig, listener?: (client: Connection, info: { ip: string }) => void);
    listen(port: number, host: string, callback?: () => void): this;
    address(): { port: number; address: string };
    close(callback?: (err?: Error) => void): this;
    on(event: 'connection', listener: (client: Connection, info: { ip: string }) => void): this;
    on(event: 'error', listener: (err: Error) => void): this;
    on(event: string, listener: (...args: any[]) => void): this;
  }
  export const utils: {
    parseKey(data: string | Buffer, passphrase?: string): ParsedKey | ParsedKey[] | Error;
    generateKeyPairSync(type: 'ed25519' | 'rsa' | 'ecdsa', opts?: { bits?: number; comment?: string }): { private: string; public: string };
  };
  const ssh2: { Server: typeof Server; utils: typeof utils };
  export default ssh2;
}
