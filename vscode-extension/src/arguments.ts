// The program's own arguments as a person types them in one line ("AutoDD: Minimize
// with arguments…"), split into the list the server takes (`args`, the CLI's
// `-- ARG...`), and back (the input box is prefilled from `autodd.args`). Split as a
// POSIX shell would split a plain command line: blanks separate words, '…' keeps
// everything literally, "…" keeps everything but a backslash before " \ $ `, a
// backslash outside quotes keeps the next character. No expansion of any kind
// ($VAR, globs, ~): the arguments reach the program exactly as typed.
// Pure module (no `vscode` import) so unit tests can load it.

/** The words of `line`, or `{error}` (an unclosed quote, a trailing backslash). */
export function splitArgs(line: string): string[] | { error: string } {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote === "'") {
      if (c === "'") quote = undefined;
      else word += c;
    } else if (quote === '"') {
      if (c === '"') quote = undefined;
      else if (c === '\\' && i + 1 < line.length && '"\\$`'.includes(line[i + 1])) word += line[++i];
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else if (c === '\\') {
      if (i + 1 >= line.length) return { error: 'a backslash ends the line: nothing follows it' };
      word += line[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (quote) return { error: `the quote ${quote} is not closed` };
  if (inWord) words.push(word);
  return words;
}

/** `args` as one line that `splitArgs` gives back unchanged (words quoted only where needed). */
export function joinArgs(args: readonly string[]): string {
  return args.map((a) => (a !== '' && /^[A-Za-z0-9_@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}
