// The only reader of process.env. Every setting is validated here, once, at start.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** `postgres://…` selects PostgreSQL; null means the embedded SQLite file in dataDir. */
  databaseUrl: string | null;
  /** Base of every web_url, Link header and clone URL; no trailing slash. */
  externalUrl: string;
  /** externalUrl's host with its port, and without (container registry prefix, SSH clone URLs, no-reply e-mails). */
  externalHost: string;
  externalHostname: string;
  rootPassword: string | null;
  rootToken: string | null;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Impersonation tokens can be switched off instance-wide (the reference's `impersonation_enabled`). */
  impersonationEnabled: boolean;
  /** Background workers in this process; 0 leaves queued work for other nodes. */
  queueWorkers: number;
  /** When the pipeline schedule worker ticks (five-field cron, UTC; the reference's pipeline_schedule_worker cron). */
  pipelineScheduleWorkerCron: string;
  /**
   * Key for secrets stored encrypted (settings such as API keys). From ANVIL_SECRET_KEY, so that
   * several nodes share it; else generated once into <dataDir>/secret_key (mode 0600).
   */
  secretKey: Buffer;
  /** The built-in CI runner runs pending jobs on this node (`serve`); false leaves them pending. */
  runnerEnabled: boolean;
  /** Jobs the built-in runner of this node runs at once. */
  runnerConcurrency: number;
  /** First retry delay of a failed hook delivery; each further one doubles (with jitter). */
  hookRetryBaseMs: number;
  /** This node's name among the runner nodes on one database (default: the host name); unique per process. */
  nodeId: string;
  /** A runner node's lease: its running jobs fail this long after its last heartbeat. */
  runnerLeaseSeconds: number;
  /** How often a runner node renews its lease (and looks for jobs of dead nodes). */
  runnerHeartbeatSeconds: number;
  /** The built-in runner's tags (ANVIL_RUNNER_TAGS, comma-separated): a job with tags it lacks waits for a registered runner. */
  runnerTags: string[];
  /** The built-in runner takes jobs without tags (ANVIL_RUNNER_RUN_UNTAGGED, default true). */
  runnerRunUntagged: boolean;
  /** The instance's runner registration token (ANVIL_RUNNER_REGISTRATION_TOKEN); unset: only project and group tokens register. */
  runnerRegistrationToken: string | null;
  /** How long `POST /jobs/request` waits for a job when nothing changed since the runner's last look (ANVIL_RUNNER_LONG_POLL_SECONDS). */
  runnerLongPollSeconds: number;
  /** A registered runner's running job not updated for this long fails as stuck (ANVIL_RUNNER_STUCK_SECONDS, default one hour). */
  runnerStuckSeconds: number;
  /** How the built-in runner confines each job (src/ci/sandbox/); `sandbox: false` runs jobs as the server. */
  runnerSandbox: RunnerSandboxConfig;
  /** Where blobs live: `<dataDir>/blobs` (local) or an S3-compatible bucket (ANVIL_BLOB_URL=s3://bucket/prefix). */
  blobStore: BlobStoreConfig;
  /**
   * The S3-compatible server that remote-import-objstore reads from (ANVIL_REMOTE_IMPORT_S3_ENDPOINT);
   * null: the provider's endpoint of the request's region.
   */
  remoteImportS3Endpoint: string | null;
  /**
   * POST /projects/remote-import-objstore is served (ANVIL_REMOTE_IMPORT_OBJSTORE); off by default,
   * as the reference's feature flag `import_project_from_remote_file_objstore` is: then 404.
   */
  remoteImportObjstoreEnabled: boolean;
  /**
   * The SSH server for git (src/ssh/): where it listens (ANVIL_SSH_HOST, default ANVIL_HOST;
   * ANVIL_SSH_PORT, default 2222, empty: off, 0: a free one), its host keys (ANVIL_SSH_HOST_KEYS,
   * comma-separated private key files; default: generated into <dataDir>/ssh), and the host and
   * port clone URLs name (ANVIL_SSH_EXTERNAL_HOST, default externalHostname;
   * ANVIL_SSH_EXTERNAL_PORT, default the port it listens on). null: no SSH server.
   */
  ssh: SshConfig | null;
  /** The host and port of ssh_url_to_repo (also when this node serves no SSH). */
  sshExternalHost: string;
  sshExternalPort: number;
  /** Test mode (ANVIL_TEST_MODE, `serve --ephemeral`): the /-/test/ endpoints exist (reset, snapshots, deliveries, clock). */
  testMode: boolean;
  /** The clock can be set and advanced through /-/test/clock (ANVIL_TEST_CLOCK, `--clock`); test mode only. */
  testClock: boolean;
  /**
   * TEST ONLY (ANVIL_TEST_CRASH_BEFORE_REF_PUBLISH=true): the process kills itself (SIGKILL) right
   * after refs moved and before their changes are published, so the crash-recovery tests can show
   * that every ref change still gets its event, hooks and pipeline once. Never set it otherwise.
   */
  testCrashBeforeRefPublish: boolean;
}

