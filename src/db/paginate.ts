// One way to run a list query as a page, for every list in Anvil.
import { sql, type CompiledQuery, type Kysely, type SelectQueryBuilder } from 'kysely';
import { COUNT_CAP, type PageRequest, type PageResult } from '../shared/page.js';

/**
 * The largest id a 32-bit id column holds. An `id_before` above it filters nothing (every id is
 * below); PostgreSQL would refuse the number itself. (`id_after` above it matches nothing: dialect.ts.)
 */
export const MAX_ID = 2 ** 31 - 1;

/** How a page is read, beside its query. */
export interface PageOptions<O, P> {
  /** The column keyset pages filter on (default `id`); the caller orders by it in the page's `sort` direction. */
  idColumn?: string;
  /** Rows that the query surely has too, cheaper to walk: when they pass the cap, so does the query. */
  countSubset?: SelectQueryBuilder<any, any, O>;
  /**
   * Columns the page reads beside the query's own (what presenting its rows needs, joined): read
   * in the page's statement, left out of the count.
   */
  withColumns?: (query: SelectQueryBuilder<any, any, O>) => SelectQueryBuilder<any, any, P>;
}

/**
 * Runs `query` (already filtered and ordered) as one page. Offset pages count at most
 * COUNT_CAP + 1 rows; keyset pages filter on the id column and cost the same at any depth.
 *
 * A page's LIMIT (and a first page's OFFSET: none) is written into its SQL, not sent as a value,
 * so that PostgreSQL keeps one generic plan for the statement. With an unknown limit, the generic
 * plan of a long list reads and sorts all of it, so PostgreSQL planned the page again at every
 * run; for a page of projects that cost more than running it (0.5 ms against 0.3 ms). Deeper
 * pages send their offset as a value, so that every depth shares one statement.
 */
export async function runPage<DB, TB extends keyof DB, O extends { id: number }, P extends { id: number } = O>(
  db: Kysely<DB>,
  query: SelectQueryBuilder<DB, TB, O>,
  page: PageRequest,
  opts: PageOptions<O, P> = {},
): Promise<PageResult<P>> {
  const idColumn = opts.idColumn ?? 'id';
  const withColumns = opts.withColumns ?? ((q) => q as unknown as SelectQueryBuilder<any, any, P>);
  if (page.kind === 'keyset') {
    let q = query as SelectQueryBuilder<any, any, O>;
    if (page.idAfter !== null) q = q.where(sql.ref(idColumn), '>', page.idAfter);
    if (page.idBefore !== null && page.idBefore <= MAX_ID) q = q.where(sql.ref(idColumn), '<', page.idBefore);
    const rows = await withColumns(q).limit(sql.lit(page.perPage + 1)).execute();
    return { items: rows.slice(0, page.perPage), total: null, hasNext: rows.length > page.perPage };
  }
  const offset = (page.page - 1) * page.perPage;
  let paged = withColumns(query as SelectQueryBuilder<any, any, O>).limit(sql.lit(page.perPage + 1));
  if (offset > 0) paged = paged.offset(offset);
  const statement = paged.compile();
  const rows = (await db.executeQuery(statement)).rows;
  const hasNext = rows.length > page.perPage;
  // A last page tells the total by itself (a page past the end does not).
  const total = !hasNext && (rows.length > 0 || offset === 0) ? offset + rows.length : await cappedCount(db, query, listKey(statement, offset), opts.countSubset);
  return { items: rows.slice(0, page.perPage), total, hasNext };
}

/** What names a list whatever its page: a page's SQL without its LIMIT and OFFSET (which end it), and its values. */
function listKey(page: CompiledQuery, offset: number): string {
  const values = offset > 0 ? page.parameters.slice(0, -1) : page.parameters;
  return `${page.sql.replace(/ limit \d+( offset \S+)?$/, '')}\0${JSON.stringify(values)}`;
}

/**
 * Counts found past the cap, remembered for a while by the count's SQL and values. Walking to
 * the cap is the dearest part of a long list's first page (a quarter of a millisecond on SQLite,
 * as much as the page itself) and its answer, "more than COUNT_CAP", rarely changes. Only that
 * answer is kept: a shorter list is counted on every page, so creating or removing a row shows
 * in its total at once; a list that drops below the cap shows a total again within PAST_CAP_MS.
 * Kept per database (its adapter, which its transactions and plugins share): tests open several
 * databases in one process.
 */
