import { createHost } from '../src-main/composition/create-host';

/** Test fixture (one-host-per-data-folder.test.ts): a host on argv[2] that says so and waits to be killed. */
const dir = process.argv[2];
if (!dir) throw new Error('usage: hold-host.ts DIR');
await createHost({ dataDir: dir, shell: 'browser' });
process.stdout.write('started\n');
setInterval(() => undefined, 60_000);
