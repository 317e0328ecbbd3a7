// Protected branch views → the API's Protected branch shape.
import type { ProtectedBranchView } from '../../domain/protected_branches/service.js';

export const presentProtectedBranch = (v: ProtectedBranchView) => ({
  id: v.row.id,
  name: v.row.name,
  push_access_levels: v.push,
  merge_access_levels: v.merge,
  allow_force_push: v.row.allow_force_push === 1,
  unprotect_access_levels: v.unprotect,
  code_owner_approval_required: v.row.code_owner_approval_required === 1,
});
