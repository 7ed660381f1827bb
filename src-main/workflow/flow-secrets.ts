import { checkWalkDepth } from '@shared/util/json-depth';
import { MASK } from '@shared/util/mask';
import { setOwn } from '@shared/util/set-own';
import type { WorkflowGraph } from '@shared/workflow/document';
import type { SchedulerEvent } from '@shared/workflow/scheduler';
import { flowsAnySensitive, sensitiveFlow, type PortMask, type SensitiveFlow } from '@shared/workflow/sensitive-flow';
import { MIN_MASKABLE_LENGTH, type SecretRegistry } from '../credentials/secret-registry';

type Ports = Record<string, unknown>;

/**
 * A workflow run's values that flow into a sensitive tool argument (sensitive-flow.ts), masked from
 * where they enter: the run's inputs, a node's outputs, the ports they reach. Each value is learnt
 * before the first event that carries it: long ones join the run's SecretRegistry (masked by value in
 * every event, prompt and result from then on); every one, short or a number, is masked where the
 * flow puts it, and short ones by value in the inputs, outputs and messages of the nodes it reaches
 * (searched everywhere they would mangle ids and prose). Only the tool call itself gets the value.
 */
export class FlowSecrets {
  private readonly flow: SensitiveFlow;
  private readonly active: boolean;
  /** What of the run's outputs is sensitive: the output nodes' fields, by name. */
  private readonly results = new Map<string, PortMask>();
  /** Values too short for the registry (and numbers' digits): masked by value where the flow reaches only. */
  private readonly near = new Set<string>();
  private nearPattern: RegExp | undefined;
  /** Whether any value bound for a sensitive argument entered the run (short ones and numbers too). */
  private holding = false;

  constructor(
    graph: Pick<WorkflowGraph, 'nodes' | 'edges' | 'servers' | 'tool_effects'>,
    private readonly secrets: SecretRegistry,
  ) {
    this.flow = sensitiveFlow(graph);
    this.active = flowsAnySensitive(this.flow);
    for (const node of graph.nodes) {
      if (node.kind !== 'output') continue;
      for (const [field, mask] of this.flow.inputs.get(node.id) ?? []) this.results.set(field, mask);
    }
  }

  /** The graph carries a value into a sensitive argument somewhere. */
  get flows(): boolean {
    return this.active;
  }

  /** A value bound for a sensitive argument entered the run: what keeps the run waiting must be sealed. */
  get holdsValues(): boolean {
    return this.holding;
  }

  /** The run's inputs entered (at its start, or read back from a checkpoint to resume). */
  entered(inputs: Ports): void {
    for (const [field, mask] of this.flow.fields) if (Object.hasOwn(inputs, field)) this.learn(inputs[field], mask);
  }

  /** A node produced outputs (a stream: one element's; a tool: its result, before its own events show it). */
  produced(node: string, outputs: Ports): void {
    for (const [port, mask] of this.flow.outputs.get(node) ?? []) if (Object.hasOwn(outputs, port)) this.learn(outputs[port], mask);
  }

  /**
   * A run read back from its checkpoint learns again what its scheduler log brought in (each process
   * has a new registry), before it shows anything. `nodeOf`: the node of an invocation id.
   */
  replayed(events: readonly SchedulerEvent[], nodeOf: (invocationId: string) => string | undefined): void {
    for (const event of events) {
      if (event.type === 'start') this.entered(event.inputs);
      const node = event.type === 'done' || event.type === 'emit' ? nodeOf(event.id) : undefined;
      if (node === undefined) continue;
      if (event.type === 'done') this.produced(node, event.outputs);
      else if (event.type === 'emit') this.produced(node, { [event.port]: event.value });
    }
  }

  /** The run's inputs as its start event and results show them. */
  maskFields(inputs: Ports): Ports {
    return this.maskPorts(inputs, this.flow.fields, true);
  }

  /** A node's inputs as its events show them (and as an agent's or a pattern's models see them). */
  maskInputs(node: string, inputs: Ports): Ports {
    return this.maskPorts(inputs, this.flow.inputs.get(node), this.flow.reached.has(node));
  }

