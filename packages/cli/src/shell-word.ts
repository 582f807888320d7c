/** Quotes a file name for a command the user will copy and paste, only when a shell would split or expand it. */
export function shellWord(text: string): string {
  return /^[\w./@%+=:,-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}