export interface SshConfig {
  host: string;
  /** 0 until serve picks a free one. */
  port: number;
  /** Private key files given by ANVIL_SSH_HOST_KEYS; empty: the generated pair in <dataDir>/ssh. */
  hostKeyFiles: string[];
}

/** The SSH port when ANVIL_SSH_PORT is unset: clear of the host's own sshd on 22. */
export const DEFAULT_SSH_PORT = 2222;

/** A bucket of an S3-compatible store. */
export interface S3Location {
  bucket: string;
  /** Keys live below this (no leading or trailing `/`); '' for the bucket's root. */
  prefix: string;
  /** A self-hosted server's URL; null for the provider's own. */
  endpoint: string | null;
  region: string;
  accessKeyId: string | null;
  secretAccessKey: string | null;
  /** Path-style URLs (`endpoint/bucket/key`), which most self-hosted S3 servers need. */
  forcePathStyle: boolean;
}

/**
 * `private`: a network namespace of the job's own, outbound through a user-mode network stack
 * that cannot reach the host's loopback (the server's API forwarded in); `host`: the machine's
 * network; `none`: a network namespace with loopback only.
 */
export type RunnerNetwork = 'private' | 'host' | 'none';

export interface RunnerSandboxConfig {
  /** false: jobs run unconfined, as the server's own user (ANVIL_RUNNER_SANDBOX=off). */
  enabled: boolean;
  network: RunnerNetwork;
  /** The uid (and gid) of the runner's first job slot; slot n runs as uid + n. */
  uid: number;
  /** Processes and threads one job may have at once (RLIMIT_NPROC). */
  maxProcesses: number;
  /** The largest file one job may write, in MiB (RLIMIT_FSIZE). */
  maxFileSizeMb: number;
  /** Memory of one job, in MiB (a cgroup's limit, where the host offers one); 0: not bounded. */
  maxMemoryMb: number;
  /** Size of a job's build folder, and of its /tmp with HOME, in MiB (tmpfs mounts); 0: not bounded, on the data dir's disk. */
  maxDiskMb: number;
}

export type BlobStoreConfig = { kind: 'local' } | ({ kind: 's3' } & S3Location);

export class ConfigError extends Error {}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

