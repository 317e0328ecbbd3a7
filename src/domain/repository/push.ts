// Running git's upload-pack and receive-pack for a caller already checked by gitAccess, for
// smart HTTP (stateless RPC) and SSH (one full-duplex exchange) alike. A push
// runs with Anvil's pre-receive hook: every ref update goes through checkRefUpdates before any
// ref moves (a refusal rejects the whole push and its message reaches `git push` output), the
// accepted updates are written down as an intent, and once receive-pack has finished, the refs
// that really moved are published once.
import path from 'node:path';
import { PassThrough, type Readable, type Writable } from 'node:stream';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import type { Container } from '../context.js';
import type { ProjectRow } from '../../db/repos/projects.js';
import { ensureHooks, listenForHook, type HookDecision, type HookLine } from '../../git/hooks/index.js';
import { isAncestor, ZERO_SHA } from '../../git/repository.js';
import { advertiseRefs, refTargets, serviceRpc, serviceStream, type GitCommand, type GitService } from '../../git/smart_http.js';
import type { Actor } from '../auth/actor.js';
import { DomainError } from '../errors.js';
import type { GitTarget } from './git_access.js';
import { checkRefUpdates, type RefUpdate } from './protection.js';
import { publishRefChanges, recordRefChangeIntent, type PublishedRefChange } from './ref_changes.js';

export { advertisementType, isGitService, resultType, serviceHeader } from '../../git/smart_http.js';

/** The client's `Git-Protocol` header, passed to git when it is well-formed (protocol v2 for fetches). */
export function protocolEnv(header: string | undefined): Record<string, string> {
  return header && /^[\w=:,.-]{1,256}$/.test(header) ? { GIT_PROTOCOL: header } : {};
}

/** True when git itself writes no `# service=` header (protocol v2 upload-pack). */
export const speaksV2 = (service: GitService, protocol: string | undefined): boolean =>
  service === 'git-upload-pack' && !!protocol && /(^|:)version=2(:|$)/.test(protocol);

const hooksDir = (c: Container) => path.join(c.config.dataDir, 'git-hooks');

/** The ref advertisement for `service` (info/refs). */
export function advertise(c: Container, target: GitTarget, service: GitService, protocol?: string): ChildProcessWithoutNullStreams {
  return advertiseRefs(service, target.dir, {
    env: protocolEnv(protocol),
    // receive-pack must not advertise hooks it will not run; the path is the same for both calls
    config: { 'core.hooksPath': ensureHooks(hooksDir(c)) },
  });
}

/** A clone or fetch: the request goes to stdin, the pack comes from stdout. */
export const uploadPack = (target: GitTarget, protocol?: string): ChildProcessWithoutNullStreams =>
  serviceRpc('git-upload-pack', target.dir, { env: protocolEnv(protocol) });

/** A clone, fetch or `git archive --remote` over SSH: the whole exchange on one stdin and stdout. */
export const readOverSsh = (target: GitTarget, command: Exclude<GitCommand, 'git-receive-pack'>, protocol?: string): ChildProcessWithoutNullStreams =>
  serviceStream(command, target.dir, { env: protocolEnv(protocol) });

const refusal = (e: unknown): HookDecision => {
  if (e instanceof DomainError && e.detail.kind === 'push_refused') return { ok: false, message: e.detail.message };
  if (e instanceof DomainError) return { ok: false, message: 'You are not allowed to push code to this project.' };
  throw e;
};

/** The updates a pre-receive hook reports, with `force` and the touched paths read from the quarantine. */
async function refUpdates(dir: string, lines: HookLine[], env: Record<string, string>): Promise<RefUpdate[]> {
  const out: RefUpdate[] = [];
  for (const l of lines) {
    const moving = l.oldSha !== ZERO_SHA && l.newSha !== ZERO_SHA;
    const force = moving && !(await isAncestor(dir, l.oldSha, l.newSha, env));
    // Touched paths are read only if a code-owner rule asks, with the quarantine env (see objectEnv).
    out.push({ ref: l.ref, oldSha: l.oldSha, newSha: l.newSha, force, objectEnv: env });
  }
  return out;
}

