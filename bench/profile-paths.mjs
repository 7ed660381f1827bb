// Where a V8 profile's call frame is, as the profile readers print it (profile-self-time.mjs, allocation-by-library.mjs).

/** A script URL as a short path: `nm/PACKAGE/…` for a dependency, `src-main/…` or `src-shared/…` for the project's own files. */
export const sourcePath = (url) => url.replace(/^.*node_modules\//, 'nm/').replace(/^.*\/(src-(main|shared)\/)/, '$1');

/** The package (`nm/xstate`, `nm/@modelcontextprotocol/sdk`) or project file a script URL belongs to; empty for native code. */
export const libraryOf = (url) => sourcePath(url).replace(/^nm\/(@[^/]+\/[^/]+|[^/]+)\/.*/, 'nm/$1');
