import { sql, type Kysely } from 'kysely';
import { dialectOf, withId } from '../dialect.js';

// Topics with ids (`GET /topics`, `topic_id`): one row per name (case-insensitive); a project's
// topic rows point at it and keep its name, so reading a project's topics needs no join.
export async function up(db: Kysely<any>): Promise<void> {
  await withId(db.schema.createTable('topics'), dialectOf(db))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_lower', 'text', (c) => c.notNull().unique())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('avatar_path', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.alterTable('project_topics').addColumn('topic_id', 'integer', (c) => c.references('topics.id').onDelete('cascade')).execute();

  // Topics for the names projects already carry: the first spelling seen names the topic.
  const now = new Date().toISOString();
  await sql`INSERT INTO topics (name, name_lower, title, description, avatar_path, created_at, updated_at)
    SELECT t.name, t.name_lower, t.name, NULL, NULL, ${now}, ${now} FROM project_topics t
    WHERE t.id = (SELECT min(u.id) FROM project_topics u WHERE u.name_lower = t.name_lower)
    ORDER BY t.id`.execute(db);
  await sql`UPDATE project_topics SET topic_id = (SELECT topics.id FROM topics WHERE topics.name_lower = project_topics.name_lower)`.execute(db);
  await db.schema.createIndex('project_topics_topic_idx').on('project_topics').columns(['topic_id', 'project_id']).execute();
}

export async function down(): Promise<void> {
  throw new Error('Anvil migrations only go forward');
}
