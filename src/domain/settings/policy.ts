// Application settings are for administrators only (the reference's `authenticated_as_admin!`).
import type { Actor } from '../auth/actor.js';
import { isAdmin } from '../auth/actor.js';
import { forbidden, unauthorized } from '../errors.js';

export function assertCanManageSettings(actor: Actor | null): void {
  if (!actor) throw unauthorized();
  if (!isAdmin(actor)) throw forbidden();
}
