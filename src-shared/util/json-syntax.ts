/**
 * JSON.parse's own messages quote the text around the error ("Unexpected token 's', "{"key":
 * sk-…" is not valid JSON"), which would put a file's contents in an error the page sees. This
 * finds the first syntax error itself and describes it by line, column and what was expected.
 */
export interface JsonSyntaxError {
  line: number;
  column: number;
  /** What is wrong, in words that never include the text. */
  problem: string;
}

class Stop extends Error {
  constructor(
    readonly offset: number,
    readonly problem: string,
  ) {
    super(problem);
  }
}

/** The first syntax error of `text` as JSON, or undefined when it parses. */
export function findJsonSyntaxError(text: string): JsonSyntaxError | undefined {
  let i = 0;
  const ws = () => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  };
  const expectChar = (c: string, what: string) => {
    if (text[i] !== c) throw new Stop(i, i >= text.length ? `the file ends where ${what} was expected` : `expected ${what}`);
    i++;
  };
  const string = () => {
    expectChar('"', 'a string');
    for (;;) {
      if (i >= text.length) throw new Stop(i, 'a string is not closed');
      const c = text.charCodeAt(i);
      if (c === 0x22) return void i++;
      if (c < 0x20) throw new Stop(i, 'a control character inside a string');
      if (c === 0x5c) {
        const e = text[i + 1];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) throw new Stop(i, 'an invalid \\u escape');
          i += 6;
        } else if (e !== undefined && '"\\/bfnrt'.includes(e)) i += 2;
        else throw new Stop(i, 'an invalid escape in a string');
      } else i++;
    }
  };
  const number = () => {
    const m = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!m || m[0] === '-') throw new Stop(i, 'expected a value (string, number, object, array, true, false or null)');
    i += m[0].length;
  };
  const value = (depth: number): void => {
    if (depth > 512) throw new Stop(i, 'nested too deeply');
    ws();
    const c = text[i];
    if (c === undefined) throw new Stop(i, 'the file ends where a value was expected');
    if (c === '{') {
      i++;
      ws();
      if (text[i] === '}') return void i++;
      for (;;) {
        ws();
        if (text[i] !== '"') throw new Stop(i, 'expected a property name in double quotes');
        string();
        ws();
        expectChar(':', '":" after a property name');
        value(depth + 1);
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        expectChar('}', '"," or "}" after a property value');
        return;
      }
    }
    if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') return void i++;
      for (;;) {
        value(depth + 1);
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        expectChar(']', '"," or "]" after an array element');
        return;
      }
    }
    if (c === '"') return string();
    for (const word of ['true', 'false', 'null']) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return;
      }
    }
    number();
  };
  try {
    value(0);
    ws();
    if (i < text.length) throw new Stop(i, 'unexpected text after the end of the JSON value');
    return undefined;
  } catch (err) {
    if (!(err instanceof Stop)) throw err;
    return { ...lineColumn(text, err.offset), problem: err.problem };
  }
}

function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let k = 0; k < offset && k < text.length; k++) {
    if (text[k] === '\n') {
      line++;
      start = k + 1;
    }
  }
  return { line, column: offset - start + 1 };
}

/** Parses JSON; a syntax error becomes `line L, column C: problem`, never quoting the text. */
export function parseJsonText(text: string): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    const found = findJsonSyntaxError(text);
    return { ok: false, message: found ? `line ${found.line}, column ${found.column}: ${found.problem}` : 'not valid JSON' };
  }
}
