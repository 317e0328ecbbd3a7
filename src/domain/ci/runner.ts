// The built-in runner: takes pending builds (oldest first) and runs them on this host, up to
// `concurrency` at once. Each job gets a fresh checkout of its commit in a workspace of its own
// (`<dataDir>/ci/builds/<jobId>`), the archives of the jobs it depends on unpacked there
// (dependencies.ts), its variables in a clean environment (nothing of the
// server's own: execute.ts starts bash with exactly the variables given), a timeout, and its
// process group killed on cancel or timeout. Its output goes to the trace as it comes; at the
// end come the coverage, the artifacts, the trace blob and the job's final status.
//
// Several nodes may run runners on one database: a job is taken with a conditional update
// (state.ts startJob), so only one runner gets it. A runner wakes on this node's 'pending'
// signal and polls every second otherwise. A cancel is noticed at once on this node (the
// 'canceled' signal) and within a second on any other (the job's status is re-read at every
// trace flush).
//
// A node that dies mid-job leaves the job `running`. Each runner is a node with a lease and a
// boot id of its own (runner_nodes.ts): it joins before it takes a job, renews the lease on a
// heartbeat, and at every heartbeat fails the running jobs of nodes whose lease ran out or that
// came back under another boot id — so a server restarted after a crash fails its old jobs at
// once, and another node fails them within a lease. The job's processes die with the server that
// ran them (execute.ts), and the restarted node removes their workspaces.
import fs from 'node:fs';
import path from 'node:path';
import { collectArtifacts, collectReports, expandVariables } from '../../ci/artifacts/collect.js';
import { artifactTooLargeMessage, artifactsExpireAt, exceedsArtifactLimit } from '../../ci/artifacts/expire.js';
import type { ArtifactsSpec, PlannedJob } from '../../ci/config/types.js';
import { extractCoverage } from '../../ci/reports/coverage.js';
import { executeJob, finalLine, type ExecutionResult } from '../../ci/runner/execute.js';
import { LogMasker } from '../../ci/runner/mask.js';
import { prepareWorkspace, removeWorkspace } from '../../ci/runner/workspace.js';
import {
  apiEndpoint,
  handOver,
  jobOwnedFolders,
  jobScratch,
  openJobFolders,
  probeSandbox,
  releaseMounts,
  sandboxPaths,
  startJobSandbox,
  sweepJobCgroups,
  type JobSandbox,
} from '../../ci/sandbox/index.js';
import type { Container } from '../context.js';
import { findCiJob, type JobRow } from '../../db/repos/ci_jobs.js';
import { buildsFor, builtInRoutingRunner } from '../runners/queue.js';
import { recordBuiltInRunner } from '../runners/runners.js';
import { findPipeline, type PipelineRow } from '../../db/repos/ci_pipelines.js';
import { findProjectById, type ProjectRow } from '../../db/repos/projects.js';
import { ANVIL_REVISION } from '../../version.js';
import { repositoryDir } from '../repository/service.js';
import { getSettings } from '../settings/service.js';
import { recordArtifactsExpireAt, storeArtifact } from './artifacts.js';
import { downloadDependencies } from './dependencies.js';
import { failOrphanedJobs, joinNode, newRunnerNode, renewNode, STALE_GRACE_MS, type RunnerNodeId } from './runner_nodes.js';
import { BUILT_IN_RUNNER_ID, RUNNER_DESCRIPTION } from './built_in_runner.js';
import { finishJob, jobPlan, promoteScheduledJobs, startJob, type JobOutcome } from './state.js';
import { foldTrace, traceText, TraceWriter } from './traces.js';
import { flagOn } from '../../shared/trace_timestamps.js';
import { jobVariableList } from './variables.js';
import { Sleepers } from '../../shared/sleepers.js';
import { jobTimeoutSeconds } from './timeout.js';

