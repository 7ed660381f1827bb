import { AttributionMemo, type ProvenanceFacts, type ToolResultSeen } from '@shared/boundary/provenance';
import type { HistoryEntry } from '@shared/contracts/history';
import { DEFAULT_SERVER_TRUST, trustOf, type ServerTrust } from '@shared/contracts/server-trust';
import type { McpServerSpec } from '@shared/contracts/spec';
import type { ToolSnapshot } from '@shared/contracts/tool-snapshot';

/**
 * What a round's provenance is traced against (issue 31): the person's texts, and every tool result
 * the run's canonical history holds (the text the models saw, masked as they saw it) with its
 * server's trust level. Built from the history, so a run resumed after waiting for a person knows
 * its earlier results without a checkpoint field. Each result's entry is kept between rounds: the
 * provenance module indexes it once.
 */
export class ProvenanceFactsOf {
  private readonly seen = new Map<number, ToolResultSeen>();
  /** A value looked for in earlier rounds is looked for only in the results seen since. */
  private readonly memo = new AttributionMemo();
  private readonly trust: Map<string, ServerTrust>;

  constructor(servers: readonly Pick<McpServerSpec, 'id' | 'trust'>[]) {
    this.trust = new Map(servers.map((s) => [s.id, trustOf(s)]));
  }

  facts(given: readonly string[], history: readonly Readonly<HistoryEntry>[], snapshot: ToolSnapshot): ProvenanceFacts {
    const results: ToolResultSeen[] = [];
    for (const entry of history) {
      const decision = entry.decision;
      if (decision.decision_type !== 'tool_call' || entry.result === undefined) continue;
      const known = this.seen.get(entry.index);
      if (known && known.text === entry.result && known.tool === decision.tool_name) {
        results.push(known);
        continue;
      }
      const server = snapshot.tools.find((t) => t.name === decision.tool_name)?.server ?? 'unknown';
      const seen: ToolResultSeen = {
        server,
        tool: decision.tool_name,
        round: entry.round,
        trust: this.trust.get(server) ?? DEFAULT_SERVER_TRUST,
        text: entry.result,
        arguments: decision.arguments,
      };
      this.seen.set(entry.index, seen);
      results.push(seen);
    }
    return { given: given.filter((t) => t !== ''), results, memo: this.memo };
  }
}
