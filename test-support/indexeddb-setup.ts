/**
 * Vitest setup for the files that share a process: IndexedDB (fake-indexeddb) is there before any file
 * imports Dexie, which reads `indexedDB` once, when it is first evaluated. Without it, a page component's
 * test that happened to run first in a worker (it imports Dexie through the page's modules, and needs no
 * database) left Dexie without IndexedDB for every data-layer test after it in that worker.
 */
import 'fake-indexeddb/auto';
