// The conformance suite (0.1.16 and the 0.2.0 pre-release, installed as `mcp-conformance-next`)
// imports `globSync` from "fs", which Node 20 lacks (Node 22 has it); it reads the results folder of
// `tier-check` with it. This load hook takes that one name out of the suite's import and binds it to
// node20-glob.mjs, only in the suite's own files, so the suite runs on the Node 20 this repo supports.
const SUITES = ['/@modelcontextprotocol/conformance/dist/', '/mcp-conformance-next/dist/'];
const SHIM = new URL('./node20-glob.mjs', import.meta.url).href;

export async function load(url, context, nextLoad) {
  const loaded = await nextLoad(url, context);
  if (!SUITES.some((suite) => url.includes(suite))) return loaded;
  const source = String(loaded.source);
  const rewritten = source.replace(/import\{([^}]*)\}from"fs";/, (whole, names) => {
    const match = /(?:^|,)globSync as (\w+)/.exec(names);
    if (!match) return whole;
    const rest = names.replace(match[0], '').replace(/^,/, '');
    return `import{${rest}}from"fs";import{globSync as ${match[1]}}from${JSON.stringify(SHIM)};`;
  });
  return { ...loaded, source: rewritten };
}
