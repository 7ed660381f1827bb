/**
 * The `expression` verifier's language (issue 29, seed 002: domain judgment as a deterministic
 * verifier). No expression library is installed (jsonata, filtrex, expr-eval, jexl: none), and
 * eval/Function are never used, so this is a tiny comparison language with its own parser:
 *
 *   json.score >= 0.8 and length(json.items) > 0 and not (output contains "TODO")
 *
 * Values: numbers, "strings" or 'strings', true, false, null; the candidate as `output` (its
 * text), `json` (its text read as JSON, else null), `outputs` (the member outputs: id, member_id,
 * text), `iteration` and `step`; paths `json.a.b`, `json.items[0]` (own properties only).
 * Operators: == != < <= > >= contains, and or not, parentheses. Functions: length(x), number(x),
 * lower(x). Bounded: at most 1,000 characters and 32 levels of nesting. An ordering of values that
 * are not both numbers or both strings is false, and said so.
 */

export const MAX_EXPRESSION_CHARS = 1000;
const MAX_DEPTH = 32;

export const EXPRESSION_NAMES = ['output', 'json', 'outputs', 'iteration', 'step'] as const;
const NAMES: ReadonlySet<string> = new Set(EXPRESSION_NAMES);
const FUNCTIONS = ['length', 'number', 'lower'] as const;
type FunctionName = (typeof FUNCTIONS)[number];
const FUNCTION_NAMES: ReadonlySet<string> = new Set(FUNCTIONS);
const COMPARISONS = ['==', '!=', '<=', '>=', '<', '>', 'contains'] as const;
type Comparison = (typeof COMPARISONS)[number];

type Node =
  | { kind: 'literal'; value: unknown; src: string }
  | { kind: 'path'; root: string; steps: Array<string | number>; src: string }
  | { kind: 'call'; fn: FunctionName; arg: Node; src: string }
  | { kind: 'not'; arg: Node; src: string }
  | { kind: 'logic'; op: 'and' | 'or'; left: Node; right: Node; src: string }
  | { kind: 'compare'; op: Comparison; left: Node; right: Node; src: string };

export interface CompiledExpression {
  readonly source: string;
  readonly root: Node;
}

export type CompileResult = { ok: true; expression: CompiledExpression } | { ok: false; problem: string };

type Token = ({ kind: 'num'; value: number } | { kind: 'str'; value: string } | { kind: 'word'; value: string } | { kind: 'op'; value: string }) & { at: number; end: number };

class ExpressionError extends Error {}

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text.charAt(i);
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const num = /^\d+(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 64));
    if (num) {
      tokens.push({ kind: 'num', value: Number(num[0]), at: i, end: i + num[0].length });
      i += num[0].length;
      continue;
    }
    if (c === '"' || c === "'") {
      let value = '';
      let j = i + 1;
      for (; j < text.length && text.charAt(j) !== c; j++) {
        if (text.charAt(j) === '\\' && j + 1 < text.length) j++;
        value += text.charAt(j);
      }
      if (j >= text.length) throw new ExpressionError(`the text that starts at character ${i + 1} is never closed with ${c}`);
      tokens.push({ kind: 'str', value, at: i, end: j + 1 });
      i = j + 1;
      continue;
    }
    const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i, i + 128));
    if (word) {
      tokens.push({ kind: 'word', value: word[0], at: i, end: i + word[0].length });
      i += word[0].length;
      continue;
    }
    const op = ['==', '!=', '<=', '>=', '<', '>', '(', ')', '[', ']', '.', ','].find((o) => text.startsWith(o, i));
    if (op === undefined) throw new ExpressionError(`“${c}” at character ${i + 1} is not part of the language (use == != < <= > >= contains and or not)`);
    tokens.push({ kind: 'op', value: op, at: i, end: i + op.length });
    i += op.length;
  }
  return tokens;
}

class Parser {
  private i = 0;
  constructor(
    private readonly tokens: Token[],
    private readonly text: string,
  ) {}

  parse(): Node {
    const node = this.or(0);
    const extra = this.tokens[this.i];
    if (extra) throw new ExpressionError(`unexpected “${this.text.slice(extra.at, extra.at + 12).trim()}” at character ${extra.at + 1}`);
    return node;
  }

