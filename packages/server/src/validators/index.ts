// The browser's field checks' public face: the plugin that serves them and the code it serves.
export { PAYLOADS, type ValidatorsModule, validatorsModule } from './validators-code.ts';
export { VALIDATORS_PATH, type ValidatorsOptions, validators } from './validators-plugin.ts';
