import { preconditionFailed } from '../errors.js';

/**
 * The reference's conditional delete: with `If-Unmodified-Since`, a resource changed after
 * that moment is not deleted (412).
 */
export function checkUnmodifiedSince(updatedAt: string | null, ifUnmodifiedSince: Date | null): void {
  if (!ifUnmodifiedSince || !updatedAt) return;
  if (Date.parse(updatedAt) > ifUnmodifiedSince.getTime()) throw preconditionFailed();
}
