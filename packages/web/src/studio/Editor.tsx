import { autocompletion, completionKeymap } from '@codemirror/autocomplete';
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { markdown } from '@codemirror/lang-markdown';
// A dependency of @codemirror/lang-markdown (the same instance it uses): syntax colours and brackets.
import { bracketMatching, defaultHighlightStyle, indentOnInput, syntaxHighlighting } from '@codemirror/language';
import { type Diagnostic as EditorDiagnostic, lintGutter, lintKeymap, setDiagnostics } from '@codemirror/lint';
import { Compartment, EditorState, type Extension } from '@codemirror/state';
import {
  drawSelection,
  dropCursor,
  EditorView,
  highlightActiveLine,
  highlightActiveLineGutter,
  highlightSpecialChars,
  keymap,
  lineNumbers,
} from '@codemirror/view';
import type { QuickFix } from '@ninepoint/spec';
import { useEffect, useRef } from 'react';
import { specCompletions } from './completions.ts';
import type { Located } from './locate.ts';

/**
 * The editor's state when the page last unmounted (saving remounts it, see draft.ts): the text,
 * the cursor and the undo history come back with it.
 */
let kept: EditorState | null = null;

/** Whether long lines wrap: reconfigured in place, so the text, cursor and history stay. */
const wrapping = new Compartment();

/** The mounted editor's change handler: the kept state's listener calls whichever page is mounted now. */
let changed: (text: string) => void = () => {};

export interface EditorProps {
  /** The text to start with; later replacements go through the view (`onReady`). */
  initial: string;
  /** The checker's answer and the text it is for: shown only while the editor still holds that text. */
  checked: { source: string; located: Located[] };
  onChange(text: string): void;
  onReady(view: EditorView | null): void;
  /** The editor's accessible name. */
  label: string;
  /** Whether long lines (wide table rows) wrap. */
  wrap: boolean;
}

/**
 * CodeMirror 6 with Markdown, line numbers and the checker's diagnostics as underlines (with the
 * message, the hint and the quick fixes in the tooltip and the lint panel, Ctrl-Shift-M).
 */
export function Editor({ initial, checked, onChange, onReady, label, wrap }: EditorProps) {
  const parent = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  changed = onChange;

  // The view is made once per mount; `initial` is read then only.
  // biome-ignore lint/correctness/useExhaustiveDependencies: later texts arrive through the view itself.
  useEffect(() => {
    if (!parent.current) return;
    const state =
      kept && kept.doc.toString() === initial ? kept : EditorState.create({ doc: initial, extensions: setup(label) });
    const editor = new EditorView({ parent: parent.current, state });
    editor.dispatch({ effects: EditorView.scrollIntoView(state.selection.main.head, { y: 'center' }) });
    view.current = editor;
    onReady(editor);
    return () => {
      kept = editor.state;
      onReady(null);
      editor.destroy();
      view.current = null;
    };
  }, []);

  useEffect(() => {
    view.current?.dispatch({ effects: wrapping.reconfigure(wrap ? EditorView.lineWrapping : []) });
  }, [wrap]);

  useEffect(() => {
    const editor = view.current;
    // Diagnostics of an older text would underline the wrong places: the next check comes soon.
    if (!editor || editor.state.doc.toString() !== checked.source) return;
    editor.dispatch(
      setDiagnostics(
        editor.state,
        checked.located.map((l) => toEditorDiagnostic(l, checked.source)),
      ),
    );
  }, [checked]);

  return <div ref={parent} className="studio-editor" style={{ height: '100%', minHeight: 0 }} />;
}

/** CodeMirror's pieces for a spec: Markdown, history, line numbers, the lint gutter, completions in field tables. */
function setup(label: string): Extension[] {
  return [
    lineNumbers(),
    highlightActiveLineGutter(),
    highlightSpecialChars(),
    history(),
    drawSelection(),
    dropCursor(),
    indentOnInput(),
    syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
    bracketMatching(),
    highlightActiveLine(),
    // Tab is left to move focus (no indentWithTab): the editor is not a keyboard trap.
    keymap.of([...completionKeymap, ...defaultKeymap, ...historyKeymap, ...lintKeymap]),
    // The types (file and image among them) and a file field's limits, offered in point 3's tables.
    autocompletion({ override: [specCompletions], defaultKeymap: false }),
    markdown(),
    lintGutter(),
    EDITOR_THEME,
    // A table row is never wrapped mid-row: wide rows scroll sideways (a switch wraps prose instead).
    wrapping.of([]),
    // An explicit tab stop: axe (and some assistive technology) do not count contenteditable as focusable.
    EditorView.contentAttributes.of({ 'aria-label': label, 'aria-multiline': 'true', tabindex: '0' }),
    EditorView.updateListener.of((update) => {
      if (update.docChanged) changed(update.state.doc.toString());
    }),
  ];
}

