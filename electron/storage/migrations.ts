/**
 * Every store's migrations in the one order they are applied to the shared database file.
 * Append only: a shipped entry is never edited, reordered or removed.
 */
import { CHECKPOINTS_V1 } from '../checkpoints/schema.js';
import type { Migration } from './migrate.js';
import { TRACES_V1, TRACES_V2 } from '../tracing/schema.js';
import { APP_META_V1 } from './appMeta.js';

export const APP_MIGRATIONS: readonly Migration[] = [
  { version: 1, ...CHECKPOINTS_V1 },
  { version: 2, ...TRACES_V1 },
  { version: 3, ...APP_META_V1 },
  { version: 4, ...TRACES_V2 },
];