  private peek(): Token | undefined {
    return this.tokens[this.i];
  }
  private isWord(value: string): boolean {
    const t = this.peek();
    return t?.kind === 'word' && t.value === value;
  }
  private isOp(value: string): boolean {
    const t = this.peek();
    return t?.kind === 'op' && t.value === value;
  }
  private expectOp(value: string): void {
    const t = this.peek();
    if (!this.isOp(value)) throw new ExpressionError(t ? `expected “${value}” at character ${t.at + 1}` : `expected “${value}” at the end`);
    this.i++;
  }
  private src(from: number): string {
    const start = this.tokens[from]?.at ?? this.text.length;
    const end = this.tokens[this.i - 1]?.end ?? start;
    return this.text.slice(start, Math.max(start, end));
  }
  private depth(d: number): number {
    if (d > MAX_DEPTH) throw new ExpressionError(`the expression nests deeper than ${MAX_DEPTH} levels`);
    return d + 1;
  }

  private or(d: number): Node {
    const from = this.i;
    let left = this.and(this.depth(d));
    while (this.isWord('or')) {
      this.i++;
      const right = this.and(this.depth(d));
      left = { kind: 'logic', op: 'or', left, right, src: this.src(from) };
    }
    return left;
  }
  private and(d: number): Node {
    const from = this.i;
    let left = this.not(this.depth(d));
    while (this.isWord('and')) {
      this.i++;
      const right = this.not(this.depth(d));
      left = { kind: 'logic', op: 'and', left, right, src: this.src(from) };
    }
    return left;
  }
  private not(d: number): Node {
    const from = this.i;
    if (this.isWord('not')) {
      this.i++;
      const arg = this.not(this.depth(d));
      return { kind: 'not', arg, src: this.src(from) };
    }
    return this.compare(this.depth(d));
  }
  private compare(d: number): Node {
    const from = this.i;
    const left = this.primary(this.depth(d));
    const t = this.peek();
    const op = COMPARISONS.find((c) => (c === 'contains' ? this.isWord('contains') : t?.kind === 'op' && t.value === c));
    if (op === undefined) return left;
    this.i++;
    const right = this.primary(this.depth(d));
    return { kind: 'compare', op, left, right, src: this.src(from) };
  }
  private primary(d: number): Node {
    const from = this.i;
    const t = this.peek();
    if (!t) throw new ExpressionError('the expression ends where a value was expected');
    this.i++;
    if (t.kind === 'num' || t.kind === 'str') return { kind: 'literal', value: t.value, src: this.src(from) };
    if (t.kind === 'op' && t.value === '(') {
      const inner = this.or(this.depth(d));
      this.expectOp(')');
      return inner;
    }
    if (t.kind === 'op') throw new ExpressionError(`unexpected “${t.value}” at character ${t.at + 1}`);
    if (t.value === 'true' || t.value === 'false') return { kind: 'literal', value: t.value === 'true', src: t.value };
    if (t.value === 'null') return { kind: 'literal', value: null, src: 'null' };
    if (this.isOp('(')) {
      if (!FUNCTION_NAMES.has(t.value)) throw new ExpressionError(`there is no function “${t.value}” (use ${FUNCTIONS.join(', ')})`);
      this.i++;
      const arg = this.or(this.depth(d));
      this.expectOp(')');
      return { kind: 'call', fn: t.value as FunctionName, arg, src: this.src(from) };
    }
    if (!NAMES.has(t.value)) throw new ExpressionError(`“${t.value}” at character ${t.at + 1} names nothing (use ${EXPRESSION_NAMES.join(', ')})`);
    const steps: Array<string | number> = [];
    for (;;) {
      if (this.isOp('.')) {
        this.i++;
        const name = this.peek();
        if (name?.kind !== 'word') throw new ExpressionError(`a property name must follow “.” at character ${(name?.at ?? this.text.length) + 1}`);
        this.i++;
        steps.push(name.value);
      } else if (this.isOp('[')) {
        this.i++;
        const index = this.peek();
        if (index?.kind !== 'num' && index?.kind !== 'str') throw new ExpressionError(`an index must be a number or a "name" inside [ ] at character ${(index?.at ?? this.text.length) + 1}`);
        this.i++;
        this.expectOp(']');
        steps.push(index.value);
      } else break;
    }
    return { kind: 'path', root: t.value, steps, src: this.src(from) };
  }
}

/** Compile once (a workflow's validation and every judgment use the same check); the problem in words. */
export function compileExpression(source: string): CompileResult {
  if (source.trim() === '') return { ok: false, problem: 'the expression is empty' };
  if (source.length > MAX_EXPRESSION_CHARS) return { ok: false, problem: `the expression is longer than ${MAX_EXPRESSION_CHARS} characters` };
  try {
    const root = new Parser(tokenize(source), source).parse();
    return { ok: true, expression: { source, root } };
  } catch (err) {
    if (err instanceof ExpressionError) return { ok: false, problem: `the expression ${JSON.stringify(source)} cannot be used: ${err.message}` };
    throw err;
  }
}

