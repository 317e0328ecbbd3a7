import type { Container } from '../../domain/context.js';
import type { SearchResult } from '../../domain/search/service.js';
import { mapPage, type PageResult } from '../../shared/page.js';
import { presentProjectSimple } from '../projects/present.js';
import { presentUserBasic } from '../users/present.js';

export function presentSearch(c: Container, r: SearchResult): PageResult<unknown> {
  switch (r.scope) {
    case 'projects':
      return mapPage(r.page, (v) => presentProjectSimple(c, v));
    case 'users':
      // The reference presents users found by a search as UserBasic, even to administrators.
      return mapPage(r.page, (v) => presentUserBasic(c, v.user));
    case 'none':
      return r.page;
  }
}