export interface RunnerOptions {
  /** Jobs run at once (default config.runnerConcurrency). */
  concurrency?: number;
  /** Sleep between looks for pending jobs when not woken (default 1 s). */
  pollMs?: number;
  /** Trace flush and cancel check interval (default 1 s). */
  flushMs?: number;
  /** This runner's node id (default config.nodeId); each runner needs its own. */
  nodeId?: string;
  /** The node's lease (default config.runnerLeaseSeconds). */
  leaseMs?: number;
  /** Lease renewal, and the look for jobs of dead nodes (default config.runnerHeartbeatSeconds). */
  heartbeatMs?: number;
  /** Grace after a job's timeout before a job taken without a node counts as stuck (default STALE_GRACE_MS). */
  staleGraceMs?: number;
}

type StopReason = 'canceled' | 'stopped';

/** A job's folders on the host; `own` and `scratch` are for sandboxed jobs only. */
interface JobDirs {
  builds: string;
  workspace: string;
  /** The server's: downloaded archives, collected artifacts. */
  tmp: string;
  /** Root's folder for the sandboxed job, inside `tmp` (sandbox JobFolders.own). */
  own: string;
  /** The sandboxed job's own folder (file variables, scripts, home/), inside `own`. */
  scratch: string;
}

interface RunningJob {
  abort: AbortController;
}

/** How a job run ended: recorded with finishJob, canceled (only the trace is kept), or its rows gone. */
type Ending =
  | { kind: 'finish'; lastLine: string; outcome: JobOutcome }
  | { kind: 'canceled'; lastLine: string }
  | { kind: 'gone' };

const RED = '\x1b[31;1m';
const GREEN = '\x1b[32;1m';
const YELLOW = '\x1b[0;33m';
const RESET = '\x1b[0;m';

/** Whether the artifacts' `when` applies to the job's outcome. */
const artifactsApply = (spec: ArtifactsSpec, succeeded: boolean): boolean =>
  spec.when === 'always' || (spec.when === 'on_success' ? succeeded : !succeeded);

/** How long after start the sandbox is tried when no job is pending before. */
const SANDBOX_CHECK_AFTER_MS = 500;

export class CiRunner {
  private state: 'idle' | 'started' | 'stopping' | 'stopped' = 'idle';
  private readonly running = new Map<number, RunningJob>();
  private readonly sleepers = new Sleepers();
  private loops: Promise<void>[] = [];
  private heartbeatTimer: NodeJS.Timeout | null = null;
  private promoteTimer: NodeJS.Timeout | null = null;
  private promoting: Promise<void> | null = null;
  private sweeping: Promise<void> | null = null;
  private beating: Promise<void> | null = null;
  /** This runner as a node: a boot id of its own per start. */
  private node: RunnerNodeId | null = null;
  /** Joined as a node: only then are jobs taken (a job of a node without a row is orphaned). */
  private joined = false;
  private readonly opts: Required<RunnerOptions>;
  /** Settles when a stop has ended (set by the first stop). */
  private stopped: Promise<void> | null = null;
  /** Settles when the sandbox was tried (true: jobs may run; false: this runner runs none). */
  private canRun: Promise<boolean> = Promise.resolve(false);
  /** The wait before the sandbox is tried, which a pending job (or a stop) ends early. */
  private readonly sandboxWait = new Sleepers();
  private readonly onPending = () => (this.sleepers.wakeAll(), this.sandboxWait.wakeAll());
  private readonly onCanceled = (jobId: number) => this.running.get(Number(jobId))?.abort.abort('canceled' satisfies StopReason);

  constructor(
    private readonly c: Container,
    opts: RunnerOptions = {},
  ) {
    this.opts = {
      concurrency: c.config.runnerConcurrency,
      pollMs: 1000,
      flushMs: 1000,
      nodeId: c.config.nodeId,
      leaseMs: c.config.runnerLeaseSeconds * 1000,
      heartbeatMs: c.config.runnerHeartbeatSeconds * 1000,
      staleGraceMs: STALE_GRACE_MS,
      ...opts,
    };
  }

  /** Jobs this runner is running now. */
  get activeJobIds(): number[] {
    return [...this.running.keys()];
  }

