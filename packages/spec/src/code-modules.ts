import { type Diagnostic, DiagnosticBag } from './diagnostics.ts';
import type { CodeRef, Model, Span } from './model.ts';

/** What a module's export is for: answering a custom call, a hook on a write, or a scheduled job. */
export type CodeUse = 'call' | 'hook' | 'job';

/** One export the spec needs from a module, and where it says so. */
export interface CodeNeed {
  file: string;
  export: string;
  use: CodeUse;
  /** The call or hook that names it, in words ("Call POST /api/quotes/:id/price"). */
  what: string;
  span: Span;
}

/**
 * What a module turned out to hold, found by whoever can read files (the CLI and the server):
 * the spec package never touches the file system. An export is `call`, `hook` or `job` when it
 * was made with `defineCall`, `defineHook` or `defineJob`, `function` for a plain function, and
 * `other` for anything else.
 */
export type ModuleFacts =
  | { found: false; why: string }
  | { found: true; exports: Readonly<Record<string, CodeUse | 'function' | 'other'>> };

/** Every module export the model names, in the order the spec names them. */
export function codeNeeds(model: Model): CodeNeed[] {
  const needs: CodeNeed[] = [];
  for (const call of model.calls) {
    if (call.action.kind !== 'code') continue;
    const code: CodeRef = call.action.code;
    needs.push({ ...ref(code), use: 'call', what: `Call ${call.method} ${call.path}`, span: code.span });
  }
  for (const hook of model.hooks) {
    const on =
      hook.event.kind === 'schedule'
        ? `schedule ${hook.event.job}`
        : hook.event.kind === 'transition'
          ? `${hook.event.entity}: ${hook.event.transition}`
          : `${hook.event.kind} ${hook.event.entity}`;
    needs.push({
      ...ref(hook.code),
      use: hook.moment === 'schedule' ? 'job' : 'hook',
      what: hook.event.kind === 'schedule' ? `The job "${hook.event.job}"` : `The hook ${hook.moment} ${on}`,
      span: hook.code.span,
    });
  }
  return needs;
}

function ref(code: CodeRef): { file: string; export: string } {
  return { file: code.file, export: code.export };
}

const DEFINE: Record<CodeUse, string> = { call: 'defineCall', hook: 'defineHook', job: 'defineJob' };

/**
 * Judges the modules the model names against what was found in them: a missing or failing
 * module is `missing-module`; an export that is not there, not a function, or made for another
 * use (a `defineHook` named as a call) is `missing-export`.
 */
export function checkModules(model: Model, facts: ReadonlyMap<string, ModuleFacts>): Diagnostic[] {
  const bag = new DiagnosticBag();
  for (const need of codeNeeds(model)) {
    const found = facts.get(need.file);
    if (!found) continue;
    const name = need.export === 'default' ? 'a default export' : `"${need.export}"`;
    if (!found.found) {
      bag.report('missing-module', need.span, `${need.what} runs ${need.file}, which ${found.why}.`, {
        hint: `Write ${need.file} beside the spec, exporting ${name} made with ${DEFINE[need.use]} (\`ninepoint types\` writes the spec's types for it).`,
      });
      continue;
    }
    const kind = found.exports[need.export];
    const define = DEFINE[need.use];
    if (kind === undefined) {
      const others = Object.keys(found.exports).filter((e) => e !== 'default');
      bag.report('missing-export', need.span, `${need.what} runs ${name} of ${need.file}, which it does not export.`, {
        expected: need.export === 'default' ? [] : others,
        hint:
          need.export === 'default'
            ? `Add \`export default ${define}(…)\` to ${need.file}, or name the export: "${others[0] ?? 'price'} from ${need.file}".`
            : `Export it: \`export const ${need.export} = ${define}(…)\`.`,
      });
    } else if (kind === 'other') {
      bag.report('missing-export', need.span, `${need.what} runs ${name} of ${need.file}, which is not a function.`, {
        hint: `Make it with ${define}(async (context) => …).`,
      });
    } else if (kind !== 'function' && kind !== need.use) {
      bag.report(
        'missing-export',
        need.span,
        `${need.what} runs ${name} of ${need.file}, which is made with ${DEFINE[kind]}, for another use.`,
        {
          hint: `A ${need.use === 'call' ? 'custom call' : need.use === 'hook' ? 'hook' : 'scheduled job'} is made with ${define}: its context and answer differ.`,
        },
      );
    }
  }
  return bag.sorted();
}