/** What the accepted updates did, for those refs that really moved. */
async function describeChanges(project: ProjectRow, dir: string, updates: RefUpdate[]): Promise<PublishedRefChange[]> {
  // One read of every ref; commit counts and titles are left to publishRefChanges, which computes
  // them only for the refs it reports one by one (a push of many refs gets one bulk event).
  const targets = await refTargets(dir);
  void project;
  return updates
    .filter((u) => (targets.get(u.ref) ?? null) === (u.newSha === ZERO_SHA ? null : u.newSha)) // git refused the rest after the hook
    .map(({ objectEnv: _quarantineIsGone, ...u }) => u);
}

export interface GitRun {
  stdin: Writable;
  stdout: Readable;
  kill(): void;
  /** receive-pack's exit code, once stdout has ended (SSH reports it to the client). */
  exit: Promise<number>;
}

/** smart HTTP's stateless request and answer, or SSH's one exchange (advertisement first). */
export type PushForm = 'stateless' | 'duplex';

/**
 * A push: starts receive-pack with the hook listener attached. The caller pipes the request into
 * stdin and stdout into the reply. stdout ends only after the moved refs are published, so a
 * client that sees its push complete also sees its push event.
 */
export async function receivePack(c: Container, actor: Actor, target: GitTarget, protocol?: string, form: PushForm = 'stateless'): Promise<GitRun> {
  const { project, dir } = target;
  let accepted: { updates: RefUpdate[]; intentId: number } | null = null;
  const listener = await listenForHook(async (lines, env) => {
    try {
      const updates = await refUpdates(dir, lines, env);
      await checkRefUpdates(c, actor, project, updates);
      // Written down before git moves a ref: should this process die before publishing, the
      // changes are published all the same (src/domain/repository/ref_changes.ts).
      const intentId = await recordRefChangeIntent(c, actor, project, updates);
      accepted = { updates, intentId };
      return { ok: true };
    } catch (e) {
      try {
        return refusal(e);
      } catch (err) {
        c.log.error({ err, projectId: project.id }, 'push check failed');
        return { ok: false, message: 'Push refused: the access check failed.' };
      }
    }
  });
  const options = { env: { ...protocolEnv(protocol), ...listener.env }, config: { 'core.hooksPath': ensureHooks(hooksDir(c)) } };
  const child = form === 'stateless' ? serviceRpc('git-receive-pack', dir, options) : serviceStream('git-receive-pack', dir, options);
  const stderr: Buffer[] = [];
  child.stderr.on('data', (d: Buffer) => {
    if (stderr.length < 64) stderr.push(d);
  });
  const output = new PassThrough();
  child.stdout.pipe(output, { end: false });
  let exited: (code: number) => void = () => {};
  const exit = new Promise<number>((resolve) => (exited = resolve));
  child.on('close', (code) => {
    listener.close();
    if (code !== 0) c.log.warn({ projectId: project.id, code, stderr: Buffer.concat(stderr).toString('utf8').slice(0, 2000) }, 'receive-pack failed');
    const push = accepted as { updates: RefUpdate[]; intentId: number } | null;
    void (async () => {
      if (!push) return;
      // publishes those that moved, or drops the intent when none did
      await publishRefChanges(c, actor, project, await describeChanges(project, dir, push.updates), push.intentId);
    })()
      .catch((err: unknown) => c.log.error({ err, projectId: project.id }, 'publishing pushed refs failed'))
      .finally(() => {
        output.end();
        exited(code ?? 1);
      });
  });
  child.on('error', (err) => {
    listener.close();
    output.destroy(err);
    exited(1);
  });
  return { stdin: child.stdin, stdout: output, kill: () => child.kill(), exit };
}
