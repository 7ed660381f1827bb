import { loadSpecFile } from '../../spec/load-spec';
import { startToolHost } from '../../mcp/mcp-tool-host';
import { substituteVars } from '@shared/util/substitute';
import { resolveProvider } from '../../providers/resolve-provider';
import { EFFECT_LABELS } from '@shared/contracts/tool-effect';

export interface ValidationReport {
  lines: string[];
  /** The first problem found, as one clear message; absent when the spec is valid. */
  error?: string;
}

/**
 * `steward validate`: the checks a run would hit before its first round, without calling a model:
 * schema, script, variables, providers resolvable, servers start, allowlisted tools exist.
 */
export async function validateSpecFile(file: string): Promise<ValidationReport> {
  const lines: string[] = [];
  try {
    const loaded = loadSpecFile(file);
    const { spec } = loaded;
    const vars: Record<string, string> = { specDir: loaded.specDir };
    if (loaded.workspace !== undefined) vars.workspace = loaded.workspace;
    substituteVars([spec.instructions, spec.task], vars, 'spec');
    const script = loaded.script ? substituteVars(loaded.script, vars, 'script') : undefined;
    resolveProvider(spec.models.student, 'student', { script });
    resolveProvider(spec.models.teacher, 'teacher', { script });
    lines.push(`spec: ${spec.name} (${spec.id}), ${spec.servers.length} server(s)`);
    const host = await startToolHost(spec.servers, { vars, overrides: spec.tool_effects, cwd: loaded.specDir });
    try {
      const snapshot = await host.snapshot(0);
      for (const tool of snapshot.tools) {
        lines.push(`  tool ${tool.server}/${tool.name}: ${EFFECT_LABELS[tool.effect.effect]} (${tool.effect_source})`);
      }
    } finally {
      await host.close();
    }
    return { lines };
  } catch (err) {
    return { lines, error: err instanceof Error ? err.message : String(err) };
  }
}