function toEditorDiagnostic({ diagnostic, from, to, fixes }: Located, source: string): EditorDiagnostic {
  return {
    from,
    to,
    severity: diagnostic.severity,
    source: diagnostic.code,
    message: diagnostic.hint ? `${diagnostic.message} ${diagnostic.hint}` : diagnostic.message,
    actions: fixes.map((fix) => ({
      name: fix.title,
      // CodeMirror passes the diagnostic's span as it is now, after edits made since the check.
      apply: (editor, now) => applyFix(editor, fix, source.slice(fix.from, fix.to), now - from),
    })),
  };
}

/**
 * Applies a quick fix found in an older text, shifted by how far its diagnostic moved since;
 * refused (false) when the text it replaces is no longer there.
 */
export function applyFix(editor: EditorView, fix: QuickFix, wrong: string, shift = 0): boolean {
  const from = fix.from + shift;
  const to = fix.to + shift;
  if (from < 0 || to > editor.state.doc.length || editor.state.sliceDoc(from, to) !== wrong) return false;
  editor.dispatch({
    changes: { from, to, insert: fix.insert },
    selection: { anchor: from + fix.insert.length },
    scrollIntoView: true,
    userEvent: 'input.quickfix',
  });
  return true;
}

/** Puts the cursor at an offset, scrolls it into view and gives the editor the keyboard. */
export function moveCursor(editor: EditorView, at: number): void {
  const anchor = Math.min(at, editor.state.doc.length);
  editor.dispatch({ selection: { anchor }, scrollIntoView: true });
  editor.focus();
}

/** Selects a line (from a refusal's "why?"), scrolls it to the middle and gives the editor the keyboard. */
export function selectLine(editor: EditorView, from: number, to: number): void {
  const length = editor.state.doc.length;
  editor.dispatch({
    selection: { anchor: Math.min(from, length), head: Math.min(to, length) },
    effects: EditorView.scrollIntoView(Math.min(from, length), { y: 'center' }),
  });
  editor.focus();
}

/** Puts the cursor at the start of a 1-based line, that line at the top of the view, and gives the editor the keyboard. */
export function jumpToLine(editor: EditorView, line: number): void {
  const doc = editor.state.doc;
  const at = doc.line(Math.max(1, Math.min(line, doc.lines))).from;
  editor.dispatch({ selection: { anchor: at }, effects: EditorView.scrollIntoView(at, { y: 'start', yMargin: 8 }) });
  editor.focus();
}

/** Writes a guided form's row (one undoable edit), selects it and scrolls it into view. */
export function insertRow(editor: EditorView, row: { at: number; insert: string }): void {
  const at = Math.min(row.at, editor.state.doc.length);
  editor.dispatch({
    changes: { from: at, insert: row.insert },
    // The row without its leading line break.
    selection: { anchor: at + 1, head: at + row.insert.trimEnd().length },
    effects: EditorView.scrollIntoView(at + 1, { y: 'center' }),
    userEvent: 'input.guided',
  });
  editor.focus();
}

/** Replaces the whole text as one undoable edit. */
export function replaceText(editor: EditorView, text: string): void {
  if (editor.state.doc.toString() === text) return;
  editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: text } });
}

/**
 * The editor's look: the page's fonts and colours, and gutters that read at WCAG AA (CodeMirror's
 * own line numbers are #999 on #f5f5f5, 2.6:1).
 */
const EDITOR_THEME = EditorView.theme({
  '&': { height: '100%', fontSize: '13.5px', backgroundColor: 'var(--mantine-color-body)' },
  '&.cm-focused': { outline: 'none' },
  '.cm-scroller': {
    fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace',
    lineHeight: '1.55',
  },
  '.cm-gutters': {
    backgroundColor: 'var(--mantine-color-gray-0)',
    color: '#5c636a',
    borderRight: '1px solid var(--mantine-color-gray-3)',
  },
  '.cm-activeLineGutter': { backgroundColor: 'var(--mantine-color-indigo-0)', color: '#212529' },
  '.cm-activeLine': { backgroundColor: 'rgba(76, 110, 245, 0.05)' },
  '.cm-tooltip-lint': { maxWidth: '32rem' },
  '.cm-diagnosticSource': { color: '#5c636a' },
});
