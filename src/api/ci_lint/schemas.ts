// The CI lint result (the reference's Entities::Ci::Lint::Result): `jobs` only when include_jobs.
import { Type as T } from '@sinclair/typebox';
import { Nullable } from '../schemas.js';

const Policy = Nullable(
  T.Object({
    refs: T.Optional(T.Array(T.String())),
    variables: T.Optional(T.Array(T.String())),
    changes: T.Optional(T.Array(T.String())),
    kubernetes: T.Optional(T.String()),
  }),
);

export const LintJob = T.Object({
  name: T.String(),
  stage: T.String(),
  before_script: T.Array(T.String()),
  script: T.Array(T.String()),
  after_script: T.Array(T.String()),
  tag_list: T.Array(T.String()),
  /** The static check's only: the dry run has no only/except/needs. */
  only: T.Optional(Policy),
  except: T.Optional(Policy),
  environment: Nullable(T.String()),
  when: T.String(),
  allow_failure: T.Boolean(),
  needs: T.Optional(Nullable(T.Array(T.Object({ name: T.String(), artifacts: T.Boolean(), optional: T.Boolean() })))),
});

export const LintInclude = T.Object({
  type: T.String(),
  location: T.String(),
  blob: T.String(),
  raw: T.String(),
  extra: T.Object({}),
  context_project: T.String(),
  context_sha: T.String(),
});

export const LintResult = T.Object({
  valid: T.Boolean(),
  errors: T.Array(T.String()),
  warnings: T.Array(T.String()),
  merged_yaml: Nullable(T.String()),
  includes: Nullable(T.Array(LintInclude)),
  jobs: T.Optional(T.Array(LintJob)),
});