  start(): void {
    if (this.state !== 'idle') throw new Error(`runner already ${this.state}`);
    this.state = 'started';
    this.c.ciSignals.on('pending', this.onPending);
    this.c.ciSignals.on('canceled', this.onCanceled);
    this.node = newRunnerNode(this.opts.nodeId);
    const beat = () => (this.beating ??= this.heartbeat().finally(() => (this.beating = null)));
    // Workspaces left by a crash go once this node's old jobs have failed (the first heartbeat).
    this.sweeping = beat().then(() => this.sweepWorkspaces()).catch(() => undefined);
    this.heartbeatTimer = setInterval(beat, this.opts.heartbeatMs);
    // Delayed jobs whose time came become pending (then this runner, or another, takes them).
    this.promoteTimer = setInterval(() => {
      this.promoting ??= promoteScheduledJobs(this.c)
        .then(
          () => undefined,
          (err) => this.c.log.warn({ err }, 'runner: promoting delayed jobs failed'),
        )
        .finally(() => (this.promoting = null));
    }, this.opts.pollMs);
    // The sandbox is tried a moment after start, or as soon as a job is pending: its two test
    // processes need not compete with the first requests of a server that has just said it is ready.
    this.canRun = this.sandboxWait.sleep(SANDBOX_CHECK_AFTER_MS).then(() => (this.state === 'started' ? this.checkSandbox() : false));
    for (let i = 0; i < this.opts.concurrency; i++) this.loops.push(this.loop(i));
  }

  /** Tries the job sandbox once; says at start (once) when jobs cannot run, or run unconfined. */
  private async checkSandbox(): Promise<boolean> {
    const c = this.c;
    // Once per process: a runner started again (a test-mode reset) takes the answer found.
    if (c.runnerProblem !== undefined) return c.runnerProblem === null;
    if (!c.config.runnerSandbox.enabled) {
      c.log.warn('runner: ANVIL_RUNNER_SANDBOX=off: CI jobs run unconfined, as the server\'s own user, and can read the data dir');
      c.runnerProblem = null;
      return true;
    }
    const probe = await probeSandbox(c.config.runnerSandbox, c.config.dataDir, apiEndpoint(c.config.externalUrl)).catch((err: Error) => ({
      problem: `the sandbox could not start: ${err.message}`,
      host: undefined,
      warnings: [],
      info: '',
    }));
    const problem = probe.problem;
    c.runnerProblem = problem;
    if (problem || !probe.host) {
      c.log.warn({ reason: problem }, `runner: CI jobs cannot run in their sandbox, so this node runs none (they stay pending): ${problem}. Install bubblewrap and run the server as root, or set ANVIL_RUNNER_SANDBOX=off to run jobs unconfined`);
      return false;
    }
    c.runnerSandboxHost = probe.host;
    // Cgroups of jobs whose server died under them (a crash) go now; their folders go in the sweep.
    await sweepJobCgroups(probe.host.cgroups);
    for (const w of probe.warnings) c.log.warn(`runner: ${w}`);
    c.log.info(probe.info);
    return true;
  }

  /**
   * Stops taking jobs; jobs still running are stopped (process groups killed) and fail with
   * `runner_system_failure` (a `retry:` that allows it runs them again). Resolves when all ended.
   */
  stop(): Promise<void> {
    // A stop under way (the runner stops itself when displaced) is waited for: its jobs' folders
    // are unmounted and removed only when it ends.
    if (this.stopped) return this.stopped;
    if (this.state !== 'started') {
      this.state = 'stopped';
      return Promise.resolve();
    }
    this.stopped = this.stopJobs();
    return this.stopped;
  }

  private async stopJobs(): Promise<void> {
    this.state = 'stopping';
    this.c.ciSignals.off('pending', this.onPending);
    this.c.ciSignals.off('canceled', this.onCanceled);
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    if (this.promoteTimer) clearInterval(this.promoteTimer);
    this.sleepers.close();
    this.sandboxWait.close();
    for (const r of this.running.values()) r.abort.abort('stopped' satisfies StopReason);
    await Promise.all([...this.loops, this.beating, this.promoting, this.sweeping]);
    this.state = 'stopped';
  }

