// The contract between the CI file parser (src/ci/config) and the pipeline planner
// (src/domain/ci): what a pipeline will contain once the file, its includes, `extends`, `rules`,
// `only`/`except` and `parallel` have been resolved for one ref. Stored per job as JSON in
// ci_jobs.options, so change it only by adding optional fields.

export type JobWhen = 'on_success' | 'on_failure' | 'always' | 'manual' | 'delayed';

export interface ArtifactsSpec {
  paths: string[];
  exclude: string[];
  /** Archive name without extension; null = the reference's default `artifacts`. */
  name: string | null;
  /** As written (`1 week`, `never`); null = the instance's default_artifacts_expire_in. */
  expireIn: string | null;
  when: 'on_success' | 'on_failure' | 'always';
  untracked: boolean;
  /** Report type (`junit`, `sast`, `dependency_scanning`, `container_scanning`, `dast`, `secret_detection`, …) → paths/globs. */
  reports: Record<string, string[]>;
}

/** An `image:` or a `services:` entry in its long form (a string is `{name}`), as runners receive it. */
export interface ContainerImageSpec {
  name: string;
  alias: string | null;
  entrypoint: string[] | null;
  command: string[] | null;
  pullPolicy: string[] | null;
  ports: Array<{ number: number; protocol: string | null; name: string | null }>;
  variables: Record<string, string>;
  /** `docker:` / `kubernetes:` options (the runner's executor_opts). */
  executorOpts: Record<string, unknown>;
}

/** One `cache:` entry with the reference's defaults filled in. */
export interface CacheSpec {
  /** A key as written, or `key:files` (+ `prefix`). */
  key: string | { files: string[]; prefix: string | null };
  untracked: boolean;
  policy: string;
  paths: string[];
  when: string;
  fallbackKeys: string[];
  unprotect: boolean;
}

export interface NeedSpec {
  job: string;
  artifacts: boolean;
  optional: boolean;
}

export interface TriggerSpec {
  /** Child pipeline: the local CI files that make it (in the same commit). */
  include: string[] | null;
  /** `trigger:include:inputs`, per include file (optional; absent = no inputs to any). */
  inputs?: Array<Record<string, unknown> | null>;
  /** Downstream pipeline: the project's full path, and its branch (null = default branch). */
  project: string | null;
  branch: string | null;
  /** `depend`: the bridge mirrors the downstream pipeline's status. */
  strategy: 'depend' | null;
}

export interface EnvironmentSpec {
  name: string;
  url: string | null;
  action: string | null;
}

/** `release:` as written (variables not yet expanded): the release its job makes when it succeeds. */
export interface ReleaseSpec {
  tagName: string;
  tagMessage: string | null;
  name: string | null;
  description: string;
  ref: string | null;
  milestones: string[];
  releasedAt: string | null;
  links: Array<{ name: string; url: string; filepath: string | null; linkType: string | null }>;
}

export interface PlannedJob {
  /** After `parallel` expansion: `test 1/3`, `deploy: [aws, eu]`. */
  name: string;
  stage: string;
  /** Index of `stage` in Plan.stages. */
  stageIdx: number;
  /** `bridge` when the job has `trigger`. */
  type: 'build' | 'bridge';
  when: JobWhen;
  /** For `when: delayed`: as written (`30 minutes`). */
  startIn: string | null;
  allowFailure: boolean;
  /** `allow_failure: {exit_codes: …}`: only these exit codes are allowed to fail. */
  allowFailureExitCodes: number[] | null;
  beforeScript: string[];
  script: string[];
  afterScript: string[];
  /** Recorded only (the built-in runner runs on the host). */
  image: string | null;
  /** `image:` in full, for registered runners (optional; absent = `{name: image}`). */
  imageSpec?: ContainerImageSpec | null;
  /** `services:` (optional; absent = none). For registered runners (docker, kubernetes). */
  services?: ContainerImageSpec[];
  /** `cache:` (optional; absent = none). For registered runners. */
  cache?: CacheSpec[];
  /** Job-level variables (global ones are in Plan.variables), including matrix/parallel values. */
  variables: Record<string, string>;
  /** null: wait for all earlier stages; [] (`needs: []`): start at once. */
  needs: NeedSpec[] | null;
  /** null: artifacts of all earlier-stage jobs; else only these jobs'. */
  dependencies: string[] | null;
  artifacts: ArtifactsSpec | null;
  /** The coverage regex as written, without the slashes (`Coverage: (\d+\.\d+)%`). */
  coverage: string | null;
  /** Automatic retries: max 0..2, and the failure kinds that allow one (`always` when unspecified). */
  retry: { max: number; when: string[] };
  /** In seconds; null = the project's build_timeout. */
  timeout: number | null;
  tags: string[];
  environment: EnvironmentSpec | null;
  interruptible: boolean;
  trigger: TriggerSpec | null;
  /** `release:` (optional; absent = none): made by Anvil when the job succeeds. */
  release?: ReleaseSpec;
  /**
   * `inherit:variables` (optional; absent = true): false = none of Plan.variables apply to this
   * job; a list = only these global variables apply.
   */
  inheritVariables?: false | string[];
}

export interface Plan {
  /** All stages in order, `.pre` first and `.post` last. Only stages that have jobs get jobs. */
  stages: string[];
  /** Global `variables:` (plus `workflow:rules` variables of the matching rule). */
  variables: Record<string, string>;
  /** The jobs that `rules`/`only`/`except` let in, in file order. */
  jobs: PlannedJob[];
  /** `workflow:name` with its variables expanded (optional; absent = no name). */
  name?: string;
}

/** What the parser needs to know about the pipeline being planned. */
export interface PlanContext {
  /** Predefined CI_* variables, pipeline (API/trigger) variables: for `rules:if`, `only:variables`, `$VAR` in `include`. */
  variables: Record<string, string>;
  ref: string;
  tag: boolean;
  /** Pipeline source: push, api, web, trigger, parent_pipeline, pipeline, schedule, … */
  source: string;
  /** Paths changed by the push, for `rules:changes` / `only:changes`; null = unknown (they match, as the reference does). */
  changedPaths: string[] | null;
  /** A file at the pipeline's commit (include: local, trigger include), or null when absent. */
  readFile(path: string): Promise<string | null>;
  /** Every file path at the pipeline's commit (for `rules:exists` globs); called at most once. */
  listFiles(): Promise<string[]>;
  /**
   * Paths changed between a ref (branch, tag or sha) and the pipeline's commit, for
   * `rules:changes:compare_to`; null when the ref does not exist.
   */
  changedSince(ref: string): Promise<string[] | null>;
}

export type PlanResult =
  /** A pipeline with these jobs. */
  | { kind: 'plan'; plan: Plan }
  /** The file is invalid: a pipeline is still created, `failed`, with these yaml_errors. */
  | { kind: 'invalid'; errors: string[] }
  /** `workflow:rules` excluded the pipeline ("Pipeline filtered out by workflow rules."). */
  | { kind: 'filtered' }
  /** Valid, but no job applies ("No stages / jobs for this pipeline."). */
  | { kind: 'empty' };
