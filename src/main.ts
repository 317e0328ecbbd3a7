// The `anvil` command: serve | migrate | token create.
import { Command } from 'commander';
import { buildApp } from './app.js';
import pino from 'pino';
import { ConfigError, envValue, loadConfigWith, type Config } from './config.js';
import { closeContainer, createContainer, createLogger } from './container.js';
import { CiRunner } from './domain/ci/runner.js';
import { startScheduleTicker } from './domain/ci/pipeline_schedules.js';
import { bootstrapRoot } from './domain/users/bootstrap.js';
import { createTokenForUsername } from './domain/tokens/cli.js';
import { ANVIL_REVISION } from './version.js';
import { freePort, makeEphemeralDir, removeEphemeralDir } from './testing/ephemeral.js';
import { testModeOf, type Workers } from './testing/mode.js';
import { placeErrors, readSeedFile, SeedError, seedFromFile } from './testing/seed.js';
import { watchLauncher } from './testing/lifeline.js';

/** How long in-flight requests may take to finish after SIGTERM (orchestrators kill at ~30 s). */
const SHUTDOWN_GRACE_MS = 25_000;
/** An ephemeral server whose launcher ended has no one to finish requests for: it is gone within 2 s. */
const ORPHAN_GRACE_MS = 300;

/** A one-line start error, and the exit. */
function die(message: string, code = 1): never {
  process.stderr.write(`anvil: ${message}\n`);
  process.exit(code);
}

