/**
 * Every store's migrations in the one order they are applied to the shared database file.
 * Append only: a shipped entry is never edited, reordered or removed.
 */
import { CHECKPOINTS_V1 } from '../checkpoints/schema.js';
import type { Migration } from './migrate.js';
import { TRACES_V1 } from '../tracing/schema.js';

export const APP_MIGRATIONS: readonly Migration[] = [
  { version: 1, ...CHECKPOINTS_V1 },
  { version: 2, ...TRACES_V1 },
];
