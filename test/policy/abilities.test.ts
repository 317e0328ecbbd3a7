// Every ability, for every role, visibility and kind of caller, against answers written from the
// reference's ProjectPolicy / GroupPolicy (and Ci::PipelinePolicy / BuildPolicy). The answers are
// spelled out here, never computed by the code under test. Pure functions: no database.
//
// Columns of every row (15): a regular user with role none, guest, reporter, developer, maintainer,
// owner | an external user with the same six roles | a blocked maintainer | an admin who is not a
// member | anonymous.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { NamespaceRow } from '../../src/db/repos/namespaces.js';
import type { ProjectRow } from '../../src/db/repos/projects.js';
import type { UserRow } from '../../src/db/repos/users.js';
import type { Actor } from '../../src/domain/auth/actor.js';
import { canManageAlertIntegrations, canReadAlerts, canSendTestAlert, canUpdateAlerts } from '../../src/domain/alerts/policy.js';
import { canManageGroupBadges, canManageProjectBadges, canSeeBadgeImages } from '../../src/domain/badges/policy.js';
import { ciAccessFrom } from '../../src/domain/ci/policy.js';
import { canExportProject, exportsMembers } from '../../src/domain/import_export/policy.js';
import { canAdminVulnerability, canCreateVulnerability, canReadSecurity } from '../../src/domain/vulnerabilities/policy.js';
import { canCreateSubgroup, canManageMembers, groupAccessFor, type GroupAccess } from '../../src/domain/members/policy.js';
import {
  accessFor,
  canAdminProject,
  canCreateMergeRequestIn,
  canDeleteProtectedBranch,
  canPushCode,
  canReadCode,
  canReadProject,
  canReadStatistics,
  isProjectOwner,
  type ProjectAccess,
} from '../../src/domain/projects/policy.js';

const VISIBILITIES = { private: 0, internal: 10, public: 20 } as const;
type Visibility = keyof typeof VISIBILITIES;
const ROLES = [0, 10, 20, 30, 40, 50];

const user = (over: Partial<UserRow>): UserRow => ({ id: 7, admin: 0, external: 0, state: 'active', ...over }) as UserRow;
const actorOf = (u: UserRow): Actor => ({ user: u, via: 'personal_access_token', scopes: null, tokenId: null, sudoer: null });

/** The 15 callers of the columns: who they are and their role in the project or group. */
const CALLERS: { actor: Actor | null; role: number }[] = [
  ...ROLES.map((role) => ({ actor: actorOf(user({})), role })),
  ...ROLES.map((role) => ({ actor: actorOf(user({ external: 1 })), role })),
  { actor: actorOf(user({ state: 'blocked' })), role: 40 },
  { actor: actorOf(user({ admin: 1 })), role: 0 },
  { actor: null, role: 0 },
];

const project = (visibility: Visibility, over: Partial<ProjectRow> = {}): ProjectRow =>
  ({
    id: 1,
    namespace_id: 1,
    visibility_level: VISIBILITIES[visibility],
    archived: 0,
    builds_access_level: 'enabled',
    merge_requests_access_level: 'enabled',
    public_jobs: 0,
    ...over,
  }) as ProjectRow;

const group = (visibility: Visibility): NamespaceRow =>
  ({ id: 1, kind: 'group', visibility_level: VISIBILITIES[visibility], subgroup_creation_level: 'maintainer' }) as NamespaceRow;

/** 'n y | …' → the 15 answers as one canonical string. */
const row = (s: string) => s.replace(/\|/g, ' ').trim().split(/\s+/).join(' ');
const yn = (answers: boolean[]) => answers.map((b) => (b ? 'y' : 'n')).join(' ');

type Expected = Record<Visibility, string>;
const same = (s: string): Expected => ({ private: s, internal: s, public: s });

// ---- projects ----

