// The code feature's public face: point 7's TypeScript modules (custom calls, hooks, scheduled jobs).
export { CODE_API } from './code-api.ts';
export { type CodeFeature, type CodeOptions, code } from './code-plugin.ts';
export { CodeActors, CodeRefusal } from './code-records.ts';
export { CodeRunner } from './code-runtime.ts';
export {
  type AnySpec,
  type CallContext,
  type Changes,
  type CodeCall,
  type CodeContext,
  type CodeHook,
  type CodeJob,
  type CodeLogger,
  type CodeUser,
  defineCall,
  defineHook,
  defineJob,
  type HookContext,
  type JobContext,
  type RecordsAccess,
  type SpecTypes,
} from './code-types.ts';
export { type LoadedModules, loadModules } from './load-modules.ts';
