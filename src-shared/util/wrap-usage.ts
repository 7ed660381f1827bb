/** The terminal width a command's help is written for. */
export const USAGE_COLUMNS = 100;

const width = (text: string) => [...text].length;

/**
 * A command's help with every line wider than `columns` wrapped at its spaces, the way it was laid
 * out: a row of two columns ("  delete   what it does", "  steward x Y     what it does") goes on
 * under its second column, a synopsis ("  steward runs list [--status S]…") four spaces further in
 * than it starts, any other line under its own start; an option in brackets is never split. Lines
 * that fit are left exactly as written, so a help whose parts are put together from other text (a
 * shared sentence, a list of values) still reads in a terminal.
 */
export function wrapUsage(text: string, columns = USAGE_COLUMNS): string {
  return text
    .split('\n')
    .flatMap((line) => wrapLine(line, columns))
    .join('\n');
}

function wrapLine(line: string, columns: number): string[] {
  if (width(line) <= columns) return [line];
  const lead = /^ */.exec(line)![0].length;
  // The first gap of two or more spaces after some text starts a row's second column (when it leaves room to write in).
  const gap = /^ *\S(?:.*?\S)? {2,}(?=\S)/.exec(line);
  const column = gap && width(gap[0]) <= columns - MIN_ROOM ? width(gap[0]) : undefined;
  const start = column ?? lead;
  const under = column ?? (line.slice(lead).startsWith('steward ') ? lead + 4 : lead);
  const lines: string[] = [];
  let current = [...line].slice(0, start).join('');
  let empty = true;
  for (const word of unbroken([...line].slice(start).join(''))) {
    if (!empty && width(current) + 1 + width(word) > columns) {
      lines.push(current);
      current = `${' '.repeat(under)}${word}`;
    } else {
      current = empty ? `${current}${word}` : `${current} ${word}`;
    }
    empty = false;
  }
  lines.push(current);
  return lines;
}

/** Columns a row's second column needs at least for it to be one. */
const MIN_ROOM = 30;

/** The words of a text, an option in brackets ("[--data-dir DIR]") kept whole as one. */
function unbroken(text: string): string[] {
  const words: string[] = [];
  let depth = 0;
  for (const word of text.split(/ +/).filter((w) => w !== '')) {
    if (depth > 0) words[words.length - 1] += ` ${word}`;
    else words.push(word);
    for (const c of word) depth = Math.max(0, depth + (c === '[' ? 1 : c === ']' ? -1 : 0));
  }
  return words;
}