const PROJECT_ABILITIES: Record<string, { check: (p: ProjectRow, a: ProjectAccess) => boolean; project?: Partial<ProjectRow>; expected: Expected }> = {
  // guest_access (members, and public_user_access), public_access, admins
  read_project: {
    check: (_p, a) => canReadProject(a),
    expected: {
      private: 'n y y y y y | n y y y y y | n | y | n',
      internal: 'y y y y y y | n y y y y y | n | y | n',
      public: 'y y y y y y | y y y y y y | n | y | y',
    },
  },
  // reporter_access or public_access: a guest of a private project, or an external guest of an internal one, may not
  download_code: {
    check: (_p, a) => canReadCode(a),
    expected: {
      private: 'n n y y y y | n n y y y y | n | y | n',
      internal: 'y y y y y y | n n y y y y | n | y | n',
      public: 'y y y y y y | y y y y y y | n | y | y',
    },
  },
  push_code: { check: canPushCode, expected: same('n n n y y y | n n n y y y | n | y | n') },
  'push_code (archived project)': { check: canPushCode, project: { archived: 1 }, expected: same('n n n n n n | n n n n n n | n | n | n') },
  push_to_delete_protected_branch: { check: (_p, a) => canDeleteProtectedBranch(a), expected: same('n n n n y y | n n n n y y | n | y | n') },
  admin_project: { check: (_p, a) => canAdminProject(a), expected: same('n n n n y y | n n n n y y | n | y | n') },
  admin_project_member: { check: (_p, a) => canManageMembers('Project', a), expected: same('n n n n y y | n n n n y y | n | y | n') },
  owner_access: { check: (_p, a) => isProjectOwner(a), expected: same('n n n n n y | n n n n n y | n | y | n') },
  // admin_project: start, watch and download exports
  export_project: { check: (_p, a) => canExportProject(a), expected: same('n n n n y y | n n n n y y | n | y | n') },
  // the exported tree names members only when an owner asked for it
  'export_project with members': { check: (_p, a) => exportsMembers(a), expected: same('n n n n n y | n n n n n y | n | y | n') },
  read_statistics: { check: (_p, a) => canReadStatistics(a), expected: same('n n y y y y | n n y y y y | n | y | n') },
  // guest_access & download_code, signed in
  create_merge_request_in: {
    check: canCreateMergeRequestIn,
    expected: {
      private: 'n n y y y y | n n y y y y | n | y | n',
      internal: 'y y y y y y | n n y y y y | n | y | n',
      public: 'y y y y y y | y y y y y y | n | y | n',
    },
  },
  // reporter_access or public_access
  read_pipeline: {
    check: (p, a) => ciAccessFrom(p, a).readPipelines,
    expected: {
      private: 'n n y y y y | n n y y y y | n | y | n',
      internal: 'y y y y y y | n n y y y y | n | y | n',
      public: 'y y y y y y | y y y y y y | n | y | y',
    },
  },
  // with public_builds, guest_access reads pipelines too
  'read_pipeline (public jobs)': {
    check: (p, a) => ciAccessFrom(p, a).readPipelines,
    project: { public_jobs: 1 },
    expected: {
      private: 'n y y y y y | n y y y y y | n | y | n',
      internal: 'y y y y y y | n y y y y y | n | y | n',
      public: 'y y y y y y | y y y y y y | n | y | y',
    },
  },
  read_build: { check: (p, a) => ciAccessFrom(p, a).read, expected: same('n n y y y y | n n y y y y | n | y | n') },
  // public_builds: whoever sees the project
  'read_build (public jobs)': {
    check: (p, a) => ciAccessFrom(p, a).read,
    project: { public_jobs: 1 },
    expected: {
      private: 'n y y y y y | n y y y y y | n | y | n',
      internal: 'y y y y y y | n y y y y y | n | y | n',
      public: 'y y y y y y | y y y y y y | n | y | y',
    },
  },
  'create_pipeline / update_build': { check: (p, a) => ciAccessFrom(p, a).update, expected: same('n n n y y y | n n n y y y | n | y | n') },
  'create_pipeline (archived project)': { check: (p, a) => ciAccessFrom(p, a).update, project: { archived: 1 }, expected: same('n n n n n n | n n n n n n | n | n | n') },
  admin_build: { check: (p, a) => ciAccessFrom(p, a).manage, expected: same('n n n n y y | n n n n y y | n | y | n') },
  // the owner block of ProjectPolicy (maintainers may not)
  destroy_pipeline: { check: (p, a) => ciAccessFrom(p, a).del, expected: same('n n n n n y | n n n n n y | n | y | n') },
  // builds_access_level private: members only
  // badges: admin_project to add, change, remove, preview; the status images need read_build
  'admin_project (badges)': { check: (_p, a) => canManageProjectBadges(a), expected: same('n n n n y y | n n n n y y | n | y | n') },
  'read_build (badge images)': { check: (p, a) => canSeeBadgeImages(ciAccessFrom(p, a)), expected: same('n n y y y y | n n y y y y | n | y | n') },
  // alert integrations: admin_operations (maintainers) to set up; developers read, update, test
  'admin_operations (alert integrations)': { check: (_p, a) => canManageAlertIntegrations(a), expected: same('n n n n y y | n n n n y y | n | y | n') },
  read_alert_management_alert: { check: (_p, a) => canReadAlerts(a), expected: same('n n n y y y | n n n y y y | n | y | n') },
  update_alert_management_alert: { check: (_p, a) => canUpdateAlerts(a), expected: same('n n n y y y | n n n y y y | n | y | n') },
  'send test alert': { check: (_p, a) => canSendTestAlert(a), expected: same('n n n y y y | n n n y y y | n | y | n') },
  // vulnerabilities (15.1): developers and above
  read_security_resource: { check: (_p, a) => canReadSecurity(a), expected: same('n n n y y y | n n n y y y | n | y | n') },
  create_vulnerability: { check: (_p, a) => canCreateVulnerability(a), expected: same('n n n y y y | n n n y y y | n | y | n') },
  admin_vulnerability: { check: (_p, a) => canAdminVulnerability(a), expected: same('n n n y y y | n n n y y y | n | y | n') },
  'read_build (CI for members only, public jobs)': {
    check: (p, a) => ciAccessFrom(p, a).read,
    project: { public_jobs: 1, builds_access_level: 'private' },
    expected: same('n y y y y y | n y y y y y | n | y | n'),
  },
};

