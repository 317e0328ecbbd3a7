// Access tokens of groups and projects: the personal tokens of the bot users that are members
// of the group or project, each with the bot's role there.
import type { Kysely } from 'kysely';
import type { PageRequest } from '../../shared/page.js';
import { runPage } from '../paginate.js';
import type { DB } from '../schema.js';
import type { SourceRef } from './members.js';

const botTokens = (db: Kysely<DB>, source: SourceRef, botKind: string) =>
  db
    .selectFrom('personal_access_tokens')
    .innerJoin('users', 'users.id', 'personal_access_tokens.user_id')
    .innerJoin('members', (j) =>
      j.onRef('members.user_id', '=', 'users.id').on('members.source_type', '=', source.type).on('members.source_id', '=', source.id),
    )
    .where('users.bot_kind', '=', botKind)
    .where('personal_access_tokens.impersonation', '=', 0)
    .selectAll('personal_access_tokens')
    .select('members.access_level');

export const pageBotTokens = (db: Kysely<DB>, source: SourceRef, botKind: string, page: PageRequest) =>
  runPage(db, botTokens(db, source, botKind).orderBy('personal_access_tokens.id', page.kind === 'keyset' ? page.sort : 'asc'), page, { idColumn: 'personal_access_tokens.id' });

export const findBotToken = (db: Kysely<DB>, source: SourceRef, botKind: string, tokenId: number) =>
  botTokens(db, source, botKind).where('personal_access_tokens.id', '=', tokenId).executeTakeFirst();
