import type { SettingsSnapshot } from '../../domain/settings/service.js';
import { SECRET_MASK } from '../../domain/settings/service.js';
import { defOf } from '../../domain/settings/definitions.js';
import { VISIBLE_SETTINGS } from './schemas.js';

/** A decimal as the reference's BigDecimal#to_s writes it: plain digits, at least one decimal place ("1.0", "0.25"). */
export function decimalString(n: number): string {
  const plain = Math.abs(n) < 1e-6 && n !== 0 ? n.toFixed(20).replace(/0+$/, '') : String(n);
  return Number.isInteger(n) ? n.toFixed(1) : plain;
}

/** Every visible setting; a secret shows only whether it is set (a mask), never its value. */
export function presentSettings(snap: SettingsSnapshot): Record<string, unknown> {
  const out: Record<string, unknown> = { id: snap.id };
  for (const name of VISIBLE_SETTINGS) {
    const v = snap.settings[name];
    const def = defOf(name);
    out[name] = def.secret ? (v === null || v === '' ? null : SECRET_MASK) : def.type === 'decimal' ? decimalString(v as number) : v;
  }
  out.created_at = snap.createdAt;
  out.updated_at = snap.updatedAt;
  return out;
}
