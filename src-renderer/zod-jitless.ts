import { z } from 'zod';

// Imported first by main.tsx, before any schema module runs: the page's CSP forbids eval, and zod
// would otherwise probe `new Function` (a CSP violation report) for its compiled fast path.
z.config({ jitless: true });
