// CI job tokens (CI_JOB_TOKEN): a random secret made when a runner takes a job, valid only while
// that job runs. Only its SHA-256 is stored (ci_jobs.token_digest, cleared when the job ends).
// The recognisable prefix lets the auth layer tell a job token from a personal or OAuth token
// sent as `Authorization: Bearer` without trying each table.
import { digest, randomToken } from '../shared/secrets.js';

export const JOB_TOKEN_PREFIX = 'anvcbt-';

/** The git usernames that carry a job token as the password (ours, and the reference's for migrated scripts). */
export const JOB_TOKEN_GIT_USERNAMES: readonly string[] = ['service-ci-token', 'gitlab-ci-token'];

export const isJobTokenShaped = (value: string): boolean => value.startsWith(JOB_TOKEN_PREFIX);

/** A fresh token for a job about to run, and the digest to store in ci_jobs.token_digest. */
export function newJobToken(): { token: string; digest: string } {
  const token = randomToken(JOB_TOKEN_PREFIX, 32);
  return { token, digest: digest(token) };
}

export const jobTokenDigest = (token: string): string => digest(token);
