// Every API route, by area. An area adds one line here.
import type { ApiRoute } from '../http/route.js';
import { metaRoutes } from './meta/routes.js';
import { userRoutes } from './users/routes.js';

export const allRoutes: ApiRoute<any>[] = [...metaRoutes, ...userRoutes];