  /**
   * Joins as a node (first beat) or renews the lease, then fails the jobs of dead nodes. Another
   * process that joined under this node id has failed this runner's jobs already: it stops.
   */
  private async heartbeat(): Promise<void> {
    const node = this.node!;
    try {
      if (!this.joined) {
        await joinNode(this.c, node, this.opts.leaseMs);
        await recordBuiltInRunner(this.c);
        this.joined = true;
        this.sleepers.wakeAll();
      } else if (!(await renewNode(this.c, node, this.opts.leaseMs))) {
        this.c.log.error({ node: node.nodeId }, 'runner: another process joined under this node id (give each process its own ANVIL_NODE_ID); this runner stops');
        void this.stop();
        return;
      }
      const failed = await failOrphanedJobs(this.c, { staleGraceMs: this.opts.staleGraceMs });
      if (failed) this.c.log.warn({ failed }, 'runner: failed running jobs whose runner node is gone');
    } catch (err) {
      if (this.state === 'started') this.c.log.warn({ err }, 'runner: the node heartbeat failed; trying again');
    }
  }

  private async loop(slot: number): Promise<void> {
    if (!(await this.canRun)) return;
    while (this.state === 'started') {
      let claimed: { job: JobRow; token: string } | null = null;
      try {
        if (this.joined) claimed = await this.claim();
      } catch (err) {
        if (this.state === 'started') this.c.log.error({ err }, 'runner: looking for pending jobs failed');
      }
      if (claimed) await this.run(claimed.job, claimed.token, slot);
      else await this.sleepers.sleep(this.opts.pollMs);
    }
  }

  /** Takes the oldest pending build it may run (its tags: runners/queue.ts) that no other runner takes first. */
  private async claim(): Promise<{ job: JobRow; token: string } | null> {
    for await (const id of buildsFor(this.c, builtInRoutingRunner(this.c.config))) {
      if (this.state !== 'started') return null;
      const got = await startJob(this.c, id, this.node!);
      if (got) return got;
    }
    return null;
  }

  /**
   * Runs one taken job to its end; never throws. The workspace is cleaned up before the job's
   * end is recorded (as the reference's runner does before its last line), so a finished job
   * has left nothing behind.
   */
  private async run(job: JobRow, token: string, slot: number): Promise<void> {
    const entry: RunningJob = { abort: new AbortController() };
    this.running.set(job.id, entry);
    if (this.state !== 'started') entry.abort.abort('stopped' satisfies StopReason);
    const log = this.c.log.child({ job: job.id, pipeline: job.pipeline_id });
    const dirs = this.dirsOf(job.id);
    let trace: TraceWriter | null = null;
    try {
      trace = await TraceWriter.open(this.c, job.id, {
        flushMs: this.opts.flushMs,
        // A cancel made on another node (or a job failed as stuck) is seen here within a flush.
        onTick: async () => {
          const now = await findCiJob(this.c.db, job.id);
          if (!now || now.status !== 'running') entry.abort.abort('canceled' satisfies StopReason);
        },
      });
      let ending: Ending;
      try {
        ending = await this.execute(job, token, trace, entry.abort.signal, dirs, slot);
      } catch (err) {
        log.error({ err }, 'runner: the job failed to run');
        const message = (err instanceof Error ? err.message : String(err)).split('\n')[0];
        ending = {
          kind: 'finish',
          lastLine: `${RED}ERROR: Job failed (system failure): ${message}${RESET}\n`,
          outcome: { status: 'failed', failureReason: 'runner_system_failure', exitCode: null, coverage: null },
        };
      }
      if (ending.kind === 'gone') {
        await trace.close();
        return;
      }
      trace.note('');
      trace.note(`${GREEN}Cleaning up project directory and file based variables${RESET}`);
      await this.cleanUp(dirs, log);
      trace.write(ending.lastLine);
      await trace.close();
      await foldTrace(this.c, job);
      // Canceled (or failed as stuck elsewhere): the job's status is set already; only the trace is kept.
      if (ending.kind === 'finish') await finishJob(this.c, job.id, ending.outcome);
    } catch (err) {
      log.error({ err }, 'runner: recording the end of a job failed');
      await trace?.close().catch(() => undefined);
    } finally {
      await this.cleanUp(dirs, log);
      this.running.delete(job.id);
    }
  }

  private async cleanUp(dirs: JobDirs, log: Container['log']): Promise<void> {
    // A sandboxed job's tmpfs disks (and a network namespace left by a failure) first.
    await releaseMounts(dirs.workspace);
    await releaseMounts(dirs.tmp);
    await removeWorkspace(dirs.workspace).catch((err) => log.warn({ err }, 'runner: removing the workspace failed'));
    await removeWorkspace(dirs.tmp).catch((err) => log.warn({ err }, 'runner: removing the job files failed'));
  }

