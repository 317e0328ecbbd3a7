// Application settings are for administrators only (the reference's `authenticated_as_admin!`).
import { requireAdmin, type Actor } from '../auth/actor.js';

export function assertCanManageSettings(actor: Actor | null): void {
  requireAdmin(actor);
}
