/**
 * Regular expressions matched in linear time (a Thompson NFA simulation), for assert checks on
 * values that come from models and tools. JavaScript's backtracking engine takes seconds on
 * `a*b` over 100,000 characters and minutes on `a*a*b` over 10,000; here every pattern runs in
 * O(value × pattern). Single-character atoms (literals, `.`, classes, `\d`, `\p{…}`) are tested
 * with the native engine one character at a time, so they keep JavaScript's exact meaning; the
 * pattern's structure (sequence, `|`, groups, quantifiers, `^ $ \b \B`) is simulated here.
 * Backreferences and lookarounds cannot run in linear time and are refused.
 */

/**
 * `states`: the compiled pattern's size; a match visits at most `states` × (characters + 1) states.
 * `maxLength`: the longest value this pattern checks within the work bound (states × characters).
 */
export type LinearRegex = { ok: true; test: (text: string) => boolean; states: number; maxLength: number } | { ok: false; message: string };

/** Counted repeats copy their group; past this many states a pattern is refused. */
const MAX_STATES = 5_000;
/** States × characters: about a second of simulation at worst. */
const MAX_WORK = 50_000_000;

type Ast =
  | { k: 'empty' }
  | { k: 'atom'; source: string }
  | { k: 'assert'; kind: '^' | '$' | 'b' | 'B' }
  | { k: 'seq'; items: Ast[] }
  | { k: 'alt'; options: Ast[] }
  | { k: 'repeat'; child: Ast; min: number; max?: number };

type State =
  | { t: 'atom'; test: (c: string) => boolean; next: number }
  | { t: 'split'; a: number; b: number }
  | { t: 'assert'; kind: '^' | '$' | 'b' | 'B'; next: number }
  | { t: 'match' };

class Refused extends Error {}

/** States visited by every match so far: the work, counted so tests bound it without a clock (one add per match). */
let visitedStates = 0;
export const linearRegexWork = (): number => visitedStates;

export function compileLinearRegex(pattern: string, flags = ''): LinearRegex {
  try {
    new RegExp(pattern, flags);
  } catch (err) {
    return { ok: false, message: `the pattern is not a valid regular expression: ${err instanceof Error ? err.message : String(err)}` };
  }
  try {
    const unicode = flags.includes('u');
    const ast = new Parser(unicode ? Array.from(pattern) : pattern.split('')).parse();
    const states: State[] = [{ t: 'match' }];
    const atomFlags = flags.replace(/[gmy]/g, '');
    const start = compile(ast, 0, states, atomFlags);
    const multiline = flags.includes('m');
    return { ok: true, test: (text) => run(states, start, unicode ? Array.from(text) : text.split(''), multiline), states: states.length, maxLength: Math.floor(MAX_WORK / states.length) };
  } catch (err) {
    if (err instanceof Refused) return { ok: false, message: err.message };
    throw err;
  }
}

class Parser {
  private i = 0;
  constructor(private readonly p: string[]) {}

  parse(): Ast {
    const ast = this.alt();
    if (this.i < this.p.length) throw new Refused(`the pattern has an unmatched ) at ${this.i}`);
    return ast;
  }

  private alt(): Ast {
    const options = [this.seq()];
    while (this.p[this.i] === '|') {
      this.i++;
      options.push(this.seq());
    }
    return options.length === 1 ? (options[0] as Ast) : { k: 'alt', options };
  }

  private seq(): Ast {
    const items: Ast[] = [];
    while (this.i < this.p.length && this.p[this.i] !== '|' && this.p[this.i] !== ')') {
      const atom = this.atom();
      items.push(this.quantified(atom));
    }
    return items.length === 1 ? (items[0] as Ast) : { k: 'seq', items };
  }

  private quantified(atom: Ast): Ast {
    let result = atom;
    for (;;) {
      const c = this.p[this.i];
      let min: number;
      let max: number | undefined;
      if (c === '*') [min, max] = [0, undefined];
      else if (c === '+') [min, max] = [1, undefined];
      else if (c === '?') [min, max] = [0, 1];
      else if (c === '{') {
        const counted = /^\{(\d+)(,(\d*))?\}/.exec(this.p.slice(this.i, this.i + 24).join(''));
        if (!counted) return result;
        min = Number(counted[1]);
        max = counted[2] === undefined ? min : counted[3] === '' ? undefined : Number(counted[3]);
        this.i += counted[0].length - 1;
      } else return result;
      this.i++;
      if (this.p[this.i] === '?') this.i++; // lazy: the same matches exist, only their order differs
      result = { k: 'repeat', child: result, min, max };
    }
  }

  private atom(): Ast {
    const c = this.p[this.i] as string;
    if (c === '(') {
      this.i++;
      if (this.p[this.i] === '?') {
        const next = this.p[this.i + 1];
        if (next === ':') this.i += 2;
        else if (next === '<' && this.p[this.i + 2] !== '=' && this.p[this.i + 2] !== '!') {
          while (this.p[this.i] !== '>') this.i++;
          this.i++;
        } else throw new Refused('the pattern uses a lookaround, which cannot be matched in linear time');
      }
      const inner = this.alt();
      this.i++; // ')' (the native engine already checked the pattern)
      return inner;
    }
    if (c === '^' || c === '$') {
      this.i++;
      return { k: 'assert', kind: c };
    }
    if (c === '[') {
      const from = this.i;
      for (this.i++; this.i < this.p.length && this.p[this.i] !== ']'; this.i++) if (this.p[this.i] === '\\') this.i++;
      this.i++;
      return { k: 'atom', source: this.p.slice(from, this.i).join('') };
    }
    if (c === '\\') return this.escape();
    this.i++;
    return { k: 'atom', source: c === '.' ? '.' : escapeLiteral(c) };
  }

