// The PROJECTS scenario's seed: 100,000 projects (ANVIL_BENCH_PROJECTS) inserted straight into the
// server's database in batches, spread over root, a few users and a few groups, with a mix of
// visibilities, and a non-admin user (with a token) who is a member of 40 of them, private ones
// among them. The lists must stay as fast as with a handful of rows.
import type { BenchContext } from './run.js';
import { oncePerServer } from './server.js';
import { openDatabase } from '../src/db/dialect.js';
import { insertProjectsBulk, projectIdAtPosition } from '../src/db/repos/bulk_projects.js';
import type { NewProject } from '../src/db/repos/projects.js';

export const PROJECT_COUNT = Number(process.env.ANVIL_BENCH_PROJECTS ?? 100_000);

export interface SeededProjects {
  /** The id after which keyset page 1,000 (20 per page) starts. */
  keysetPage1000After: number;
  /** A project in the middle of the table. */
  middleId: number;
  /** The non-admin member of 40 projects: their token and user id. */
  memberToken: string;
  memberId: number;
}

const MEMBERSHIPS = 40;

/** Seeds once per server, however many scenarios ask. */
export const seedProjects = oncePerServer(seed);

async function seed(ctx: BenchContext): Promise<SeededProjects> {
  const started = Date.now();
  // Owners through the API, as a client would make them: root, 4 users, 4 groups.
  const root = await ctx.api('GET', '/api/v4/user');
  const owners: { namespaceId: number; fullPath: string; creatorId: number }[] = [{ namespaceId: root.namespace_id, fullPath: root.username, creatorId: root.id }];
  for (let i = 1; i <= 4; i++) {
    const u = await ctx.api('POST', '/api/v4/users', { username: `bench${i}`, name: `Bench ${i}`, email: `bench${i}@example.com`, password: 'bench-password-1' });
    owners.push({ namespaceId: u.namespace_id, fullPath: u.username, creatorId: u.id });
    const g = await ctx.api('POST', '/api/v4/groups', { name: `Bench group ${i}`, path: `bench-group-${i}`, visibility: 'public' });
    owners.push({ namespaceId: g.id, fullPath: g.full_path, creatorId: root.id });
  }

  const db = await openDatabase({ databaseUrl: ctx.databaseUrl, dataDir: ctx.dataDir });
  try {
    const levels = [0, 10, 20, 20]; // private, internal, public, public
    const rows: NewProject[] = [];
    const t0 = Date.parse('2024-01-01T00:00:00.000Z');
    for (let i = 1; i <= PROJECT_COUNT; i++) {
      const o = owners[i % owners.length];
      const path = `project-${i}`;
      const at = new Date(t0 + i * 1000).toISOString();
      rows.push({
        name: `Project ${i}`,
        path,
        full_path: `${o.fullPath}/${path}`,
        full_path_lower: `${o.fullPath}/${path}`.toLowerCase(),
        namespace_id: o.namespaceId,
        creator_id: o.creatorId,
        description: `Benchmark project number ${i}`,
        visibility_level: levels[i % levels.length],
        default_branch: 'main',
        initialize_with_readme: 0,
        runners_token: `GR1348941bench${i}`,
        last_activity_at: at,
        created_at: at,
        updated_at: at,
      } as NewProject);
    }
    await insertProjectsBulk(db, rows);
    const keysetPage1000After = (await projectIdAtPosition(db, 999 * 20))!;
    const middleId = (await projectIdAtPosition(db, Math.floor(PROJECT_COUNT / 2)))!;

    // The member, through the API: developer of 40 projects near the newest (so their first page
    // holds private projects only a member sees), with a token of their own.
    const member = await ctx.api('POST', '/api/v4/users', { username: 'bench-member', name: 'Bench Member', email: 'bench-member@example.com', password: 'bench-password-1' });
    for (let k = 0; k < MEMBERSHIPS; k++) {
      const projectId = (await projectIdAtPosition(db, PROJECT_COUNT - k * 3))!;
      await ctx.api('POST', `/api/v4/projects/${projectId}/members`, { user_id: member.id, access_level: 30 });
    }
    const token = await ctx.api('POST', `/api/v4/users/${member.id}/personal_access_tokens`, { name: 'bench', scopes: ['api'] });
    process.stdout.write(`seeded ${PROJECT_COUNT} projects in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
    return { keysetPage1000After, middleId, memberToken: token.token, memberId: member.id };
  } finally {
    await db.destroy();
  }
}
