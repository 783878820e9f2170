/**
 * Must be the first import of the entry point: zod decides at schema construction whether it may
 * compile fast parsers with `new Function`. The page's CSP forbids eval, and the probe alone would
 * be reported as a CSP violation, so the renderer runs zod without JIT.
 */
import { z } from 'zod';

z.config({ jitless: true });