  private dirsOf(jobId: number): JobDirs {
    const builds = path.join(this.c.config.dataDir, 'ci', 'builds');
    const tmp = path.join(builds, `${jobId}.tmp`);
    const own = path.join(tmp, 'own');
    return { builds, workspace: path.join(builds, String(jobId)), tmp, own, scratch: jobScratch(own) };
  }

  /** Prepares and runs the job, collects its artifacts and coverage; says how it ended. */
  private async execute(
    job: JobRow,
    token: string,
    trace: TraceWriter,
    signal: AbortSignal,
    dirs: JobDirs,
    slot: number,
  ): Promise<Ending> {
    const c = this.c;
    const plan = jobPlan(job);
    const [project, pipeline] = await Promise.all([findProjectById(c.db, job.project_id), findPipeline(c.db, job.pipeline_id)]);
    if (!project || !pipeline) return { kind: 'gone' }; // deleted while it was being taken
    const timeoutMs = jobTimeoutSeconds(plan, project) * 1000;
    const variables = await jobVariableList(c, project, pipeline, job, token);
    // The reference's runner feature flag, a job variable: each line of the log gets its time.
    if (flagOn(variables.filter((v) => v.key === 'FF_TIMESTAMPS').pop()?.value)) trace.stampLines();

    trace.note(`Running with ${RUNNER_DESCRIPTION} ${ANVIL_REVISION}`);
    trace.note(`  on ${RUNNER_DESCRIPTION} #${BUILT_IN_RUNNER_ID}`);
    trace.note('Preparing the "shell" executor');
    trace.note('Using Shell (bash) executor...');
    trace.note('Getting source from Git repository');
    trace.note(`Checking out ${pipeline.sha.slice(0, 8)} as detached HEAD (ref is ${pipeline.ref})...`);

    const settings = c.config.runnerSandbox;
    const host = c.runnerSandboxHost;
    const sandbox = settings.enabled && host ? { ...sandboxPaths(project.full_path), uid: settings.uid + slot } : null;
    const folders = { workspace: dirs.workspace, own: dirs.own };
    // Only the server reaches the builds folder; a sandboxed job sees its own folders, bound alone.
    await fs.promises.mkdir(dirs.builds, { recursive: true, mode: 0o700 });
    await fs.promises.chmod(dirs.builds, 0o700);
    await fs.promises.mkdir(dirs.tmp, { recursive: true, mode: 0o700 });
    if (sandbox) {
      await removeWorkspace(dirs.workspace);
      await openJobFolders(host!, settings, folders);
    }
    const { env, masked } = await this.environment(variables, token, plan, dirs, sandbox);
    const log = new LogMasker(masked, (b) => trace.write(b));
    await prepareWorkspace({ repoDir: repositoryDir(c, project.id), sha: pipeline.sha, dir: dirs.workspace, remoteUrl: env.CI_REPOSITORY_URL, keepDir: sandbox !== null });
    const downloaded = await downloadDependencies(c, job, plan, dirs.workspace, dirs.tmp);
    if (sandbox) await handOver(jobOwnedFolders(folders), sandbox.uid);
    if (downloaded.length) {
      trace.note('');
      trace.note(`${GREEN}Downloading artifacts${RESET}`);
      for (const line of downloaded) trace.note(line);
    }
    trace.note('');
    trace.note(`${GREEN}Executing "step_script" stage of the job script${RESET}`);

    let confined: JobSandbox | null = null;
    let ran: ExecutionResult | undefined;
    try {
      if (sandbox) {
        confined = await startJobSandbox({
          settings,
          host: host!,
          dataDir: c.config.dataDir,
          uid: sandbox.uid,
          folders,
          projectDir: sandbox.projectDir,
          api: apiEndpoint(c.config.externalUrl),
          key: String(job.id),
        });
      }
      ran = await executeJob({
        cwd: sandbox?.projectDir ?? dirs.workspace,
        confinement: confined?.confinement,
        env,
        beforeScript: plan.beforeScript ?? [],
        script: plan.script ?? [],
        afterScript: plan.afterScript ?? [],
        timeoutMs,
        signal,
        onOutput: (b) => log.write(b),
        writeFinalLine: false,
      });
    } finally {
      log.end();
      // The bounds the job ran into, said before the job's last line.
      const failed = ran?.outcome !== 'success';
      for (const line of (await confined?.end(failed)) ?? []) trace.note(failed ? `${RED}ERROR: ${line}${RESET}` : `${YELLOW}WARNING: ${line}${RESET}`);
    }
    const result = ran;

    if (result.outcome === 'canceled') {
      if ((signal.reason as StopReason | undefined) === 'stopped') {
        return {
          kind: 'finish',
          lastLine: `${RED}ERROR: Job failed (system failure): the runner stopped (the server is shutting down)${RESET}\n`,
          outcome: { status: 'failed', failureReason: 'runner_system_failure', exitCode: null, coverage: null },
        };
      }
      return { kind: 'canceled', lastLine: finalLine(result, timeoutMs) };
    }

    let succeeded = result.outcome === 'success';
    if (plan.artifacts && artifactsApply(plan.artifacts, succeeded) && !signal.aborted) {
      // Artifact paths may name the job's folders as it saw them: here they are the host's.
      const hostEnv = { ...env, CI_BUILDS_DIR: dirs.builds, CI_PROJECT_DIR: dirs.workspace };
      if (!(await this.uploadArtifacts(job, plan.artifacts, succeeded, dirs, trace, hostEnv))) succeeded = false;
    }
    const failedByUpload = result.outcome === 'success' && !succeeded;
    await trace.flush();
    const coverage = plan.coverage ? extractCoverage(await traceText(this.c, job.id), plan.coverage) : null;
    return {
      kind: 'finish',
      lastLine: failedByUpload ? `${RED}ERROR: Job failed: exit code 1${RESET}\n` : finalLine(result, timeoutMs),
      outcome: {
        status: succeeded ? 'success' : 'failed',
        failureReason: succeeded ? null : result.outcome === 'timeout' ? 'stuck_or_timeout_failure' : 'script_failure',
        exitCode: failedByUpload ? 1 : result.exitCode,
        coverage,
      },
    };
  }