function intIn(name: string, raw: string | undefined, dflt: number, min: number, max: number): number {
  if (raw === undefined || raw === '') return dflt;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${n}`);
  return n;
}

function bool(name: string, raw: string | undefined, dflt: boolean): boolean {
  if (raw === undefined || raw === '') return dflt;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function secretKey(raw: string | undefined, dataDir: string): Buffer {
  if (raw) {
    if (raw.length < 32) throw new ConfigError('ANVIL_SECRET_KEY must be at least 32 characters');
    return crypto.createHash('sha256').update(raw).digest();
  }
  const file = path.join(dataDir, 'secret_key');
  if (!fs.existsSync(file)) {
    fs.mkdirSync(dataDir, { recursive: true });
    try {
      fs.writeFileSync(file, crypto.randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err; // another process wrote it first
    }
  }
  return crypto.createHash('sha256').update(fs.readFileSync(file, 'utf8').trim()).digest();
}

function httpUrlOrNull(name: string, raw: string | undefined): string | null {
  if (!raw) return null;
  try {
    if (!['http:', 'https:'].includes(new URL(raw).protocol)) throw new Error();
  } catch {
    throw new ConfigError(`${name} must be an http(s) URL, got "${raw}"`);
  }
  return raw;
}

/**
 * ANVIL_BLOB_URL `s3://bucket/prefix` selects an S3-compatible store, with ANVIL_S3_ENDPOINT
 * (a self-hosted server; default: the provider's), ANVIL_S3_REGION (default us-east-1),
 * ANVIL_S3_ACCESS_KEY_ID and ANVIL_S3_SECRET_ACCESS_KEY (else the SDK's usual sources) and
 * ANVIL_S3_FORCE_PATH_STYLE (default: on when an endpoint is given).
 */
function blobStore(env: NodeJS.ProcessEnv): BlobStoreConfig {
  const raw = env.ANVIL_BLOB_URL;
  if (!raw) return { kind: 'local' };
  const m = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(raw);
  if (!m) throw new ConfigError(`ANVIL_BLOB_URL must look like s3://bucket or s3://bucket/prefix, got "${raw}"`);
  const prefix = (m[2] ?? '').replace(/^\/+|\/+$/g, '');
  if (prefix && !prefix.split('/').every((s) => /^[A-Za-z0-9_.-]+$/.test(s) && s !== '.' && s !== '..')) {
    throw new ConfigError(`ANVIL_BLOB_URL has an invalid prefix "${prefix}"`);
  }
  const endpoint = httpUrlOrNull('ANVIL_S3_ENDPOINT', env.ANVIL_S3_ENDPOINT);
  const accessKeyId = env.ANVIL_S3_ACCESS_KEY_ID || null;
  const secretAccessKey = env.ANVIL_S3_SECRET_ACCESS_KEY || null;
  if ((accessKeyId === null) !== (secretAccessKey === null)) {
    throw new ConfigError('ANVIL_S3_ACCESS_KEY_ID and ANVIL_S3_SECRET_ACCESS_KEY go together');
  }
  return {
    kind: 's3',
    bucket: m[1]!,
    prefix,
    endpoint,
    region: env.ANVIL_S3_REGION || 'us-east-1',
    accessKeyId,
    secretAccessKey,
    forcePathStyle: bool('ANVIL_S3_FORCE_PATH_STYLE', env.ANVIL_S3_FORCE_PATH_STYLE, endpoint !== null),
  };
}

/** 0 (not bounded) or a bound of at least `min` MiB. */
function zeroOrAtLeast(name: string, raw: string | undefined, dflt: number, min: number): number {
  const n = intIn(name, raw, dflt, 0, 16_777_216);
  if (n !== 0 && n < min) throw new ConfigError(`${name} must be 0 (not bounded) or at least ${min}, got ${n}`);
  return n;
}

function runnerSandbox(env: NodeJS.ProcessEnv): RunnerSandboxConfig {
  const network = env.ANVIL_RUNNER_NETWORK || 'private';
  if (network !== 'private' && network !== 'host' && network !== 'none') throw new ConfigError(`ANVIL_RUNNER_NETWORK must be private, host or none, got "${network}"`);
  return {
    enabled: bool('ANVIL_RUNNER_SANDBOX', env.ANVIL_RUNNER_SANDBOX, true),
    network,
    uid: intIn('ANVIL_RUNNER_UID', env.ANVIL_RUNNER_UID, 60000, 1000, 4_000_000_000),
    maxProcesses: intIn('ANVIL_RUNNER_MAX_PROCESSES', env.ANVIL_RUNNER_MAX_PROCESSES, 1024, 16, 1_000_000),
    maxFileSizeMb: intIn('ANVIL_RUNNER_MAX_FILE_SIZE_MB', env.ANVIL_RUNNER_MAX_FILE_SIZE_MB, 4096, 1, 16_777_216),
    maxMemoryMb: zeroOrAtLeast('ANVIL_RUNNER_MAX_MEMORY_MB', env.ANVIL_RUNNER_MAX_MEMORY_MB, 4096, 64),
    maxDiskMb: zeroOrAtLeast('ANVIL_RUNNER_MAX_DISK_MB', env.ANVIL_RUNNER_MAX_DISK_MB, 4096, 16),
  };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = intIn('ANVIL_PORT', env.ANVIL_PORT, 8080, 0, 65535);
  const host = env.ANVIL_HOST || '127.0.0.1';
  const dataDir = path.resolve(env.ANVIL_DATA_DIR || './data');

  const databaseUrl = env.ANVIL_DATABASE_URL || null;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError(`ANVIL_DATABASE_URL must start with postgres:// (leave it unset for the embedded SQLite), got "${databaseUrl}"`);
  }

  const defaultExternal = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const externalUrl = (env.ANVIL_EXTERNAL_URL || defaultExternal).replace(/\/+$/, '');
  let parsed: URL;
  try {
    parsed = new URL(externalUrl);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error();
  } catch {
    throw new ConfigError(`ANVIL_EXTERNAL_URL must be an http(s) URL, got "${env.ANVIL_EXTERNAL_URL}"`);
  }

  const rootPassword = env.ANVIL_ROOT_PASSWORD || null;
  if (rootPassword !== null && rootPassword.length < 8) {
    throw new ConfigError('ANVIL_ROOT_PASSWORD must be at least 8 characters');
  }
  const rootToken = env.ANVIL_ROOT_TOKEN || null;
  if (rootToken !== null && (rootToken.length < 20 || /\s/.test(rootToken))) {
    throw new ConfigError('ANVIL_ROOT_TOKEN must be at least 20 characters with no spaces');
  }

  const logLevel = (env.ANVIL_LOG_LEVEL || 'info') as Config['logLevel'];
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`ANVIL_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);
  }

  const nodeId = env.ANVIL_NODE_ID || os.hostname() || 'anvil';
  if (nodeId.length > 200 || /[\s\x00-\x1f]/.test(nodeId)) {
    throw new ConfigError(`ANVIL_NODE_ID must be at most 200 characters with no spaces, got "${nodeId}"`);
  }
  const runnerLeaseSeconds = intIn('ANVIL_RUNNER_LEASE_SECONDS', env.ANVIL_RUNNER_LEASE_SECONDS, 15, 2, 3600);
  const runnerHeartbeatSeconds = intIn('ANVIL_RUNNER_HEARTBEAT_SECONDS', env.ANVIL_RUNNER_HEARTBEAT_SECONDS, Math.min(5, runnerLeaseSeconds - 1), 1, 3600);
  if (runnerHeartbeatSeconds >= runnerLeaseSeconds) {
    throw new ConfigError(`ANVIL_RUNNER_HEARTBEAT_SECONDS (${runnerHeartbeatSeconds}) must be less than ANVIL_RUNNER_LEASE_SECONDS (${runnerLeaseSeconds})`);
  }

  const testMode = bool('ANVIL_TEST_MODE', env.ANVIL_TEST_MODE, false);
  const testClock = bool('ANVIL_TEST_CLOCK', env.ANVIL_TEST_CLOCK, false);
  if (testClock && !testMode) throw new ConfigError('ANVIL_TEST_CLOCK needs test mode (ANVIL_TEST_MODE=true or serve --ephemeral)');

  const ssh: SshConfig | null =
    env.ANVIL_SSH_PORT === ''
      ? null
      : {
          host: env.ANVIL_SSH_HOST || host,
          port: intIn('ANVIL_SSH_PORT', env.ANVIL_SSH_PORT, DEFAULT_SSH_PORT, 0, 65535),
          hostKeyFiles: (env.ANVIL_SSH_HOST_KEYS ?? '').split(',').map((f) => f.trim()).filter((f) => f !== '').map((f) => path.resolve(f)),
        };
  for (const f of ssh?.hostKeyFiles ?? []) if (!fs.existsSync(f)) throw new ConfigError(`ANVIL_SSH_HOST_KEYS names a file that does not exist: ${f}`);
  const sshExternalHost = env.ANVIL_SSH_EXTERNAL_HOST || parsed.hostname.replace(/^\[|\]$/g, '');
  if (/[\s@/:]/.test(sshExternalHost) && !/^[0-9a-f:]+$/i.test(sshExternalHost)) throw new ConfigError(`ANVIL_SSH_EXTERNAL_HOST must be a host name, got "${sshExternalHost}"`);

  return {
    secretKey: secretKey(env.ANVIL_SECRET_KEY, dataDir),
    port,
    host,
    dataDir,
    databaseUrl,
    externalUrl,
    externalHost: parsed.host,
    externalHostname: parsed.hostname,
    rootPassword,
    rootToken,
    logLevel,
    impersonationEnabled: bool('ANVIL_IMPERSONATION_ENABLED', env.ANVIL_IMPERSONATION_ENABLED, true),
    queueWorkers: intIn('ANVIL_QUEUE_WORKERS', env.ANVIL_QUEUE_WORKERS, 2, 0, 64),
    pipelineScheduleWorkerCron: scheduleWorkerCron(env.ANVIL_PIPELINE_SCHEDULE_WORKER_CRON),
    runnerEnabled: bool('ANVIL_RUNNER_ENABLED', env.ANVIL_RUNNER_ENABLED, true),
    runnerConcurrency: intIn('ANVIL_RUNNER_CONCURRENCY', env.ANVIL_RUNNER_CONCURRENCY, 2, 1, 64),
    hookRetryBaseMs: intIn('ANVIL_HOOK_RETRY_BASE_MS', env.ANVIL_HOOK_RETRY_BASE_MS, 10_000, 1, 3_600_000),
    nodeId,
    runnerLeaseSeconds,
    runnerHeartbeatSeconds,
    runnerTags: (env.ANVIL_RUNNER_TAGS ?? '').split(',').map((t) => t.trim()).filter((t) => t !== ''),
    runnerRunUntagged: bool('ANVIL_RUNNER_RUN_UNTAGGED', env.ANVIL_RUNNER_RUN_UNTAGGED, true),
    runnerRegistrationToken: env.ANVIL_RUNNER_REGISTRATION_TOKEN ? env.ANVIL_RUNNER_REGISTRATION_TOKEN : null,
    runnerLongPollSeconds: intIn('ANVIL_RUNNER_LONG_POLL_SECONDS', env.ANVIL_RUNNER_LONG_POLL_SECONDS, 20, 0, 60),
    runnerStuckSeconds: intIn('ANVIL_RUNNER_STUCK_SECONDS', env.ANVIL_RUNNER_STUCK_SECONDS, 3600, 1, 86_400),
    runnerSandbox: runnerSandbox(env),
    blobStore: blobStore(env),
    remoteImportS3Endpoint: httpUrlOrNull('ANVIL_REMOTE_IMPORT_S3_ENDPOINT', env.ANVIL_REMOTE_IMPORT_S3_ENDPOINT),
    remoteImportObjstoreEnabled: bool('ANVIL_REMOTE_IMPORT_OBJSTORE', env.ANVIL_REMOTE_IMPORT_OBJSTORE, false),
    ssh,
    sshExternalHost,
    sshExternalPort: intIn('ANVIL_SSH_EXTERNAL_PORT', env.ANVIL_SSH_EXTERNAL_PORT, ssh?.port || DEFAULT_SSH_PORT, 1, 65535),
    testMode,
    testClock,
    testCrashBeforeRefPublish: bool('ANVIL_TEST_CRASH_BEFORE_REF_PUBLISH', env.ANVIL_TEST_CRASH_BEFORE_REF_PUBLISH, false),
  };
}

/** The environment with some variables set by a command's flags (`serve --ephemeral`). */
export const loadConfigWith = (flags: Record<string, string>): Config => loadConfig({ ...process.env, ...flags });

/** One variable of the environment as given (the commands' defaults that are not settings: `anvil seed`'s URL and token). */
export const envValue = (name: string): string | undefined => process.env[name];

/** Five fields of digits, `*`, `,`, `-` and `/` (the cron parser reads them when the worker ticks). */
function scheduleWorkerCron(v: string | undefined): string {
  const cron = (v ?? '').trim() || '* * * * *';
  if (!/^[\d*,/-]+( [\d*,/-]+){4}$/.test(cron.replace(/\s+/g, ' '))) throw new Error(`ANVIL_PIPELINE_SCHEDULE_WORKER_CRON must be a five-field cron expression, got "${cron}"`);
  return cron;
}
