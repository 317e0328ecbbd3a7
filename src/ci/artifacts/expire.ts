// When job artifacts expire (`artifacts:expire_in`, else the instance's default_artifacts_expire_in,
// read by the one duration parser), and the artifact size limit (`max_artifacts_size`, in MB).
import { durationSeconds, isNever } from '../../shared/duration.js';
import { nowDate } from '../../shared/clock.js';

/**
 * When artifacts uploaded at `now` expire (ISO UTC with ms): null = never. Without its own
 * `expire_in` a job takes `defaultExpireIn` (the instance's default_artifacts_expire_in); `never`
 * and a zero duration (the default's `0`) keep them forever, as the reference's DurationParser.
 */
export function artifactsExpireAt(expireIn: string | null, defaultExpireIn: string | null, now: Date = nowDate()): string | null {
  const text = expireIn ?? defaultExpireIn;
  const seconds = text === null || isNever(text) ? null : durationSeconds(text);
  return seconds === null ? null : new Date(now.getTime() + Math.round(seconds * 1000)).toISOString();
}

export const MEGABYTE = 1024 * 1024;

/** True when an artifact of `sizeBytes` is over `max_artifacts_size` (MB; 0 or null = no limit). */
export function exceedsArtifactLimit(sizeBytes: number, maxArtifactsSizeMb: number | null): boolean {
  if (!maxArtifactsSizeMb || maxArtifactsSizeMb <= 0) return false;
  return sizeBytes > maxArtifactsSizeMb * MEGABYTE;
}

/** The trace line for an artifact over the limit, as the reference runner prints the 413 answer. */
export function artifactTooLargeMessage(fileType: string): string {
  return `ERROR: Uploading artifacts as "${fileType}" to coordinator... 413 Request Entity Too Large`;
}