// ---- groups ----

const GROUP_ABILITIES: Record<string, { check: (g: NamespaceRow, a: GroupAccess) => boolean; expected: Expected }> = {
  // public: anyone; internal: signed-in users who are not external; private: members
  read_group: {
    check: (_g, a) => a.canRead,
    expected: {
      private: 'n y y y y y | n y y y y y | n | y | n',
      internal: 'y y y y y y | n y y y y y | n | y | n',
      public: 'y y y y y y | y y y y y y | n | y | y',
    },
  },
  admin_group: { check: (_g, a) => a.canAdmin, expected: same('n n n n n y | n n n n n y | n | y | n') },
  'admin_group (badges)': { check: (_g, a) => canManageGroupBadges(a), expected: same('n n n n n y | n n n n n y | n | y | n') },
  admin_group_member: { check: (_g, a) => canManageMembers('Namespace', a), expected: same('n n n n n y | n n n n n y | n | y | n') },
  // subgroup_creation_level maintainer
  create_subgroup: { check: canCreateSubgroup, expected: same('n n n n y y | n n n n y y | n | y | n') },
};

describe('abilities: every role, visibility and kind of caller', () => {
  for (const [name, ability] of Object.entries(PROJECT_ABILITIES)) {
    it(`project: ${name}`, () => {
      for (const visibility of Object.keys(VISIBILITIES) as Visibility[]) {
        const p = project(visibility, ability.project);
        const actual = yn(CALLERS.map(({ actor, role }) => ability.check(p, accessFor(actor, p, role))));
        assert.equal(actual, row(ability.expected[visibility]), `${name} in a ${visibility} project`);
      }
    });
  }
  for (const [name, ability] of Object.entries(GROUP_ABILITIES)) {
    it(`group: ${name}`, () => {
      for (const visibility of Object.keys(VISIBILITIES) as Visibility[]) {
        const g = group(visibility);
        const actual = yn(CALLERS.map(({ actor, role }) => ability.check(g, groupAccessFor(actor, g, role, false))));
        assert.equal(actual, row(ability.expected[visibility]), `${name} in a ${visibility} group`);
      }
    });
  }

  it('a member of a group below a private group may see it, nothing more', () => {
    const g = group('private');
    const a = groupAccessFor(actorOf(user({})), g, 0, true);
    assert.deepEqual([a.canRead, a.canAdmin, canManageMembers('Namespace', a), canCreateSubgroup(g, a)], [true, false, false, false]);
    assert.equal(groupAccessFor(null, g, 0, true).canRead, false);
  });
});