/** What an expression reads: the candidate under judgment. */
export interface ExpressionScope {
  output: string;
  json: unknown;
  outputs: ReadonlyArray<{ id: string; member_id: string; text: string }>;
  iteration: number;
  step: number;
}

export type EvaluationResult = { passed: true } | { passed: false; problems: string[] };

const shown = (v: unknown): string => {
  if (v === undefined) return 'missing';
  const text = typeof v === 'string' ? JSON.stringify(v) : (JSON.stringify(v) ?? String(v));
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
};

function read(node: Extract<Node, { kind: 'path' }>, scope: ExpressionScope): unknown {
  const rootValues = new Map<string, unknown>([
    ['output', scope.output],
    ['json', scope.json],
    ['outputs', scope.outputs],
    ['iteration', scope.iteration],
    ['step', scope.step],
  ]);
  let value = rootValues.get(node.root);
  for (const step of node.steps) {
    if (Array.isArray(value) && typeof step === 'number') value = Number.isInteger(step) && step >= 0 && step < value.length ? (value[step] as unknown) : undefined;
    else if (value !== null && typeof value === 'object' && !Array.isArray(value) && Object.hasOwn(value, String(step))) value = (value as Record<string, unknown>)[String(step)];
    else return undefined;
  }
  return value;
}

function call(fn: FunctionName, arg: unknown): unknown {
  switch (fn) {
    case 'length':
      if (typeof arg === 'string' || Array.isArray(arg)) return arg.length;
      return arg !== null && typeof arg === 'object' ? Object.keys(arg).length : undefined;
    case 'number':
      if (typeof arg === 'number') return arg;
      return typeof arg === 'string' && /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/.test(arg) ? Number(arg) : undefined;
    case 'lower':
      return typeof arg === 'string' ? arg.toLowerCase() : undefined;
  }
}

const same = (a: unknown, b: unknown): boolean => (a === undefined ? b === undefined || b === null : JSON.stringify(a) === JSON.stringify(b));

function compare(op: Comparison, a: unknown, b: unknown): boolean {
  switch (op) {
    case '==':
      return same(a, b);
    case '!=':
      return !same(a, b);
    case 'contains':
      if (typeof a === 'string' && typeof b === 'string') return a.includes(b);
      return Array.isArray(a) && a.some((x) => same(x, b));
    default: {
      const ordered = (typeof a === 'number' && typeof b === 'number') || (typeof a === 'string' && typeof b === 'string');
      if (!ordered) return false;
      const [x, y] = [a as number | string, b as number | string];
      return op === '<' ? x < y : op === '<=' ? x <= y : op === '>' ? x > y : x >= y;
    }
  }
}

function value(node: Node, scope: ExpressionScope): unknown {
  switch (node.kind) {
    case 'literal':
      return node.value;
    case 'path':
      return read(node, scope);
    case 'call':
      return call(node.fn, value(node.arg, scope));
    case 'not':
      return !truth(node.arg, scope);
    case 'logic':
      return node.op === 'and' ? truth(node.left, scope) && truth(node.right, scope) : truth(node.left, scope) || truth(node.right, scope);
    case 'compare':
      return compare(node.op, value(node.left, scope), value(node.right, scope));
  }
}

const truth = (node: Node, scope: ExpressionScope): boolean => value(node, scope) === true;

/** Why one failed part does not hold, with the values it read. */
function why(node: Node, scope: ExpressionScope): string {
  if (node.kind === 'compare') {
    const parts = [node.left, node.right].filter((n) => n.kind !== 'literal').map((n) => `${n.src} is ${shown(value(n, scope))}`);
    const a = value(node.left, scope);
    const b = value(node.right, scope);
    const unordered = ['<', '<=', '>', '>='].includes(node.op) && !((typeof a === 'number' && typeof b === 'number') || (typeof a === 'string' && typeof b === 'string'));
    return `“${node.src}” does not hold${parts.length > 0 ? ` (${parts.join(', ')}${unordered ? ': not two numbers or two texts' : ''})` : ''}`;
  }
  if (node.kind === 'path' || node.kind === 'call') return `“${node.src}” is ${shown(value(node, scope))}, not true`;
  return `“${node.src}” does not hold`;
}

/** Every failed part of a top-level `and`, each in words; an expression that holds passes. */
export function evaluateExpression(expression: CompiledExpression, scope: ExpressionScope): EvaluationResult {
  if (truth(expression.root, scope)) return { passed: true };
  const parts: Node[] = [];
  const collect = (n: Node): void => {
    if (n.kind === 'logic' && n.op === 'and') {
      collect(n.left);
      collect(n.right);
    } else parts.push(n);
  };
  collect(expression.root);
  return { passed: false, problems: parts.filter((p) => !truth(p, scope)).map((p) => why(p, scope)) };
}
