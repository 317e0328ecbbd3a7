// What a list asks for and what it gets back; the HTTP layer turns these into params and headers.

/** Above this many matching rows a list reports no total (and never counts further). */
export const COUNT_CAP = 10_000;

export type PageRequest =
  | { kind: 'offset'; page: number; perPage: number }
  | {
      kind: 'keyset';
      perPage: number;
      sort: 'asc' | 'desc';
      idAfter: number | null;
      idBefore: number | null;
      /** Opaque position for lists ordered by something other than id (`cursor=`); see runCursorPage. */
      cursor: string | null;
    };

export interface PageResult<T> {
  items: T[];
  /** null when above COUNT_CAP, or for keyset pages */
  total: number | null;
  hasNext: boolean;
  /** Keyset lists ordered by another column: the `cursor` of the next page (the Link header carries it). */
  nextCursor?: string;
}

export const mapPage = <A, B>(p: PageResult<A>, f: (a: A) => B): PageResult<B> => ({ ...p, items: p.items.map(f) });