  /**
   * The job's environment from its variable list (variables.ts jobVariableList, lowest
   * precedence first), then what only the runner knows. As the reference's runner does, values
   * not `raw` are expanded against the variables before them (an unknown one is empty);
   * `file` variables are written to a file (mode 0600) whose path becomes the value. Also says
   * which values the log must mask.
   */
  private async environment(
    list: Awaited<ReturnType<typeof jobVariableList>>,
    token: string,
    plan: PlannedJob,
    dirs: JobDirs,
    sandbox: { buildsDir: string; projectDir: string; scratchDir: string } | null,
  ): Promise<{ env: Record<string, string>; masked: string[] }> {
    const runnerOwn: Record<string, string> = {
      CI_JOB_TOKEN: token,
      CI_BUILDS_DIR: sandbox?.buildsDir ?? dirs.builds,
      CI_PROJECT_DIR: sandbox?.projectDir ?? dirs.workspace,
      CI_REPOSITORY_URL: list.find((v) => v.key === 'CI_REPOSITORY_URL')!.value,
      CI_RUNNER_ID: String(BUILT_IN_RUNNER_ID),
      CI_RUNNER_DESCRIPTION: RUNNER_DESCRIPTION,
      CI_RUNNER_TAGS: JSON.stringify(plan.tags ?? []),
      CI_RUNNER_VERSION: ANVIL_REVISION,
    };
    const env: Record<string, string> = {};
    const files = new Map<string, string>();
    for (const v of list) {
      const value = v.raw ? v.value : expandVariables(v.value, { ...env, ...runnerOwn });
      if (v.file) files.set(v.key, value);
      else {
        files.delete(v.key);
        env[v.key] = value;
      }
    }
    Object.assign(env, runnerOwn);
    // In the job's own folder when sandboxed (given to the job's user with it), else in the server's.
    for (const [key, value] of files) {
      const name = key.replace(/[^A-Za-z0-9_]/g, '_');
      await fs.promises.writeFile(path.join(sandbox ? dirs.scratch : dirs.tmp, name), value, { mode: 0o600 });
      env[key] = sandbox ? path.posix.join(sandbox.scratchDir, name) : path.join(dirs.tmp, name);
    }
    return { env, masked: list.filter((v) => v.masked).map((v) => v.value) };
  }