const pastCapByDatabase = new WeakMap<object, Map<string, number>>();
const PAST_CAP_MS = 10_000;
const PAST_CAP_KEYS = 1_000;

function pastCapOf(db: Kysely<any>): Map<string, number> {
  const adapter = db.getExecutor().adapter;
  let known = pastCapByDatabase.get(adapter);
  if (!known) pastCapByDatabase.set(adapter, (known = new Map()));
  return known;
}

/**
 * How many rows `query` matches, or null above COUNT_CAP (then counted no further). One statement.
 * `key` names the list (listKey).
 */
async function cappedCount(
  db: Kysely<any>,
  query: SelectQueryBuilder<any, any, any>,
  key: string,
  subset?: SelectQueryBuilder<any, any, any>,
): Promise<number | null> {
  // Known to pass the cap: keyed by the query itself, whatever the page (the subset only makes finding that out cheaper).
  const pastCap = pastCapOf(db);
  const now = Date.now();
  if ((pastCap.get(key) ?? 0) > now) return null;

  const ones = (q: SelectQueryBuilder<any, any, any>) => q.clearSelect().clearOrderBy().select(sql`1`.as('one'));
  // Whether a row lies past the cap is one walk that stops there, several times faster than
  // counting as many rows; only a shorter list is counted.
  const count = db.selectNoFrom((eb) => {
    const isPastCap = (q: SelectQueryBuilder<any, any, any>) => eb.exists(ones(q).limit(sql.lit(1)).offset(sql.lit(COUNT_CAP)));
    return eb
      .case()
      .when(subset ? eb.or([isPastCap(subset), isPastCap(query)]) : isPastCap(query))
      .then(sql<number | null>`NULL`)
      .else(eb.selectFrom(ones(query).limit(sql.lit(COUNT_CAP + 1)).as('capped')).select((e) => e.fn.countAll<number>().as('n')))
      .end()
      .as('n');
  });
  const [r] = await count.execute();
  // No row at all: a filter value out of its column's range matched nothing (dialect.ts).
  if (r === undefined) return 0;
  if (r.n !== null) return Number(r.n);
  if (pastCap.size >= PAST_CAP_KEYS) pastCap.clear();
  pastCap.set(key, now + PAST_CAP_MS);
  return null;
}

/**
 * Keyset pages for a list ordered ascending by a non-unique column then id (groups by name).
 * The position is an opaque `cursor` (base64url JSON of the last row's value and id), the way
 * the reference's keyset links carry `cursor=` for such orders. `query` must already be ordered
 * by `column` asc, then `idColumn` asc. An unreadable cursor starts from the beginning.
 */
export async function runCursorPage<DB, TB extends keyof DB, O extends { id: number }>(
  query: SelectQueryBuilder<DB, TB, O>,
  page: Extract<PageRequest, { kind: 'keyset' }>,
  column: string,
  valueOf: (row: O) => string,
  idColumn = 'id',
): Promise<PageResult<O>> {
  let q = query as SelectQueryBuilder<any, any, O>;
  const at = decodeCursor(page.cursor);
  if (at) {
    q = q.where((eb: any) =>
      eb.or([eb(sql.ref(column), '>', at.v), eb.and([eb(sql.ref(column), '=', at.v), eb(sql.ref(idColumn), '>', at.id)])]),
    );
  }
  const rows = await q.limit(sql.lit(page.perPage + 1)).execute();
  const items = rows.slice(0, page.perPage);
  const hasNext = rows.length > page.perPage;
  const last = items[items.length - 1];
  return { items, total: null, hasNext, ...(hasNext && last ? { nextCursor: encodeCursor(valueOf(last), last.id) } : {}) };
}

function encodeCursor(v: string, id: number): string {
  return Buffer.from(JSON.stringify({ v, id })).toString('base64url');
}

function decodeCursor(cursor: string | null): { v: string; id: number } | null {
  if (!cursor) return null;
  try {
    const o = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    return typeof o?.v === 'string' && Number.isInteger(o?.id) ? { v: o.v, id: o.id } : null;
  } catch {
    return null;
  }
}