  maskOutputs(node: string, outputs: Ports): Ports {
    return this.maskPorts(outputs, this.flow.outputs.get(node), this.flow.reached.has(node));
  }

  /** The run's outputs (run.finished, the result, `--json`). */
  maskRunOutputs(outputs: Ports): Ports {
    return this.maskPorts(outputs, this.results, true);
  }

  /** A message about a node (its failure): a short value it was given may be quoted in it. */
  maskText(node: string, text: string): string {
    return this.flow.reached.has(node) ? this.maskNear(text) : text;
  }

  private maskPorts(values: Ports, masks: ReadonlyMap<string, PortMask> | undefined, nearToo: boolean): Ports {
    if (!this.active || (masks === undefined && (!nearToo || this.near.size === 0))) return values;
    const out: Ports = {};
    for (const [port, value] of Object.entries(values)) {
      const mask = masks?.get(port);
      const located = mask ? maskedBy(value, mask, 0) : value;
      setOwn(out, port, nearToo ? this.nearValues(located, 0) : located);
    }
    return out;
  }

  private learn(value: unknown, mask: PortMask): void {
    for (const found of valuesUnder(value, mask)) {
      if (found === MASK || found === '') continue;
      this.holding = true;
      // Strings the registry searches everywhere; shorter ones and numbers only near the flow.
      const registered = typeof found === 'string' && this.secrets.registerSensitive(found);
      const text = String(found);
      if (!registered && text.length >= MIN_MASKABLE_LENGTH && !this.near.has(text)) {
        this.near.add(text);
        this.nearPattern = undefined;
      }
    }
  }

  private nearValues(value: unknown, depth: number): unknown {
    checkWalkDepth(depth);
    if (this.near.size === 0) return value;
    if (typeof value === 'string') return this.maskNear(value);
    if (typeof value === 'number') return this.near.has(String(value)) ? MASK : value;
    if (Array.isArray(value)) return value.map((item: unknown) => this.nearValues(item, depth + 1));
    if (isRecord(value)) {
      const out: Ports = {};
      for (const [key, item] of Object.entries(value)) setOwn(out, key, this.nearValues(item, depth + 1));
      return out;
    }
    return value;
  }

  private maskNear(text: string): string {
    if (this.near.size === 0) return text;
    // Longest first: a value that contains another is masked whole.
    this.nearPattern ??= new RegExp([...this.near].sort((a, b) => b.length - a.length).map(escapeRegExp).join('|'), 'g');
    return text.replace(this.nearPattern, MASK);
  }
}

/** The value with what the mask names replaced by MASK: all of it, or what sits under its keys at any depth. */
function maskedBy(value: unknown, mask: PortMask, depth: number): unknown {
  checkWalkDepth(depth);
  if (value === undefined || value === null) return value;
  if (mask.whole) return MASK;
  if (Array.isArray(value)) return value.map((item: unknown) => maskedBy(item, mask, depth + 1));
  if (isRecord(value)) {
    const out: Ports = {};
    for (const [key, item] of Object.entries(value)) setOwn(out, key, mask.keys.has(key) ? MASK : maskedBy(item, mask, depth + 1));
    return out;
  }
  return value;
}

/** The strings and numbers the mask makes sensitive in a value. */
function valuesUnder(value: unknown, mask: PortMask): Array<string | number> {
  const found: Array<string | number> = [];
  const all = (v: unknown, depth: number): void => {
    checkWalkDepth(depth);
    if (typeof v === 'string') found.push(v);
    else if (typeof v === 'number' && Number.isFinite(v)) found.push(v);
    else if (Array.isArray(v)) for (const item of v) all(item, depth + 1);
    else if (isRecord(v)) for (const item of Object.values(v)) all(item, depth + 1);
  };
  const under = (v: unknown, depth: number): void => {
    checkWalkDepth(depth);
    if (Array.isArray(v)) for (const item of v) under(item, depth + 1);
    else if (isRecord(v)) for (const [key, item] of Object.entries(v)) (mask.keys.has(key) ? all : under)(item, depth + 1);
  };
  (mask.whole ? all : under)(value, 0);
  return found;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
