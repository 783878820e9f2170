#!/usr/bin/env node
// The stdio entry of the agent gateway (electron/gateway/stdioCli.ts), run from the sources
// through tsx's loader, as `npm run web` runs the browser-mode host.
import { register } from 'tsx/esm/api';

register();
await import('../electron/gateway/stdioCli.ts');
