/**
 * Runs a bench's TypeScript the way the app is built (electron.vite.config.ts: esbuild, no
 * `keepNames`), not the way tsx runs it: tsx compiles with `keepNames`, which wraps every named
 * function and class a call creates in a `__name(...)` call (Object.defineProperty) — per call
 * closures included, a cost the built app (out/main: no `__name`) does not have.
 *
 *   node --import ./bench/asBuilt/register.mjs bench/pipeline.ts
 *
 * Worker threads inherit the flag (process.execArgv), so they load the same way.
 */
import { register } from 'node:module';

register('./hooks.mjs', import.meta.url);
