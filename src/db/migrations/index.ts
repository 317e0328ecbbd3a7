// Every migration, in order. Add a file and a line here; never edit one that has shipped.
import { Migrator, sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import * as m001 from './001_platform.js';
import * as m002 from './002_groups.js';
import * as m004 from './004_queue.js';
import * as m006 from './006_projects.js';
import * as m007 from './007_project_stars.js';
import * as m005 from './005_settings.js';
import * as m010 from './010_rate_limits.js';
import * as m011 from './011_ci.js';
import * as m008 from './008_project_resources.js';
import * as m009 from './009_custom_attributes_events.js';
import * as m012 from './012_protected_branches.js';
import * as m013 from './013_ci_job_list_indexes.js';
import * as m019 from './019_repository_statistics.js';
import * as m022 from './022_ci_pipeline_name.js';
import * as m024 from './024_ci_runner_nodes.js';
import * as m030 from './030_hooks.js';
import * as m031 from './031_project_aliases.js';
import * as m050 from './050_badges.js';
import * as m051 from './051_alerts.js';
import * as m052 from './052_vulnerabilities.js';
import * as m055 from './055_ci_pipeline_list_index.js';
import * as m063 from './063_session_admin_mode.js';
import * as m040 from './040_project_import_export.js';
import * as m041 from './041_project_import_source.js';
import * as m075 from './075_ci_variables.js';
import * as m076 from './076_ci_triggers.js';
import * as m080 from './080_protected_tags.js';
import * as m085 from './085_runners.js';
import * as m081 from './081_pipeline_schedules.js';
import * as m095 from './095_topics.js';
import * as m110 from './110_runners_token_digest.js';
import * as m100 from './100_import_runs.js';
import * as m101 from './101_ref_change_intents.js';
import * as m117 from './117_ci_trace_times.js';
import * as m130 from './130_merge_requests.js';
import * as m150 from './150_labels_milestones.js';
import * as m151 from './151_issues.js';
import * as m190 from './190_keys.js';
import * as m170 from './170_releases.js';
import * as m171 from './171_commit_statuses.js';

const MIGRATIONS: Record<string, Migration> = {
  '001_platform': m001,
  '002_groups': m002,
  '004_queue': m004,
  '006_projects': m006,
  '007_project_stars': m007,
  '005_settings': m005,
  '010_rate_limits': m010,
  '008_project_resources': m008,
  '009_custom_attributes_events': m009,
  '012_protected_branches': m012,
  '011_ci': m011,
  '013_ci_job_list_indexes': m013,
  '019_repository_statistics': m019,
  '022_ci_pipeline_name': m022,
  '024_ci_runner_nodes': m024,
  '030_hooks': m030,
  '031_project_aliases': m031,
  '050_badges': m050,
  '051_alerts': m051,
  '052_vulnerabilities': m052,
  '055_ci_pipeline_list_index': m055,
  '040_project_import_export': m040,
  '041_project_import_source': m041,
  '075_ci_variables': m075,
  '076_ci_triggers': m076,
  '080_protected_tags': m080,
  '085_runners': m085,
  '063_session_admin_mode': m063,
  '081_pipeline_schedules': m081,
  '095_topics': m095,
  '110_runners_token_digest': m110,
  '100_import_runs': m100,
  '101_ref_change_intents': m101,
  '117_ci_trace_times': m117,
  '130_merge_requests': m130,
  '150_labels_milestones': m150,
  '151_issues': m151,
  '190_keys': m190,
  '170_releases': m170,
  '171_commit_statuses': m171,
};

class CodeMigrationProvider implements MigrationProvider {
  async getMigrations(): Promise<Record<string, Migration>> {
    return MIGRATIONS;
  }
}

/** Brings the schema up to date; safe to run from several processes at once (Kysely locks). */
export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  if (await allMigrated(db)) return [];
  // Areas built side by side number their migrations apart, and each touches only its own tables,
  // so a database that ran a later number first still takes an earlier one that lands after it.
  const migrator = new Migrator({ db, provider: new CodeMigrationProvider(), allowUnorderedMigrations: true });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/**
 * True when every migration has run, as at nearly every start: one read, where the migrator
 * takes its lock and inspects the tables (a tenth of a start from the migrated template).
 */
async function allMigrated(db: Kysely<any>): Promise<boolean> {
  try {
    const { rows } = await sql<{ name: string }>`select name from kysely_migration`.execute(db);
    const done = new Set(rows.map((r) => r.name));
    return Object.keys(MIGRATIONS).every((name) => done.has(name));
  } catch {
    return false; // a new database: no migration table yet
  }
}