  /**
   * Collects and stores the job's artifacts (archive + metadata, reports). False when the
   * archive is over max_artifacts_size: nothing of it is stored and the job fails, as the
   * reference's runner fails a job whose upload is refused (413).
   */
  private async uploadArtifacts(
    job: JobRow,
    spec: ArtifactsSpec,
    succeeded: boolean,
    dirs: JobDirs,
    trace: TraceWriter,
    variables: Record<string, string>,
  ): Promise<boolean> {
    const c = this.c;
    const settings = await getSettings(c);
    const defaultExpireIn = typeof settings.default_artifacts_expire_in === 'string' ? settings.default_artifacts_expire_in : null;
    const expireAt = artifactsExpireAt(spec.expireIn, defaultExpireIn);
    const maxMb = typeof settings.max_artifacts_size === 'number' ? settings.max_artifacts_size : null;
    trace.note('');
    trace.note(`${GREEN}Uploading artifacts for ${succeeded ? 'successful' : 'failed'} job${RESET}`);
    const outDir = path.join(dirs.tmp, 'artifacts');
    let ok = true;
    let stored = false;
    if (spec.paths.length || spec.untracked) {
      const collected = await collectArtifacts(dirs.workspace, spec, { outDir, variables });
      for (const line of collected.messages) trace.note(line);
      const archive = collected.archive;
      if (archive && exceedsArtifactLimit(archive.size, maxMb)) {
        trace.note(`${RED}${artifactTooLargeMessage('archive')}${RESET}  id=${job.id} responseStatus=413 status=413 (too large archive: ${archive.size} bytes; the limit is ${maxMb} MB)`);
        trace.note(`${RED}FATAL: too large${RESET}`);
        ok = false;
      } else if (archive) {
        await storeArtifact(c, job, { fileType: 'archive', filename: archive.filename, body: fs.createReadStream(archive.archivePath), expireAt });
        await storeArtifact(c, job, { fileType: 'metadata', filename: 'metadata.gz', body: fs.createReadStream(archive.metadataPath), expireAt });
        trace.note(`Uploading artifacts as "archive" to coordinator... 201 Created  id=${job.id}`);
        stored = true;
      }
    }
    if (Object.keys(spec.reports ?? {}).length) {
      const { reports, messages } = await collectReports(dirs.workspace, spec.reports, { outDir, variables });
      for (const line of messages) trace.note(line);
      for (const r of reports) {
        if (exceedsArtifactLimit(r.size, maxMb)) {
          trace.note(`${RED}${artifactTooLargeMessage(r.fileType)}${RESET}  id=${job.id} responseStatus=413 status=413`);
          ok = false;
          continue;
        }
        await storeArtifact(c, job, { fileType: r.fileType, filename: r.filename, fileFormat: r.fileFormat, body: fs.createReadStream(r.path), expireAt });
        trace.note(`Uploading artifacts as "${r.fileType}" to coordinator... 201 Created  id=${job.id}`);
        stored = true;
      }
    }
    if (stored) await recordArtifactsExpireAt(c, job.id, expireAt);
    return ok;
  }

  /** Removes workspaces a crash left behind: those of jobs that are not running (any more). */
  private async sweepWorkspaces(): Promise<void> {
    const { builds } = this.dirsOf(0);
    let names: string[];
    try {
      names = await fs.promises.readdir(builds);
    } catch {
      return; // no builds yet
    }
    for (const name of names) {
      const id = /^(\d+)(\.tmp)?$/.exec(name)?.[1];
      if (!id || this.running.has(Number(id))) continue;
      const job = await findCiJob(this.c.db, Number(id)).catch(() => null);
      if (job === null || job?.status === 'running') continue;
      await releaseMounts(path.join(builds, name));
      await removeWorkspace(path.join(builds, name)).catch(() => undefined);
    }
  }
}
