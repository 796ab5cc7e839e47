/**
 * A migration file's statements. Most files hold one; a file whose statements must be applied
 * together (re-run together after a crash halfway, recorded once all are done — e.g. 091's
 * "empty the copy, then copy") separates them with a `;` ending a line. Comment lines never split.
 */
export function splitStatements(sql: string): string[] {
  const statements: string[] = [];
  let current: string[] = [];
  for (const line of sql.split('\n')) {
    const code = !line.trimStart().startsWith('--');
    if (code && line.trimEnd().endsWith(';')) {
      current.push(line.trimEnd().slice(0, -1));
      statements.push(current.join('\n'));
      current = [];
    } else current.push(line);
  }
  statements.push(current.join('\n'));
  // A trailing `;` leaves only whitespace (or comments) behind: not a statement.
  return statements.filter((s) => s.replace(/^--.*$/gm, '').trim() !== '');
}
