import { acquireDataFolderLock } from '../src-main/util/data-folder-lock';

/** Test fixture (data-folder-lock.test.ts): takes the lock on argv[2], says so, and waits to be killed. */
const dir = process.argv[2];
if (!dir) throw new Error('usage: hold-data-folder-lock.ts DIR');
acquireDataFolderLock(dir, { shell: 'browser' });
process.stdout.write('locked\n');
setInterval(() => undefined, 60_000);