  private escape(): Ast {
    const next = this.p[this.i + 1] ?? '';
    if (next === 'b' || next === 'B') {
      this.i += 2;
      return { k: 'assert', kind: next };
    }
    if (/[1-9]/.test(next) || next === 'k') throw new Refused('the pattern uses a backreference, which cannot be matched in linear time');
    const rest = this.p.slice(this.i, this.i + 16).join('');
    const sized = /^\\(x[0-9a-fA-F]{2}|u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|c[A-Za-z]|[pP]\{[^}]*\})/.exec(rest);
    const length = sized ? sized[0].length : 2;
    const source = this.p.slice(this.i, this.i + length).join('');
    this.i += length;
    return { k: 'atom', source };
  }
}

function escapeLiteral(c: string): string {
  return /[\\^$.*+?()[\]{}|/]/.test(c) ? `\\${c}` : c;
}

/** Builds the states for `ast` followed by state `next`; returns the entry state. */
function compile(ast: Ast, next: number, states: State[], flags: string): number {
  const add = (state: State): number => {
    if (states.length >= MAX_STATES) throw new Refused(`the pattern is too large to check (over ${MAX_STATES} states once its counted repeats are expanded)`);
    states.push(state);
    return states.length - 1;
  };
  switch (ast.k) {
    case 'empty':
      return next;
    case 'atom':
      return add({ t: 'atom', test: singleCharTest(ast.source, flags), next });
    case 'assert':
      return add({ t: 'assert', kind: ast.kind, next });
    case 'seq':
      return ast.items.reduceRight((n, item) => compile(item, n, states, flags), next);
    case 'alt':
      return ast.options.map((o) => compile(o, next, states, flags)).reduceRight((b, a) => add({ t: 'split', a, b }));
    case 'repeat': {
      let n = next;
      if (ast.max === undefined) {
        const loop = add({ t: 'split', a: -1, b: next });
        (states[loop] as { a: number }).a = compile(ast.child, loop, states, flags);
        n = loop;
      } else {
        for (let i = ast.min; i < ast.max; i++) n = add({ t: 'split', a: compile(ast.child, n, states, flags), b: next });
      }
      for (let i = 0; i < ast.min; i++) n = compile(ast.child, n, states, flags);
      return n;
    }
  }
}

/** One character against a native one-atom pattern, cached per character. */
function singleCharTest(source: string, flags: string): (c: string) => boolean {
  const re = new RegExp(`^(?:${source})$`, flags);
  const seen = new Map<string, boolean>();
  return (c) => {
    let hit = seen.get(c);
    if (hit === undefined) {
      hit = re.test(c);
      if (seen.size < 4096) seen.set(c, hit);
    }
    return hit;
  };
}

const LINE_END = /[\n\r\u2028\u2029]/;
const WORD = /[A-Za-z0-9_]/;

function run(states: State[], start: number, text: string[], multiline: boolean): boolean {
  const mark = new Int32Array(states.length).fill(-1);
  let generation = 0;
  let visits = 0;
  let matched = false;
  const holds = (kind: '^' | '$' | 'b' | 'B', pos: number): boolean => {
    const before = text[pos - 1];
    const after = text[pos];
    if (kind === '^') return pos === 0 || (multiline && before !== undefined && LINE_END.test(before));
    if (kind === '$') return pos === text.length || (multiline && after !== undefined && LINE_END.test(after));
    const boundary = (before !== undefined && WORD.test(before)) !== (after !== undefined && WORD.test(after));
    return kind === 'b' ? boundary : !boundary;
  };
  /** Follows splits and assertions from `from`, collecting the atom states reached. */
  const addThread = (list: number[], from: number, pos: number): void => {
    const stack = [from];
    for (let s = stack.pop(); s !== undefined; s = stack.pop()) {
      if (mark[s] === generation) continue;
      mark[s] = generation;
      visits++;
      const state = states[s] as State;
      if (state.t === 'match') matched = true;
      else if (state.t === 'atom') list.push(s);
      else if (state.t === 'split') stack.push(state.b, state.a);
      else if (holds(state.kind, pos)) stack.push(state.next);
    }
  };
  let current: number[] = [];
  addThread(current, start, 0);
  for (let pos = 0; !matched && pos < text.length; pos++) {
    generation++;
    const next: number[] = [];
    const c = text[pos] as string;
    for (const s of current) {
      const state = states[s] as Extract<State, { t: 'atom' }>;
      if (state.test(c)) addThread(next, state.next, pos + 1);
    }
    addThread(next, start, pos + 1); // unanchored: a match may start at any position
    current = next;
  }
  visitedStates += visits;
  return matched;
}
