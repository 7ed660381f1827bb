// The conformance suite (0.1.16) imports `globSync` from "fs", which Node 20 lacks (Node 22 has it);
// only its `tier-check` command calls it. This load hook drops that one name from the suite's import
// and defines a stand-in that says why, so the client scenarios run on the Node 20 this repo supports.
export async function load(url, context, nextLoad) {
  const loaded = await nextLoad(url, context);
  if (!url.includes('/@modelcontextprotocol/conformance/dist/')) return loaded;
  const source = String(loaded.source);
  const rewritten = source.replace(/import\{([^}]*)\}from"fs";/, (whole, names) => {
    const match = /(?:^|,)globSync as (\w+)/.exec(names);
    if (!match) return whole;
    const rest = names.replace(match[0], '').replace(/^,/, '');
    return `import{${rest}}from"fs";const ${match[1]}=()=>{throw new Error("fs.globSync needs Node 22 (only tier-check uses it)")};`;
  });
  return { ...loaded, source: rewritten };
}