function config(flags: Record<string, string> = {}): Config {
  try {
    return loadConfigWith(flags);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`anvil: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
}

interface ServeFlags {
  ephemeral?: boolean;
  seed?: string;
  port?: string;
  clock?: boolean;
  /** false with --no-parent-watch */
  parentWatch?: boolean;
}

/** A bad flag is named as such (its setting's checks would name the environment variable). */
function checkFlags(flags: ServeFlags): void {
  if (flags.port !== undefined && !(/^\d+$/.test(flags.port) && Number(flags.port) <= 65535)) {
    die(`--port must be a whole number between 0 and 65535, got "${flags.port}"`, 2);
  }
}

/** The settings `serve`'s flags give, over the environment's. */
async function serveConfig(flags: ServeFlags, dataDir: string | null): Promise<Config> {
  const env: Record<string, string> = {};
  if (flags.port !== undefined) env.ANVIL_PORT = flags.port;
  if (flags.clock) env.ANVIL_TEST_CLOCK = 'true';
  if (dataDir) {
    // Its own SQLite file in the temp dir, test mode, and quiet unless asked otherwise.
    Object.assign(env, { ANVIL_DATA_DIR: dataDir, ANVIL_DATABASE_URL: '', ANVIL_TEST_MODE: 'true' });
    env.ANVIL_PORT ??= '0';
    env.ANVIL_LOG_LEVEL = envValue('ANVIL_LOG_LEVEL') || 'warn';
  }
  // Test mode serves SSH on a free port unless told otherwise (the ready line names it).
  if (dataDir && envValue('ANVIL_SSH_PORT') === undefined) env.ANVIL_SSH_PORT = '0';
  const cfg = config(env);
  // Port 0: a free port now, so that every URL Anvil hands out names the real one.
  if (cfg.port === 0) env.ANVIL_PORT = String(await freePort(cfg.host));
  if (cfg.ssh?.port === 0) env.ANVIL_SSH_PORT = String(await freePort(cfg.ssh.host));
  return cfg.port === 0 || cfg.ssh?.port === 0 ? config(env) : cfg;
}

async function serve(flags: ServeFlags): Promise<void> {
  const started = process.hrtime.bigint();
  checkFlags(flags); // before a data dir is made: a bad flag leaves nothing behind
  const dataDir = flags.ephemeral ? makeEphemeralDir() : null;
  if (dataDir) process.on('exit', () => removeEphemeralDir(dataDir));
  // An ephemeral server ends with whoever started it (src/testing/lifeline.ts); until it serves, at once.
  let launcherGone = (why: string): void => die(`stopping: ${why}`);
  if (dataDir && flags.parentWatch !== false) {
    watchLauncher((why) => launcherGone(why));
    // No one reads the ready line any more: the launcher is gone as well.
    process.stdout.on('error', () => launcherGone('its stdout was closed'));
  }
  const cfg = await serveConfig(flags, dataDir);
  // With --ephemeral stdout carries the one ready line; the logs go to stderr.
  const c = await createContainer(cfg, dataDir ? { log: createLogger(cfg, pino.destination({ dest: 2, sync: false })) } : {});
  const boot = await bootstrapRoot(c);
  const app = await buildApp(c);
  const testMode = cfg.testMode ? testModeOf(c) : null;
  if (testMode) {
    try {
      await testMode.seed(async () => {
        if (flags.seed) await seedFromFile(app, c, cfg.rootToken ?? boot.generatedToken ?? '', flags.seed);
      });
    } catch (err) {
      if (!(err instanceof SeedError)) throw err;
      process.stderr.write(`anvil: ${err.message}\n`);
      process.exit(1);
    }
  }
  /** A port Anvil cannot listen on ends the start with one line naming the setting, not a stack. */
  const cannotListen = (err: unknown, port: number, host: string, setting: string): never => {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') die(`port ${port} on ${host} is in use (${setting}; 0 picks a free one)`);
    if (code === 'EACCES') die(`port ${port} on ${host} needs privileges this process lacks (${setting})`);
    if (code === 'EADDRNOTAVAIL') die(`${host} is not an address of this machine (ANVIL_HOST)`);
    throw err;
  };
  await app.listen({ port: cfg.port, host: cfg.host }).catch((err) => cannotListen(err, cfg.port, cfg.host, '--port or ANVIL_PORT'));
  // git over SSH (src/ssh/): ssh2 is loaded only when the server is on
  const sshServer = cfg.ssh
    ? await (await import('./ssh/server.js'))
        .startSshServer(c)
        .catch((err) => cannotListen(err, cfg.ssh!.port, cfg.ssh!.host, 'ANVIL_SSH_PORT, empty for no SSH server'))
    : null;
  const startWorkers = () => {
    const queue = c.queue;
    queue.start();
    // The built-in CI runner; ANVIL_RUNNER_ENABLED=false leaves pending jobs to other nodes.
    const runner = cfg.runnerEnabled ? new CiRunner(c) : null;
    runner?.start();
    // Pipeline schedules are claimed at each worker tick on nodes that run background work.
    const schedules = cfg.queueWorkers > 0 ? startScheduleTicker(c) : null;
    // In test mode a reset drops running work at once.
    return {
      stop: async () => {
        schedules?.stop();
        await Promise.all([queue.stop(testMode ? 1000 : undefined), runner?.stop()]);
      },
    };
  };
  // The signals are handled before the ready line: a client may stop the server as soon as it reads it.
  let workers: Workers | null = null;
  let stopping = false;
  const stop = async (signal: string, graceMs = SHUTDOWN_GRACE_MS) => {
    if (stopping) return;
    stopping = true;
    c.log.info({ signal }, 'shutting down: finishing in-flight requests');
    // stop accepting and finish in-flight requests; let running jobs finish (bounded)
    const closed = Promise.all([app.close(), sshServer?.close()]);
    // close() drops only the connections idle at that moment; a keep-alive connection whose request
    // finishes later would hold the exit until the client lets go, so drop each one as it goes idle.
    const sweep = setInterval(() => app.server.closeIdleConnections(), 50);
    // A request that never ends (a stuck client) must not keep the process from exiting.
    const deadline = setTimeout(() => app.server.closeAllConnections(), graceMs);
    // Running CI jobs are stopped (their process groups killed) while the database is still open.
    await Promise.all([closed.finally(() => (clearInterval(sweep), clearTimeout(deadline))), testMode ? testMode.stopWorkers() : workers?.stop()]);
    await testMode?.dropAll();
    await closeContainer(c);
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  if (dataDir) {
    // A closed terminal ends an ephemeral server as a signal does, its data dir removed.
    process.on('SIGHUP', () => void stop('SIGHUP', ORPHAN_GRACE_MS));
    launcherGone = (why) => {
      c.log.warn({ why }, 'the process that started this ephemeral server ended: stopping');
      void stop('launcher gone', ORPHAN_GRACE_MS);
    };
  }
  const ms = Number(process.hrtime.bigint() - started) / 1e6;

  if (dataDir) {
    const token = cfg.rootToken ?? boot.generatedToken;
    process.stdout.write(`${JSON.stringify({ url: cfg.externalUrl, token, pid: process.pid, data_dir: dataDir, ssh_port: sshServer?.port ?? null })}\n`);
  } else {
    const lines = [`Anvil ${ANVIL_REVISION} listening on ${cfg.externalUrl} (${c.dialect}, ready in ${ms.toFixed(0)} ms)`];
    if (sshServer) lines.push(`git over SSH on ${cfg.ssh!.host}:${sshServer.port}`);
    if (boot.created && boot.generatedToken) {
      lines.push(`Created user root. Its API token (shown once): ${boot.generatedToken}`);
      lines.push(`The token is also in ${boot.tokenFile} (mode 0600).`);
    } else if (boot.created) {
      lines.push('Created user root with the token given in ANVIL_ROOT_TOKEN.');
    }
    process.stdout.write(`${lines.join('\n')}\n`);
  }
  // Ready once it listens: the background work starts after the ready line (the runner's sandbox
  // check spawns a process), and takes the jobs queued meanwhile at its first tick.
  if (stopping) return;
  if (testMode) testMode.runWorkers(startWorkers);
  else workers = startWorkers();
}

const program = new Command('anvil')
  .description('A self-hosted server for the Project Automation REST API v4')
  .version(ANVIL_REVISION);

program
  .command('serve', { isDefault: true })
  .description('migrate the database and serve the API')
  .option('--ephemeral', 'a fresh data dir in the temp dir, removed at exit; test mode; prints one JSON line when ready')
  .option('--seed <file>', 'apply this seed file (YAML or JSON) before serving (test mode)')
  .option('--port <port>', 'the port to listen on (0: a free one)')
  .option('--clock', 'let tests move the clock (POST /-/test/clock; test mode)')
  .option('--no-parent-watch', 'with --ephemeral: keep serving after the process that started it ends')
  .action(serve);

program
  .command('migrate')
  .description('bring the database schema up to date and exit')
  .action(async () => {
    const c = await createContainer(config());
    await bootstrapRoot(c);
    process.stdout.write(`database is up to date (${c.dialect})\n`);
    await closeContainer(c);
  });

program
  .command('token')
  .description('manage access tokens')
  .command('create')
  .description('create a personal access token and print it once')
  .requiredOption('--user <username>', 'the user the token belongs to')
  .option('--scopes <list>', 'comma-separated scopes', 'api')
  .option('--name <name>', 'token name', 'cli token')
  .option('--expires-at <date>', 'expiry date, YYYY-MM-DD')
  .action(async (opts: { user: string; scopes: string; name: string; expiresAt?: string }) => {
    const c = await createContainer(config());
    try {
      const token = await createTokenForUsername(c, opts.user, {
        name: opts.name,
        scopes: opts.scopes.split(',').map((s) => s.trim()).filter(Boolean),
        expiresAt: opts.expiresAt ?? null,
      });
      process.stdout.write(`${token}\n`);
    } catch (err) {
      process.stderr.write(`anvil: ${(err as Error).message}\n`);
      process.exitCode = 1;
    } finally {
      await closeContainer(c);
    }
  });

program
  .command('seed')
  .description('apply a seed file (YAML or JSON) to a running server in test mode, through its API')
  .argument('<file>', 'the seed file')
  .option('--url <url>', 'the server (default: ANVIL_URL)')
  .option('--token <token>', "an administrator's token (default: ANVIL_TOKEN)")
  .action(async (file: string, opts: { url?: string; token?: string }) => {
    const url = opts.url ?? envValue('ANVIL_URL');
    const token = opts.token ?? envValue('ANVIL_TOKEN');
    if (!url || !token) {
      process.stderr.write('anvil: seed needs --url and --token (or ANVIL_URL and ANVIL_TOKEN)\n');
      process.exit(2);
    }
    try {
      const seed = readSeedFile(file);
      const res = await fetch(`${url.replace(/\/+$/, '')}/-/test/seed`, {
        method: 'POST',
        headers: { 'private-token': token, 'content-type': 'application/json' },
        body: JSON.stringify({ seed }),
      });
      if (res.status === 400) {
        const message = String(((await res.json()) as { message?: string }).message ?? '').replace(/^400 Bad request - /, '');
        throw new SeedError(placeErrors(seed, message));
      }
      if (res.status !== 204) throw new SeedError(`${url} answered ${res.status}: ${await res.text()}`);
    } catch (err) {
      process.stderr.write(`anvil: ${(err as Error).message}\n`);
      process.exitCode = 1;
    }
  });

// Not a top-level await: the bundle is CommonJS (src/launch.ts). A failure still exits 1, as an unhandled rejection.
void program.parseAsync(process.argv);
