// Protected tag views → the API's Protected tag shape.
import type { ProtectedTagView } from '../../domain/protected_tags/service.js';

export const presentProtectedTag = (v: ProtectedTagView) => ({ name: v.row.name, create_access_levels: v.create });
