// The `anvil` command: serve | migrate | token create.
import { Command } from 'commander';
import { buildApp } from './app.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { closeContainer, createContainer } from './container.js';
import { CiRunner } from './domain/ci/runner.js';
import { bootstrapRoot } from './domain/users/bootstrap.js';
import { createTokenForUsername } from './domain/tokens/cli.js';
import { ANVIL_REVISION } from './version.js';

/** How long in-flight requests may take to finish after SIGTERM (orchestrators kill at ~30 s). */
const SHUTDOWN_GRACE_MS = 25_000;

function config(): Config {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`anvil: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
}

async function serve(): Promise<void> {
  const started = process.hrtime.bigint();
  const cfg = config();
  const c = await createContainer(cfg);
  const boot = await bootstrapRoot(c);
  const app = await buildApp(c);
  await app.listen({ port: cfg.port, host: cfg.host });
  c.queue.start();
  // The built-in CI runner; ANVIL_RUNNER_ENABLED=false leaves pending jobs to other nodes.
  const runner = cfg.runnerEnabled ? new CiRunner(c) : null;
  runner?.start();
  const ms = Number(process.hrtime.bigint() - started) / 1e6;

  const lines = [`Anvil ${ANVIL_REVISION} listening on ${cfg.externalUrl} (${c.dialect}, ready in ${ms.toFixed(0)} ms)`];
  if (boot.created && boot.generatedToken) {
    lines.push(`Created user root. Its API token (shown once): ${boot.generatedToken}`);
    lines.push(`The token is also in ${boot.tokenFile} (mode 0600).`);
  } else if (boot.created) {
    lines.push('Created user root with the token given in ANVIL_ROOT_TOKEN.');
  }
  process.stdout.write(`${lines.join('\n')}\n`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    c.log.info({ signal }, 'shutting down: finishing in-flight requests');
    // stop accepting and finish in-flight requests; let running jobs finish (bounded)
    const closed = app.close();
    // close() drops only the connections idle at that moment; a keep-alive connection whose request
    // finishes later would hold the exit until the client lets go, so drop each one as it goes idle.
    const sweep = setInterval(() => app.server.closeIdleConnections(), 50);
    // A request that never ends (a stuck client) must not keep the process from exiting.
    const deadline = setTimeout(() => app.server.closeAllConnections(), SHUTDOWN_GRACE_MS);
    // Running CI jobs are stopped (their process groups killed) while the database is still open.
    await Promise.all([closed.finally(() => (clearInterval(sweep), clearTimeout(deadline))), c.queue.stop(), runner?.stop()]);
    await closeContainer(c);
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

const program = new Command('anvil')
  .description('A self-hosted server for the Project Automation REST API v4')
  .version(ANVIL_REVISION);

program.command('serve', { isDefault: true }).description('migrate the database and serve the API').action(serve);

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

// Not a top-level await: the bundle is CommonJS (src/launch.ts). A failure still exits 1, as an unhandled rejection.
void program.parseAsync(process.argv);
