import type { SettingsSnapshot } from '../../domain/settings/service.js';
import { SECRET_MASK } from '../../domain/settings/service.js';
import { defOf } from '../../domain/settings/definitions.js';
import { VISIBLE_SETTINGS } from './schemas.js';

/** Every visible setting; a secret shows only whether it is set (a mask), never its value. */
export function presentSettings(snap: SettingsSnapshot): Record<string, unknown> {
  const out: Record<string, unknown> = { id: snap.id };
  for (const name of VISIBLE_SETTINGS) {
    const v = snap.settings[name];
    out[name] = defOf(name).secret ? (v === null || v === '' ? null : SECRET_MASK) : v;
  }
  out.created_at = snap.createdAt;
  out.updated_at = snap.updatedAt;
  return out;
}
