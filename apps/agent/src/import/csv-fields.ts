/**
 * One CSV record's fields (RFC 4180 quoting: `"a, ""b"""` is `a, "b"`), for the tools whose
 * results are CSV with free text in some columns (JMeter's labels and messages). A quoted field
 * that runs past the end of the line — a newline inside a message — gives null: the line is
 * reported, not guessed at.
 */
export function csvFields(line: string, delimiter = ','): string[] | null {
  const fields: string[] = [];
  const sep = delimiter.charCodeAt(0);
  let i = 0;
  for (;;) {
    if (line.charCodeAt(i) === 34 /* " */) {
      let value = '';
      let from = i + 1;
      for (;;) {
        const q = line.indexOf('"', from);
        if (q === -1) return null;
        value += line.slice(from, q);
        if (line.charCodeAt(q + 1) === 34) {
          value += '"';
          from = q + 2;
        } else {
          i = q + 1;
          break;
        }
      }
      fields.push(value);
      if (i === line.length) return fields;
      if (line.charCodeAt(i) !== sep) return null;
      i += 1;
    } else {
      const end = line.indexOf(delimiter, i);
      if (end === -1) {
        fields.push(line.slice(i));
        return fields;
      }
      fields.push(line.slice(i, end));
      i = end + 1;
    }
  }
}
