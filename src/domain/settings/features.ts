// Instance settings that switch whole features on or off, for the areas that serve them.
import type { Container } from '../context.js';
import { notFound } from '../errors.js';
import { getSettings } from './service.js';

/**
 * Project export endpoints call this first: with `project_export_enabled` off they answer 404
 * `{"message":"404 Not Found"}`, as the reference's project export API does before anything else.
 */
export async function assertProjectExportEnabled(c: Container): Promise<void> {
  if (!(await getSettings(c)).project_export_enabled) throw notFound();
}
