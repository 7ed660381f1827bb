import { EFFECT_CLASSES, EFFECT_LABELS, type EffectClass, type ToolEffect } from '../contracts/tool-effect';
import { resolveToolEffect } from '../policy/effect-registry';
import { SHIPPED_EFFECTS } from '../policy/shipped-effects';
import type { WorkflowGraph, WorkflowNode } from './document';
import { MAX_WORKFLOW_DEPTH } from './subworkflow';

/**
 * A stored workflow offered to an agent as a tool (issue 29) has the effect class of its most
 * protected node, in the registry's order (read < reversible write < irreversible write < external
 * communication < unknown): a tool node's tool as the registry classifies it; an agent's or pattern's
 * servers' tools (each one it may call: the server's allowlist, else every tool Steward knows the
 * package for — a server whose tools nobody described is unknown, so protected); a workflow node's or
 * workflow tool's workflow, the same way. `because` names the node that set it, for the tool's
 * description and the trace.
 */
export interface WorkflowEffect {
  effect: ToolEffect;
  /** "node save (tool fs/write_file): Irreversible write", or why nothing is protected. */
  because: string;
}

const rank = (effect: EffectClass): number => EFFECT_CLASSES.indexOf(effect);

type Found = { effect: EffectClass; confirm: boolean; because: string };

const READ: Found = { effect: 'read', confirm: false, because: 'no node writes or sends anything' };

function most(a: Found, b: Found): Found {
  const confirm = a.confirm || b.confirm;
  return rank(b.effect) > rank(a.effect) ? { ...b, confirm } : { ...a, confirm };
}

/** Every tool a server may offer, as far as Steward knows: its allowlist, else its package's shipped tools and the user's settings for it. */
function serverTools(graph: WorkflowGraph, serverId: string): string[] | undefined {
  const server = graph.servers.find((s) => s.id === serverId);
  if (!server) return undefined;
  if (server.tools) return server.tools;
  const shipped = server.package !== undefined && Object.hasOwn(SHIPPED_EFFECTS, server.package) ? SHIPPED_EFFECTS[server.package] : undefined;
  // Not a server Steward ships metadata for: what it offers is not known, so it is protected.
  if (!shipped) return undefined;
  const own = Object.keys(graph.tool_effects).filter((k) => k.startsWith(`${serverId}/`)).map((k) => k.slice(serverId.length + 1));
  return [...new Set([...Object.keys(shipped.tools), ...own])];
}

function toolFound(graph: WorkflowGraph, node: string, serverId: string, tool: string): Found {
  const server = graph.servers.find((s) => s.id === serverId);
  const resolved = resolveToolEffect({ serverId, ...(server?.package !== undefined ? { packageName: server.package } : {}), tool, overrides: graph.tool_effects });
  return { effect: resolved.effect.effect, confirm: resolved.effect.requires_user_confirmation, because: `node ${node} (tool ${serverId}/${tool}): ${EFFECT_LABELS[resolved.effect.effect]}` };
}

function nodeFound(graph: WorkflowGraph, node: WorkflowNode, childOf: (id: string) => WorkflowGraph | undefined, chain: readonly string[]): Found {
  const child = (id: string, how: string): Found => {
    const g = chain.includes(id) || chain.length >= MAX_WORKFLOW_DEPTH ? undefined : childOf(id);
    if (!g) return { effect: 'unknown', confirm: false, because: `node ${node.id} ${how} ${JSON.stringify(id)}, which cannot be read here: unknown, so protected` };
    const inner = effectOf(g, childOf, [...chain, id]);
    return { ...inner, because: `node ${node.id} ${how} ${JSON.stringify(id)}: ${inner.because}` };
  };
  switch (node.kind) {
    case 'tool':
      return toolFound(graph, node.id, node.server, node.tool);
    case 'agent':
    case 'pattern': {
      let found = READ;
      for (const serverId of node.servers ?? graph.servers.map((s) => s.id)) {
        const tools = serverTools(graph, serverId);
        if (!tools) return { effect: 'unknown', confirm: false, because: `node ${node.id} may call any tool of server ${serverId}, whose tools nobody described: unknown, so protected` };
        for (const tool of tools) found = most(found, toolFound(graph, node.id, serverId, tool));
      }
      if (node.kind === 'agent') for (const id of node.workflow_tools ?? []) found = most(found, child(id, 'may run the workflow'));
      if (node.kind === 'pattern') for (const id of node.members.flatMap((m) => m.workflow_tools ?? [])) found = most(found, child(id, 'may run the workflow'));
      return found;
    }
    case 'workflow':
      return child(node.workflow, 'runs the workflow');
    case 'input':
    case 'output':
    case 'template':
    case 'assert':
    case 'iterate':
    case 'collect':
      return READ;
  }
}

function effectOf(graph: WorkflowGraph, childOf: (id: string) => WorkflowGraph | undefined, chain: readonly string[]): Found {
  let found = READ;
  for (const node of graph.nodes) found = most(found, nodeFound(graph, node, childOf, chain));
  return found;
}

/** The effect a stored workflow gets as a tool: its most protected node's (`childOf` reads the workflows it runs). */
export function workflowEffect(graph: WorkflowGraph, childOf: (id: string) => WorkflowGraph | undefined): WorkflowEffect {
  const found = effectOf(graph, childOf, [graph.id]);
  return { effect: { effect: found.effect, requires_user_confirmation: found.confirm, idempotency_supported: false, sensitive_arguments: [] }, because: found.because };
}
