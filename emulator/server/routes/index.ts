// Every API route, in one table.

import type { Route } from '../context.js';
import { currentRoutes } from './current.js';
import { discoveryRoutes } from './discovery.js';
import { fileRoutes } from './files.js';
import { historyRoutes } from './history.js';

export const ALL_ROUTES: readonly Route[] = [...discoveryRoutes, ...currentRoutes, ...historyRoutes, ...fileRoutes];
